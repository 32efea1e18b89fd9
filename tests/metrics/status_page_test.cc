// StatusPage: bounded history, rates and quantiles from consecutive snapshots, and a page whose
// charts and labels are well formed and escaped. Snapshots are built by hand: no clock, no sleep.
#include "blobtune/metrics/status_page.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "blobtune/base/version.h"
#include "blobtune/metrics/histogram.h"
#include "xml_check.h"

namespace blobtune::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

LimiterSnapshot Limiter(const std::string& name, int limit, uint64_t successes,
                        uint64_t rejected = 0, uint64_t timeouts = 0) {
  LimiterSnapshot s;
  s.name = name;
  s.permits[static_cast<size_t>(PermitEnd::kSuccess)] = successes;
  s.permits[static_cast<size_t>(PermitEnd::kRejected)] = rejected;
  s.permits[static_cast<size_t>(PermitEnd::kTimeout)] = timeouts;
  s.gauges = LimiterGauges{.limit = limit, .inflight = limit / 2, .algorithm = "marginal"};
  s.success_latency = HistogramSnapshot{
      .upper_bounds = {1'000'000, 2'000'000}, .counts = {0, successes, 0}, .count = successes};
  return s;
}

// A partition that held `inflight` permits and has had `successes` (each waiting 1-2 ms) and
// `refused` refusals so far.
PartitionSnapshot Partition(const std::string& name, double share, int priority, int inflight,
                            uint64_t successes, uint64_t refused = 0) {
  PartitionSnapshot p;
  p.name = name;
  p.permits[static_cast<size_t>(PermitEnd::kSuccess)] = successes;
  p.permits[static_cast<size_t>(PermitEnd::kRejected)] = refused;
  p.success_latency = HistogramSnapshot{
      .upper_bounds = {1'000'000, 2'000'000}, .counts = {successes, 0, 0}, .count = successes};
  p.queue_wait = HistogramSnapshot{
      .upper_bounds = {1'000'000, 2'000'000}, .counts = {0, successes, 0}, .count = successes};
  p.status = tuner::PartitionStatus{.options = {.name = name, .share = share, .priority = priority},
                                    .inflight = inflight,
                                    .waiting = 2,
                                    .guaranteed = static_cast<int>(share * 10)};
  return p;
}

// The page's live part, which is XML (the head holds HTML's unclosed <meta>).
std::string LivePart(const std::string& html) {
  const size_t begin = html.find("<div id='live'>");
  const size_t end = html.find("</div>\n<script>");
  if (begin == std::string::npos || end == std::string::npos) return "";
  return html.substr(begin, end + 6 - begin);
}

// The points of the polyline with data-series `id` in `html`'s first chart with one.
size_t PointCount(const std::string& html, const std::string& id) {
  const size_t at = html.find("data-series='" + id + "'");
  if (at == std::string::npos) return 0;
  const size_t begin = html.find("points='", at) + 8;
  const std::string list = html.substr(begin, html.find('\'', begin) - begin);
  size_t n = 0;
  for (char c : list) n += c == ',';
  return n;
}

// How many polylines (runs between gaps) the series with data-series `id` is drawn as.
size_t Runs(const std::string& html, const std::string& id) {
  size_t n = 0;
  for (size_t at = html.find("data-series='" + id + "'"); at != std::string::npos;
       at = html.find("data-series='" + id + "'", at + 1)) {
    ++n;
  }
  return n;
}

TEST(SeriesRingTest, KeepsTheLastPointsOldestFirst) {
  SeriesRing ring(3);
  for (int i = 1; i <= 5; ++i) ring.Push(i, 10 * i);
  EXPECT_EQ(ring.size(), 3u);
  const std::vector<std::pair<double, double>> expected = {{3, 30}, {4, 40}, {5, 50}};
  EXPECT_EQ(ring.Points(), expected);
}

