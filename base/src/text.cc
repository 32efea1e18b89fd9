#include "blobtune/base/text.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <system_error>

namespace blobtune {

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

}  // namespace blobtune
