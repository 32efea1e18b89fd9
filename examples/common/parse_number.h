// ParseNumber: a whole command-line value as a number, or false; no locale, no partial reads
// ("12x" and "" are errors), for the example programs' flag parsers.
//
//   int n;
//   if (!examples::ParseNumber(value, n)) return UsageError("--repetitions takes a number");
//
// Thread-safety: a pure function.
#ifndef BLOBTUNE_EXAMPLES_COMMON_PARSE_NUMBER_H_
#define BLOBTUNE_EXAMPLES_COMMON_PARSE_NUMBER_H_

#include <charconv>
#include <string_view>
#include <system_error>

namespace blobtune::examples {

template <typename T>
bool ParseNumber(std::string_view text, T& out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_PARSE_NUMBER_H_
