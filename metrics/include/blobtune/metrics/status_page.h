// StatusPage: a live HTML page of what the registry's observers see, drawn by the process
// itself: the wall-clock time of the latest sample, blobtune's version and the process's uptime;
// per limiter, charts of the last five minutes (limit and permits in flight; goodput; latency p50
// and p99; the wait for a permit, p50 and p99; refusals and timeouts per second) with the
// algorithm's name, bounds and estimates, and for a limiter with partitions a table of them and a
// line per partition (in flight beside its guarantee, goodput, latency and wait p99, refusals and
// timeouts); per store, commits per second, batch size and map use against the map's maximum.
//
//   metrics::StatusPage page;                               // 300 points per series
//   page.Record(seconds, registry.LimiterSnapshots(), registry.StoreSnapshots());  // each tick
//   std::string html = page.Html();                         // what GET /status returns
//
// A StatusSampler records once a second; the Exporter (and the blob server) own one of each.
//
// Sampling: Record() reads snapshots, which the observers keep anyway for /metrics; nothing is
// added to the permit path. Rates (goodput, refusals, timeouts, commits) and quantiles are
// differences between consecutive snapshots of a name, so the first record of a name draws only
// its gauges. Quantiles are interpolated within the histogram bucket they fall in. A second
// without a value (no permit timed, no commit, no limiter) is a gap in its line.
//
// Time axis: always kStatusPageWindow wide, ending at the latest sample, in wall-clock time
// (UTC, ticked at whole minutes): Record() notes the system clock beside its steady `t`.
//
// Memory: a ring of `capacity` points per series (bounded whatever the uptime).
//
// Page: the charts are inline SVG (blobtune::svg); a few lines of our own script fetch the page
// every `refresh_seconds` and swap the charts in place; without script a <noscript> meta refresh
// reloads it. Every name and label shown is escaped.
//
// Thread-safety: all methods may be called from any number of threads at once.
#ifndef BLOBTUNE_METRICS_STATUS_PAGE_H_
#define BLOBTUNE_METRICS_STATUS_PAGE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blobtune/base/mutex.h"
#include "blobtune/base/thread_annotations.h"
#include "blobtune/metrics/limiter_metrics.h"
#include "blobtune/metrics/store_metrics.h"

namespace blobtune::metrics {

// The Content-Security-Policy to serve the page with: everything it uses is inline, and nothing
// may be loaded from anywhere else (its script fetches only the page itself).
inline constexpr std::string_view kStatusPageContentSecurityPolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'";

// How much history every chart shows.
inline constexpr std::chrono::seconds kStatusPageWindow{300};

// The last `capacity` (time, value) points of one series, oldest first.
class SeriesRing {
 public:
  explicit SeriesRing(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}
  void Push(double t, double value);
  std::vector<std::pair<double, double>> Points() const;
  size_t size() const noexcept { return points_.size(); }

 private:
  size_t capacity_;
  size_t next_ = 0;  // Where the next point goes once the ring is full.
  std::vector<std::pair<double, double>> points_;
};

class StatusPage {
 public:
  // `capacity`: points kept per series. REQUIRES: >= 1. Default: 300 (5 minutes at 1 s).
  explicit StatusPage(size_t capacity = 300);
  StatusPage(const StatusPage&) = delete;
  StatusPage& operator=(const StatusPage&) = delete;
  ~StatusPage();

  // Adds one point per series at `t_seconds` (any steady scale; later records have larger t).
  // A record whose t is not after the previous one is ignored.
  void Record(double t_seconds, const std::vector<LimiterSnapshot>& limiters,
              const std::vector<StoreSnapshot>& stores);

  // The whole page. `refresh_seconds`: how often it refreshes itself. REQUIRES: >= 1.
  std::string Html(int refresh_seconds = 2) const;

 private:
  struct LimiterHistory;
  struct StoreHistory;

  const size_t capacity_;
  mutable Mutex mu_;
  double last_t_ BLOBTUNE_GUARDED_BY(mu_) = 0;
  double last_unix_seconds_ BLOBTUNE_GUARDED_BY(mu_) = 0;  // The system clock at the latest record.
  bool recorded_ BLOBTUNE_GUARDED_BY(mu_) = false;
  std::map<std::string, std::unique_ptr<LimiterHistory>> limiters_ BLOBTUNE_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<StoreHistory>> stores_ BLOBTUNE_GUARDED_BY(mu_);
};

// A latency quantile in seconds from the bucket counts between two snapshots of one histogram
// (bounds in nanoseconds), interpolated within its bucket; nullopt when nothing was counted.
std::optional<double> QuantileSeconds(const HistogramSnapshot& before,
                                      const HistogramSnapshot& after, double q);

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_STATUS_PAGE_H_
