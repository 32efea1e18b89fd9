// AimdLimit: loss-based additive-increase / multiplicative-decrease, a port of Netflix
// concurrency-limits' AIMDLimit (concurrency-limits-core/.../limit/AIMDLimit.java).
//
// For a resource whose only overload signal is failure (timeouts, rejections): the limit creeps
// up one access at a time while accesses succeed and the limit is actually in use, and backs off
// by a constant ratio on every drop. Latency matters only through `timeout`.
//
//   StatusOr<AimdLimit> aimd =
//       AimdLimit::Create({.limits = {.max_limit = 64}, .backoff_ratio = 0.8});
//   if (!aimd.ok()) return aimd.status();
//   int limit = aimd->Update(sample);
//
// Rule, per sample, for the integer limit L:
//   dropped or latency > timeout:  L' = floor(L * backoff_ratio)
//   else if inflight * 2 >= L:     L' = L + 1
//   else:                          L' = L          (app-limited: the limit is not what binds)
//   L' = clamp(L', min_limit, max_limit), and never below 1. Netflix's newest AIMDLimit clamps
//   the same way; the clamp also keeps floor(1 * 0.9) = 0 from ever becoming the limit.
//
// Defaults: Netflix's AIMDLimit.Builder (initial 20, min 20, max 200, backoff 0.9, timeout 5 s).
//
// Sample::weight: a sample of weight w is replayed as w identical samples (at most 1024), which
// is what Netflix would compute had it seen every one of those completions; replay stops early
// once the limit stops moving. Sample::dropped: a drop, like Netflix's didDrop.
//
// Thread-safety: none; driven by one thread at a time.
#ifndef BLOBTUNE_TUNER_ALGORITHMS_AIMD_H_
#define BLOBTUNE_TUNER_ALGORITHMS_AIMD_H_

#include <chrono>
#include <string_view>

#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"
#include "blobtune/tuner/algorithms/algorithm_base.h"
#include "blobtune/tuner/sample.h"

namespace blobtune::tuner {

struct AimdOptions {
  // Default: initial 20, min 20, max 200 accesses.
  LimitBounds<20, 20, 200> limits;
  // Factor applied to the limit on a drop. Default: 0.9. REQUIRES: 0.5 <= backoff_ratio < 1
  // (Netflix's precondition: below 0.5 one drop halves the limit, 1 never backs off).
  double backoff_ratio = 0.9;
  // A success slower than this counts as a drop. Default: 5 s. REQUIRES: > 0.
  Duration timeout = std::chrono::seconds(5);

  Status Validate() const;
};

class AimdLimit final : public AlgorithmBase<AimdLimit, AimdOptions> {
 public:
  static constexpr std::string_view kName = "aimd";

  int Update(const Sample& sample) override;

 private:
  using AlgorithmBase::AlgorithmBase;

  // One Netflix _update() step for one completion.
  int Step(const Sample& sample) const;
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_ALGORITHMS_AIMD_H_
