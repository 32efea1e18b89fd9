#include "blobtune/tuner/algorithms/marginal.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/tuner/algorithm_registry.h"
#include "closed_loop.h"
#include "noisy_plant.h"
#include "sample_maker.h"

namespace blobtune::tuner {
namespace {

using namespace std::chrono_literals;
using testing::ClosedLoop;
using testing::NoisyPlant;

// ---- Config ----

TEST(MarginalLimitConfigTest, DefaultsAreValid) {
  const MarginalLimit::Options defaults;
  EXPECT_TRUE(defaults.Validate().ok());
  const MarginalLimit marginal = MarginalLimit::Create(defaults).value();
  EXPECT_EQ(marginal.name(), "marginal");
  EXPECT_EQ(marginal.limit(), defaults.limits.initial_limit);
  EXPECT_EQ(marginal.estimates().state, "startup");
}

void ExpectInvalid(const MarginalLimit::Options& options, std::string_view field) {
  const Status status = options.Validate();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << field;
  EXPECT_NE(status.message().find(field), std::string_view::npos) << status;
  EXPECT_FALSE(MarginalLimit::Create(options).ok());
}

TEST(MarginalLimitConfigTest, RejectsBadFields) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ExpectInvalid({.limits = {.min_limit = 0}}, "min_limit");
  ExpectInvalid({.limits = {.initial_limit = 2000}}, "initial_limit");
  ExpectInvalid({.limits = {.max_limit = 1000001}}, "max_limit");
  ExpectInvalid({.threshold = 0}, "threshold");
  ExpectInvalid({.threshold = nan}, "threshold");
  ExpectInvalid({.probe = 0}, "probe");
  ExpectInvalid({.probe = 1.5}, "probe");
  ExpectInvalid({.cycle = 1}, "cycle");
  ExpectInvalid({.cycle = 65}, "cycle");
  ExpectInvalid({.step = 0}, "step");
  ExpectInvalid({.step = nan}, "step");
  ExpectInvalid({.confidence = 0}, "confidence");
  ExpectInvalid({.startup_gain = 0.05}, "startup_gain");
  ExpectInvalid({.startup_gain = 1}, "startup_gain");
}

TEST(MarginalLimitConfigTest, RegistryBuildsItWithParameters) {
  StatusOr<std::unique_ptr<LimitAlgorithm>> built =
      MakeAlgorithmFromText("marginal:threshold=0.2,cycle=8,max_limit=64");
  ASSERT_TRUE(built.ok()) << built.status();
  const auto& marginal = dynamic_cast<const MarginalLimit&>(**built);
  EXPECT_EQ(marginal.options().threshold, 0.2);
  EXPECT_EQ(marginal.options().cycle, 8);
  EXPECT_EQ(marginal.options().limits.max_limit, 64);
  EXPECT_FALSE(MakeAlgorithmFromText("marginal:cycle=0").ok());
}

// ---- Plants drawn from seeds ----

std::unique_ptr<LimitAlgorithm> Make(const std::string& spec) {
  return MakeAlgorithmFromText(spec).value();
}

Duration Ms(double ms) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double, std::milli>(ms));
}

// A k-server plant whose knee k * (network + service) / service is log-uniform in [2, 100].
NoisyPlant::Params DrawQueuePlant(uint64_t seed) {
  std::mt19937_64 rng(seed * 7919 + 1);
  auto uniform = [&](double a, double b) { return std::uniform_real_distribution<>(a, b)(rng); };
  NoisyPlant::Params params;
  params.servers = 1 << static_cast<int>(uniform(0, 4));
  const double service_ms = std::exp(uniform(std::log(0.2), std::log(2.0)));
  const double knee = std::exp(uniform(std::log(2.0), std::log(100.0)));
  params.service = Ms(service_ms);
  params.network = Ms(service_ms * std::max(0.0, knee / params.servers - 1));
  return params;
}

