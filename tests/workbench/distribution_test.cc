// Distributions: sample means match the stated means, and parsing rejects bad input by path.
#include "distribution.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace blobtune::workbench {
namespace {

double SampleMean(const Distribution& d, int n = 400000) {
  Rng rng(7);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += d.Sample(rng);
  return sum / n;
}

TEST(DistributionTest, SampleMeansMatchTheDeclaredMean) {
  for (const Distribution& d :
       {Distribution::Constant(3.0), Distribution::Exponential(45.0),
        Distribution::Lognormal(10.0, 1.0), Distribution::Uniform(1.0, 3.0),
        Distribution::LogUniform(4096.0, 64.0 * 1024 * 1024),
        Distribution::Pareto(10.0, 2.5, 1000.0),
        Distribution::Mix({{0.99, Distribution::Exponential(2.0)},
                           {0.01, Distribution::Exponential(100.0)}})}) {
    EXPECT_NEAR(SampleMean(d), d.Mean(), d.Mean() * 0.02) << d.ToJson().dump();
  }
}

TEST(DistributionTest, SameSeedSameStream) {
  Rng a(StreamSeed(1, "x")), b(StreamSeed(1, "x")), c(StreamSeed(1, "y"));
  EXPECT_EQ(a.Uniform(), b.Uniform());
  EXPECT_NE(a.Uniform(), c.Uniform());
}

TEST(DistributionTest, ParsesEveryKindAndABareNumber) {
  for (const char* text :
       {R"(5)", R"({"type": "constant", "value": 5})", R"({"type": "exponential", "mean": 5})",
        R"({"type": "lognormal", "mean": 5, "cv": 2})", R"({"type": "pareto", "mean": 5, "alpha": 1.5})",
        R"({"type": "uniform", "min": 1, "max": 9})", R"({"type": "loguniform", "min": 1, "max": 9})",
        R"({"type": "mix", "parts": [{"weight": 1, "of": 5}, {"weight": 3, "of": 5}]})"}) {
    StatusOr<Distribution> d = ParseDistribution(nlohmann::json::parse(text), "d");
    ASSERT_TRUE(d.ok()) << text << ": " << d.status();
    EXPECT_NEAR(d->Mean(), 5.0, 1e-9 + (d->kind() == Distribution::Kind::kLogUniform ? 2 : 0));
  }
}

TEST(DistributionTest, ErrorsNameTheField) {
  auto error = [](const char* text) {
    return ParseDistribution(nlohmann::json::parse(text), "stages[0].service_ms").status();
  };
  EXPECT_EQ(error(R"({"type": "gamma"})").message().substr(0, 25), "stages[0].service_ms.type");
  EXPECT_NE(error(R"({"type": "lognormal", "mean": 5})").message().find("service_ms.cv"),
            std::string::npos);
  EXPECT_NE(error(R"({"type": "pareto", "mean": 5, "alpha": 0.5})").message().find("alpha"),
            std::string::npos);
  EXPECT_NE(error(R"({"type": "mix", "parts": [{"weight": 1, "of": {"type": "x"}}]})")
                .message()
                .find("parts[0].of.type"),
            std::string::npos);
  EXPECT_NE(error(R"({"type": "exponential", "mean": 5, "mena": 1})").message().find("mena"),
            std::string::npos);
  EXPECT_EQ(error("-1").code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace blobtune::workbench
