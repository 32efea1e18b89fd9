#include "blobtune/tuner/algorithms/gradient2.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string_view>

#include "sample_maker.h"

namespace blobtune::tuner {
namespace {

using namespace std::chrono_literals;
using testing::Drop;
using testing::Success;

// ---- Config ----

TEST(Gradient2LimitConfigTest, DefaultsAreNetflixs) {
  const Gradient2Limit::Options defaults;
  EXPECT_EQ(defaults.limits.initial_limit, 20);
  EXPECT_EQ(defaults.limits.min_limit, 20);
  EXPECT_EQ(defaults.limits.max_limit, 200);
  EXPECT_EQ(defaults.smoothing, 0.2);
  EXPECT_EQ(defaults.queue_size, 4);
  EXPECT_EQ(defaults.long_window, 600);
  EXPECT_EQ(defaults.rtt_tolerance, 1.5);
  EXPECT_EQ(defaults.window_size, 0);
  EXPECT_TRUE(defaults.Validate().ok());
}

void ExpectInvalid(const Gradient2Limit::Options& options, std::string_view field) {
  const Status status = options.Validate();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << field;
  EXPECT_NE(status.message().find(field), std::string_view::npos) << status;
  EXPECT_FALSE(Gradient2Limit::Create(options).ok());
}

TEST(Gradient2LimitConfigTest, RejectsBadFields) {
  ExpectInvalid({.limits = {.initial_limit = 5, .min_limit = 0}}, "min_limit");
  ExpectInvalid({.limits = {.initial_limit = 201}}, "initial_limit");
  ExpectInvalid({.limits = {.max_limit = 2000000}}, "max_limit");
  ExpectInvalid({.smoothing = 0}, "smoothing");
  ExpectInvalid({.smoothing = 1.01}, "smoothing");
  ExpectInvalid({.queue_size = -1}, "queue_size");
  ExpectInvalid({.long_window = 0}, "long_window");
  ExpectInvalid({.rtt_tolerance = 0.9}, "rtt_tolerance");
  ExpectInvalid({.rtt_tolerance = std::numeric_limits<double>::infinity()}, "rtt_tolerance");
  ExpectInvalid({.window_size = -1}, "window_size");
  ExpectInvalid({.min_window_time = 0s}, "min_window_time");
  ExpectInvalid({.min_window_time = 2s, .max_window_time = 1s}, "max_window_time");
  ExpectInvalid({.min_rtt_threshold = -1us}, "min_rtt_threshold");
  EXPECT_TRUE((Gradient2Limit::Options{.smoothing = 1, .rtt_tolerance = 1}.Validate().ok()));
}

// ---- Dynamics, checked against Netflix's formula by hand ----

class Gradient2LimitTest : public ::testing::Test {
 protected:
  // Netflix's defaults with the floor lowered so that shrinking is visible.
  Gradient2Limit g2_ = Gradient2Limit::Create({.limits = {.min_limit = 1}}).value();
};

TEST_F(Gradient2LimitTest, FollowsNetflixFormula) {
  // long_rtt = 10 (mean of 10); gradient = clamp(1.5 * 10 / 10, 0.5, 1) = 1
  // L = 0.8 * 20 + 0.2 * (20 * 1 + 4) = 20.8
  EXPECT_EQ(g2_.Update(Success(0ms, 10ms, 20)), 20);
  EXPECT_DOUBLE_EQ(g2_.estimated_limit(), 20.8);
  // long_rtt = mean(10, 10) = 10; L = 0.8 * 20.8 + 0.2 * (20.8 + 4) = 21.6
  EXPECT_EQ(g2_.Update(Success(1ms, 10ms, 20)), 21);
  EXPECT_DOUBLE_EQ(g2_.estimated_limit(), 21.6);
  // long_rtt = mean(10, 10, 40) = 20; gradient = 1.5 * 20 / 40 = 0.75
  // L = 0.8 * 21.6 + 0.2 * (21.6 * 0.75 + 4) = 17.28 + 4.04 = 21.32
  EXPECT_EQ(g2_.Update(Success(2ms, 40ms, 21)), 21);
  EXPECT_DOUBLE_EQ(g2_.estimated_limit(), 21.32);
  // inflight 5 < 21.32 / 2: app-limited, the limit holds but long_rtt still averages in.
  EXPECT_EQ(g2_.Update(Success(3ms, 10ms, 5)), 21);
  EXPECT_DOUBLE_EQ(g2_.estimated_limit(), 21.32);
  EXPECT_EQ(g2_.estimates().baseline_latency, 17500us);  // mean(10, 10, 40, 10)
  EXPECT_EQ(g2_.estimates().recent_latency, 10ms);
}

TEST_F(Gradient2LimitTest, GradientIsFlooredAtHalfOnLatencySpike) {
  // Warm-up at 10 ms with inflight 1 (< 20 / 2: app-limited, the limit holds): long_rtt = 10 ms.
  for (int i = 0; i < 10; ++i) g2_.Update(Success(i * 1ms, 10ms, 1));
  EXPECT_DOUBLE_EQ(g2_.estimated_limit(), 20);
  // long_rtt = 10 + (1000 - 10) * 2/601 = 13.29 ms; 1.5 * 13.29 / 1000 = 0.02 -> gradient 0.5
  // L = 0.8 * 20 + 0.2 * (20 * 0.5 + 4) = 16 + 2.8 = 18.8
  EXPECT_EQ(g2_.Update(Success(10ms, 1000ms, 20)), 18);
  EXPECT_DOUBLE_EQ(g2_.estimated_limit(), 18.8);
}

TEST_F(Gradient2LimitTest, LongRttDecaysWhenLatencyRecovers) {
  for (int i = 0; i < 10; ++i) g2_.Update(Success(i * 1ms, 100ms, 1));  // warm-up mean: 100 ms
  // After warm-up: long_rtt = 100 * (1 - 2/601) + 10 * 2/601 = 99.700499 ms; that is more than
  // twice 10 ms, so it decays: 99.700499 * 0.95 = 94.715474 ms.
  g2_.Update(Success(10ms, 10ms, 1));
  const double expected_ns = (100e6 * (1 - 2.0 / 601) + 10e6 * 2.0 / 601) * 0.95;
  EXPECT_NEAR(static_cast<double>(g2_.estimates().baseline_latency->count()), expected_ns, 1);
}

TEST_F(Gradient2LimitTest, DropsAreOrdinaryLatencySamples) {
  Gradient2Limit other = Gradient2Limit::Create({.limits = {.min_limit = 1}}).value();
  g2_.Update(Drop(0ms, 10ms, 20));
  other.Update(Success(0ms, 10ms, 20));
  EXPECT_DOUBLE_EQ(g2_.estimated_limit(), other.estimated_limit());
}

TEST_F(Gradient2LimitTest, WeightReplaysIdenticalSamples) {
  Gradient2Limit other = Gradient2Limit::Create({.limits = {.min_limit = 1}}).value();
  g2_.Update(Success(0ms, 10ms, 20, 3));
  for (int i = 0; i < 3; ++i) other.Update(Success(0ms, 10ms, 20));
  EXPECT_DOUBLE_EQ(g2_.estimated_limit(), other.estimated_limit());
  EXPECT_EQ(g2_.estimates().baseline_latency, other.estimates().baseline_latency);
}

TEST_F(Gradient2LimitTest, SkipsZeroLatency) {
  g2_.Update(Success(0ms, 0ms, 20));
  EXPECT_DOUBLE_EQ(g2_.estimated_limit(), 20);
  EXPECT_FALSE(g2_.estimates().baseline_latency.has_value());
}

// ---- WindowedLimit sampling ----

TEST(Gradient2LimitWindowTest, PoolsSamplesByEndTime) {
  Gradient2Limit g2 =
      Gradient2Limit::Create({.limits = {.min_limit = 1}, .window_size = 2}).value();
  // Ends at 10 ms, past the initial deadline: the window closes with 1 sample (< 2, discarded)
  // and the next deadline is 10 ms + clamp(2 * 10 ms, 1 s, 1 s) = 1010 ms.
  g2.Update(Success(0ms, 10ms, 20));
  g2.Update(Success(100ms, 10ms, 20));   // Ends at 110 ms: pooled.
  g2.Update(Success(200ms, 30ms, 25));   // Ends at 230 ms: pooled.
  g2.Update(Success(1000ms, 50us, 20));  // Below the 100 us threshold: ignored.
  EXPECT_DOUBLE_EQ(g2.estimated_limit(), 20);
  // Ends at 1021 ms > 1010 ms: the window {10, 30, 20} ms closes with average 20 ms, max
  // inflight 25. First update: long_rtt = 20, gradient 1, L = 0.8 * 20 + 0.2 * 24 = 20.8.
  g2.Update(Success(1001ms, 20ms, 3));
  EXPECT_DOUBLE_EQ(g2.estimated_limit(), 20.8);
  EXPECT_EQ(g2.estimates().recent_latency, 20ms);
}

TEST(Gradient2LimitWindowTest, WeightCountsTowardsWindowSizeAndAverage) {
  Gradient2Limit g2 =
      Gradient2Limit::Create({.limits = {.min_limit = 1}, .window_size = 4}).value();
  g2.Update(Success(0ms, 10ms, 20));       // Closes the first (short) window at 10 ms.
  g2.Update(Success(100ms, 10ms, 20, 3));  // 3 completions of 10 ms
  g2.Update(Success(1001ms, 50ms, 20));    // 1 of 50 ms: average (30 + 50) / 4 = 20 ms
  EXPECT_EQ(g2.estimates().recent_latency, 20ms);
  EXPECT_DOUBLE_EQ(g2.estimated_limit(), 20.8);
}

// ---- Clamps ----

TEST(Gradient2LimitClampTest, NeverBelowMin) {
  Gradient2Limit g2 = Gradient2Limit::Create({}).value();            // min 20
  for (int i = 0; i < 10; ++i) g2.Update(Success(i * 1ms, 1ms, 1));  // long_rtt = 1 ms
  // Gradient 0.5 each time: L' = 0.9 L + 0.8 heads for 8, but stops at min_limit 20.
  for (int i = 10; i < 50; ++i) g2.Update(Success(i * 1ms, 10s, 20));
  EXPECT_EQ(g2.limit(), 20);
  EXPECT_GE(g2.estimated_limit(), 20);
}

TEST(Gradient2LimitClampTest, NeverAboveMax) {
  Gradient2Limit g2 =
      Gradient2Limit::Create({.limits = {.initial_limit = 30, .max_limit = 30}}).value();
  for (int i = 0; i < 50; ++i) g2.Update(Success(i * 1ms, 1ms, 30, 7));
  EXPECT_EQ(g2.limit(), 30);
  EXPECT_DOUBLE_EQ(g2.estimated_limit(), 30);
}

TEST(Gradient2LimitClampTest, MinLimitOfOneHoldsUnderAnyLatency) {
  Gradient2Limit g2 =
      Gradient2Limit::Create({.limits = {.initial_limit = 1, .min_limit = 1}}).value();
  for (int i = 0; i < 100; ++i) g2.Update(Success(i * 1ms, (i % 2 ? 1ms : 100s), 1));
  EXPECT_GE(g2.limit(), 1);
}

TEST(Gradient2LimitCloneTest, CloneIsIndependent) {
  Gradient2Limit g2 = Gradient2Limit::Create({.limits = {.min_limit = 1}}).value();
  g2.Update(Success(0ms, 10ms, 20));
  std::unique_ptr<LimitAlgorithm> clone = g2.Clone();
  g2.Update(Success(1ms, 10ms, 20));
  EXPECT_DOUBLE_EQ(g2.estimated_limit(), 21.6);
  EXPECT_EQ(clone->limit(), 20);
  EXPECT_DOUBLE_EQ(dynamic_cast<Gradient2Limit&>(*clone).estimated_limit(), 20.8);
  EXPECT_EQ(clone->name(), "gradient2");
}

}  // namespace
}  // namespace blobtune::tuner