TEST(QuantileSecondsTest, InterpolatesWithinTheBucketOfTheDifference) {
  HistogramSnapshot before{.upper_bounds = {1000, 2000}, .counts = {5, 0, 0}, .count = 5};
  HistogramSnapshot after{.upper_bounds = {1000, 2000}, .counts = {5, 10, 0}, .count = 15};
  // Ten new values, all in (1000, 2000] ns: the median is halfway through that bucket.
  EXPECT_NEAR(*QuantileSeconds(before, after, 0.5), 1500e-9, 1e-12);
  EXPECT_NEAR(*QuantileSeconds(before, after, 0.99), 1990e-9, 1e-12);
  EXPECT_FALSE(QuantileSeconds(after, after, 0.5).has_value());  // Nothing new.
  HistogramSnapshot overflow{.upper_bounds = {1000, 2000}, .counts = {5, 0, 4}, .count = 9};
  EXPECT_NEAR(*QuantileSeconds(before, overflow, 0.5), 2000e-9, 1e-12);  // The last bound.
}

TEST(StatusPageTest, AnEmptyPageSaysSoAndIsWellFormed) {
  StatusPage page;
  const std::string html = page.Html();
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, HasSubstr("No limiter or store is observed yet."));
  EXPECT_EQ(::blobtune::testing::WellFormedXml(LivePart(html)), "");
}

TEST(StatusPageTest, RecordsGaugesAtOnceAndRatesFromTheSecondRecord) {
  StatusPage page;
  page.Record(1.0, {Limiter("read", 8, 0)}, {});
  std::string html = page.Html();
  EXPECT_EQ(PointCount(html, "limit"), 1u);
  EXPECT_EQ(PointCount(html, "goodput"), 0u);
  page.Record(2.0, {Limiter("read", 9, 500, 30, 7)}, {});
  page.Record(3.0, {Limiter("read", 10, 1500, 30, 7)}, {});
  html = page.Html();
  EXPECT_EQ(PointCount(html, "limit"), 3u);
  EXPECT_EQ(PointCount(html, "goodput"), 2u);
  EXPECT_EQ(PointCount(html, "p50"), 2u);
  EXPECT_EQ(PointCount(html, "refusals"), 2u);
  EXPECT_EQ(PointCount(html, "timeouts"), 2u);
  EXPECT_THAT(html, HasSubstr("<dd>marginal</dd>"));
  EXPECT_EQ(::blobtune::testing::WellFormedXml(LivePart(html)), "");
}

TEST(StatusPageTest, RecordsThatDoNotMoveForwardAreIgnored) {
  StatusPage page;
  page.Record(5.0, {Limiter("read", 8, 0)}, {});
  page.Record(5.0, {Limiter("read", 8, 0)}, {});
  page.Record(4.0, {Limiter("read", 8, 0)}, {});
  EXPECT_EQ(PointCount(page.Html(), "limit"), 1u);
}

TEST(StatusPageTest, HistoryIsBoundedByTheCapacity) {
  StatusPage page(/*capacity=*/4);
  for (int t = 1; t <= 50; ++t) page.Record(t, {Limiter("read", t, 100 * t)}, {});
  const std::string html = page.Html();
  EXPECT_EQ(PointCount(html, "limit"), 4u);
  EXPECT_EQ(PointCount(html, "goodput"), 4u);
}

TEST(StatusPageTest, ShowsTheStoreFigures) {
  StatusPage page;
  StoreSnapshot s;
  s.name = "blobs";
  s.map_size_bytes = 100 << 20;
  s.map_used_bytes = 25 << 20;
  s.map_max_bytes = 200 << 20;
  page.Record(1.0, {}, {s});
  s.commits_ok = 40;
  s.batch_size = HistogramSnapshot{
      .upper_bounds = {1, 2, 4}, .counts = {0, 0, 40, 0}, .count = 40, .sum = 120};
  page.Record(3.0, {}, {s});
  const std::string html = page.Html();
  EXPECT_THAT(html, HasSubstr("data-store='blobs'"));
  EXPECT_EQ(PointCount(html, "commits"), 1u);
  EXPECT_EQ(PointCount(html, "batch_size"), 1u);
  EXPECT_EQ(PointCount(html, "map_use"), 2u);
  EXPECT_THAT(html, HasSubstr("25 MiB used, map 100 MiB, maximum 200 MiB"));
  EXPECT_THAT(html, HasSubstr("map use, % of the maximum map size"));
  // 25 of 200 MiB: 12.5 %, on an axis whose round ticks run to 15.
  EXPECT_THAT(html, HasSubstr(">15</text>"));
  EXPECT_EQ(::blobtune::testing::WellFormedXml(LivePart(html)), "");
}

