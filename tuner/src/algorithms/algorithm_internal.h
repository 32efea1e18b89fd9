// Private helpers shared by the limit algorithm ports: the errors of config checks, limit
// clamping, Netflix's log10 step function, and the names in spec and state text
// (algorithm_registry.h, algorithm_state.h). Not installed.
//
// Thread-safety: stateless functions.
#ifndef BLOBTUNE_TUNER_SRC_ALGORITHMS_ALGORITHM_INTERNAL_H_
#define BLOBTUNE_TUNER_SRC_ALGORITHMS_ALGORITHM_INTERNAL_H_

#include <cstdint>
#include <string_view>

#include "blobtune/base/status.h"

namespace blobtune::tuner::algorithms_internal {

// No algorithm may be configured above this limit: a million concurrent accesses is far beyond
// what one LMDB environment serves, so a larger value is a typo.
inline constexpr int kLimitCeiling = 1000000;

// A sample of weight w is replayed as w identical samples by the per-sample ports (AIMD, Vegas,
// Gradient2). Past this many replays the extra copies carry no new information and would only
// cost time, so replay stops there.
inline constexpr uint32_t kMaxWeightReplays = 1024;

// Whether `text` can name an algorithm, a parameter or a state value: non-empty, and only a-z,
// 0-9 and '_'.
bool IsIdentifier(std::string_view text);

// INVALID_ARGUMENT "<algorithm>: parameter '<name>' <rule> (got <value>)", `name` as the spec
// text names the option.
Status InvalidField(std::string_view algorithm, std::string_view name, std::string_view rule,
                    double value);

// The integer limit for a real-valued estimate: floor, then clamp to [min_limit, max_limit]. A
// NaN estimate (which a faulty ratio could produce) maps to min_limit rather than to garbage.
int ClampLimit(double estimate, int min_limit, int max_limit) noexcept;

// Netflix's Log10RootFunction: max(1, floor(log10(limit))), so 1 below 100, 2 below 1000, ...
int Log10Root(int limit) noexcept;

}  // namespace blobtune::tuner::algorithms_internal

#endif  // BLOBTUNE_TUNER_SRC_ALGORITHMS_ALGORITHM_INTERNAL_H_
