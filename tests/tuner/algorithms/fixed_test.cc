#include "blobtune/tuner/algorithms/fixed.h"

#include <gtest/gtest.h>

#include <chrono>

#include "sample_maker.h"

namespace blobtune::tuner {
namespace {

using namespace std::chrono_literals;
using testing::Drop;
using testing::Success;

TEST(FixedLimitConfigTest, DefaultsAreValid) {
  EXPECT_TRUE(FixedLimit::Options{}.Validate().ok());
  EXPECT_EQ(FixedLimit::Create({}).value().limit(), 20);
}

TEST(FixedLimitConfigTest, RejectsLimitOutsideOneToAMillion) {
  for (int bad : {0, -3, 1000001}) {
    const Status status = FixedLimit::Options{.limit = bad}.Validate();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find("limit"), std::string_view::npos) << status;
  }
  EXPECT_TRUE(FixedLimit::Options{.limit = 1}.Validate().ok());
  EXPECT_TRUE(FixedLimit::Options{.limit = 1000000}.Validate().ok());
  EXPECT_FALSE(FixedLimit::Create({.limit = 0}).ok());
}

TEST(FixedLimitTest, NeverMoves) {
  FixedLimit fixed = FixedLimit::Create({.limit = 16}).value();
  EXPECT_EQ(fixed.name(), "fixed");
  EXPECT_EQ(fixed.Update(Drop(0ms, 10s, 16)), 16);
  EXPECT_EQ(fixed.Update(Success(1ms, 1us, 16, 1000)), 16);
  EXPECT_EQ(fixed.Update(Success(2ms, 1ms, 1)), 16);
  EXPECT_EQ(fixed.limit(), 16);
  EXPECT_FALSE(fixed.estimates().baseline_latency.has_value());
}

TEST(FixedLimitTest, CloneIsAnEqualIndependentValue) {
  const FixedLimit fixed = FixedLimit::Create({.limit = 7}).value();
  std::unique_ptr<LimitAlgorithm> clone = fixed.Clone();
  EXPECT_EQ(clone->name(), "fixed");
  EXPECT_EQ(clone->limit(), 7);
}

}  // namespace
}  // namespace blobtune::tuner
