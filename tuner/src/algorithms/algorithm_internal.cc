#include "algorithm_internal.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace blobtune::tuner::algorithms_internal {
namespace {

std::string FormatNumber(double value) {
  std::string text = std::to_string(value);
  // std::to_string prints six decimals; trim the zeros so "0.900000" reads "0.9".
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

Status Invalid(std::string_view algorithm, std::string_view field, std::string_view rule,
               std::string_view got) {
  std::string message(algorithm);
  message.append(": ").append(field).append(" ").append(rule).append(" (got ");
  message.append(got).append(")");
  return Status::InvalidArgument(message);
}

}  // namespace

Status InvalidField(std::string_view algorithm, std::string_view field, std::string_view rule,
                    double value) {
  return Invalid(algorithm, field, rule, std::string_view(FormatNumber(value)));
}

Status ValidateLimits(std::string_view algorithm, int min_limit, int initial_limit, int max_limit) {
  if (min_limit < 1) return InvalidField(algorithm, "min_limit", "must be >= 1", min_limit);
  if (max_limit > kLimitCeiling) {
    return InvalidField(algorithm, "max_limit", "must be <= 1000000", max_limit);
  }
  if (max_limit < min_limit) {
    return InvalidField(algorithm, "max_limit", "must be >= min_limit", max_limit);
  }
  if (initial_limit < min_limit || initial_limit > max_limit) {
    return InvalidField(algorithm, "initial_limit", "must lie within [min_limit, max_limit]",
                        initial_limit);
  }
  return Status::Ok();
}

Status RequireInRange(std::string_view algorithm, std::string_view field, double value, double lo,
                      double hi) {
  if (!std::isfinite(value) || value < lo || value > hi) {
    return InvalidField(algorithm, field,
                        "must lie within [" + FormatNumber(lo) + ", " + FormatNumber(hi) + "]",
                        value);
  }
  return Status::Ok();
}

Status RequireInHalfOpenRange(std::string_view algorithm, std::string_view field, double value,
                              double lo, double hi) {
  if (!std::isfinite(value) || value <= lo || value > hi) {
    return InvalidField(algorithm, field,
                        "must lie within (" + FormatNumber(lo) + ", " + FormatNumber(hi) + "]",
                        value);
  }
  return Status::Ok();
}

Status RequirePositive(std::string_view algorithm, std::string_view field, Duration value) {
  if (value <= Duration::zero()) {
    return Invalid(algorithm, field, "must be positive", std::to_string(value.count()) + " ns");
  }
  return Status::Ok();
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
