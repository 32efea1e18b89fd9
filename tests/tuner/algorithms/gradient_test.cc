#include "blobtune/tuner/algorithms/gradient.h"

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

TEST(EnvoyGradientLimitConfigTest, DefaultsAreEnvoys) {
  const EnvoyGradientLimit::Options defaults;
  EXPECT_EQ(defaults.limits.initial_limit, 3);
  EXPECT_EQ(defaults.limits.min_limit, 3);
  EXPECT_EQ(defaults.limits.max_limit, 1000);
  EXPECT_EQ(defaults.concurrency_update_interval, 100ms);
  EXPECT_EQ(defaults.sample_aggregate_percentile, 50);
  EXPECT_EQ(defaults.min_rtt_calc_interval, 60s);
  EXPECT_EQ(defaults.min_rtt_request_count, 50);
  EXPECT_EQ(defaults.jitter_percent, 15);
  EXPECT_EQ(defaults.min_concurrency, 3);
  EXPECT_EQ(defaults.buffer_percent, 25);
  EXPECT_TRUE(defaults.Validate().ok());
}

void ExpectInvalid(const EnvoyGradientLimit::Options& options, std::string_view field) {
  const Status status = options.Validate();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << field;
  EXPECT_NE(status.message().find(field), std::string_view::npos) << status;
  EXPECT_FALSE(EnvoyGradientLimit::Create(options).ok());
}

TEST(EnvoyGradientLimitConfigTest, RejectsBadFields) {
  ExpectInvalid({.limits = {.min_limit = 0}}, "min_limit");
  ExpectInvalid({.limits = {.initial_limit = 2000}}, "initial_limit");
  ExpectInvalid({.limits = {.max_limit = 1000001}}, "max_limit");
  ExpectInvalid({.concurrency_update_interval = 0ms}, "concurrency_update_interval");
  ExpectInvalid({.concurrency_update_interval = 25h}, "concurrency_update_interval");
  ExpectInvalid({.sample_aggregate_percentile = 101}, "sample_aggregate_percentile");
  ExpectInvalid({.sample_aggregate_percentile = -1}, "sample_aggregate_percentile");
  ExpectInvalid({.min_rtt_calc_interval = -1s}, "min_rtt_calc_interval");
  ExpectInvalid({.min_rtt_request_count = 0}, "min_rtt_request_count");
  ExpectInvalid({.jitter_percent = 150}, "jitter_percent");
  ExpectInvalid({.min_concurrency = 2}, "min_concurrency");  // Below min_limit 3.
  ExpectInvalid({.limits = {.max_limit = 10}, .min_concurrency = 11}, "min_concurrency");
  ExpectInvalid({.buffer_percent = std::numeric_limits<double>::quiet_NaN()}, "buffer_percent");
}

// ---- Dynamics, checked against Envoy's controller by hand ----

class EnvoyGradientLimitTest : public ::testing::Test {
 protected:
  static constexpr EnvoyGradientLimit::Options kOptions{.limits = {.initial_limit = 10},
                                                        .min_rtt_calc_interval = 1s,
                                                        .min_rtt_request_count = 5,
                                                        .jitter_percent = 0};

  // Feeds the first minRTT window: 5 samples of `latency` granted at 0..4 ms.
  static void FinishFirstWindow(EnvoyGradientLimit& envoy, Duration latency) {
    for (int i = 0; i < 5; ++i) envoy.Update(Success(i * 1ms, latency, 3));
  }

  EnvoyGradientLimit envoy_ = EnvoyGradientLimit::Create(kOptions).value();
};

TEST_F(EnvoyGradientLimitTest, StartsPinnedUntilRequestCountSamples) {
  EXPECT_EQ(envoy_.limit(), 3);
  EXPECT_TRUE(envoy_.InMinRttWindow());
  EXPECT_EQ(envoy_.estimates().state, "min_rtt_window");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(envoy_.Update(Success(i * 1ms, 10ms, 3)), 3);
  // The 5th sample completes the window: minRTT = p50 = 10 ms, the saved limit comes back.
  EXPECT_EQ(envoy_.Update(Success(4ms, 10ms, 3)), 10);
  EXPECT_FALSE(envoy_.InMinRttWindow());
  EXPECT_EQ(envoy_.estimates().baseline_latency, 10ms);
  EXPECT_EQ(envoy_.estimates().state, "adjusting");
}

