#include "blobtune/metrics/status_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "blobtune/svg/chart.h"

namespace blobtune::metrics {
namespace {

std::string Fixed(double v, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

uint64_t Delta(uint64_t before, uint64_t after) { return after >= before ? after - before : 0; }

uint64_t Refusals(const LimiterSnapshot& s) {
  return s.permits[static_cast<size_t>(PermitEnd::kRejected)] +
         s.permits[static_cast<size_t>(PermitEnd::kQueueFull)];
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

struct StatusPage::LimiterHistory {
  explicit LimiterHistory(size_t capacity)
      : limit(capacity),
        inflight(capacity),
        goodput(capacity),
        p50_ms(capacity),
        p99_ms(capacity),
        refusals(capacity),
        timeouts(capacity) {}
  LimiterSnapshot last;
  double last_t = 0;
  SeriesRing limit, inflight, goodput, p50_ms, p99_ms, refusals, timeouts;
};

struct StatusPage::StoreHistory {
  explicit StoreHistory(size_t capacity)
      : commits(capacity), batch_size(capacity), map_use(capacity) {}
  StoreSnapshot last;
  double last_t = 0;
  SeriesRing commits, batch_size, map_use;
};

StatusPage::StatusPage(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)) {}
StatusPage::~StatusPage() = default;

void StatusPage::Record(double t, const std::vector<LimiterSnapshot>& limiters,
                        const std::vector<StoreSnapshot>& stores) {
  MutexLock lock(mu_);
  if (recorded_ && !(t > last_t_)) return;
  recorded_ = true;
  last_t_ = t;
  for (const LimiterSnapshot& now : limiters) {
    auto [it, fresh] = limiters_.try_emplace(now.name);
    if (fresh) it->second = std::make_unique<LimiterHistory>(capacity_);
    LimiterHistory& h = *it->second;
    if (now.gauges) {
      h.limit.Push(t, now.gauges->limit);
      h.inflight.Push(t, now.gauges->inflight);
    }
    if (!fresh) {
      const LimiterSnapshot& was = h.last;
      const double dt = t - h.last_t;
      const auto success = static_cast<size_t>(PermitEnd::kSuccess);
      const auto timeout = static_cast<size_t>(PermitEnd::kTimeout);
      h.goodput.Push(t,
                     static_cast<double>(Delta(was.permits[success], now.permits[success])) / dt);
      h.refusals.Push(t, static_cast<double>(Delta(Refusals(was), Refusals(now))) / dt);
      h.timeouts.Push(t,
                      static_cast<double>(Delta(was.permits[timeout], now.permits[timeout])) / dt);
      if (auto p50 = QuantileSeconds(was.success_latency, now.success_latency, 0.50)) {
        h.p50_ms.Push(t, *p50 * 1e3);
      }
      if (auto p99 = QuantileSeconds(was.success_latency, now.success_latency, 0.99)) {
        h.p99_ms.Push(t, *p99 * 1e3);
      }
    }
    h.last = now;
    h.last_t = t;
  }
  for (const StoreSnapshot& now : stores) {
    auto [it, fresh] = stores_.try_emplace(now.name);
    if (fresh) it->second = std::make_unique<StoreHistory>(capacity_);
    StoreHistory& h = *it->second;
    if (now.map_size_bytes && now.map_used_bytes && *now.map_size_bytes > 0) {
      h.map_use.Push(t, 100.0 * static_cast<double>(*now.map_used_bytes) /
                            static_cast<double>(*now.map_size_bytes));
    }
    if (!fresh) {
      const StoreSnapshot& was = h.last;
      const uint64_t commits = Delta(was.commits_ok, now.commits_ok);
      h.commits.Push(t, static_cast<double>(commits) / (t - h.last_t));
      const uint64_t batches = Delta(was.batch_size.count, now.batch_size.count);
      if (batches > 0) {
        h.batch_size.Push(t, static_cast<double>(Delta(was.batch_size.sum, now.batch_size.sum)) /
                                 static_cast<double>(batches));
      }
    }
    h.last = now;
    h.last_t = t;
  }
}

namespace {

// A series' points with x in seconds before `now` (so the newest point is at 0).
svg::Series Line(const SeriesRing& ring, double now, size_t colour, std::string id,
                 double stroke = 1.8) {
  svg::Series s{.colour = colour, .stroke = stroke, .id = std::move(id)};
  for (const auto& [t, v] : ring.Points()) s.points.emplace_back(t - now, v);
  return s;
}

svg::Panel TimePanel(std::string title, double span) {
  return svg::Panel{.title = std::move(title), .x_min = -span, .x_max = 0, .y_grid = true};
}

std::string Fact(std::string_view name, const std::string& value) {
  return "<dt>" + svg::EscapeXml(name) + "</dt><dd>" + svg::EscapeXml(value) + "</dd>";
}

}  // namespace

std::string StatusPage::Html(int refresh_seconds) const {
  refresh_seconds = std::max(refresh_seconds, 1);
  std::string body;
  {
    MutexLock lock(mu_);
    const double now = last_t_;
    // The span shown: the oldest point kept of any series, at least ten seconds.
    double span = 10;
    auto widen = [&](const SeriesRing& ring) {
      const auto points = ring.Points();
      if (!points.empty()) span = std::max(span, now - points.front().first);
    };
    for (const auto& [name, h] : limiters_) widen(h->limit), widen(h->goodput);
    for (const auto& [name, h] : stores_) widen(h->commits), widen(h->map_use);
    span = std::ceil(span / 10) * 10;  // Whole tens of seconds: round tick labels.
    const std::string x_label = "seconds before the last sample";

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
        body += Fact("bounds", std::to_string(g.min_limit) + " to " + std::to_string(g.max_limit));
      } else {
        body += Fact("algorithm", "no limiter");
      }
      body += "</dl>\n";
      svg::Chart chart{.width = 900, .panel_height = 120, .gap = 45, .x_label = x_label};
      svg::Panel limits = TimePanel("limit (blue) and permits in flight (orange)", span);
      limits.series = {Line(h->limit, now, 0, "limit", 2.2), Line(h->inflight, now, 1, "inflight")};
      svg::Panel goodput = TimePanel("goodput, successful permits per second", span);
      goodput.series = {Line(h->goodput, now, 2, "goodput")};
      svg::Panel latency =
          TimePanel("latency of successful permits, ms: p50 (blue), p99 (red)", span);
      latency.series = {Line(h->p50_ms, now, 0, "p50"), Line(h->p99_ms, now, 3, "p99")};
      svg::Panel refused = TimePanel("refusals (purple) and timeouts (brown) per second", span);
      refused.series = {Line(h->refusals, now, 4, "refusals"),
                        Line(h->timeouts, now, 5, "timeouts")};
      chart.panels = {std::move(limits), std::move(goodput), std::move(latency),
                      std::move(refused)};
      body += svg::ChartSvg(chart) + "</section>\n";
    }
    for (const auto& [name, h] : stores_) {
      const StoreSnapshot& s = h->last;
      body += "<section class='store' data-store='" + svg::EscapeXml(name) + "'>\n<h2>store " +
              svg::EscapeXml(name) + "</h2>\n<dl>" +
              Fact("commits", std::to_string(s.commits_ok) + " ok, " +
                                  std::to_string(s.commits_failed) + " failed");
      if (s.map_size_bytes && s.map_used_bytes) {
        body += Fact("map", std::to_string(*s.map_used_bytes >> 20) + " MiB used of " +
                                std::to_string(*s.map_size_bytes >> 20) + " MiB");
      }
      if (s.queued_writes) body += Fact("queued writes", std::to_string(*s.queued_writes));
      body += "</dl>\n";
      svg::Chart chart{.width = 900, .panel_height = 120, .gap = 45, .x_label = x_label};
      svg::Panel commits = TimePanel("commits per second", span);
      commits.series = {Line(h->commits, now, 0, "commits")};
      svg::Panel batch = TimePanel("mean batch size, operations per commit", span);
      batch.series = {Line(h->batch_size, now, 1, "batch_size")};
      svg::Panel map = TimePanel("map use, % of the current map size", span);
      map.series = {Line(h->map_use, now, 2, "map_use")};
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
         "dd{margin:0 0 0 .4em}dt::after{content:':'}section{margin-bottom:2em}</style>\n"
         "</head>\n<body>\n<h1>blobtune status</h1>\n<div id='live'>\n" +
         body + "</div>\n" + script + "</body>\n</html>\n";
}

}  // namespace blobtune::metrics