// The best static limit of a plant, as the workbench's oracle finds it: the smallest limit of a
// sweep whose goodput reaches 97% of the sweep's highest.
int BestStaticLimit(const NoisyPlant::Params& params, uint64_t seed, int highest) {
  std::vector<std::pair<int, double>> sweep;
  double peak = 0;
  for (double limit = 1; limit <= highest; limit = std::max(limit + 1, limit * 1.12)) {
    NoisyPlant plant(params, seed);
    std::unique_ptr<LimitAlgorithm> fixed =
        Make("fixed:limit=" + std::to_string(static_cast<int>(limit)));
    plant.Run(*fixed, 4s, 3s);
    sweep.emplace_back(static_cast<int>(limit), plant.goodput());
    peak = std::max(peak, plant.goodput());
  }
  for (const auto& [limit, goodput] : sweep) {
    if (goodput >= 0.97 * peak) return limit;
  }
  return highest;
}

// ---- Dynamics ----

TEST(MarginalLimitTest, ReachesTheBandOfTheBestStaticLimitOnNoisyPlants) {
  const double probe = MarginalLimit::Options{}.probe;
  std::vector<double> latency_ratios;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const NoisyPlant::Params params = DrawQueuePlant(seed);
    const int best = BestStaticLimit(params, seed, 512);
    NoisyPlant reference(params, seed);
    std::unique_ptr<LimitAlgorithm> fixed = Make("fixed:limit=" + std::to_string(best));
    reference.Run(*fixed, 20s, 10s);
    NoisyPlant plant(params, seed);
    std::unique_ptr<LimitAlgorithm> marginal = Make("marginal");
    plant.Run(*marginal, 20s, 10s);
    // Goodput: the limit stops where one more permit adds less than `threshold` of its share,
    // at most one probe below it; the last 10% of goodput lie further up.
    EXPECT_GE(plant.goodput(), 0.9 * reference.goodput());
    // Latency: above the knee both probes see a flat curve whose noise hides that it is flat,
    // so the limit wanders above it until a run of probes down brings it back.
    const double ratio = static_cast<double>(plant.mean_latency().count()) /
                         static_cast<double>(reference.mean_latency().count());
    EXPECT_LE(ratio, 2.5);
    latency_ratios.push_back(ratio);
  }
  // Typically it settles between where a probe up stops paying and where a probe down starts
  // to cost: within one probe above the best static limit.
  std::sort(latency_ratios.begin(), latency_ratios.end());
  EXPECT_LE(latency_ratios[latency_ratios.size() / 2], 1 + probe);
}

TEST(MarginalLimitTest, ClimbsAGroupCommitUntilItsGoodputFlattens) {
  // Goodput L / (commit + L * per_access): it never stops rising, and its elasticity,
  // commit / (commit + L * per_access), falls to `threshold` where goodput is (1 - threshold)
  // of its ceiling 1 / per_access. The limit settles within a probe of there.
  for (int commit_us : {200, 1000, 5000}) {
    SCOPED_TRACE("commit " + std::to_string(commit_us) + " us");
    ClosedLoop loop = ClosedLoop::GroupCommit(std::chrono::microseconds(commit_us), 10us);
    std::unique_ptr<LimitAlgorithm> marginal = Make("marginal:max_limit=1000000");
    loop.Run(*marginal, 3000);
    double limit_sum = 0;
    const int rounds = 1000;
    for (int r = 0; r < rounds; ++r) {
      loop.Run(*marginal, 1);
      limit_sum += marginal->limit();
    }
    const double mean_limit = limit_sum / rounds;
    const double goodput_share = mean_limit * 10.0 / (commit_us + mean_limit * 10.0);
    const double threshold = MarginalLimit::Options{}.threshold;
    EXPECT_GE(goodput_share, 1 - 2 * threshold) << "mean limit " << mean_limit;
  }
}

