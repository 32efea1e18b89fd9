#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>

#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/algorithms/aimd.h"
#include "blobtune/tuner/algorithms/gradient.h"
#include "blobtune/tuner/algorithms/gradient2.h"
#include "blobtune/tuner/algorithms/marginal.h"

namespace blobtune::tuner {
namespace {

using namespace std::chrono_literals;

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// ---- Parsing ----

TEST(ParseAlgorithmSpecTest, NameAlone) {
  const AlgorithmSpec spec = ParseAlgorithmSpec("aimd").value();
  EXPECT_EQ(spec.name, "aimd");
  EXPECT_TRUE(spec.params.empty());
}

TEST(ParseAlgorithmSpecTest, NameWithParameters) {
  const AlgorithmSpec spec = ParseAlgorithmSpec("aimd:backoff_ratio=0.8,max_limit=64").value();
  EXPECT_EQ(spec.name, "aimd");
  ASSERT_EQ(spec.params.size(), 2u);
  EXPECT_EQ(spec.params.at("backoff_ratio"), 0.8);
  EXPECT_EQ(spec.params.at("max_limit"), 64);
}

TEST(ParseAlgorithmSpecTest, IgnoresSurroundingWhitespaceAndAcceptsExponents) {
  const AlgorithmSpec spec = ParseAlgorithmSpec(" vegas : seed = +7 , smoothing=5e-1 ").value();
  EXPECT_EQ(spec.name, "vegas");
  EXPECT_EQ(spec.params.at("seed"), 7);
  EXPECT_EQ(spec.params.at("smoothing"), 0.5);
}

void ExpectParseError(std::string_view text, std::string_view mention) {
  const StatusOr<AlgorithmSpec> spec = ParseAlgorithmSpec(text);
  ASSERT_FALSE(spec.ok()) << text;
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument) << text;
  EXPECT_TRUE(Contains(spec.status().message(), mention)) << spec.status();
}

TEST(ParseAlgorithmSpecTest, RejectsMalformedText) {
  ExpectParseError("", "empty name");
  ExpectParseError("   ", "empty name");
  ExpectParseError(":max_limit=3", "empty name");
  ExpectParseError("Aimd", "a-z");
  ExpectParseError("aimd:", "no parameters");
  ExpectParseError("aimd:max_limit", "'max_limit' has no '=value'");
  ExpectParseError("aimd:=3", "parameter name");
  ExpectParseError("aimd:max_limit=3,,min_limit=1", "empty parameter");
  ExpectParseError("aimd:max_limit=3,", "empty parameter");
}

TEST(ParseAlgorithmSpecTest, RejectsBadNumbers) {
  ExpectParseError("aimd:max_limit=abc", "'max_limit' has value 'abc'");
  ExpectParseError("aimd:max_limit=", "not a finite number");
  ExpectParseError("aimd:max_limit=12x", "not a finite number");
  ExpectParseError("aimd:max_limit=inf", "not a finite number");
  ExpectParseError("aimd:max_limit=nan", "not a finite number");
}

TEST(ParseAlgorithmSpecTest, RejectsDuplicateParameters) {
  ExpectParseError("aimd:max_limit=3,max_limit=4", "'max_limit' is given twice");
}

TEST(AlgorithmSpecToStringTest, RoundTrips) {
  for (std::string_view text :
       {"aimd", "aimd:backoff_ratio=0.8,max_limit=64", "gradient2:min_rtt_threshold_ms=0.05",
        "vegas:seed=9007199254740992,smoothing=0.1", "fixed:limit=1e-07"}) {
    const AlgorithmSpec spec = ParseAlgorithmSpec(text).value();
    const std::string printed = AlgorithmSpecToString(spec);
    EXPECT_EQ(ParseAlgorithmSpec(printed).value(), spec) << text << " -> " << printed;
  }
  EXPECT_EQ(AlgorithmSpecToString(
                {.name = "aimd", .params = {{"timeout_ms", 500}, {"backoff_ratio", 0.75}}}),
            "aimd:backoff_ratio=0.75,timeout_ms=500");
  EXPECT_EQ(AlgorithmSpecToString({.name = "fixed"}), "fixed");
}

// ---- Building ----

TEST(MakeAlgorithmTest, BuildsEveryRegisteredNameWithDefaults) {
  const std::vector<std::string_view> names = AlgorithmNames();
  EXPECT_EQ(names,
            (std::vector<std::string_view>{"fixed", "aimd", "gradient", "gradient2", "vegas",
                                           "marginal"}));
  for (std::string_view name : names) {
    StatusOr<std::unique_ptr<LimitAlgorithm>> algorithm =
        MakeAlgorithm({.name = std::string(name)});
    ASSERT_TRUE(algorithm.ok()) << name << ": " << algorithm.status();
    EXPECT_EQ((*algorithm)->name(), name);
    EXPECT_GE((*algorithm)->limit(), 1);
    EXPECT_FALSE(AlgorithmOptions(name).empty()) << name;
  }
}

TEST(MakeAlgorithmTest, EveryAlgorithmReportsTheBoundsOfItsOptions) {
  for (std::string_view name : AlgorithmNames()) {
    if (name == "fixed") continue;  // One limit, no bounds: below.
    const std::string spec = std::string(name) + ":min_limit=3,initial_limit=5,max_limit=9";
    StatusOr<std::unique_ptr<LimitAlgorithm>> algorithm = MakeAlgorithmFromText(spec);
    ASSERT_TRUE(algorithm.ok()) << spec << ": " << algorithm.status();
    EXPECT_EQ((*algorithm)->min_limit(), 3) << name;
    EXPECT_EQ((*algorithm)->max_limit(), 9) << name;
  }
  std::unique_ptr<LimitAlgorithm> fixed = MakeAlgorithmFromText("fixed:limit=7").value();
  EXPECT_EQ(fixed->min_limit(), 7);
  EXPECT_EQ(fixed->max_limit(), 7);
}

TEST(MakeAlgorithmTest, AppliesParametersInTheirUnits) {
  std::unique_ptr<LimitAlgorithm> algorithm =
      MakeAlgorithm(
          ParseAlgorithmSpec("aimd:backoff_ratio=0.8,max_limit=64,timeout_ms=500").value())
          .value();
  const auto& aimd = dynamic_cast<const AimdLimit&>(*algorithm);
  EXPECT_EQ(aimd.options().backoff_ratio, 0.8);
  EXPECT_EQ(aimd.options().limits.max_limit, 64);
  EXPECT_EQ(aimd.options().timeout, 500ms);

  algorithm = MakeAlgorithm(ParseAlgorithmSpec("gradient2:min_rtt_threshold_ms=0.05,"
                                               "window_size=10")
                                .value())
                  .value();
  const auto& g2 = dynamic_cast<const Gradient2Limit&>(*algorithm);
  EXPECT_EQ(g2.options().min_rtt_threshold, 50us);
  EXPECT_EQ(g2.options().window_size, 10);

  algorithm = MakeAlgorithm(ParseAlgorithmSpec("gradient:concurrency_update_interval_ms=250,"
                                               "min_rtt_calc_interval_ms=30000,seed=5")
                                .value())
                  .value();
  const auto& envoy = dynamic_cast<const EnvoyGradientLimit&>(*algorithm);
  EXPECT_EQ(envoy.options().concurrency_update_interval, 250ms);
  EXPECT_EQ(envoy.options().min_rtt_calc_interval, 30s);
  EXPECT_EQ(envoy.options().seed, 5u);
}

void ExpectMakeError(std::string_view text, std::string_view mention) {
  const StatusOr<std::unique_ptr<LimitAlgorithm>> algorithm =
      MakeAlgorithm(ParseAlgorithmSpec(text).value());
  ASSERT_FALSE(algorithm.ok()) << text;
  EXPECT_EQ(algorithm.status().code(), StatusCode::kInvalidArgument) << text;
  EXPECT_TRUE(Contains(algorithm.status().message(), mention)) << algorithm.status();
}

TEST(MakeAlgorithmTest, UnknownNameListsValidOnes) {
  ExpectMakeError("bbr",
                  "unknown limit algorithm 'bbr'; valid: fixed, aimd, gradient, gradient2, "
                  "vegas");
}

TEST(MakeAlgorithmTest, UnknownParameterListsValidOnes) {
  ExpectMakeError("aimd:timeout=5",
                  "aimd: unknown parameter 'timeout'; valid: initial_limit, "
                  "min_limit, max_limit, backoff_ratio, timeout_ms");
}

TEST(MakeAlgorithmTest, RejectsFractionalIntegers) {
  ExpectMakeError("aimd:max_limit=64.5", "aimd: parameter 'max_limit' must be an integer");
  ExpectMakeError("vegas:seed=-1", "'seed' must be an integer");
}

TEST(MakeAlgorithmTest, RejectsOutOfRangeDurations) {
  ExpectMakeError("aimd:timeout_ms=1e300", "'timeout_ms' is out of range");
}

TEST(MakeAlgorithmTest, RunsTheAlgorithmsOwnValidation) {
  ExpectMakeError("aimd:backoff_ratio=1.5", "backoff_ratio");
  ExpectMakeError("aimd:timeout_ms=0", "timeout");
  ExpectMakeError("gradient2:min_limit=0", "min_limit");
  ExpectMakeError("gradient:jitter_percent=101", "jitter_percent");
  ExpectMakeError("fixed:limit=0", "limit");
  ExpectMakeError("vegas:max_limit=2000000", "max_limit");
}

TEST(MakeAlgorithmFromTextTest, ParsesThenBuildsAndReportsTheFirstError) {
  StatusOr<std::unique_ptr<LimitAlgorithm>> made = MakeAlgorithmFromText("aimd:max_limit=64");
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ((*made)->name(), "aimd");

  StatusOr<std::unique_ptr<LimitAlgorithm>> malformed = MakeAlgorithmFromText("aimd:max_limit");
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(malformed.status().message(), ParseAlgorithmSpec("aimd:max_limit").status().message());

  StatusOr<std::unique_ptr<LimitAlgorithm>> unknown = MakeAlgorithmFromText("bbr");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown limit algorithm 'bbr'"), std::string::npos);
}

TEST(MakeDefaultAlgorithmTest, IsMarginalWithDefaults) {
  std::unique_ptr<LimitAlgorithm> algorithm = MakeDefaultAlgorithm();
  ASSERT_NE(algorithm, nullptr);
  EXPECT_EQ(algorithm->name(), "marginal");
  EXPECT_EQ(algorithm->limit(), MarginalLimit::Options{}.limits.initial_limit);
}

}  // namespace
}  // namespace blobtune::tuner
