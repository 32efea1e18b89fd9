// FixedLimit: a concurrency limit that never moves.
//
// The baseline every adaptive algorithm is compared against, and the right choice when the
// operator already knows the resource's capacity. Mirrors Netflix concurrency-limits' FixedLimit
// (concurrency-limits-core/.../limit/FixedLimit.java), which takes the limit as its only argument.
//
//   StatusOr<FixedLimit> fixed = FixedLimit::Create({.limit = 16});
//   if (!fixed.ok()) return fixed.status();
//   fixed->Update(sample);  // always 16
//
// Rule: L' = L for every sample. Sample::weight, Sample::dropped and latency are ignored.
// Defaults: Netflix has none (the limit is required); 20 matches the initial limit of Netflix's
// AIMD, Vegas and Gradient2 so that switching algorithms starts from the same place.
//
// Thread-safety: none; driven by one thread at a time.
#ifndef BLOBTUNE_TUNER_ALGORITHMS_FIXED_H_
#define BLOBTUNE_TUNER_ALGORITHMS_FIXED_H_

#include <string_view>

#include "blobtune/base/status.h"
#include "blobtune/tuner/algorithms/algorithm_base.h"
#include "blobtune/tuner/sample.h"

namespace blobtune::tuner {

struct FixedOptions {
  // The limit. Default: 20 accesses. REQUIRES: 1 <= limit <= 1000000.
  int limit = 20;

  Status Validate() const;
};

class FixedLimit final : public AlgorithmBase<FixedLimit, FixedOptions> {
 public:
  static constexpr std::string_view kName = "fixed";

  int Update(const Sample& sample) override;
  // Its own state changes nothing (the limit is the option); another algorithm's is refused.
  Status RestoreState(const AlgorithmState& state) override;

 private:
  using AlgorithmBase::AlgorithmBase;
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_ALGORITHMS_FIXED_H_