TEST(StatusPageTest, ASecondWithoutAValueBreaksTheLine) {
  StatusPage page;
  page.Record(1.0, {Limiter("read", 8, 0)}, {});
  page.Record(2.0, {Limiter("read", 8, 100)}, {});
  page.Record(3.0, {Limiter("read", 8, 200)}, {});
  page.Record(4.0, {Limiter("read", 8, 200)}, {});  // Idle: no latency this second.
  page.Record(5.0, {Limiter("read", 8, 300)}, {});
  page.Record(6.0, {Limiter("read", 8, 400)}, {});
  const std::string html = page.Html();
  EXPECT_EQ(Runs(html, "p50"), 2u);
  EXPECT_EQ(Runs(html, "goodput"), 1u) << "a rate of 0 is a value";
  EXPECT_EQ(Runs(html, "limit"), 1u);
  EXPECT_EQ(::blobtune::testing::WellFormedXml(LivePart(html)), "");
}

TEST(StatusPageTest, ShowsTheTimeVersionUptimeAndAFixedWindowOfWholeMinutes) {
  StatusPage page;
  page.Record(1.0, {Limiter("read", 8, 0)}, {});
  page.Record(2.0, {Limiter("read", 8, 10)}, {});
  const std::string html = page.Html();
  EXPECT_THAT(html, HasSubstr("<dd data-fact='version'>" + std::string(kVersion) + "</dd>"));
  EXPECT_THAT(html, HasSubstr("<dd data-fact='window'>the last 5 minutes</dd>"));
  EXPECT_THAT(html, HasSubstr("<dd data-fact='uptime'>"));
  const size_t time = html.find("<dd data-fact='time'>");
  ASSERT_NE(time, std::string::npos);
  EXPECT_EQ(html.substr(time + 21 + 19, 4), " UTC") << html.substr(time, 50);
  EXPECT_THAT(html, HasSubstr("time (UTC), the last 5 minutes"));
  // Two seconds of history on a five-minute axis: the axis is as wide as ever, with a tick
  // (HH:MM) at each of the five whole minutes it spans.
  const std::string live = LivePart(html);
  const size_t chart = live.find("data-limiter='read'");
  const std::string section = live.substr(chart, live.find("</section>", chart) - chart);
  size_t minute_ticks = 0;
  for (size_t at = section.find("text-anchor='middle'>"); at != std::string::npos;
       at = section.find("text-anchor='middle'>", at + 1)) {
    const std::string label = section.substr(at + 21, 6);
    if (label.size() == 6 && label[2] == ':' && label[5] == '<') ++minute_ticks;
  }
  EXPECT_EQ(minute_ticks % 5, 0u) << "whole minutes, five per panel";
  EXPECT_GE(minute_ticks, 5u);
}

TEST(StatusPageTest, TheLimitChartHasWholeNumberTicks) {
  StatusPage page;
  page.Record(1.0, {Limiter("read", 3, 0)}, {});
  page.Record(2.0, {Limiter("read", 3, 10)}, {});
  const std::string html = page.Html();
  const size_t panel = html.find("limit (blue) and permits in flight (orange)");
  const size_t next = html.find("goodput, successful permits per second", panel);
  const std::string limits = html.substr(panel, next - panel);
  EXPECT_THAT(limits, HasSubstr(">4</text>"));
  EXPECT_THAT(limits, Not(HasSubstr(".5</text>")));
  EXPECT_THAT(limits, Not(HasSubstr(".25</text>")));
}

