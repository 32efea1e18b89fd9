#include "blobtune/tuner/algorithms/vegas.h"

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

TEST(VegasLimitConfigTest, DefaultsAreNetflixs) {
  const VegasLimit::Options defaults;
  EXPECT_EQ(defaults.limits.initial_limit, 20);
  EXPECT_EQ(defaults.limits.min_limit, 1);
  EXPECT_EQ(defaults.limits.max_limit, 1000);
  EXPECT_EQ(defaults.smoothing, 1.0);
  EXPECT_EQ(defaults.alpha_factor, 3);
  EXPECT_EQ(defaults.beta_factor, 6);
  EXPECT_EQ(defaults.threshold_factor, 1);
  EXPECT_EQ(defaults.probe_multiplier, 30);
  EXPECT_TRUE(defaults.Validate().ok());
}

void ExpectInvalid(const VegasLimit::Options& options, std::string_view field) {
  const Status status = options.Validate();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << field;
  EXPECT_NE(status.message().find(field), std::string_view::npos) << status;
  EXPECT_FALSE(VegasLimit::Create(options).ok());
}

TEST(VegasLimitConfigTest, RejectsBadFields) {
  ExpectInvalid({.limits = {.min_limit = 0}}, "min_limit");
  ExpectInvalid({.limits = {.initial_limit = 1001}}, "initial_limit");
  ExpectInvalid({.smoothing = 0}, "smoothing");
  ExpectInvalid({.alpha_factor = 0}, "alpha_factor");
  ExpectInvalid({.alpha_factor = 7}, "beta_factor");           // beta (6) must not be below alpha.
  ExpectInvalid({.threshold_factor = 4}, "threshold_factor");  // Above alpha (3).
  ExpectInvalid({.threshold_factor = -1}, "threshold_factor");
  ExpectInvalid({.probe_multiplier = 0}, "probe_multiplier");
}

// ---- Dynamics, checked against Netflix's rule by hand ----

class VegasLimitTest : public ::testing::Test {
 protected:
  // Defaults: the first probe is due after jitter * 30 * 20 >= 300 samples, far beyond these.
  VegasLimit vegas_ = VegasLimit::Create({}).value();
};

TEST_F(VegasLimitTest, FollowsNetflixRule) {
  // First sample only sets rtt_noload = 10 ms.
  EXPECT_EQ(vegas_.Update(Success(0ms, 10ms, 20)), 20);
  EXPECT_EQ(vegas_.estimates().baseline_latency, 10ms);
  // queue = ceil(20 * (1 - 10/10)) = 0 <= threshold log(20) = 1: L + beta = 20 + 6
  EXPECT_EQ(vegas_.Update(Success(1ms, 10ms, 20)), 26);
  // queue = ceil(26 * (1 - 10/20)) = 13 > beta 6: L - log(26) = 25
  EXPECT_EQ(vegas_.Update(Success(2ms, 20ms, 26)), 25);
  // queue = ceil(25 * (1 - 10/11)) = ceil(2.27) = 3: not < alpha 3, not > beta 6: hold
  EXPECT_EQ(vegas_.Update(Success(3ms, 11ms, 25)), 25);
  // queue = ceil(25 * (1 - 10/10.5)) = ceil(1.19) = 2: > threshold 1, < alpha 3: L + log = 26
  EXPECT_EQ(vegas_.Update(Success(4ms, 10500us, 25)), 26);
  // A drop decreases whatever the queue: 26 - 1
  EXPECT_EQ(vegas_.Update(Drop(5ms, 10ms, 1)), 25);
  // inflight 12 * 2 = 24 < 25: app-limited
  EXPECT_EQ(vegas_.Update(Success(6ms, 10ms, 12)), 25);
  // A faster sample only lowers rtt_noload.
  EXPECT_EQ(vegas_.Update(Success(7ms, 5ms, 25)), 25);
  EXPECT_EQ(vegas_.estimates().baseline_latency, 5ms);
  EXPECT_EQ(vegas_.estimates().recent_latency, 5ms);
}

TEST_F(VegasLimitTest, StepsScaleWithLog10OfTheLimit) {
  VegasLimit vegas = VegasLimit::Create({.limits = {.initial_limit = 100}}).value();
  vegas.Update(Success(0ms, 10ms, 100));
  // log(100) = 2: queue 0 <= threshold 2, so L + beta = 100 + 6 * 2
  EXPECT_EQ(vegas.Update(Success(1ms, 10ms, 100)), 112);
  EXPECT_EQ(vegas.Update(Drop(2ms, 10ms, 100)), 110);  // 112 - 2
}