TEST_F(EnvoyGradientLimitTest, FollowsEnvoyFormulaEachUpdateInterval) {
  FinishFirstWindow(envoy_, 10ms);  // Ends at 14 ms; the next update is due at 114 ms.
  envoy_.Update(Success(50ms, 20ms, 10));
  envoy_.Update(Success(60ms, 40ms, 10));
  envoy_.Update(Success(70ms, 30ms, 10));
  EXPECT_EQ(envoy_.limit(), 10);  // No update before the interval ends.
  // Ends at 120 ms: the 114 ms update runs first. sampleRTT = p50 of {20, 30, 40} = 30 ms.
  // gradient = clamp(10 * 1.25 / 30, 0.5, 2) = 0.5; 10 * 0.5 = 5; floor(5 + sqrt 5) = 7
  EXPECT_EQ(envoy_.Update(Success(110ms, 10ms, 7)), 7);
  EXPECT_EQ(envoy_.estimates().recent_latency, 30ms);
  // At 214 ms: sampleRTT 10 ms; gradient 1.25; 7 * 1.25 = 8.75; floor(8.75 + 2.958) = 11
  EXPECT_EQ(envoy_.Update(Success(200ms, 20ms, 7)), 11);
  // At 314 ms: sampleRTT 20 ms; gradient 0.625; 11 * 0.625 = 6.875; floor(6.875 + 2.622) = 9
  EXPECT_EQ(envoy_.Update(Success(300ms, 20ms, 9)), 9);
  // Ends at 401 ms, before the 414 ms deadline: recorded only.
  EXPECT_EQ(envoy_.Update(Success(400ms, 1ms, 9)), 9);
  // At 414 ms: p50 of {20, 1} = 1 ms (nearest rank 1); gradient 12.5 -> 2; 18 + 4.243 -> 22
  EXPECT_EQ(envoy_.Update(Success(410ms, 10ms, 9)), 22);
}

TEST_F(EnvoyGradientLimitTest, ReentersMinRttWindowAfterInterval) {
  FinishFirstWindow(envoy_, 10ms);  // Ends at 14 ms: next window due at 1014 ms (no jitter).
  envoy_.Update(Success(1000ms, 13ms, 10));  // Ends at 1013 ms.
  EXPECT_FALSE(envoy_.InMinRttWindow());
  // Ends at 1015 ms: the window opens at 1014 ms, pins the limit and ignores this sample, which
  // was granted before the window.
  EXPECT_EQ(envoy_.Update(Success(1005ms, 10ms, 10)), 3);
  EXPECT_TRUE(envoy_.InMinRttWindow());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(envoy_.Update(Success(1020ms + i * 1ms, 20ms, 3)), 3);
  EXPECT_EQ(envoy_.Update(Success(1024ms, 20ms, 3)), 10);  // The saved limit comes back.
  EXPECT_EQ(envoy_.estimates().baseline_latency, 20ms);
}

TEST_F(EnvoyGradientLimitTest, FiveUpdatesAtTheFloorTriggerRemeasure) {
  EnvoyGradientLimit envoy =
      EnvoyGradientLimit::Create(
          {.min_rtt_calc_interval = 1s, .min_rtt_request_count = 5, .jitter_percent = 0})
          .value();
  FinishFirstWindow(envoy, 10ms);  // Limit back to initial 3 = min_limit.
  // Each 100 ms update sees sampleRTT 100 ms: gradient 0.5; floor(1.5 + 1.22) = 2 -> 3.
  envoy.Update(Success(20ms, 100ms, 3));  // Ends at 120: the 114 ms update has no samples.
  for (int k = 1; k <= 4; ++k) {
    envoy.Update(Success(20ms + k * 100ms, 100ms, 3));  // Updates at 214, 314, 414, 514 ms.
    EXPECT_EQ(envoy.limit(), 3);
    EXPECT_FALSE(envoy.InMinRttWindow()) << k;
  }
  envoy.Update(Success(520ms, 100ms, 3));  // The 5th update at the floor, at 614 ms.
  EXPECT_TRUE(envoy.InMinRttWindow());
}

TEST_F(EnvoyGradientLimitTest, PercentileIsWeightedNearestRank) {
  EnvoyGradientLimit p90 =
      EnvoyGradientLimit::Create({.sample_aggregate_percentile = 90, .min_rtt_request_count = 10})
          .value();
  for (int i = 1; i <= 10; ++i) p90.Update(Success(0ms, i * 1ms, 3));
  EXPECT_EQ(p90.estimates().baseline_latency, 9ms);  // rank ceil(0.9 * 10) = 9

  EnvoyGradientLimit p50 = EnvoyGradientLimit::Create({.min_rtt_request_count = 10}).value();
  p50.Update(Success(0ms, 100ms, 3, 2));
  EXPECT_TRUE(p50.InMinRttWindow());  // Weight 2 of 10.
  p50.Update(Success(0ms, 1ms, 3, 8));
  EXPECT_FALSE(p50.InMinRttWindow());
  EXPECT_EQ(p50.estimates().baseline_latency, 1ms);  // rank 5 falls in the 8 samples of 1 ms
}

