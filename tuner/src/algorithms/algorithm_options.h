// The option table of every registered algorithm (option_table.h), each defined in its
// algorithm's .cc file, for the registry. Not installed.
#ifndef BLOBTUNE_TUNER_SRC_ALGORITHMS_ALGORITHM_OPTIONS_H_
#define BLOBTUNE_TUNER_SRC_ALGORITHMS_ALGORITHM_OPTIONS_H_

#include "blobtune/tuner/algorithms/aimd.h"
#include "blobtune/tuner/algorithms/fixed.h"
#include "blobtune/tuner/algorithms/gradient.h"
#include "blobtune/tuner/algorithms/gradient2.h"
#include "blobtune/tuner/algorithms/marginal.h"
#include "blobtune/tuner/algorithms/vegas.h"
#include "option_table.h"

namespace blobtune::tuner::algorithms_internal {

template <>
OptionTable<FixedLimit::Options> OptionsOf<FixedLimit::Options>();
template <>
OptionTable<AimdLimit::Options> OptionsOf<AimdLimit::Options>();
template <>
OptionTable<EnvoyGradientLimit::Options> OptionsOf<EnvoyGradientLimit::Options>();
template <>
OptionTable<Gradient2Limit::Options> OptionsOf<Gradient2Limit::Options>();
template <>
OptionTable<VegasLimit::Options> OptionsOf<VegasLimit::Options>();
template <>
OptionTable<MarginalLimit::Options> OptionsOf<MarginalLimit::Options>();

}  // namespace blobtune::tuner::algorithms_internal

#endif  // BLOBTUNE_TUNER_SRC_ALGORITHMS_ALGORITHM_OPTIONS_H_
