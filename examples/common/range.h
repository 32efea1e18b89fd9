// Range: the values a numeric setting takes, written once and read two ways: as the rule a
// message and --help state ("1..256", "in (0, 100]", "> 0") and as the check. A program's flag
// table (command_line.h) states a flag's range in --help and refuses a value outside it; an
// options struct that programs fill from flags names its ranges as constants, so that its
// Validate() and the flags' table share them.
//
//   static constexpr Range kRate = Range::LeftOpen(0, 1'000'000);
//   if (!kRate.Contains(rate)) return Status::InvalidArgument("rate must be " + kRate.Rule());
//
// Thread-safety: a constexpr value.
#ifndef BLOBTUNE_EXAMPLES_COMMON_RANGE_H_
#define BLOBTUNE_EXAMPLES_COMMON_RANGE_H_

#include <cstddef>
#include <limits>
#include <string>

#include "common/parse_number.h"

namespace blobtune::examples {

// The rules, as Rule() writes them:
//   Range::Closed(1, 256)      "1..256"         Range::Above(0)     "> 0"
//   Range::LeftOpen(0, 100)    "in (0, 100]"    Range::AtLeast(0)   ">= 0"
//   Range::RightOpen(0, 1)     "in [0, 1)"
// A size's bounds read as sizes: Range::Closed(1, 64 << 20).Rule(/*sizes=*/true) is "1..64M".
class Range {
 public:
  static constexpr Range Closed(double low, double high) { return Range(low, high, false, false); }
  static constexpr Range LeftOpen(double low, double high) { return Range(low, high, true, false); }
  static constexpr Range RightOpen(double low, double high) {
    return Range(low, high, false, true);
  }
  static constexpr Range Above(double low) { return Range(low, kNoBound, true, false); }
  static constexpr Range AtLeast(double low) { return Range(low, kNoBound, false, false); }

  // False for NaN.
  constexpr bool Contains(double value) const {
    const bool above_low = low_open_ ? value > low_ : value >= low_;
    const bool below_high = high_open_ ? value < high_ : value <= high_;
    return above_low && below_high;
  }

  // What follows "must be": "1..256", "in (0, 100]", "> 0"; `sizes` writes the bounds as 64M.
  std::string Rule(bool sizes = false) const {
    auto text = [sizes](double bound) {
      return sizes ? SizeText(static_cast<size_t>(bound)) : NumberText(bound);
    };
    if (high_ == kNoBound) return (low_open_ ? "> " : ">= ") + text(low_);
    if (!low_open_ && !high_open_) return text(low_) + ".." + text(high_);
    return std::string("in ") + (low_open_ ? "(" : "[") + text(low_) + ", " + text(high_) +
           (high_open_ ? ")" : "]");
  }

 private:
  static constexpr double kNoBound = std::numeric_limits<double>::infinity();

  constexpr Range(double low, double high, bool low_open, bool high_open)
      : low_(low), high_(high), low_open_(low_open), high_open_(high_open) {}

  double low_;
  double high_;
  bool low_open_;
  bool high_open_;
};

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_RANGE_H_
