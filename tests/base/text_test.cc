#include "blobtune/base/text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

namespace blobtune {
namespace {

TEST(FormatNumberTest, WritesTheShortestTextThatReadsBack) {
  EXPECT_EQ(FormatNumber(0.1), "0.1");
  EXPECT_EQ(FormatNumber(0.9), "0.9");
  EXPECT_EQ(FormatNumber(-2.5), "-2.5");
  EXPECT_EQ(FormatNumber(1e-7), "1e-07");
  EXPECT_EQ(FormatNumber(1.0 / 3), "0.3333333333333333");
  for (double value : {0.1, 1.0 / 3, 123.456, 6.02e23, 5e-324, -1e300}) {
    EXPECT_EQ(ParseFiniteNumber(FormatNumber(value)), value) << FormatNumber(value);
  }
}

TEST(FormatNumberTest, WritesWholeNumbersInFull) {
  EXPECT_EQ(FormatNumber(0), "0");
  EXPECT_EQ(FormatNumber(1000000), "1000000");
  EXPECT_EQ(FormatNumber(-42), "-42");
  EXPECT_EQ(FormatNumber(9007199254740991.0), "9007199254740991");
  EXPECT_EQ(FormatNumber(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(FormatNumber(std::nan("")), "nan");
}

TEST(ParseFiniteNumberTest, ReadsAllOfTheTextOrNothing) {
  EXPECT_EQ(ParseFiniteNumber("0.25"), 0.25);
  EXPECT_EQ(ParseFiniteNumber("-3"), -3.0);
  EXPECT_EQ(ParseFiniteNumber("1e3"), 1000.0);
  EXPECT_EQ(ParseFiniteNumber(""), std::nullopt);
  EXPECT_EQ(ParseFiniteNumber("12x"), std::nullopt);
  EXPECT_EQ(ParseFiniteNumber(" 1"), std::nullopt);
  EXPECT_EQ(ParseFiniteNumber("+1"), std::nullopt);
  EXPECT_EQ(ParseFiniteNumber("inf"), std::nullopt);
  EXPECT_EQ(ParseFiniteNumber("nan"), std::nullopt);
  EXPECT_EQ(ParseFiniteNumber("1e999"), std::nullopt);
}

TEST(TrimTest, DropsSpacesTabsAndLineEndsAround) {
  EXPECT_EQ(Trim("  cycle \t\r\n"), "cycle");
  EXPECT_EQ(Trim("a b"), "a b");
  EXPECT_EQ(Trim(" \t\n"), "");
  EXPECT_EQ(Trim(""), "");
}

}  // namespace
}  // namespace blobtune