TEST(MarginalLimitTest, HoldsAKneePastWhichTheResourceThrashes) {
  // Goodput rises up to a knee of 44 and falls past it: a doubling from below the knee loses
  // goodput, and a probe up from there gains it. The limit holds near the knee, and a probe
  // that pays does not send it past the knee again and again.
  ClosedLoop loop(4400us, 100us);
  loop.set_thrash(0.05);
  std::unique_ptr<LimitAlgorithm> marginal = Make("marginal");
  loop.Run(*marginal, 2000);
  double limit_sum = 0;
  int above = 0;
  const int rounds = 2000;
  for (int r = 0; r < rounds; ++r) {
    loop.Run(*marginal, 1);
    limit_sum += marginal->limit();
    if (marginal->limit() > 1.25 * 44) ++above;
  }
  EXPECT_GE(limit_sum / rounds, 0.8 * 44);
  EXPECT_LE(above, rounds / 100);
}

TEST(MarginalLimitTest, NeverLeavesItsBoundsAndNeverFallsBelowOne) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    auto uniform = [&](double a, double b) { return std::uniform_real_distribution<>(a, b)(rng); };
    for (const std::string spec : {"marginal", "marginal:min_limit=3,initial_limit=5,max_limit=40"}) {
      std::unique_ptr<LimitAlgorithm> marginal = Make(spec);
      const auto& options = dynamic_cast<const MarginalLimit&>(*marginal).options();
      Duration now = 1s;
      for (int i = 0; i < 20000; ++i) {
        // Any stream: latencies from nothing to a second, any in-flight count, drops, refusals.
        const Duration latency = Ms(std::exp(uniform(-8, 7)));
        Sample sample = testing::Success(now - latency, latency,
                                         1 + static_cast<int>(uniform(0, 2 * marginal->limit())),
                                         1 + static_cast<uint32_t>(uniform(0, 3)));
        sample.dropped = uniform(0, 1) < 0.2;
        sample.refused = uniform(0, 1) < 0.05 ? 3 : 0;
        now += Ms(uniform(0, 2));
        const int limit = marginal->Update(sample);
        ASSERT_GE(limit, std::max(1, options.limits.min_limit)) << spec;
        ASSERT_LE(limit, options.limits.max_limit) << spec;
        ASSERT_EQ(limit, marginal->limit());
      }
    }
  }
}

// Feeds every sample to one algorithm as it is, and to another after a fast error.
class WithFastErrors : public LimitAlgorithm {
 public:
  WithFastErrors() : plain_(Make("marginal")), errored_(Make("marginal")) {}
  std::string_view name() const noexcept override { return "pair"; }
  int limit() const noexcept override { return plain_->limit(); }
  int min_limit() const noexcept override { return plain_->min_limit(); }
  int max_limit() const noexcept override { return plain_->max_limit(); }
  int Update(const Sample& sample) override {
    // Failed in a microsecond, at the same time: never reached the resource.
    errored_->Update(testing::Drop(sample.end().time_since_epoch() - 1us, 1us, sample.inflight));
    errored_->Update(sample);
    plain_->Update(sample);
    EXPECT_EQ(plain_->limit(), errored_->limit());
    ++compared_;
    return plain_->limit();
  }
  std::unique_ptr<LimitAlgorithm> Clone() const override { return nullptr; }
  int compared() const { return compared_; }

 private:
  std::unique_ptr<LimitAlgorithm> plain_, errored_;
  int compared_ = 0;
};

TEST(MarginalLimitTest, FastErrorsDoNotMoveTheLimit) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    NoisyPlant plant(DrawQueuePlant(seed), seed);
    WithFastErrors pair;
    plant.Run(pair, 10s, 5s);
    EXPECT_GT(pair.compared(), 1000);
  }
}

