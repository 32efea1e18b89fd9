// Option tables: each limit algorithm's options declared once, as rows of {name, field, range,
// meaning} in its own .cc file, beside its Options::Validate(). Validate() checks every row (then
// the few rules that relate two options); the registry parses "name=value" text into the fields
// with the same rows, names the option in every error, and writes the options reference
// (AlgorithmOptions, AlgorithmOptionsReference) from them. A default is the field's initializer
// in the public header: the reference reads it from a default-constructed Options. Not installed.
//
//   template <>
//   OptionTable<AimdLimit::Options> OptionsOf<AimdLimit::Options>() {
//     using O = AimdLimit::Options;
//     static constexpr std::array kRows = {
//         Option<&O::backoff_ratio>("backoff_ratio", ClosedOpen(0.5, 1),
//                                   "factor applied to the limit on a drop"),
//     };
//     static constexpr auto kOptions = Concat(LimitRows<O>(), kRows);
//     return kOptions;
//   }
//   Status AimdLimit::Options::Validate() const { return CheckOptions("aimd", *this); }
//
// A field's type says how its text reads: int and uint64_t take whole numbers, double any finite
// number, and a Duration a number of milliseconds (its name ends in _ms).
//
// Thread-safety: constant data and stateless functions.
#ifndef BLOBTUNE_TUNER_SRC_ALGORITHMS_OPTION_TABLE_H_
#define BLOBTUNE_TUNER_SRC_ALGORITHMS_OPTION_TABLE_H_

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "algorithm_internal.h"
#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"
#include "blobtune/tuner/algorithms/aimd.h"
#include "blobtune/tuner/algorithms/fixed.h"
#include "blobtune/tuner/algorithms/gradient.h"
#include "blobtune/tuner/algorithms/gradient2.h"
#include "blobtune/tuner/algorithms/marginal.h"
#include "blobtune/tuner/algorithms/vegas.h"

namespace blobtune::tuner::algorithms_internal {

// Bounds of duration options, in the milliseconds their text counts.
inline constexpr double kHourMs = 3.6e6;
inline constexpr double kDayMs = 24 * kHourMs;

// The values an option accepts: from min to max, either end open (excluded) or closed.
struct OptionRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  bool max_open = false;

  // False for NaN and the infinities.
  bool Contains(double value) const noexcept;
};

constexpr OptionRange Closed(double min, double max) { return {min, max, false, false}; }
constexpr OptionRange ClosedOpen(double min, double max) { return {min, max, false, true}; }
constexpr OptionRange OpenClosed(double min, double max) { return {min, max, true, false}; }
constexpr OptionRange Open(double min, double max) { return {min, max, true, true}; }
constexpr OptionRange AtLeast(double min) { return {.min = min}; }
constexpr OptionRange Above(double min) { return {.min = min, .min_open = true}; }

// How an option's number maps to its field.
enum class OptionType { kInteger, kNumber, kMilliseconds };

template <typename Options>
struct OptionRow {
  std::string_view name;  // As the spec text names it.
  OptionType type = OptionType::kNumber;
  OptionRange range;
  std::string_view meaning;  // One line, for the reference.
  // The numbers the field's type can hold, for text: an int, a uint64_t exact in a double, a
  // Duration of at most ~285 years in nanoseconds, any double.
  double representable_min = -std::numeric_limits<double>::infinity();
  double representable_max = std::numeric_limits<double>::infinity();
  double (*get)(const Options& options) = nullptr;  // In the text's unit.
  // REQUIRES: `value` is in `range` and within the representable bounds.
  void (*set)(Options& options, double value) = nullptr;
};

template <typename Options>
using OptionTable = std::span<const OptionRow<Options>>;

// Each algorithm's rows, in the order the registry lists them. Specialized in the algorithm's
// .cc file, and declared here for the registry.
template <typename Options>
OptionTable<Options> OptionsOf();
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

