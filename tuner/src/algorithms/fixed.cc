#include "blobtune/tuner/algorithms/fixed.h"

#include <array>

#include "algorithm_internal.h"
#include "option_table.h"

namespace blobtune::tuner {

namespace algorithms_internal {

// The options as the registry's text names them (option_table.h).
template <>
OptionTable<FixedLimit::Options> OptionsOf<FixedLimit::Options>() {
  using O = FixedLimit::Options;
  static constexpr std::array kRows = {
      Option<&O::limit>("limit", Closed(1, kLimitCeiling), "the limit, in accesses"),
  };
  return kRows;
}

}  // namespace algorithms_internal

Status FixedLimit::Options::Validate() const {
  return algorithms_internal::CheckOptions("fixed", *this);
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
