#include "algorithm_internal.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "blobtune/base/text.h"

namespace blobtune::tuner::algorithms_internal {

bool IsIdentifier(std::string_view text) {
  return !text.empty() &&
         text.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string_view::npos;
}

Status InvalidField(std::string_view algorithm, std::string_view name, std::string_view rule,
                    double value) {
  std::string message(algorithm);
  message.append(": parameter '").append(name).append("' ").append(rule);
  message.append(" (got ").append(FormatNumber(value)).append(")");
  return Status::InvalidArgument(message);
}

int ClampLimit(double estimate, int min_limit, int max_limit) noexcept {
  if (std::isnan(estimate)) return min_limit;
  const double clamped = std::clamp(std::floor(estimate), static_cast<double>(min_limit),
                                    static_cast<double>(max_limit));
  return std::max(1, static_cast<int>(clamped));
}

int Log10Root(int limit) noexcept {
  if (limit < 10) return 1;  // log10 of 0 is -inf; Netflix's lookup table maps it to 1 as well.
  return std::max(1, static_cast<int>(std::log10(static_cast<double>(limit))));
}

}  // namespace blobtune::tuner::algorithms_internal