TEST(StatusPageTest, ALimiterWithPartitionsGetsATableAndALinePerPartition) {
  StatusPage page;
  for (int t = 1; t <= 3; ++t) {
    LimiterSnapshot s = Limiter("read", 10, 300 * t);
    s.partitions = {Partition("interactive", 0.3, 1, 2, 100 * t),
                    Partition("bulk", 0.7, 0, 8, 200 * t, 5 * t)};
    page.Record(t, {s}, {});
  }
  const std::string html = page.Html();
  EXPECT_THAT(html, HasSubstr("<tr data-partition='interactive'><td>interactive</td><td>0.30</td>"
                              "<td>1</td><td>3</td><td>2</td><td>20%</td><td>2</td></tr>"));
  EXPECT_THAT(html, HasSubstr("<tr data-partition='bulk'><td>bulk</td><td>0.70</td>"));
  for (const std::string name : {"interactive", "bulk"}) {
    // Gauges from the first record, rates and quantiles from the second.
    EXPECT_EQ(PointCount(html, "partition:" + name + ":inflight"), 3u) << name;
    EXPECT_EQ(PointCount(html, "partition:" + name + ":guaranteed"), 3u) << name;
    EXPECT_EQ(PointCount(html, "partition:" + name + ":goodput"), 2u) << name;
    EXPECT_EQ(PointCount(html, "partition:" + name + ":p99"), 2u) << name;
    EXPECT_EQ(PointCount(html, "partition:" + name + ":wait_p99"), 2u) << name;
    EXPECT_EQ(PointCount(html, "partition:" + name + ":failures"), 2u) << name;
    EXPECT_THAT(html, HasSubstr(">" + name + "</text>"));  // In the legend.
  }
  EXPECT_EQ(::blobtune::testing::WellFormedXml(LivePart(html)), "");
}

TEST(StatusPageTest, ALimiterWithoutPartitionsHasNoPartitionTable) {
  StatusPage page;
  page.Record(1.0, {Limiter("read", 8, 0)}, {});
  page.Record(2.0, {Limiter("read", 8, 10)}, {});
  const std::string html = page.Html();
  EXPECT_THAT(html, Not(HasSubstr("<table class='partitions'>")));
  EXPECT_THAT(html, Not(HasSubstr("data-series='partition:")));
}

TEST(StatusPageTest, EscapesEveryLabelItShows) {
  StatusPage page;
  LimiterSnapshot evil = Limiter("<script>alert('x')</script>", 4, 0);
  evil.gauges->algorithm = "a&b<i>";
  evil.gauges->state = "\"probing\"";
  StoreSnapshot store;
  evil.partitions = {Partition("<th>&", 0.5, 0, 1, 0)};
  store.name = "</section><b>";
  page.Record(1.0, {evil}, {store});
  const std::string html = page.Html();
  EXPECT_THAT(html, Not(HasSubstr("<script>alert")));
  EXPECT_THAT(html, Not(HasSubstr("<i>")));
  EXPECT_THAT(html, Not(HasSubstr("</section><b>")));
  EXPECT_THAT(html, Not(HasSubstr("<th>&")));
  EXPECT_THAT(html, HasSubstr("<td>&lt;th&gt;&amp;</td>"));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
  EXPECT_THAT(html, HasSubstr("a&amp;b&lt;i&gt;"));
  EXPECT_EQ(::blobtune::testing::WellFormedXml(LivePart(html)), "");
}

TEST(StatusPageTest, RefreshesItselfWithAndWithoutScript) {
  StatusPage page;
  const std::string html = page.Html(3);
  EXPECT_THAT(html, HasSubstr("<noscript><meta http-equiv='refresh' content='3'></noscript>"));
  EXPECT_THAT(html, HasSubstr("var every = 3000;"));
  // Nothing is loaded from elsewhere.
  EXPECT_THAT(html, Not(HasSubstr("src=")));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  EXPECT_THAT(html, Not(HasSubstr("url(")));
}

}  // namespace
}  // namespace blobtune::metrics