TEST_F(EnvoyGradientLimitTest, DropsAreSampledLikeSuccesses) {
  for (int i = 0; i < 5; ++i) envoy_.Update(Drop(i * 1ms, 10ms, 3));
  EXPECT_FALSE(envoy_.InMinRttWindow());
  EXPECT_EQ(envoy_.estimates().baseline_latency, 10ms);
}

TEST_F(EnvoyGradientLimitTest, JitterDelaysTheNextWindowWithinItsRange) {
  for (uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
    EnvoyGradientLimit envoy = EnvoyGradientLimit::Create({.min_rtt_calc_interval = 1s,
                                                           .min_rtt_request_count = 5,
                                                           .jitter_percent = 15,
                                                           .seed = seed})
                                   .value();
    FinishFirstWindow(envoy, 10ms);          // Ends at 14 ms: next window in [1014, 1164) ms.
    envoy.Update(Success(1000ms, 13ms, 3));  // Ends at 1013 ms.
    EXPECT_FALSE(envoy.InMinRttWindow()) << seed;
    envoy.Update(Success(1150ms, 14ms, 3));  // Ends at 1164 ms.
    EXPECT_TRUE(envoy.InMinRttWindow()) << seed;
  }
}

TEST_F(EnvoyGradientLimitTest, SameSeedSameRun) {
  const EnvoyGradientLimit::Options options{
      .min_rtt_calc_interval = 50ms, .min_rtt_request_count = 5, .seed = 9};
  EnvoyGradientLimit a = EnvoyGradientLimit::Create(options).value();
  EnvoyGradientLimit b = EnvoyGradientLimit::Create(options).value();
  for (int i = 0; i < 5000; ++i) {
    const Sample sample = Success(i * 100us, std::chrono::microseconds(500 + (i * 7919) % 3000), 5);
    ASSERT_EQ(a.Update(sample), b.Update(sample)) << i;
    ASSERT_GE(a.limit(), 3);
  }
}

// ---- Clamps ----

TEST_F(EnvoyGradientLimitTest, NeverAboveMax) {
  EnvoyGradientLimit envoy =
      EnvoyGradientLimit::Create(
          {.limits = {.initial_limit = 10, .max_limit = 12}, .min_rtt_request_count = 5})
          .value();
  FinishFirstWindow(envoy, 10ms);
  envoy.Update(Success(50ms, 1ms, 10));
  // At 114 ms: gradient 2; 10 * 2 + sqrt 20 = 24.47 -> clamped to 12.
  EXPECT_EQ(envoy.Update(Success(120ms, 1ms, 10)), 12);
}

TEST_F(EnvoyGradientLimitTest, ZeroLatenciesDoNotDivideByZero) {
  EnvoyGradientLimit envoy =
      EnvoyGradientLimit::Create({.limits = {.initial_limit = 4}, .min_rtt_request_count = 5})
          .value();
  FinishFirstWindow(envoy, 0ms);
  envoy.Update(Success(50ms, 0ms, 4));
  // minRTT and sampleRTT are floored at 1 ns: gradient 1.25; 4 * 1.25 + sqrt 5 = 7.24 -> 7.
  EXPECT_EQ(envoy.Update(Success(120ms, 0ms, 4)), 7);
}

TEST_F(EnvoyGradientLimitTest, CloneIsIndependent) {
  FinishFirstWindow(envoy_, 10ms);
  envoy_.Update(Success(50ms, 30ms, 10));
  std::unique_ptr<LimitAlgorithm> clone = envoy_.Clone();
  EXPECT_EQ(envoy_.Update(Success(110ms, 10ms, 10)), 7);  // sampleRTT 30 ms: as above.
  EXPECT_EQ(clone->limit(), 10);
  // The clone carries its own pending samples and deadlines: the same update happens there.
  EXPECT_EQ(clone->Update(Success(110ms, 10ms, 10)), 7);
  EXPECT_EQ(clone->name(), "gradient");
}

}  // namespace
}  // namespace blobtune::tuner