TEST_F(VegasLimitTest, SmoothingBlendsTheNewEstimate) {
  VegasLimit vegas = VegasLimit::Create({.smoothing = 0.5}).value();
  vegas.Update(Success(0ms, 10ms, 20));
  // L' = 0.5 * 20 + 0.5 * 26 = 23
  EXPECT_EQ(vegas.Update(Success(1ms, 10ms, 20)), 23);
  EXPECT_DOUBLE_EQ(vegas.estimated_limit(), 23);
}

TEST_F(VegasLimitTest, ProbeResetsNoLoadLatencyFromCountedSamples) {
  // probe_multiplier 1 at limit 2: due once probe_count >= jitter * 2, jitter in [0.5, 1), so on
  // the second sample.
  VegasLimit vegas =
      VegasLimit::Create({.limits = {.initial_limit = 2}, .probe_multiplier = 1}).value();
  vegas.Update(Success(0ms, 10ms, 2));
  EXPECT_EQ(vegas.estimates().baseline_latency, 10ms);
  EXPECT_EQ(vegas.Update(Success(1ms, 50ms, 2)), 2);  // The probe takes 50 ms as the new noload.
  EXPECT_EQ(vegas.estimates().baseline_latency, 50ms);
}

TEST_F(VegasLimitTest, WeightReplaysIdenticalSamples) {
  // Replay 1 sets rtt_noload; replay 2: 20 + 6 = 26; replay 3: 26 + 6 = 32 (inflight 20 * 2 >= 26).
  EXPECT_EQ(vegas_.Update(Success(0ms, 10ms, 20, 3)), 32);
}

TEST_F(VegasLimitTest, SkipsZeroLatency) {
  EXPECT_EQ(vegas_.Update(Success(0ms, 0ms, 20)), 20);
  EXPECT_FALSE(vegas_.estimates().baseline_latency.has_value());
}

TEST(VegasLimitSeedTest, SameSeedSameRun) {
  VegasLimit a =
      VegasLimit::Create({.limits = {.initial_limit = 5}, .probe_multiplier = 3, .seed = 42})
          .value();
  VegasLimit b = a;
  VegasLimit c =
      VegasLimit::Create({.limits = {.initial_limit = 5}, .probe_multiplier = 3, .seed = 42})
          .value();
  for (int i = 0; i < 2000; ++i) {
    const auto latency = std::chrono::microseconds(1000 + (i * 7919) % 5000);
    const Sample sample = Success(i * 1ms, latency, 5 + i % 20);
    ASSERT_EQ(a.Update(sample), c.Update(sample)) << i;
    b.Update(sample);
  }
  EXPECT_DOUBLE_EQ(a.estimated_limit(), b.estimated_limit());
}

// ---- Clamps ----

TEST(VegasLimitClampTest, NeverAboveMaxNorBelowMin) {
  VegasLimit vegas =
      VegasLimit::Create({.limits = {.initial_limit = 20, .min_limit = 20, .max_limit = 22}})
          .value();
  vegas.Update(Success(0ms, 10ms, 20));
  EXPECT_EQ(vegas.Update(Success(1ms, 10ms, 20)), 22);  // 26 clamped to 22
  EXPECT_EQ(vegas.Update(Drop(2ms, 10ms, 20)), 21);
  EXPECT_EQ(vegas.Update(Drop(3ms, 10ms, 20)), 20);
  EXPECT_EQ(vegas.Update(Drop(4ms, 10ms, 20)), 20);  // 19 clamped to 20
}

TEST(VegasLimitClampTest, DropsAtOneStayAtOne) {
  VegasLimit vegas = VegasLimit::Create({.limits = {.initial_limit = 1}}).value();
  vegas.Update(Success(0ms, 10ms, 1));
  EXPECT_EQ(vegas.Update(Drop(1ms, 10ms, 1, 5)), 1);  // 1 - 1 = 0 clamped to 1
}

TEST(VegasLimitCloneTest, CloneIsIndependent) {
  VegasLimit vegas = VegasLimit::Create({}).value();
  vegas.Update(Success(0ms, 10ms, 20));
  std::unique_ptr<LimitAlgorithm> clone = vegas.Clone();
  EXPECT_EQ(vegas.Update(Success(1ms, 10ms, 20)), 26);
  EXPECT_EQ(clone->limit(), 20);
  EXPECT_EQ(clone->Update(Drop(1ms, 10ms, 20)), 19);
  EXPECT_EQ(vegas.limit(), 26);
  EXPECT_EQ(clone->name(), "vegas");
}

}  // namespace
}  // namespace blobtune::tuner
