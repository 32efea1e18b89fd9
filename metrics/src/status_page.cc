#include "blobtune/metrics/status_page.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>

#include "blobtune/base/version.h"
#include "blobtune/svg/chart.h"
#include "process_stats.h"

namespace blobtune::metrics {
namespace {

std::string Fixed(double v, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

uint64_t Delta(uint64_t before, uint64_t after) { return after >= before ? after - before : 0; }

uint64_t Refusals(const std::array<uint64_t, kPermitEndCount>& permits) {
  return permits[static_cast<size_t>(PermitEnd::kRejected)] +
         permits[static_cast<size_t>(PermitEnd::kQueueFull)];
}

uint64_t Count(const std::array<uint64_t, kPermitEndCount>& permits, PermitEnd end) {
  return permits[static_cast<size_t>(end)];
}

// Acquires that got no permit: refused, or timed out waiting.
uint64_t Failures(const std::array<uint64_t, kPermitEndCount>& permits) {
  return Refusals(permits) + Count(permits, PermitEnd::kTimeout);
}

// The script that keeps the page live: fetch it again, swap the charts in place. Ours, inline,
// nothing fetched from elsewhere; on any failure the page simply stays as it is.
constexpr const char* kRefreshScript = R"(<script>
(function () {
  var every = REFRESH_MS;
  function refresh() {
    fetch(window.location.href, {cache: 'no-store', credentials: 'same-origin'})
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (text === null) return;
        var next = new DOMParser().parseFromString(text, 'text/html').getElementById('live');
        var live = document.getElementById('live');
        if (!next || !live) return;
        var swapped = document.importNode(next, true);
        var count = Number(live.getAttribute('data-refreshes') || 0) + 1;
        swapped.setAttribute('data-refreshes', String(count));  // For tests: it ran.
        live.replaceWith(swapped);
      })
      .catch(function () {})
      .finally(function () { window.setTimeout(refresh, every); });
  }
  window.setTimeout(refresh, every);
})();
</script>
)";

}  // namespace

void SeriesRing::Push(double t, double value) {
  if (points_.size() < capacity_) {
    points_.emplace_back(t, value);
    return;
  }
  points_[next_] = {t, value};
  next_ = (next_ + 1) % capacity_;
}

std::vector<std::pair<double, double>> SeriesRing::Points() const {
  std::vector<std::pair<double, double>> out;
  out.reserve(points_.size());
  out.insert(out.end(), points_.begin() + static_cast<std::ptrdiff_t>(next_), points_.end());
  out.insert(out.end(), points_.begin(), points_.begin() + static_cast<std::ptrdiff_t>(next_));
  return out;
}

std::optional<double> QuantileSeconds(const HistogramSnapshot& before,
                                      const HistogramSnapshot& after, double q) {
  const std::vector<uint64_t>& bounds = after.upper_bounds;
  if (after.counts.size() != bounds.size() + 1) return std::nullopt;
  const bool same = before.counts.size() == after.counts.size();
  std::vector<uint64_t> counts(after.counts.size());
  uint64_t total = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    counts[i] = Delta(same ? before.counts[i] : 0, after.counts[i]);
    total += counts[i];
  }
  if (total == 0) return std::nullopt;
  const double rank = std::clamp(q, 0.0, 1.0) * static_cast<double>(total);
  double below = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const double here = static_cast<double>(counts[i]);
    if (here > 0 && below + here >= rank) {
      if (i == bounds.size()) return static_cast<double>(bounds.empty() ? 0 : bounds.back()) * 1e-9;
      const double lower = i == 0 ? 0.0 : static_cast<double>(bounds[i - 1]);
      const double upper = static_cast<double>(bounds[i]);
      return (lower + (upper - lower) * (rank - below) / here) * 1e-9;
    }
    below += here;
  }
  return static_cast<double>(bounds.empty() ? 0 : bounds.back()) * 1e-9;
}

