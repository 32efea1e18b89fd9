#include "blobtune/tuner/algorithms/plateau.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string_view>
#include <vector>

#include "blobtune/tuner/algorithm_registry.h"
#include "closed_loop.h"
#include "sample_maker.h"

namespace blobtune::tuner {
namespace {

using namespace std::chrono_literals;
using testing::ClosedLoop;
using testing::Success;

// ---- Config ----

TEST(PlateauLimitConfigTest, DefaultsAreValid) {
  const PlateauLimit::Options defaults;
  EXPECT_TRUE(defaults.Validate().ok());
  const PlateauLimit plateau = PlateauLimit::Create(defaults).value();
  EXPECT_EQ(plateau.name(), "plateau");
  EXPECT_EQ(plateau.limit(), defaults.initial_limit);
  EXPECT_EQ(plateau.estimates().state, "startup");
}

void ExpectInvalid(const PlateauLimit::Options& options, std::string_view field) {
  const Status status = options.Validate();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << field;
  EXPECT_NE(status.message().find(field), std::string_view::npos) << status;
  EXPECT_FALSE(PlateauLimit::Create(options).ok());
}

TEST(PlateauLimitConfigTest, RejectsBadFields) {
  ExpectInvalid({.min_limit = 0}, "min_limit");
  ExpectInvalid({.initial_limit = 2000}, "initial_limit");
  ExpectInvalid({.max_limit = 1000001}, "max_limit");
  ExpectInvalid({.step = 0.01}, "step");
  ExpectInvalid({.step = std::numeric_limits<double>::quiet_NaN()}, "step");
  ExpectInvalid({.min_elasticity = 0}, "min_elasticity");
  ExpectInvalid({.min_elasticity = 1}, "min_elasticity");
  ExpectInvalid({.window_rtts = 0.5}, "window_rtts");
  ExpectInvalid({.window_samples = 4}, "window_samples");
  ExpectInvalid({.confidence = 0}, "confidence");
  ExpectInvalid({.probe_interval = 0}, "probe_interval");
}

TEST(PlateauLimitConfigTest, RegistryBuildsItWithParameters) {
  StatusOr<std::unique_ptr<LimitAlgorithm>> plateau =
      MakeAlgorithm(ParseAlgorithmSpec("plateau:step=0.5,max_limit=64").value());
  ASSERT_TRUE(plateau.ok()) << plateau.status();
  const auto& built = dynamic_cast<const PlateauLimit&>(**plateau);
  EXPECT_EQ(built.options().step, 0.5);
  EXPECT_EQ(built.options().max_limit, 64);
  EXPECT_FALSE(MakeAlgorithm(ParseAlgorithmSpec("plateau:step=2").value()).ok());
}

// ---- Dynamics, against generated plants ----

// A saturated closed loop in front of k servers behind a round trip: every access takes
// max(round_trip, inflight * service), so goodput rises with the limit up to the knee
// k = round_trip / service and stays flat past it. Each round of `limit` completions lasts one
// latency times a random factor of coefficient of variation `round_cv`, so that goodput
// measured over a few rounds is as noisy as a real plant's. A share of accesses fails fast.
class NoisyLoop {
 public:
  struct Plant {
    Duration round_trip;
    Duration service;
    double round_cv = 0.2;
    double fast_error_share = 0;
    int callers = 0;  // Callers of the closed loop; 0: always more than the limit.
  };

  NoisyLoop(const Plant& plant, uint64_t seed) : plant_(plant), random_(seed) {}

  double knee() const { return static_cast<double>(plant_.round_trip.count()) /
                               static_cast<double>(plant_.service.count()); }
  void set_service(Duration service) { plant_.service = service; }

  // Runs `rounds` rounds; returns the limit in force at the start of each.
  std::vector<int> Run(LimitAlgorithm& algorithm, int rounds) {
    std::vector<int> limits;
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> uniform;
    for (int r = 0; r < rounds; ++r) {
      limits.push_back(algorithm.limit());
      const int limit =
          plant_.callers > 0 ? std::min(plant_.callers, algorithm.limit()) : algorithm.limit();
      const Duration latency = std::max(plant_.round_trip, limit * plant_.service);
      const double factor = std::max(0.2, 1 + plant_.round_cv * normal(random_));
      const auto round = std::chrono::duration_cast<Duration>(latency * factor);
      for (int i = 0; i < limit; ++i) {
        const Duration end = now_ + round * (i + 1) / limit;
        Sample sample = Success(end - latency, latency, limit);
        if (uniform(random_) < plant_.fast_error_share) {
          sample.dropped = true;
          sample.latency = latency / 100;
          sample.start = TimePoint(end - sample.latency);
        }
        algorithm.Update(sample);
      }
      now_ += round;
    }
    return limits;
  }

