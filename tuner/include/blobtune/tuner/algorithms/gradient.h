// EnvoyGradientLimit: a port of Envoy's adaptive concurrency gradient controller
// (source/extensions/filters/http/adaptive_concurrency/controller/gradient_controller.{h,cc},
// config in api/envoy/extensions/filters/http/adaptive_concurrency/v3/adaptive_concurrency.proto).
// Not to be confused with Netflix's GradientLimit; the registry calls this one "gradient".
//
// For resources with a measurable ideal latency: the controller periodically pins the limit low
// to measure that latency (minRTT) and in between scales the limit by how far the recent
// latency (sampleRTT) sits above it.
//
//   StatusOr<EnvoyGradientLimit> envoy =
//       EnvoyGradientLimit::Create({.limits = {.max_limit = 256}});
//   if (!envoy.ok()) return envoy.status();
//   int limit = envoy->Update(sample);
//
// Rule, once per concurrency_update_interval with at least one sample (not in a minRTT window):
//   sampleRTT = sample_aggregate_percentile of the latencies recorded since the last update
//   gradient  = clamp(minRTT * (1 + buffer_percent / 100) / sampleRTT, 0.5, 2.0)
//   limit'    = limit * gradient
//   new_limit = clamp(floor(limit' + sqrt(limit')), min_limit, max_limit)   (sqrt = headroom)
//
// minRTT windows: the controller starts in one; every min_rtt_calc_interval plus a jitter drawn
// uniformly from [0, interval * jitter_percent / 100) after the last one ends, and immediately
// after the limit sits at min_limit for 5 consecutive updates, it enters another. On entry the
// limit is saved and pinned to min_concurrency, earlier latencies are discarded and samples of
// accesses granted before the entry are ignored. Once min_rtt_request_count samples are in,
// minRTT = their sample_aggregate_percentile, the saved limit (initial_limit for the first
// window) is restored and the update interval restarts. No limit update happens in the window.
//
// Sampling: Envoy's two timers (update interval, minRTT recalculation) are deadlines here, fired
// by sample end times: before a sample is recorded, every deadline at or before its end fires in
// time order, as if the event loop had run exactly on time. The jitter comes from a PRNG seeded
// with `seed` instead of Envoy's injected RandomGenerator.
//
// Deviations from Envoy, and why: latencies are kept in nanoseconds, not truncated to whole
// microseconds (LMDB reads can take less than one); the percentile is the exact weighted
// nearest-rank one rather than circllhist's approximation; minRTT and sampleRTT are floored at
// 1 ns in the gradient so a zero latency cannot divide by zero; Envoy's min_concurrency_limit
// (the floor of computed limits, defaulting to min_concurrency) is min_limit here, and the
// 5-updates-at-the-floor trigger compares against it. Not ported: the newer proto's rule that a
// separately configured min_concurrency_limit leaves the limit unpinned during minRTT windows,
// and fixed_value (a static minRTT). The jitter is drawn in nanoseconds rather than whole
// milliseconds, and when both deadlines fall on the same instant the minRTT window opens first.
//
// Defaults: the proto's; it requires the two intervals and gives them no default, so theirs are
// those of Envoy's documented example. initial_limit defaults to min_concurrency because Envoy
// restores the limit it pinned at construction.
//
// Sample::weight: counted `weight` times towards min_rtt_request_count and in the percentile (an
// Envoy histogram insert with count = weight). Sample::dropped: ignored; Envoy samples the
// latency of every request that completes, whatever its status.
//
// Thread-safety: none; driven by one thread at a time.
#ifndef BLOBTUNE_TUNER_ALGORITHMS_GRADIENT_H_
#define BLOBTUNE_TUNER_ALGORITHMS_GRADIENT_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"
#include "blobtune/tuner/algorithms/algorithm_base.h"
#include "blobtune/tuner/sample.h"

namespace blobtune::tuner {

struct EnvoyGradientOptions {
  // initial_limit: the limit restored when the first minRTT window ends; min_limit: the floor
  // of computed limits (Envoy's min_concurrency_limit); max_limit: their ceiling
  // (max_concurrency_limit). Default: initial 3 (= min_concurrency), min 3, max 1000.
  LimitBounds<3, 3, 1000> limits;
  // How often the limit is recomputed from sampleRTT. Default: 100 ms.
  // REQUIRES: 0 < concurrency_update_interval <= 24 h.
  Duration concurrency_update_interval = std::chrono::milliseconds(100);
  // Percentile of the recorded latencies taken as sampleRTT and minRTT. Default: 50 (p50).
  // REQUIRES: 0 <= sample_aggregate_percentile <= 100.
  double sample_aggregate_percentile = 50;
  // Time from the end of one minRTT window to the start of the next, before jitter.
  // Default: 60 s. REQUIRES: 0 < min_rtt_calc_interval <= 24 h.
  Duration min_rtt_calc_interval = std::chrono::seconds(60);
  // Samples a minRTT window gathers (request_count). Default: 50. REQUIRES: >= 1.
  int min_rtt_request_count = 50;
  // Random delay added to min_rtt_calc_interval, in percent of it. Default: 15.
  // REQUIRES: 0 <= jitter_percent <= 100.
  double jitter_percent = 15;
  // The limit pinned during a minRTT window. Default: 3.
  // REQUIRES: min_limit <= min_concurrency <= max_limit.
  int min_concurrency = 3;
  // Margin added to minRTT, in percent of it, so natural jitter does not shrink the limit.
  // Default: 25. REQUIRES: 0 <= buffer_percent <= 100.
  double buffer_percent = 25;
  // Seed of the jitter PRNG. Default: 1.
  uint64_t seed = 1;

  Status Validate() const;
};

class EnvoyGradientLimit final : public AlgorithmBase<EnvoyGradientLimit, EnvoyGradientOptions> {
 public:
  static constexpr std::string_view kName = "gradient";

  int Update(const Sample& sample) override;
  // baseline_latency: minRTT; recent_latency: sampleRTT; state: "min_rtt_window" or "adjusting".
  AlgorithmEstimates estimates() const override;

  bool InMinRttWindow() const noexcept { return deferred_limit_ > 0; }

 private:
  struct Recorded {
    Duration latency;
    uint32_t weight;
  };

  friend AlgorithmBase;
  explicit EnvoyGradientLimit(const Options& options);

  void FireDueDeadlines(TimePoint now);
  void OnUpdateDeadline(TimePoint deadline, TimePoint now);
  void EnterMinRttWindow(TimePoint at);
  void MaybeFinishMinRttWindow(TimePoint now);
  int CalculateNewLimit() const;
  void SetLimit(int new_limit, TimePoint at);
  // The configured percentile of the recorded latencies; clears them.
  Duration TakePercentile();
  Duration Jittered(Duration interval);

  // The limit saved on entering a minRTT window; > 0 exactly while in the window.
  int deferred_limit_;
  std::optional<Duration> min_rtt_;     // Empty until the first window ends.
  std::optional<Duration> sample_rtt_;  // Empty until the first update.
  std::vector<Recorded> recorded_;
  uint64_t recorded_weight_ = 0;
  int updates_at_floor_ = 0;
  // Samples of accesses granted before this are ignored (Envoy's min_rtt_epoch_).
  TimePoint min_rtt_epoch_ = TimePoint::min();
  std::optional<TimePoint> next_min_rtt_window_;  // Envoy's min_rtt_calc_timer_.
  std::optional<TimePoint> next_update_;          // Envoy's sample_reset_timer_.
  std::mt19937_64 rng_;
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_ALGORITHMS_GRADIENT_H_