namespace {

// One partition of a limiter with partitions: its own series, drawn in the limiter's section.
struct PartitionHistory {
  PartitionHistory(std::string partition_name, size_t capacity)
      : name(std::move(partition_name)),
        inflight(capacity),
        guaranteed(capacity),
        goodput(capacity),
        p99_ms(capacity),
        wait_p99_ms(capacity),
        failures(capacity) {}
  std::string name;
  PartitionSnapshot last;
  SeriesRing inflight, guaranteed, goodput, p99_ms, wait_p99_ms, failures;
};

}  // namespace

struct StatusPage::LimiterHistory {
  explicit LimiterHistory(size_t capacity)
      : limit(capacity),
        inflight(capacity),
        goodput(capacity),
        p50_ms(capacity),
        p99_ms(capacity),
        wait_p50_ms(capacity),
        wait_p99_ms(capacity),
        refusals(capacity),
        timeouts(capacity) {}
  LimiterSnapshot last;
  double last_t = 0;
  SeriesRing limit, inflight, goodput, p50_ms, p99_ms, wait_p50_ms, wait_p99_ms, refusals,
      timeouts;
  std::vector<PartitionHistory> partitions;  // In the limiter's order (its partition ids).
};

struct StatusPage::StoreHistory {
  explicit StoreHistory(size_t capacity)
      : commits(capacity), batch_size(capacity), map_use(capacity) {}
  StoreSnapshot last;
  double last_t = 0;
  SeriesRing commits, batch_size, map_use;
};

StatusPage::StatusPage(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)) {}

namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// A quantile in milliseconds, or no value (a gap in the chart) when nothing was counted.
double QuantileMs(const HistogramSnapshot& before, const HistogramSnapshot& after, double q) {
  const std::optional<double> seconds = QuantileSeconds(before, after, q);
  return seconds ? *seconds * 1e3 : kNoValue;
}

// Permits per second that ended as `end` between two snapshots `dt` seconds apart.
double Rate(const std::array<uint64_t, kPermitEndCount>& before,
            const std::array<uint64_t, kPermitEndCount>& after, PermitEnd end, double dt) {
  return static_cast<double>(Delta(Count(before, end), Count(after, end))) / dt;
}

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace
StatusPage::~StatusPage() = default;

