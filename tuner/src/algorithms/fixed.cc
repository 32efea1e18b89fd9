#include "blobtune/tuner/algorithms/fixed.h"

#include <array>

#include "algorithm_internal.h"
#include "option_table.h"

namespace blobtune::tuner {

template <>
algorithms_internal::OptionTable<FixedLimit::Options>
algorithms_internal::OptionsOf<FixedLimit::Options>() {
  using O = FixedLimit::Options;
  static constexpr std::array kRows = {
      Option<&O::limit>("limit", Closed(1, kLimitCeiling), "the limit, in accesses"),
  };
  return kRows;
}

Status FixedOptions::Validate() const {
  return algorithms_internal::CheckOptions(FixedLimit::kName, *this);
}

int FixedLimit::Update(const Sample& /*sample*/) { return limit_; }

Status FixedLimit::RestoreState(const AlgorithmState& state) {
  if (state.algorithm == kName) return Status::Ok();
  return Status::InvalidArgument("fixed cannot start from the state of " + state.algorithm);
}

}  // namespace blobtune::tuner
