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

#include "algorithm_internal.h"
#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"

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
  // Duration of at most ~285 years in nanoseconds.
  double representable_min = 0;
  double representable_max = 0;
  double (*get)(const Options& options) = nullptr;  // In the text's unit.
  // REQUIRES: CheckOptionText(...) accepted `value`.
  void (*set)(Options& options, double value) = nullptr;
};

template <typename Options>
using OptionTable = std::span<const OptionRow<Options>>;

// Each algorithm's rows, in the order the registry lists them. Specialized in the algorithm's
// .cc file; declared for the registry in algorithm_options.h.
template <typename Options>
OptionTable<Options> OptionsOf();

template <typename Member>
struct FieldOf;
template <typename O, typename T>
struct FieldOf<T O::*> {
  using Options = O;
  using Type = T;
};

// A row for the field `kField` (e.g. &AimdLimit::Options::backoff_ratio).
template <auto kField>
constexpr OptionRow<typename FieldOf<decltype(kField)>::Options> Option(std::string_view name,
                                                                        OptionRange range,
                                                                        std::string_view meaning) {
  using Options = typename FieldOf<decltype(kField)>::Options;
  using T = typename FieldOf<decltype(kField)>::Type;
  using Millis = std::chrono::duration<double, std::milli>;
  OptionRow<Options> row{.name = name, .range = range, .meaning = meaning};
  if constexpr (std::is_same_v<T, Duration>) {
    row.type = OptionType::kMilliseconds;
    row.representable_min = -9e12;  // 9e18 ns, about 285 years: a 64-bit count holds it.
    row.representable_max = 9e12;
    row.get = [](const Options& o) { return Millis(o.*kField).count(); };
    row.set = [](Options& o, double v) { o.*kField = std::chrono::round<Duration>(Millis(v)); };
  } else if constexpr (std::is_floating_point_v<T>) {
    row.representable_min = -std::numeric_limits<double>::max();
    row.representable_max = std::numeric_limits<double>::max();
    row.get = [](const Options& o) { return static_cast<double>(o.*kField); };
    row.set = [](Options& o, double v) { o.*kField = static_cast<T>(v); };
  } else {
    row.type = OptionType::kInteger;
    row.representable_min = static_cast<double>(std::numeric_limits<T>::min());
    // 2^53 for 64-bit integers: every whole number up to it is exact in a double.
    row.representable_max =
        std::min(static_cast<double>(std::numeric_limits<T>::max()), 9007199254740992.0);
    row.get = [](const Options& o) { return static_cast<double>(o.*kField); };
    row.set = [](Options& o, double v) { o.*kField = static_cast<T>(v); };
  }
  return row;
}

template <typename T, size_t N, size_t M>
constexpr std::array<T, N + M> Concat(const std::array<T, N>& a, const std::array<T, M>& b) {
  std::array<T, N + M> out{};
  std::copy(a.begin(), a.end(), out.begin());
  std::copy(b.begin(), b.end(), out.begin() + N);
  return out;
}

// A row for one of the `limits` (LimitBounds, algorithm_base.h), e.g. &Bounds::min_limit.
template <typename Options, auto kBound>
constexpr OptionRow<Options> LimitRow(std::string_view name, std::string_view meaning) {
  return {.name = name,
          .type = OptionType::kInteger,
          .range = Closed(1, kLimitCeiling),
          .meaning = meaning,
          .representable_min = static_cast<double>(std::numeric_limits<int>::min()),
          .representable_max = static_cast<double>(std::numeric_limits<int>::max()),
          .get = [](const Options& o) { return static_cast<double>(o.limits.*kBound); },
          .set = [](Options& o, double v) { o.limits.*kBound = static_cast<int>(v); }};
}

// The three rows of every algorithm with a range of limits, first in its table; CheckOptions
// also checks how they relate (ValidateLimits).
template <typename Options>
constexpr std::array<OptionRow<Options>, 3> LimitRows() {
  using Bounds = decltype(Options::limits);
  return {LimitRow<Options, &Bounds::initial_limit>("initial_limit", "the limit before any sample"),
          LimitRow<Options, &Bounds::min_limit>("min_limit", "floor of the limit"),
          LimitRow<Options, &Bounds::max_limit>("max_limit", "ceiling of the limit")};
}

// What a row accepts, as errors and the reference say it: "an integer in [1, 1000000]",
// "in [0.5, 1)", "> 0 ms".
std::string DescribeOptionRange(OptionType type, const OptionRange& range);

// Whether `value` lies in the row's range (whole for an integer), else INVALID_ARGUMENT
// "<algorithm>: parameter '<name>' must be <range> (got <value>)".
Status CheckOption(std::string_view algorithm, std::string_view name, OptionType type,
                   const OptionRange& range, double value);

// Every row of OptionsOf<Options>() holds a value within its range in `options`, and limits,
// where the Options have them, relate as ValidateLimits says: all of Options::Validate() but the
// relations particular to one algorithm.
template <typename Options>
Status CheckOptions(std::string_view algorithm, const Options& options) {
  for (const OptionRow<Options>& row : OptionsOf<Options>()) {
    if (Status s = CheckOption(algorithm, row.name, row.type, row.range, row.get(options));
        !s.ok()) {
      return s;
    }
  }
  if constexpr (requires { options.limits; }) {
    return ValidateLimits(algorithm, options.limits.min_limit, options.limits.initial_limit,
                          options.limits.max_limit);
  }
  return Status::Ok();
}

// INVALID_ARGUMENT "<algorithm>: parameter '<name>' is out of range (got <value>)".
Status OptionOutOfRange(std::string_view algorithm, std::string_view name, double value);

// CheckOption, then whether the field's type can hold `value` (OptionOutOfRange): a number from
// text, before row.set.
template <typename Options>
Status CheckOptionText(std::string_view algorithm, const OptionRow<Options>& row, double value) {
  if (Status s = CheckOption(algorithm, row.name, row.type, row.range, value); !s.ok()) return s;
  if (value < row.representable_min || value > row.representable_max) {
    return OptionOutOfRange(algorithm, row.name, value);
  }
  return Status::Ok();
}

}  // namespace blobtune::tuner::algorithms_internal

#endif  // BLOBTUNE_TUNER_SRC_ALGORITHMS_OPTION_TABLE_H_