void StatusPage::Record(double t, const std::vector<LimiterSnapshot>& limiters,
                        const std::vector<StoreSnapshot>& stores) {
  MutexLock lock(mu_);
  if (recorded_ && !(t > last_t_)) return;
  recorded_ = true;
  last_t_ = t;
  last_unix_seconds_ = UnixNow();
  for (const LimiterSnapshot& now : limiters) {
    auto [it, fresh] = limiters_.try_emplace(now.name);
    if (fresh) it->second = std::make_unique<LimiterHistory>(capacity_);
    LimiterHistory& h = *it->second;
    h.limit.Push(t, now.gauges ? now.gauges->limit : kNoValue);
    h.inflight.Push(t, now.gauges ? now.gauges->inflight : kNoValue);
    const double dt = t - h.last_t;
    if (!fresh) {
      const LimiterSnapshot& was = h.last;
      h.goodput.Push(t, Rate(was.permits, now.permits, PermitEnd::kSuccess, dt));
      h.refusals.Push(
          t, static_cast<double>(Delta(Refusals(was.permits), Refusals(now.permits))) / dt);
      h.timeouts.Push(t, Rate(was.permits, now.permits, PermitEnd::kTimeout, dt));
      // A second in which no permit was timed (or granted) has no quantile: a gap.
      h.p50_ms.Push(t, QuantileMs(was.success_latency, now.success_latency, 0.50));
      h.p99_ms.Push(t, QuantileMs(was.success_latency, now.success_latency, 0.99));
      h.wait_p50_ms.Push(t, QuantileMs(was.queue_wait, now.queue_wait, 0.50));
      h.wait_p99_ms.Push(t, QuantileMs(was.queue_wait, now.queue_wait, 0.99));
    }
    for (const PartitionSnapshot& part : now.partitions) {
      auto same_name = [&](const PartitionHistory& p) { return p.name == part.name; };
      auto found = std::find_if(h.partitions.begin(), h.partitions.end(), same_name);
      const bool new_partition = found == h.partitions.end();
      PartitionHistory& p =
          new_partition ? h.partitions.emplace_back(part.name, capacity_) : *found;
      p.inflight.Push(t, part.status ? part.status->inflight : kNoValue);
      p.guaranteed.Push(t, part.status ? part.status->guaranteed : kNoValue);
      if (!new_partition && !fresh) {
        const PartitionSnapshot& was = p.last;
        p.goodput.Push(t, Rate(was.permits, part.permits, PermitEnd::kSuccess, dt));
        p.failures.Push(
            t, static_cast<double>(Delta(Failures(was.permits), Failures(part.permits))) / dt);
        p.p99_ms.Push(t, QuantileMs(was.success_latency, part.success_latency, 0.99));
        p.wait_p99_ms.Push(t, QuantileMs(was.queue_wait, part.queue_wait, 0.99));
      }
      p.last = part;
    }
    h.last = now;
    h.last_t = t;
  }
  for (const StoreSnapshot& now : stores) {
    auto [it, fresh] = stores_.try_emplace(now.name);
    if (fresh) it->second = std::make_unique<StoreHistory>(capacity_);
    StoreHistory& h = *it->second;
    // Against the largest the map may grow to, not its current size (which grows as it fills).
    const bool map_known = now.map_max_bytes && now.map_used_bytes && *now.map_max_bytes > 0;
    h.map_use.Push(t, map_known ? 100.0 * static_cast<double>(*now.map_used_bytes) /
                                      static_cast<double>(*now.map_max_bytes)
                                : kNoValue);
    if (!fresh) {
      const StoreSnapshot& was = h.last;
      const uint64_t commits = Delta(was.commits_ok, now.commits_ok);
      h.commits.Push(t, static_cast<double>(commits) / (t - h.last_t));
      const uint64_t batches = Delta(was.batch_size.count, now.batch_size.count);
      h.batch_size.Push(t, batches > 0 ? static_cast<double>(
                                             Delta(was.batch_size.sum, now.batch_size.sum)) /
                                             static_cast<double>(batches)
                                       : kNoValue);
    }
    h.last = now;
    h.last_t = t;
  }
}

