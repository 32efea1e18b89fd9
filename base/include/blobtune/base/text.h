// Numbers and words in the text that blobtune's library reads and writes: algorithm specs, saved
// algorithm states and error messages. One way to write a number, so that what one component
// prints another reads back to the same value.
//
//   std::string text = blobtune::FormatNumber(0.1);                // "0.1", not "0.100000"
//   std::optional<double> x = blobtune::ParseFiniteNumber(text);   // 0.1 exactly
//   std::string_view word = blobtune::Trim("  cycle \n");          // "cycle"
//
// Thread-safety: pure functions.
#ifndef BLOBTUNE_BASE_TEXT_H_
#define BLOBTUNE_BASE_TEXT_H_

#include <optional>
#include <string>
#include <string_view>

namespace blobtune {

// The shortest text that reads back as `value`: "0.9", "1000000" (whole numbers below 2^53 in
// full, never "1e+06"), "1e-07", "inf", "nan".
std::string FormatNumber(double value);

// All of `text` as a finite number, as std::from_chars reads it (no leading '+', no spaces, no
// locale), or std::nullopt.
std::optional<double> ParseFiniteNumber(std::string_view text);

// `text` without the spaces, tabs and line ends around it.
std::string_view Trim(std::string_view text);

}  // namespace blobtune

#endif  // BLOBTUNE_BASE_TEXT_H_