 private:
  Plant plant_;
  std::mt19937_64 random_;
  Duration now_ = 1s;
};

// Plants drawn at random: a knee from 2 to 300 accesses (log-uniform), a round trip from
// 0.1 ms to 50 ms, rounds whose length varies with a cv from 0 to 0.3.
NoisyLoop::Plant DrawPlant(std::mt19937_64& random) {
  std::uniform_real_distribution<double> unit;
  const double knee = std::exp(std::log(2.0) + unit(random) * std::log(150.0));
  const double round_trip_ms = std::exp(std::log(0.1) + unit(random) * std::log(500.0));
  const auto round_trip = std::chrono::duration_cast<Duration>(
      std::chrono::duration<double, std::milli>(round_trip_ms));
  return {.round_trip = round_trip,
          .service = round_trip / static_cast<Duration::rep>(std::llround(knee)),
          .round_cv = 0.3 * unit(random)};
}

int Median(std::vector<int> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// Rounds enough for startup from 4 to 300 and a few probe cycles at any knee drawn.
constexpr int kRounds = 3000;

TEST(PlateauLimitTest, SettlesAtASharpKneeWithinOneStepAboveIt) {
  std::mt19937_64 draw(1);
  for (int p = 0; p < 40; ++p) {
    const NoisyLoop::Plant plant = DrawPlant(draw);
    NoisyLoop loop(plant, p);
    PlateauLimit plateau = PlateauLimit::Create({}).value();
    const std::vector<int> limits = loop.Run(plateau, kRounds);
    const std::vector<int> settled(limits.begin() + kRounds / 2, limits.end());
    const double knee = std::round(loop.knee());
    // At most one step above the knee, and never a step below it (which costs goodput).
    const int median = Median(settled);
    EXPECT_GE(median, knee / (1 + plateau.options().step)) << "plant " << p << " knee " << knee;
    EXPECT_LE(median, std::ceil(knee * (1 + plateau.options().step)) + 1)
        << "plant " << p << " knee " << knee;
  }
}

TEST(PlateauLimitTest, NeverLeavesItsBoundsAndNeverFallsBelowOne) {
  std::mt19937_64 draw(2);
  for (int p = 0; p < 20; ++p) {
    NoisyLoop::Plant plant = DrawPlant(draw);
    plant.fast_error_share = 0.5;
    NoisyLoop loop(plant, p);
    PlateauLimit bounded = PlateauLimit::Create({.initial_limit = 3, .min_limit = 3,
                                                 .max_limit = 20}).value();
    for (int limit : loop.Run(bounded, 1000)) {
      EXPECT_GE(limit, 3);
      EXPECT_LE(limit, 20);
    }
    PlateauLimit free = PlateauLimit::Create({.initial_limit = 1}).value();
    for (int limit : loop.Run(free, 1000)) EXPECT_GE(limit, 1);
  }
}

TEST(PlateauLimitTest, FastErrorsAtAnyLimitDoNotMoveTheKneeItFinds) {
  std::mt19937_64 draw(3);
  for (int p = 0; p < 20; ++p) {
    NoisyLoop::Plant plant = DrawPlant(draw);
    plant.fast_error_share = 0.3;  // Not goodput, but the same share at every limit.
    NoisyLoop loop(plant, p);
    PlateauLimit plateau = PlateauLimit::Create({}).value();
    const std::vector<int> limits = loop.Run(plateau, kRounds);
    const int median = Median({limits.begin() + kRounds / 2, limits.end()});
    const double knee = std::round(loop.knee());
    EXPECT_GE(median, knee / (1 + plateau.options().step)) << "plant " << p << " knee " << knee;
    EXPECT_LE(median, std::ceil(knee * (1 + plateau.options().step)) + 1)
        << "plant " << p << " knee " << knee;
  }
}

TEST(PlateauLimitTest, DemandThatDoesNotFillTheLimitDoesNotRaiseIt) {
  std::mt19937_64 draw(6);
  for (int p = 0; p < 20; ++p) {
    NoisyLoop::Plant plant = DrawPlant(draw);
    plant.service = plant.round_trip / 400;  // A knee far above the demand.
    plant.callers = 10;
    NoisyLoop loop(plant, p);
    PlateauLimit plateau = PlateauLimit::Create({}).value();
    loop.Run(plateau, kRounds / 2);
    // A step above the callers at most: it binds there (the callers fill it) and may probe up
    // once, but the probe does not bind, so it is not kept.
    for (int limit : loop.Run(plateau, kRounds / 2)) EXPECT_LE(limit, 16) << "plant " << p;
  }
}

TEST(PlateauLimitTest, ProbesASteadyPlantAtMostOncePerInterval) {
  std::mt19937_64 draw(4);
  for (int p = 0; p < 20; ++p) {
    const NoisyLoop::Plant plant = DrawPlant(draw);
    NoisyLoop loop(plant, p);
    const PlateauLimit::Options options;
    PlateauLimit plateau = PlateauLimit::Create(options).value();
    loop.Run(plateau, kRounds / 2);
    const std::vector<int> limits = loop.Run(plateau, kRounds / 2);
    // A probe up raises the limit from its hold; a window holds >= window_samples accesses,
    // and a cycle holds probe_interval of them first.
    int64_t accesses = 0;
    int raises = 0;
    for (size_t r = 0; r < limits.size(); ++r) {
      accesses += limits[r];
      if (r > 0 && limits[r] > limits[r - 1]) ++raises;
    }
    const int64_t cycle = int64_t{options.window_samples} * options.probe_interval;
    // Each cycle may raise twice: the probe up, and the way back to the hold after a probe
    // down that did not pay; a cycle that finds a higher limit pays may climb once more.
    EXPECT_LE(raises, 3 * (accesses / cycle + 1)) << "plant " << p;
  }
}

TEST(PlateauLimitTest, FollowsAKneeThatMovesEitherWay) {
  std::mt19937_64 draw(5);
  for (int p = 0; p < 10; ++p) {
    NoisyLoop::Plant plant = DrawPlant(draw);
    plant.service = plant.round_trip / 20;  // Knee at 20.
    NoisyLoop loop(plant, p);
    PlateauLimit plateau = PlateauLimit::Create({}).value();
    loop.Run(plateau, kRounds / 2);
    loop.set_service(plant.round_trip / 60);  // Capacity triples: knee at 60.
    std::vector<int> limits = loop.Run(plateau, kRounds / 2);
    EXPECT_GE(Median({limits.begin() + kRounds / 4, limits.end()}), 48) << "plant " << p;
    EXPECT_LE(Median({limits.begin() + kRounds / 4, limits.end()}), 76) << "plant " << p;
    loop.set_service(plant.round_trip / 20);  // Back to 20.
    limits = loop.Run(plateau, kRounds / 2);
    EXPECT_GE(Median({limits.begin() + kRounds / 4, limits.end()}), 16) << "plant " << p;
    EXPECT_LE(Median({limits.begin() + kRounds / 4, limits.end()}), 26) << "plant " << p;
  }
}

TEST(PlateauLimitTest, ClimbsAGroupCommitUntilItsGoodputFlattens) {
  // Goodput L / (commit + L * per_access) rises towards 1 / per_access; its elasticity,
  // commit / (commit + L * per_access), falls to min_elasticity = 0.05 at L = 19 * commit /
  // per_access = 190, where goodput is 95% of the most the writer can do.
  for (double jitter : {0.0, 0.2}) {
    ClosedLoop loop = ClosedLoop::GroupCommit(1ms, 100us);
    loop.set_jitter(jitter);
    PlateauLimit plateau = PlateauLimit::Create({}).value();
    loop.Run(plateau, 2000);
    std::vector<int> limits;
    for (int r = 0; r < 500; ++r) {
      loop.Run(plateau, 1);
      limits.push_back(plateau.limit());
    }
    const int median = Median(limits);
    const double goodput_share = median * 0.1 / (1 + median * 0.1);
    EXPECT_GE(goodput_share, 0.9) << "limit " << median;  // L >= 90.
    EXPECT_LE(median, 500);  // Short of where the last percent of goodput costs 2.5x latency.
  }
}

}  // namespace
}  // namespace blobtune::tuner