namespace {

// Maps the page's steady sample times to wall-clock time (seconds since the epoch): the latest
// sample was taken at `last_unix`.
struct TimeAxis {
  double last_t = 0;
  double last_unix = 0;
  double Unix(double t) const { return last_unix - (last_t - t); }
};

std::string UtcTime(double unix_seconds, const char* format) {
  const auto whole = static_cast<std::time_t>(std::floor(unix_seconds));
  std::tm tm{};
  gmtime_r(&whole, &tm);
  char text[64];
  std::strftime(text, sizeof text, format, &tm);
  return text;
}

// "42 s", "17 min 5 s", "3 h 02 min", "2 d 4 h".
std::string Uptime(double seconds) {
  const auto s = static_cast<int64_t>(std::max(0.0, seconds));
  char text[48];
  if (s < 60) {
    std::snprintf(text, sizeof text, "%lld s", static_cast<long long>(s));
  } else if (s < 3600) {
    std::snprintf(text, sizeof text, "%lld min %lld s", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  } else if (s < 86400) {
    std::snprintf(text, sizeof text, "%lld h %02lld min", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60));
  } else {
    std::snprintf(text, sizeof text, "%lld d %lld h", static_cast<long long>(s / 86400),
                  static_cast<long long>(s / 3600 % 24));
  }
  return text;
}

// A series' points placed on the wall-clock axis; NaN values stay NaN (gaps).
svg::Series Line(const SeriesRing& ring, const TimeAxis& axis, size_t colour, std::string id,
                 double stroke = 1.8) {
  svg::Series s{.colour = colour, .stroke = stroke, .id = std::move(id)};
  for (const auto& [t, v] : ring.Points()) s.points.emplace_back(axis.Unix(t), v);
  return s;
}

// A chart panel over the fixed window that ends at the latest sample, ticked at every whole
// minute of wall-clock time (UTC).
svg::Panel TimePanel(std::string title, const TimeAxis& axis, bool integer = false) {
  const double end = axis.last_unix;
  const double begin = end - static_cast<double>(kStatusPageWindow.count());
  svg::Panel panel{.title = std::move(title), .x_min = begin, .x_max = end, .y_grid = true,
                   .y_integer = integer};
  for (double minute = std::ceil(begin / 60) * 60; minute <= end; minute += 60) {
    panel.x_ticks.emplace_back(minute, UtcTime(minute, "%H:%M"));
  }
  return panel;
}

std::string Fact(std::string_view name, const std::string& value) {
  return "<dt>" + svg::EscapeXml(name) + "</dt><dd>" + svg::EscapeXml(value) + "</dd>";
}

// A fact of the whole page, marked for machines (data-fact) as well as shown.
std::string PageFact(std::string_view name, const std::string& value) {
  return "<dt>" + svg::EscapeXml(name) + "</dt><dd data-fact='" + svg::EscapeXml(name) + "'>" +
         svg::EscapeXml(value) + "</dd>";
}

std::string Mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// A limiter's partitions: a table of what each is configured for and holds now, then one chart
// with a line per partition (its palette colour, named in the legend).
std::string PartitionsHtml(const std::vector<PartitionHistory>& partitions, int limit,
                           const TimeAxis& axis, const std::string& x_label) {
  std::string html =
      "<table class='partitions'>\n<tr><th>partition</th><th>share</th><th>priority</th>"
      "<th>guaranteed</th><th>in flight</th><th>of the limit</th><th>waiting</th></tr>\n";
  for (const PartitionHistory& p : partitions) {
    const std::string name = svg::EscapeXml(p.name);
    auto cell = [](const std::string& text) { return "<td>" + svg::EscapeXml(text) + "</td>"; };
    html += "<tr data-partition='" + name + "'><td>" + name + "</td>";
    if (const std::optional<tuner::PartitionStatus>& status = p.last.status) {
      const std::string held =
          limit > 0 ? Fixed(100.0 * status->inflight / limit, 0) + "%" : std::string("-");
      html += cell(Fixed(status->options.share, 2)) +
              cell(std::to_string(status->options.priority)) +
              cell(std::to_string(status->guaranteed)) + cell(std::to_string(status->inflight)) +
              cell(held) + cell(std::to_string(status->waiting));
    } else {
      html += "<td colspan='6'>no limiter</td>";
    }
    html += "</tr>\n";
  }
  html += "</table>\n";

  svg::Chart chart{.width = 900, .panel_height = 120, .gap = 45, .x_label = x_label};
  svg::Panel inflight = TimePanel(
      "per partition: permits in flight (solid) and guaranteed, floor(share x limit) (dashed)",
      axis, /*integer=*/true);
  svg::Panel goodput = TimePanel("per partition: goodput, successful permits per second", axis);
  svg::Panel latency = TimePanel("per partition: latency of successful permits, p99, ms", axis);
  svg::Panel wait = TimePanel("per partition: wait for a permit, p99, ms", axis);
  svg::Panel failed = TimePanel("per partition: acquires refused or timed out, per second", axis);
  chart.legend_on_top = true;
  for (size_t i = 0; i < partitions.size(); ++i) {
    const PartitionHistory& p = partitions[i];
    const std::string id = "partition:" + p.name + ":";
    inflight.series.push_back(Line(p.inflight, axis, i, id + "inflight"));
    svg::Series guaranteed = Line(p.guaranteed, axis, i, id + "guaranteed", 1.2);
    guaranteed.dash = "6,4";
    inflight.series.push_back(std::move(guaranteed));
    goodput.series.push_back(Line(p.goodput, axis, i, id + "goodput"));
    latency.series.push_back(Line(p.p99_ms, axis, i, id + "p99"));
    wait.series.push_back(Line(p.wait_p99_ms, axis, i, id + "wait_p99"));
    failed.series.push_back(Line(p.failures, axis, i, id + "failures"));
    chart.legend.push_back(p.name);
  }
  chart.panels = {std::move(inflight), std::move(goodput), std::move(latency), std::move(wait),
                  std::move(failed)};
  return html + svg::ChartSvg(chart);
}

}  // namespace