TEST(MarginalLimitTest, DemandThatDoesNotFillTheLimitDoesNotRaiseIt) {
  // Far below the knee (16 servers), callers that keep 6 accesses in flight: a limit above 6
  // never binds, so nothing tells the algorithm that more would pay. Startup stops at the
  // first doubling past the demand, and the limit comes back towards it.
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    NoisyPlant plant({.servers = 16, .service = 1ms, .network = 10ms, .demand = 6}, seed);
    std::unique_ptr<LimitAlgorithm> marginal = Make("marginal");
    plant.Run(*marginal, 20s, 10s);
    EXPECT_LE(plant.highest_limit(), 2 * 6 + 1);
    EXPECT_LE(plant.mean_limit(), 6 * 1.5);
  }
}

TEST(MarginalLimitTest, ProbesASteadyPlantOneSlotInACycle) {
  for (int cycle : {4, 8}) {
    ClosedLoop loop(10ms, 1ms);  // Knee at 10.
    std::unique_ptr<LimitAlgorithm> marginal = Make("marginal:cycle=" + std::to_string(cycle));
    loop.Run(*marginal, 2000);
    // Over many cycles, the share of accesses that ended in a probe slot.
    int probing = 0, total = 0;
    for (int r = 0; r < 20000; ++r) {
      loop.Run(*marginal, 1);
      const std::string_view state = marginal->estimates().state;
      probing += state.starts_with("probe") ? 1 : 0;
      total += 1;
    }
    EXPECT_EQ(marginal->estimates().state.empty(), false);
    EXPECT_LE(static_cast<double>(probing) / total, 1.25 / cycle) << "cycle " << cycle;
    EXPECT_GE(static_cast<double>(probing) / total, 0.75 / cycle) << "cycle " << cycle;
  }
}

TEST(MarginalLimitTest, TimeoutsHoldTheirPermitsAndCountAsLoad) {
  // 5% of accesses hang for a second, 50 round trips: they hold permits that serve nothing.
  // The limit grows by the permits they hold and goodput stays where it was without them.
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    NoisyPlant::Params params{.servers = 4, .service = 1ms, .network = 15ms};
    NoisyPlant clean(params, seed);
    std::unique_ptr<LimitAlgorithm> without = Make("marginal");
    clean.Run(*without, 30s, 15s);
    params.hang_fraction = 0.05;
    params.hang_latency = 1s;
    NoisyPlant hanging(params, seed);
    std::unique_ptr<LimitAlgorithm> with = Make("marginal");
    hanging.Run(*with, 30s, 15s);
    EXPECT_GT(hanging.mean_limit(), 1.5 * clean.mean_limit());
    EXPECT_GE(hanging.goodput(), 0.9 * clean.goodput());
  }
}

TEST(MarginalLimitTest, LimitersOfOneResourceDoNotDriveItPastItsKnee) {
  // A second limiter joins one that has the resource to itself. They probe in the same slots,
  // so each sees what more permits do to the resource, not what it takes from the other: the
  // two together keep its goodput, and do not drive it far past its knee (each sees half the
  // accesses, so more noise, and settles somewhat higher than one alone). Their shares are
  // neutral, not equal: they stay near where the second one's startup met the first.
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    NoisyPlant plant({.servers = 4, .service = 1ms, .network = 20ms}, seed);
    std::unique_ptr<LimitAlgorithm> first = Make("marginal");
    std::unique_ptr<LimitAlgorithm> second = Make("marginal");
    LimitAlgorithm* alone[] = {first.get()};
    plant.Run(alone, 10s, 5s);
    const double alone_goodput = plant.goodput(0);
    const Duration alone_latency = plant.mean_latency(0);
    LimitAlgorithm* both[] = {first.get(), second.get()};
    plant.Run(both, 40s, 20s);
    EXPECT_GE(plant.goodput(0) + plant.goodput(1), 0.9 * alone_goodput) << "seed " << seed;
    for (size_t client : {0, 1}) {
      EXPECT_LE(plant.mean_latency(client).count(), 2 * alone_latency.count())
          << "seed " << seed;
    }
  }
}

