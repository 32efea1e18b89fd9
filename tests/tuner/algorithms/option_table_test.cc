// The option tables (tuner/src/algorithms/option_table.h): every row of every algorithm parses
// from text and reads back, and refuses what lies outside its range with a message naming it,
// both from text and through Options::Validate().
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "algorithm_internal.h"
#include "blobtune/base/text.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "option_table.h"

namespace blobtune::tuner {
namespace {

using algorithms_internal::OptionRow;
using algorithms_internal::OptionsOf;
using algorithms_internal::OptionType;

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// Values of `row` that lie just outside its range (none past an open-ended maximum), and for
// an integer option one between two integers inside it.
template <typename Options>
std::vector<double> OutsideValues(const OptionRow<Options>& row) {
  std::vector<double> values = {row.range.min_open ? row.range.min : row.range.min - 1,
                                std::nan("")};
  if (!std::isinf(row.range.max)) {
    values.push_back(row.range.max_open ? row.range.max : row.range.max + 1);
  }
  if (row.type == OptionType::kInteger) values.push_back(row.range.min + 1.5);
  return values;
}

// Runs the checks on every row of `Algorithm`'s table.
template <typename Algorithm>
void CheckEveryRow(std::string_view algorithm) {
  using Options = typename Algorithm::Options;
  const Options defaults;
  ASSERT_FALSE(OptionsOf<Options>().empty()) << algorithm;
  for (const OptionRow<Options>& row : OptionsOf<Options>()) {
    SCOPED_TRACE(std::string(algorithm) + ":" + std::string(row.name));
    const double value = row.get(defaults);
    EXPECT_TRUE(row.range.Contains(value)) << "the default lies outside the range";

    // The default's text parses, builds, and sets the field to what it read.
    const std::string text =
        std::string(algorithm) + ":" + std::string(row.name) + "=" + FormatNumber(value);
    StatusOr<std::unique_ptr<LimitAlgorithm>> built = MakeAlgorithmFromText(text);
    ASSERT_TRUE(built.ok()) << text << ": " << built.status();
    Options set = defaults;
    row.set(set, value);
    EXPECT_EQ(row.get(set), value);

    for (double outside : OutsideValues(row)) {
      const std::string bad =
          std::string(algorithm) + ":" + std::string(row.name) + "=" + FormatNumber(outside);
      if (!std::isnan(outside)) {  // The text parser refuses "nan" before any table sees it.
        StatusOr<std::unique_ptr<LimitAlgorithm>> refused = MakeAlgorithmFromText(bad);
        ASSERT_FALSE(refused.ok()) << bad;
        EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
        EXPECT_TRUE(Contains(refused.status().message(), "'" + std::string(row.name) + "'"))
            << refused.status();
      }
      // Set directly, as a caller may: Validate() refuses it just the same. (An integer field
      // holds the truncated value, which may be back in range.)
      Options direct = defaults;
      row.set(direct, outside);
      if (row.range.Contains(row.get(direct))) continue;
      const Status invalid = direct.Validate();
      EXPECT_EQ(invalid.code(), StatusCode::kInvalidArgument) << bad;
      EXPECT_TRUE(Contains(invalid.message(), "'" + std::string(row.name) + "'")) << invalid;
    }
  }
}

TEST(OptionTableTest, EveryRowParsesReadsBackAndRefusesWhatLiesOutsideItsRange) {
  CheckEveryRow<FixedLimit>("fixed");
  CheckEveryRow<AimdLimit>("aimd");
  CheckEveryRow<EnvoyGradientLimit>("gradient");
  CheckEveryRow<Gradient2Limit>("gradient2");
  CheckEveryRow<VegasLimit>("vegas");
  CheckEveryRow<MarginalLimit>("marginal");
}

TEST(OptionTableTest, EveryRegisteredAlgorithmListsItsOptions) {
  for (std::string_view name : AlgorithmNames()) {
    const std::vector<AlgorithmOption> options = AlgorithmOptions(name);
    EXPECT_FALSE(options.empty()) << name;
    for (const AlgorithmOption& option : options) {
      EXPECT_FALSE(option.default_value.empty()) << name << ":" << option.name;
      EXPECT_FALSE(option.range.empty()) << name << ":" << option.name;
      EXPECT_FALSE(option.meaning.empty()) << name << ":" << option.name;
    }
  }
  EXPECT_TRUE(AlgorithmOptions("bbr").empty());
}

// The option of `algorithm` named `name`, as AlgorithmOptions() lists it.
AlgorithmOption Find(std::string_view algorithm, std::string_view name) {
  for (AlgorithmOption& option : AlgorithmOptions(algorithm)) {
    if (option.name == name) return option;
  }
  ADD_FAILURE() << algorithm << " has no option " << name;
  return {};
}

TEST(OptionTableTest, DescribesDefaultsInTheTextsUnitsAndRangesAsErrorsDo) {
  const AlgorithmOption backoff = Find("aimd", "backoff_ratio");
  EXPECT_EQ(backoff.default_value, "0.9");
  EXPECT_EQ(backoff.range, "in [0.5, 1)");
  const AlgorithmOption timeout = Find("aimd", "timeout_ms");
  EXPECT_EQ(timeout.default_value, "5000");
  EXPECT_EQ(timeout.range, "> 0 ms");
  EXPECT_EQ(Find("aimd", "min_limit").range, "an integer in [1, 1000000]");
  EXPECT_EQ(Find("marginal", "cycle").range, "an integer in [2, 64]");
  StatusOr<std::unique_ptr<LimitAlgorithm>> refused = MakeAlgorithmFromText("aimd:backoff_ratio=1");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "aimd: parameter 'backoff_ratio' must be in [0.5, 1) (got 1)");
}

}  // namespace
}  // namespace blobtune::tuner