// A row for the field of Options that `field`, a lambda without captures, returns a reference
// to; the field's type says how text reads into it.
template <typename Options, typename Field>
constexpr OptionRow<Options> FieldRow(std::string_view name, OptionRange range,
                                      std::string_view meaning, Field /*field*/) {
  using T = std::remove_cvref_t<decltype(Field{}(std::declval<Options&>()))>;
  using Millis = std::chrono::duration<double, std::milli>;
  OptionRow<Options> row{.name = name, .range = range, .meaning = meaning};
  if constexpr (std::is_same_v<T, Duration>) {
    row.type = OptionType::kMilliseconds;
    row.representable_min = -9e12;  // 9e18 ns, about 285 years: a 64-bit count holds it.
    row.representable_max = 9e12;
    row.get = [](const Options& o) { return Millis(Field{}(o)).count(); };
    row.set = [](Options& o, double v) { Field{}(o) = std::chrono::round<Duration>(Millis(v)); };
  } else {
    row.get = [](const Options& o) { return static_cast<double>(Field{}(o)); };
    row.set = [](Options& o, double v) { Field{}(o) = static_cast<T>(v); };
    if constexpr (std::is_integral_v<T>) {
      row.type = OptionType::kInteger;
      row.representable_min = static_cast<double>(std::numeric_limits<T>::min());
      // 2^53 for 64-bit integers: every whole number up to it is exact in a double.
      row.representable_max =
          std::min(static_cast<double>(std::numeric_limits<T>::max()), 9007199254740992.0);
    }
  }
  return row;
}

template <typename Class, typename T>
Class ClassOf(T Class::*member);  // Only in decltype: the class of a member pointer.

// A row for the field `kField` (e.g. &AimdLimit::Options::backoff_ratio).
template <auto kField>
constexpr auto Option(std::string_view name, OptionRange range, std::string_view meaning) {
  return FieldRow<decltype(ClassOf(kField))>(name, range, meaning,
                                             [](auto& o) -> auto& { return o.*kField; });
}

template <typename T, size_t N, size_t M>
constexpr std::array<T, N + M> Concat(const std::array<T, N>& a, const std::array<T, M>& b) {
  std::array<T, N + M> out{};
  std::copy(a.begin(), a.end(), out.begin());
  std::copy(b.begin(), b.end(), out.begin() + N);
  return out;
}

// The three rows of `limits` (LimitBounds, algorithm_base.h), first in the table of every
// algorithm that has them; CheckOptions also checks how they relate.
template <typename Options>
constexpr std::array<OptionRow<Options>, 3> LimitRows() {
  constexpr OptionRange kLimits = Closed(1, kLimitCeiling);
  return {FieldRow<Options>("initial_limit", kLimits, "the limit before any sample",
                            [](auto& o) -> auto& { return o.limits.initial_limit; }),
          FieldRow<Options>("min_limit", kLimits, "floor of the limit",
                            [](auto& o) -> auto& { return o.limits.min_limit; }),
          FieldRow<Options>("max_limit", kLimits, "ceiling of the limit",
                            [](auto& o) -> auto& { return o.limits.max_limit; })};
}

// What a row accepts, as errors and the reference say it: "an integer in [1, 1000000]",
// "in [0.5, 1)", "> 0 ms".
std::string DescribeOptionRange(OptionType type, const OptionRange& range);

// Whether `value` lies in the row's range (whole for an integer), else INVALID_ARGUMENT
// "<algorithm>: parameter '<name>' must be <range> (got <value>)".
Status CheckOption(std::string_view algorithm, std::string_view name, OptionType type,
                   const OptionRange& range, double value);

// Every row of OptionsOf<Options>() holds a value within its range in `options`, and limits,
// where the Options have them, satisfy min_limit <= initial_limit <= max_limit: all of
// Options::Validate() but the relations particular to one algorithm.
template <typename Options>
Status CheckOptions(std::string_view algorithm, const Options& options) {
  for (const OptionRow<Options>& row : OptionsOf<Options>()) {
    if (Status s = CheckOption(algorithm, row.name, row.type, row.range, row.get(options));
        !s.ok()) {
      return s;
    }
  }
  if constexpr (requires { options.limits; }) {
    const auto& [initial, min, max] = options.limits;
    if (max < min) return InvalidField(algorithm, "max_limit", "must be >= min_limit", max);
    if (initial < min || initial > max) {
      return InvalidField(algorithm, "initial_limit", "must lie within [min_limit, max_limit]",
                          initial);
    }
  }
  return Status::Ok();
}

}  // namespace blobtune::tuner::algorithms_internal

#endif  // BLOBTUNE_TUNER_SRC_ALGORITHMS_OPTION_TABLE_H_
