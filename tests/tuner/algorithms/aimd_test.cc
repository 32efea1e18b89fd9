#include "blobtune/tuner/algorithms/aimd.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <string_view>

#include "sample_maker.h"

namespace blobtune::tuner {
namespace {

using namespace std::chrono_literals;
using testing::Drop;
using testing::Success;

// ---- Config ----

TEST(AimdLimitConfigTest, DefaultsAreNetflixs) {
  const AimdLimit::Options defaults;
  EXPECT_EQ(defaults.limits.initial_limit, 20);
  EXPECT_EQ(defaults.limits.min_limit, 20);
  EXPECT_EQ(defaults.limits.max_limit, 200);
  EXPECT_EQ(defaults.backoff_ratio, 0.9);
  EXPECT_EQ(defaults.timeout, 5s);
  EXPECT_TRUE(defaults.Validate().ok());
}

void ExpectInvalid(const AimdLimit::Options& options, std::string_view field) {
  const Status status = options.Validate();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << field;
  EXPECT_NE(status.message().find(field), std::string_view::npos) << status;
  EXPECT_FALSE(AimdLimit::Create(options).ok());
}

TEST(AimdLimitConfigTest, RejectsBadLimits) {
  ExpectInvalid({.limits = {.initial_limit = 1, .min_limit = 0}}, "min_limit");
  ExpectInvalid({.limits = {.initial_limit = 300}}, "initial_limit");
  ExpectInvalid({.limits = {.initial_limit = 10}}, "initial_limit");  // Below min: 20.
  ExpectInvalid({.limits = {.min_limit = 20, .max_limit = 10}}, "max_limit");
  ExpectInvalid({.limits = {.max_limit = 1000001}}, "max_limit");
}

TEST(AimdLimitConfigTest, RejectsBackoffOutsideHalfToOne) {
  ExpectInvalid({.backoff_ratio = 0.49}, "backoff_ratio");
  ExpectInvalid({.backoff_ratio = 1.0}, "backoff_ratio");
  ExpectInvalid({.backoff_ratio = std::numeric_limits<double>::quiet_NaN()}, "backoff_ratio");
  EXPECT_TRUE(AimdLimit::Options{.backoff_ratio = 0.5}.Validate().ok());
}

TEST(AimdLimitConfigTest, RejectsNonPositiveTimeout) {
  ExpectInvalid({.timeout = 0s}, "timeout");
  ExpectInvalid({.timeout = -1ms}, "timeout");
}

// ---- Dynamics, checked against Netflix's rule by hand ----

class AimdLimitTest : public ::testing::Test {
 protected:
  // Netflix's defaults with the floor lowered so that backoff is visible.
  AimdLimit aimd_ = AimdLimit::Create({.limits = {.min_limit = 1}}).value();
};

TEST_F(AimdLimitTest, DropBacksOffMultiplicatively) {
  EXPECT_EQ(aimd_.Update(Drop(0ms, 1ms, 20)), 18);  // floor(20 * 0.9) = 18
  EXPECT_EQ(aimd_.Update(Drop(1ms, 1ms, 18)), 16);  // floor(18 * 0.9) = floor(16.2)
  EXPECT_EQ(aimd_.Update(Drop(2ms, 1ms, 16)), 14);  // floor(14.4)
  EXPECT_EQ(aimd_.limit(), 14);
}

TEST_F(AimdLimitTest, SuccessGrowsByOneOnlyWhenHalfTheLimitIsInUse) {
  EXPECT_EQ(aimd_.Update(Success(0ms, 1ms, 9)), 20);   // 9 * 2 = 18 < 20: app-limited
  EXPECT_EQ(aimd_.Update(Success(1ms, 1ms, 10)), 21);  // 10 * 2 = 20 >= 20: +1
  EXPECT_EQ(aimd_.Update(Success(2ms, 1ms, 11)), 22);  // 22 >= 21: +1
  EXPECT_EQ(aimd_.Update(Success(3ms, 1ms, 10)), 22);  // 20 < 22: hold
}

TEST_F(AimdLimitTest, SuccessSlowerThanTimeoutCountsAsDrop) {
  EXPECT_EQ(aimd_.Update(Success(0ms, 5001ms, 20)), 18);  // rtt > 5 s: floor(20 * 0.9)
  EXPECT_EQ(aimd_.Update(Success(1ms, 5s, 9)), 19);       // rtt == timeout is not a drop: +1
}

TEST_F(AimdLimitTest, WeightReplaysIdenticalSamples) {
  EXPECT_EQ(aimd_.Update(Success(0ms, 1ms, 100, 3)), 23);  // 20 -> 21 -> 22 -> 23
  EXPECT_EQ(aimd_.Update(Drop(1ms, 1ms, 23, 2)), 18);      // floor(20.7) = 20, floor(18.0) = 18
  // inflight 10 (10 * 2 = 20) grows 18 -> 19 -> 20 -> 21; at 21 the rule holds, so the rest of
  // the 1000 replays change nothing.
  EXPECT_EQ(aimd_.Update(Success(2ms, 1ms, 10, 1000)), 21);
}

// ---- Clamps ----

TEST(AimdLimitClampTest, BackoffOnOneStaysAtOne) {
  AimdLimit aimd = AimdLimit::Create({.limits = {.initial_limit = 1, .min_limit = 1}}).value();
  EXPECT_EQ(aimd.Update(Drop(0ms, 1ms, 1)), 1);  // Netflix: floor(1 * 0.9) = 0; clamped to 1.
  EXPECT_EQ(aimd.Update(Drop(1ms, 1ms, 1, 50)), 1);
}

TEST(AimdLimitClampTest, NeverBelowMinNorAboveMax) {
  AimdLimit aimd =
      AimdLimit::Create({.limits = {.initial_limit = 20, .min_limit = 20, .max_limit = 21}})
          .value();
  EXPECT_EQ(aimd.Update(Drop(0ms, 1ms, 20)), 20);          // 18 clamped up to min 20
  EXPECT_EQ(aimd.Update(Success(1ms, 1ms, 100)), 21);      // 21
  EXPECT_EQ(aimd.Update(Success(2ms, 1ms, 100, 50)), 21);  // 22 clamped down to max 21
}

TEST(AimdLimitCloneTest, CloneIsIndependent) {
  AimdLimit aimd = AimdLimit::Create({.limits = {.min_limit = 1}}).value();
  std::unique_ptr<LimitAlgorithm> clone = aimd.Clone();
  EXPECT_EQ(aimd.Update(Drop(0ms, 1ms, 20)), 18);
  EXPECT_EQ(clone->limit(), 20);
  EXPECT_EQ(clone->Update(Success(0ms, 1ms, 20)), 21);
  EXPECT_EQ(aimd.limit(), 18);
  EXPECT_EQ(clone->name(), "aimd");
}

}  // namespace
}  // namespace blobtune::tuner
