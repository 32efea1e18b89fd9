#include "option_table.h"

#include <cmath>

#include "blobtune/base/text.h"

namespace blobtune::tuner::algorithms_internal {

bool OptionRange::Contains(double value) const noexcept {
  if (!std::isfinite(value)) return false;
  const bool above_min = min_open ? value > min : value >= min;
  const bool below_max = max_open ? value < max : value <= max;
  return above_min && below_max;
}

std::string DescribeOptionRange(OptionType type, const OptionRange& range) {
  std::string text = type == OptionType::kInteger ? "an integer " : "";
  if (std::isinf(range.max)) {
    text += (range.min_open ? "> " : ">= ") + FormatNumber(range.min);
  } else {
    text += "in ";
    text += range.min_open ? "(" : "[";
    text += FormatNumber(range.min) + ", " + FormatNumber(range.max);
    text += range.max_open ? ")" : "]";
  }
  if (type == OptionType::kMilliseconds) text += " ms";
  return text;
}

Status CheckOption(std::string_view algorithm, std::string_view name, OptionType type,
                   const OptionRange& range, double value) {
  const bool whole = type != OptionType::kInteger || std::trunc(value) == value;
  if (!whole || !range.Contains(value)) {
    return InvalidField(algorithm, name, "must be " + DescribeOptionRange(type, range), value);
  }
  return Status::Ok();
}

}  // namespace blobtune::tuner::algorithms_internal
