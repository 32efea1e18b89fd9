// VegasLimit: delay-based limit from the estimated queue length, a port of Netflix
// concurrency-limits' VegasLimit (concurrency-limits-core/.../limit/VegasLimit.java), after TCP
// Vegas.
//
// For resources with a stable no-load latency: the queue the limit builds up is estimated from
// how far the latency sits above the minimum seen, and the limit moves to keep that queue between
// alpha and beta accesses. The minimum is re-probed now and then so it can follow the resource.
//
//   StatusOr<VegasLimit> vegas = VegasLimit::Create({.limits = {.max_limit = 128}, .seed = 7});
//   if (!vegas.ok()) return vegas.status();
//   int limit = vegas->Update(sample);
//
// Rule, per sample, with L the real-valued estimate, l = floor(L), log(x) = max(1, floor(log10 x))
// and rtt_noload the no-load latency:
//   probe_count += 1; if probe_count >= jitter * probe_multiplier * L (jitter uniform in
//     [0.5, 1), redrawn after each probe): rtt_noload = rtt, probe_count = 0, stop.
//   if rtt_noload unset or rtt < rtt_noload: rtt_noload = rtt, stop.
//   queue = ceil(L * (1 - rtt_noload / rtt))
//   dropped:                          L' = L - log(l)
//   else if inflight * 2 < L:         stop               (app-limited)
//   else if queue <= threshold(l):    L' = L + beta(l)   (no queueing: grow fast)
//   else if queue < alpha(l):         L' = L + log(l)
//   else if queue > beta(l):          L' = L - log(l)
//   else:                             stop               (within [alpha, beta])
//   L' = (1 - smoothing) * L + smoothing * clamp(L', min_limit, max_limit); limit = floor(L').
//   alpha(l) = alpha_factor * log(l), beta(l) = beta_factor * log(l),
//   threshold(l) = threshold_factor * log(l).
//
// Probing is counted in samples, as in Netflix, so it needs no clock. Netflix draws the jitter
// from ThreadLocalRandom; here it comes from a PRNG seeded with `seed`, so runs reproduce.
//
// Defaults: those of Netflix's VegasLimit.Builder; min_limit 1, as Netflix has no minimum.
//
// Sample::weight: a sample of weight w is replayed as w identical samples (at most 1024), so the
// probe count advances by w. Sample::dropped: a drop, like Netflix's didDrop (it still updates
// rtt_noload first, as in Netflix). Samples with latency <= 0 are skipped (Netflix rejects them).
//
// Thread-safety: none; driven by one thread at a time.
#ifndef BLOBTUNE_TUNER_ALGORITHMS_VEGAS_H_
#define BLOBTUNE_TUNER_ALGORITHMS_VEGAS_H_

#include <cstdint>
#include <random>
#include <string_view>

#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"
#include "blobtune/tuner/algorithms/algorithm_base.h"
#include "blobtune/tuner/sample.h"

namespace blobtune::tuner {

struct VegasOptions {
  // Default: initial 20, min 1, max 1000 accesses (max: Netflix's maxConcurrency).
  LimitBounds<20, 1, 1000> limits;
  // Weight of the new estimate in each update. Default: 1.0. REQUIRES: 0 < smoothing <= 1.
  double smoothing = 1.0;
  // Queue length, in multiples of log(limit), below which the limit grows. Default: 3.
  // REQUIRES: threshold_factor <= alpha_factor <= beta_factor <= 1000, alpha_factor > 0.
  double alpha_factor = 3;
  // Queue length, in multiples of log(limit), above which the limit shrinks; also the fast
  // growth step. Default: 6.
  double beta_factor = 6;
  // Queue length, in multiples of log(limit), at or below which the limit grows by beta.
  // Default: 1. REQUIRES: >= 0.
  double threshold_factor = 1;
  // No-load latency is re-probed every jitter * probe_multiplier * limit samples, jitter in
  // [0.5, 1). Default: 30. REQUIRES: 1 <= probe_multiplier <= 1000000.
  int probe_multiplier = 30;
  // Seed of the probe jitter PRNG. Default: 1.
  uint64_t seed = 1;

  Status Validate() const;
};

class VegasLimit final : public AlgorithmBase<VegasLimit, VegasOptions> {
 public:
  static constexpr std::string_view kName = "vegas";

  int Update(const Sample& sample) override;
  // baseline_latency: rtt_noload; recent_latency: the last sample's latency.
  AlgorithmEstimates estimates() const override;

  // The real-valued estimate behind limit(), for tests and plots.
  double estimated_limit() const noexcept { return estimated_limit_; }

 private:
  using AlgorithmBase::AlgorithmBase;

  // One VegasLimit._update() for one completion.
  void Step(Duration rtt, int inflight, bool dropped);
  // The next probe jitter, uniform in [0.5, 1).
  double DrawProbeJitter();

  double estimated_limit_ = options_.limits.initial_limit;
  Duration rtt_noload_ = Duration::zero();  // Zero until the first sample.
  Duration last_rtt_ = Duration::zero();
  uint64_t probe_count_ = 0;
  std::mt19937_64 rng_{options_.seed};
  double probe_jitter_ = DrawProbeJitter();  // Drawn from rng_, so declared after it.
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_ALGORITHMS_VEGAS_H_