std::string StatusPage::Html(int refresh_seconds) const {
  refresh_seconds = std::max(refresh_seconds, 1);
  const std::optional<internal::ProcessStats> process = internal::ReadProcessStats();
  std::string body;
  {
    MutexLock lock(mu_);
    const TimeAxis axis{.last_t = last_t_,
                        .last_unix = recorded_ ? last_unix_seconds_ : UnixNow()};
    const std::string window_text =
        "the last " + std::to_string(kStatusPageWindow.count() / 60) + " minutes";
    body += "<dl class='page'>" +
            PageFact("time", UtcTime(axis.last_unix, "%Y-%m-%d %H:%M:%S UTC")) +
            PageFact("version", std::string(kVersion));
    if (process) body += PageFact("uptime", Uptime(axis.last_unix - process->start_time_seconds));
    body += PageFact("window", window_text) + "</dl>\n";
    const std::string x_label = "time (UTC), " + window_text;

    if (limiters_.empty() && stores_.empty()) {
      body += "<p>No limiter or store is observed yet.</p>\n";
    }
    for (const auto& [name, h] : limiters_) {
      const LimiterSnapshot& s = h->last;
      body += "<section class='limiter' data-limiter='" + svg::EscapeXml(name) +
              "'>\n<h2>limiter " + svg::EscapeXml(name) + "</h2>\n<dl>";
      if (s.gauges) {
        const LimiterGauges& g = *s.gauges;
        body += Fact("algorithm", g.algorithm.empty() ? "unknown" : g.algorithm);
        if (!g.state.empty()) body += Fact("state", g.state);
        body += Fact("limit", std::to_string(g.limit)) +
                Fact("bounds", std::to_string(g.min_limit) + " to " + std::to_string(g.max_limit)) +
                Fact("in flight", std::to_string(g.inflight)) +
                Fact("queued", std::to_string(g.queue_length)) +
                Fact("sampling", "1 in " + std::to_string(g.sample_stride));
        if (g.baseline_latency_seconds) {
          body += Fact("baseline latency", Fixed(*g.baseline_latency_seconds * 1e3, 3) + " ms");
        }
        if (g.recent_latency_seconds) {
          body += Fact("recent latency", Fixed(*g.recent_latency_seconds * 1e3, 3) + " ms");
        }
        if (g.max_throughput) body += Fact("max throughput", Fixed(*g.max_throughput, 1) + "/s");
      } else {
        body += Fact("algorithm", "no limiter");
      }
      body += "</dl>\n";
      svg::Chart chart{.width = 900, .panel_height = 120, .gap = 45, .x_label = x_label};
      svg::Panel limits =
          TimePanel("limit (blue) and permits in flight (orange)", axis, /*integer=*/true);
      limits.series = {Line(h->limit, axis, 0, "limit", 2.2), Line(h->inflight, axis, 1, "inflight")};
      svg::Panel goodput = TimePanel("goodput, successful permits per second", axis);
      goodput.series = {Line(h->goodput, axis, 2, "goodput")};
      svg::Panel latency =
          TimePanel("latency of successful permits, ms: p50 (blue), p99 (red)", axis);
      latency.series = {Line(h->p50_ms, axis, 0, "p50"), Line(h->p99_ms, axis, 3, "p99")};
      svg::Panel wait = TimePanel("wait for a permit, ms: p50 (blue), p99 (red)", axis);
      wait.series = {Line(h->wait_p50_ms, axis, 0, "wait_p50"),
                     Line(h->wait_p99_ms, axis, 3, "wait_p99")};
      svg::Panel refused = TimePanel("refusals (purple) and timeouts (brown) per second", axis);
      refused.series = {Line(h->refusals, axis, 4, "refusals"),
                        Line(h->timeouts, axis, 5, "timeouts")};
      chart.panels = {std::move(limits), std::move(goodput), std::move(latency), std::move(wait),
                      std::move(refused)};
      body += svg::ChartSvg(chart);
      if (!h->partitions.empty()) {
        body += PartitionsHtml(h->partitions, s.gauges ? s.gauges->limit : 0, axis, x_label);
      }
      body += "</section>\n";
    }
    for (const auto& [name, h] : stores_) {
      const StoreSnapshot& s = h->last;
      body += "<section class='store' data-store='" + svg::EscapeXml(name) + "'>\n<h2>store " +
              svg::EscapeXml(name) + "</h2>\n<dl>" +
              Fact("commits", std::to_string(s.commits_ok) + " ok, " +
                                  std::to_string(s.commits_failed) + " failed");
      if (s.map_used_bytes) {
        std::string map = Mib(*s.map_used_bytes) + " used";
        if (s.map_size_bytes) map += ", map " + Mib(*s.map_size_bytes);
        if (s.map_max_bytes) map += ", maximum " + Mib(*s.map_max_bytes);
        body += Fact("map", map);
      }
      if (s.queued_writes) body += Fact("queued writes", std::to_string(*s.queued_writes));
      body += "</dl>\n";
      svg::Chart chart{.width = 900, .panel_height = 120, .gap = 45, .x_label = x_label};
      svg::Panel commits = TimePanel("commits per second", axis);
      commits.series = {Line(h->commits, axis, 0, "commits")};
      svg::Panel batch = TimePanel("mean batch size, operations per commit", axis);
      batch.series = {Line(h->batch_size, axis, 1, "batch_size")};
      svg::Panel map = TimePanel("map use, % of the maximum map size", axis);
      map.series = {Line(h->map_use, axis, 2, "map_use")};
      chart.panels = {std::move(commits), std::move(batch), std::move(map)};
      body += svg::ChartSvg(chart) + "</section>\n";
    }
  }
  std::string script = kRefreshScript;
  const std::string marker = "REFRESH_MS";
  script.replace(script.find(marker), marker.size(), std::to_string(refresh_seconds * 1000));
  return "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
         "<title>blobtune status</title>\n"
         "<noscript><meta http-equiv='refresh' content='" +
         std::to_string(refresh_seconds) +
         "'></noscript>\n"
         "<style>body{font-family:sans-serif;margin:1em 2em;color:#222}"
         "dl{display:flex;flex-wrap:wrap;gap:.2em 1.5em;margin:.5em 0}dt{font-weight:bold}"
         "dd{margin:0 0 0 .4em}dt::after{content:':'}section{margin-bottom:2em}"
         "table.partitions{border-collapse:collapse;margin:.5em 0}"
         "table.partitions td,table.partitions th{padding:.1em .8em;text-align:right}"
         "table.partitions td:first-child{text-align:left}</style>\n"
         "</head>\n<body>\n<h1>blobtune status</h1>\n<div id='live'>\n" +
         body + "</div>\n" + script + "</body>\n</html>\n";
}

}  // namespace blobtune::metrics
