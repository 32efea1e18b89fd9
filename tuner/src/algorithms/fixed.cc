#include "blobtune/tuner/algorithms/fixed.h"

#include "algorithm_internal.h"

namespace blobtune::tuner {

Status FixedLimit::Options::Validate() const {
  return algorithms_internal::RequireInRange("fixed", "limit", limit, 1,
                                             algorithms_internal::kLimitCeiling);
}

StatusOr<FixedLimit> FixedLimit::Create(const Options& options) {
  if (Status status = options.Validate(); !status.ok()) return status;
  return FixedLimit(options);
}

int FixedLimit::Update(const Sample& /*sample*/) { return options_.limit; }

std::unique_ptr<LimitAlgorithm> FixedLimit::Clone() const {
  return std::make_unique<FixedLimit>(*this);
}

}  // namespace blobtune::tuner
