// ParseNumber: a whole command-line value as a number, or false; no locale, no partial reads
// ("12x" and "" are errors), for the example programs' flag parsers. ParseSize: a size in
// bytes with an optional K, M or G suffix (powers of 1024), the one way every program reads
// sizes; SizeText writes one back the way a person would ("4M", "100K", "1000"), and NumberText
// a number ("0.1", not "0.10000000000000001"; "2", not "2.0").
//
//   int n;
//   if (!examples::ParseNumber(value, n)) return UsageError("--repetitions takes a number");
//   std::optional<size_t> bytes = examples::ParseSize("4M");  // 4194304
//
// Thread-safety: pure functions.
#ifndef BLOBTUNE_EXAMPLES_COMMON_PARSE_NUMBER_H_
#define BLOBTUNE_EXAMPLES_COMMON_PARSE_NUMBER_H_

#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace blobtune::examples {

template <typename T>
bool ParseNumber(std::string_view text, T& out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

// "4096", "100K", "4M", "1G" (either case) -> bytes; nothing for anything else or above 1 TiB.
inline std::optional<size_t> ParseSize(std::string_view text) {
  size_t shift = 0;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      default: break;
    }
    if (shift != 0) text.remove_suffix(1);
  }
  size_t value = 0;
  if (text.empty() || !ParseNumber(text, value) || value > (size_t{1} << 40) >> shift) {
    return std::nullopt;
  }
  return value << shift;
}

// 4194304 -> "4M", 102400 -> "100K", 1000 -> "1000": the largest suffix that divides evenly.
inline std::string SizeText(size_t bytes) {
  if (bytes != 0 && bytes % (size_t{1} << 30) == 0) return std::to_string(bytes >> 30) + "G";
  if (bytes != 0 && bytes % (size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + "M";
  if (bytes != 0 && bytes % (size_t{1} << 10) == 0) return std::to_string(bytes >> 10) + "K";
  return std::to_string(bytes);
}

// 0.1 -> "0.1", 2 -> "2", 1e6 -> "1000000": the shortest fixed-point text that reads back as
// `value`.
inline std::string NumberText(double value) {
  char text[64];
  auto [end, error] = std::to_chars(text, text + sizeof text, value, std::chars_format::fixed);
  return error == std::errc() ? std::string(text, end) : std::to_string(value);
}

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_PARSE_NUMBER_H_