TEST(MarginalLimitTest, FollowsAKneeThatMovesEitherWay) {
  // The knee moves from 40 to 10 (8 servers to 2) and back. Over plants, the limit makes at
  // least half of each move (in ln) within the time given, down in 60 s, up in 20 s.
  double down = 0, up = 0;
  const int seeds = 5;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    NoisyPlant plant({.servers = 8, .service = 2ms, .network = 8ms}, seed);
    std::unique_ptr<LimitAlgorithm> marginal = Make("marginal");
    plant.Run(*marginal, 20s, 10s);
    const double wide = plant.mean_limit();
    plant.params().servers = 2;
    plant.Run(*marginal, 60s, 20s);
    const double narrow = plant.mean_limit();
    plant.params().servers = 8;
    plant.Run(*marginal, 20s, 10s);
    const double again = plant.mean_limit();
    EXPECT_LT(narrow, wide) << "seed " << seed;
    EXPECT_GT(again, narrow) << "seed " << seed;
    down += std::log(wide / narrow) / seeds;
    up += std::log(again / narrow) / seeds;
  }
  EXPECT_GE(down, 0.5 * std::log(4.0));
  EXPECT_GE(up, 0.5 * std::log(4.0));
}

// ---- Saved state ----

TEST(MarginalLimitStateTest, ARestoredInstanceCruisesFromTheSavedLimit) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const NoisyPlant::Params params = DrawQueuePlant(seed);
    NoisyPlant plant(params, seed);
    std::unique_ptr<LimitAlgorithm> first = Make("marginal");
    plant.Run(*first, 20s, 10s);
    const AlgorithmState saved = first->SaveState();
    const double saved_limit = saved.Find("limit").value();

    std::unique_ptr<LimitAlgorithm> second = Make("marginal");
    ASSERT_TRUE(second->RestoreState(saved).ok());
    EXPECT_EQ(second->limit(), static_cast<int>(std::lround(saved_limit)));
    EXPECT_EQ(second->estimates().state, "cruise");
    // It starts where the first one was instead of searching again: the plant as the first
    // left it keeps it near its limit from the first slots on.
    NoisyPlant again(params, seed + 1000);
    again.Run(*second, 2s, 2s);
    EXPECT_GE(again.mean_limit(), 0.5 * saved_limit);
    EXPECT_LE(again.mean_limit(), 2.0 * saved_limit);
  }
}

TEST(MarginalLimitStateTest, AStateItCannotUseLeavesItUnchanged) {
  std::unique_ptr<LimitAlgorithm> marginal = Make("marginal");
  AlgorithmState state = marginal->SaveState();
  state.algorithm = "gradient2";
  EXPECT_EQ(marginal->RestoreState(state).code(), StatusCode::kInvalidArgument);
  state = marginal->SaveState();
  state.values.pop_back();  // No noise.
  EXPECT_EQ(marginal->RestoreState(state).code(), StatusCode::kInvalidArgument);
  state = marginal->SaveState();
  state.values[0].second = 0;  // A limit below 1.
  EXPECT_EQ(marginal->RestoreState(state).code(), StatusCode::kInvalidArgument);
  // A damaged file: a hold time past the longest slot (2^40 ns). 5e43 s does not even fit in
  // nanoseconds.
  state = {.version = state.version,
           .algorithm = "marginal",
           .values = {{"limit", 64}, {"hold_s", 5e43}, {"noise", 0.8}}};
  const Status damaged = marginal->RestoreState(state);
  EXPECT_EQ(damaged.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(damaged.message(), ::testing::HasSubstr("hold_s > 0 up to 2^40 ns"));
  state.values[1].second = 1099;  // Seconds: just under 2^40 ns.
  std::unique_ptr<LimitAlgorithm> other = Make("marginal");
  EXPECT_TRUE(other->RestoreState(state).ok());
  EXPECT_EQ(marginal->estimates().state, "startup");
  EXPECT_EQ(marginal->limit(), MarginalLimit::Options{}.limits.initial_limit);
}

}  // namespace
}  // namespace blobtune::tuner
