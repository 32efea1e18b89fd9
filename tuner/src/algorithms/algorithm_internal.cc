#include "algorithm_internal.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

namespace blobtune::tuner::algorithms_internal {

std::string FormatNumber(double value) {
  std::array<char, 32> buffer{};
  // Whole numbers in full ("1000000", not "1e+06"): every one below 2^53 is exact.
  const auto [end, ec] =
      std::trunc(value) == value && std::abs(value) < 9007199254740992.0
          ? std::to_chars(buffer.data(), buffer.data() + buffer.size(),
                          static_cast<int64_t>(value))
          : std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return ec == std::errc() ? std::string(buffer.data(), end) : std::string("?");
}

std::optional<double> ParseFiniteNumber(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string_view Trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\r";
  const size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

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
