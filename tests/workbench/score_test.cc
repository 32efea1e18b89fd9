// Scores computed from hand-made runs, where the right answer is known.
#include "score.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "recovery.h"

namespace blobtune::workbench {
namespace {

class ScoreTest : public ::testing::Test {
 protected:
  // A workload of `clients` clients with steps at 10 s and 20 s, 30 s long.
  static Workload Steps(size_t clients = 1) {
    Workload w;
    w.duration_s = 30.0;
    w.clients.resize(clients);
    w.steps = {{.at_s = 10.0, .changes = {}}, {.at_s = 20.0, .changes = {}}};
    return w;
  }
  static PhaseOracle Oracle(double start, double end, int limit, double x, double p99,
                            size_t clients = 1) {
    PhaseOracle o;
    o.start_s = start;
    o.end_s = end;
    o.limit = limit;
    o.throughput = x;
    o.p50_ms = 10.0;
    o.p99_ms = p99;
    o.client_throughput.assign(clients, x / static_cast<double>(clients));
    return o;
  }
  // A phase with `successes` per client, each of latency `latency_ms`.
  static PhaseStats Phase(double start, double end, std::vector<uint64_t> successes,
                          double latency_ms) {
    PhaseStats p;
    p.start_s = start;
    p.end_s = end;
    p.successes_by_client = successes;
    for (uint64_t n : successes) {
      p.successes += n;
      for (uint64_t i = 0; i < n; ++i) {
        p.latency.Record(std::chrono::microseconds(static_cast<int64_t>(latency_ms * 1000)));
      }
    }
    return p;
  }
  // Successes every 1 / rate s in [from, to), offset by half a gap (so none falls on a window's
  // edge), each of latency `latency_ms`.
  static void Complete(SimulationResult& run, double from, double to, double rate,
                       double latency_ms, int client = 0) {
    for (double t = from + 0.5 / rate; t < to; t += 1.0 / rate) {
      run.completions.push_back({t, latency_ms, client});
    }
  }
};

TEST_F(ScoreTest, MatchingTheOracleScoresZeroRegret) {
  Workload w = Steps();
  std::vector<PhaseOracle> oracle = {Oracle(0, 10, 4, 100, 20), Oracle(10, 20, 8, 50, 40),
                                     Oracle(20, 30, 4, 100, 20)};
  SimulationResult run;
  run.phases = {Phase(0, 10, {1000}, 20), Phase(10, 20, {500}, 40), Phase(20, 30, {1000}, 20)};
  run.limit_changes = {{{0.0, 4}, {10.0, 8}, {20.0, 4}}};
  Complete(run, 0, 10, 100, 20);
  Complete(run, 10, 20, 50, 40);
  Complete(run, 20, 30, 100, 20);
  Score s = ScoreRun(w, oracle, run);
  EXPECT_NEAR(s.throughput_ratio, 1.0, 1e-9);
  EXPECT_NEAR(s.p99_ratio, 1.0, 0.01);
  EXPECT_NEAR(s.regret, 0.0, 0.01);
  // In service from the first window that fits in each new phase: 10 round trips.
  ASSERT_TRUE(s.recovery_rtts.has_value());
  EXPECT_NEAR(*s.recovery_rtts, kServiceWindowRtts, 1e-6);
  EXPECT_EQ(s.service_in_band, 1.0);
  EXPECT_EQ(s.step_limit_in_band, std::vector<double>({1.0, 1.0}));
  EXPECT_EQ(s.limit_cv, 0.0);
  EXPECT_FALSE(s.fairness.has_value());
}

TEST_F(ScoreTest, RegretChargesLostThroughputAndDoubledLatency) {
  Workload w = Steps();
  w.steps.clear();
  std::vector<PhaseOracle> oracle = {Oracle(0, 30, 4, 100, 20)};
  SimulationResult run;
  run.phases = {Phase(0, 30, {2700}, 40)};  // 90% of the throughput at twice the p99.
  run.limit_changes = {{{0.0, 4}}};
  Score s = ScoreRun(w, oracle, run);
  EXPECT_NEAR(s.throughput_ratio, 0.9, 1e-9);
  EXPECT_NEAR(s.p99_ratio, 2.0, 0.02);
  EXPECT_NEAR(s.regret, 0.1 + kRegretLatencyWeight * 1.0, 0.01);
}

TEST_F(ScoreTest, RecoveryIsTheFirstWindowOfTenRoundTripsInService) {
  Workload w = Steps();
  // p50* = 10 ms: a window is 100 ms and needs 9 successes (0.9 X*) with p99 <= 30 ms.
  std::vector<PhaseOracle> oracle = {Oracle(0, 10, 4, 100, 20), Oracle(10, 20, 20, 100, 20),
                                     Oracle(20, 30, 4, 100, 20)};
  SimulationResult run;
  run.phases = {Phase(0, 10, {1000}, 20), Phase(10, 20, {900}, 20), Phase(20, 30, {1000}, 20)};
  run.limit_changes = {{{0.0, 4}, {10.0, 20}, {20.0, 4}}};
  Complete(run, 0, 10, 100, 20);
  // Nothing for a second after the first step; then at X* but for a 0.5 s outage at 15 s.
  Complete(run, 11, 15, 100, 20);
  Complete(run, 15.5, 20, 100, 20);
  // After the second step, at X* from the start but slow (40 ms) for its first second.
  Complete(run, 20, 21, 100, 40);
  Complete(run, 21, 30, 100, 20);
  Score s = ScoreRun(w, oracle, run);
  ASSERT_EQ(s.step_recovery_rtts.size(), 2u);
  // The first window with 9 successes is [10.99, 11.09): 109 round trips after the step.
  ASSERT_TRUE(s.step_recovery_rtts[0].has_value());
  EXPECT_NEAR(*s.step_recovery_rtts[0], 109.0, 1e-6);
  // The first window without a slow access is [21.00, 21.10): 110 round trips.
  ASSERT_TRUE(s.step_recovery_rtts[1].has_value());
  EXPECT_NEAR(*s.step_recovery_rtts[1], 110.0, 1e-6);
  EXPECT_EQ(s.recovery_rtts, s.step_recovery_rtts[1]);
  // Of the 892 windows from [10.99, 11.09) to [19.90, 20.00), those holding under 9 successes
  // are the 57 that overlap the outage by more than one success gap.
  ASSERT_EQ(s.step_service_in_band.size(), 2u);
  EXPECT_NEAR(s.step_service_in_band[0], 1.0 - 57.0 / 892.0, 0.002);
  EXPECT_EQ(s.step_service_in_band[1], 1.0);
  EXPECT_EQ(s.service_in_band, s.step_service_in_band[0]);

  // A phase that never reaches 0.9 X*: that step's recovery is null, and so is the run's.
  run.completions.clear();
  Complete(run, 0, 10, 100, 20);
  Complete(run, 10, 20, 80, 20);
  Complete(run, 20, 30, 100, 20);
  s = ScoreRun(w, oracle, run);
  EXPECT_FALSE(s.step_recovery_rtts[0].has_value());
  EXPECT_EQ(s.step_service_in_band[0], 0.0);
  EXPECT_FALSE(s.recovery_rtts.has_value());
  EXPECT_EQ(s.service_in_band, 0.0);
}

TEST_F(ScoreTest, StepsIntoIdleOrShortPhasesDoNotCount) {
  Workload w = Steps();
  std::vector<PhaseOracle> oracle = {Oracle(0, 10, 4, 100, 20), Oracle(10, 20, 1, 0, 0),
                                     Oracle(20, 30, 4, 100, 20)};
  oracle[2].p50_ms = 2000.0;  // A window of 20 s does not fit in the last phase.
  SimulationResult run;
  run.phases = {Phase(0, 10, {1000}, 20), Phase(10, 20, {0}, 20), Phase(20, 30, {1000}, 20)};
  run.limit_changes = {{{0.0, 4}}};
  Score s = ScoreRun(w, oracle, run);
  EXPECT_TRUE(s.step_recovery_rtts.empty());
  EXPECT_EQ(s.recovery_rtts, 0.0);
  EXPECT_EQ(s.service_in_band, 1.0);
}

TEST_F(ScoreTest, LimitInBandIsTheLowestClientsFractionOfThePhase) {
  Workload w = Steps(2);
  std::vector<PhaseOracle> oracle = {Oracle(0, 10, 4, 100, 20, 2), Oracle(10, 20, 20, 100, 20, 2),
                                     Oracle(20, 30, 4, 100, 20, 2)};
  SimulationResult run;
  run.phases = {Phase(0, 10, {500, 500}, 20), Phase(10, 20, {500, 500}, 20),
                Phase(20, 30, {500, 500}, 20)};
  // After the step to 20 (band [17, 23]): both clients there at once. After the step back to 4
  // (band [3, 5]): one client there at once; the other leaves the band for 20-22 s and
  // 25-26 s.
  run.limit_changes = {{{0.0, 4}, {10.0, 20}, {20.0, 4}},
                       {{0.0, 4}, {10.0, 20}, {20.0, 8}, {22.0, 4}, {25.0, 2}, {26.0, 5}}};
  Score s = ScoreRun(w, oracle, run);
  ASSERT_EQ(s.step_limit_in_band.size(), 2u);
  EXPECT_NEAR(s.step_limit_in_band[0], 1.0, 1e-9);
  EXPECT_NEAR(s.step_limit_in_band[1], 0.7, 1e-9);
}

TEST_F(ScoreTest, LimitCvUsesTheSecondHalfOfEachPhase) {
  Workload w = Steps();
  w.steps.clear();
  std::vector<PhaseOracle> oracle = {Oracle(0, 30, 10, 100, 20)};
  SimulationResult run;
  run.phases = {Phase(0, 30, {3000}, 20)};
  // Wild in the first half; alternating 8 and 12 for equal times in the second: cv = 2 / 10.
  run.limit_changes = {{{0.0, 100}, {5.0, 1}, {15.0, 8}, {20.0, 12}, {25.0, 8}, {27.5, 12}}};
  EXPECT_NEAR(ScoreRun(w, oracle, run).limit_cv, 0.2, 1e-9);
}

TEST_F(ScoreTest, FairnessIsJainsIndexOfNormalisedThroughputs) {
  Workload w = Steps(2);
  w.steps.clear();
  std::vector<PhaseOracle> oracle = {Oracle(0, 30, 10, 200, 20, 2)};
  SimulationResult run;
  run.limit_changes = {{{0.0, 10}}, {{0.0, 10}}};
  run.phases = {Phase(0, 30, {3000, 3000}, 20)};
  EXPECT_NEAR(*ScoreRun(w, oracle, run).fairness, 1.0, 1e-9);
  run.phases = {Phase(0, 30, {3000, 1000}, 20)};  // x = 1 and 1/3: (4/3)^2 / (2 (1 + 1/9)).
  EXPECT_NEAR(*ScoreRun(w, oracle, run).fairness, 0.8, 1e-9);
}

TEST_F(ScoreTest, TakeoverCountsFromTheIdleClientsLastSuccess) {
  // Client 1 stops at 10 s (its concurrency stepped to 0); its last request ends at 10.5 s.
  Workload w = Steps(2);
  w.steps = {{.at_s = 10.0,
              .changes = {{.is_stage = false,
                           .indices = {1},
                           .param = ParamChange::Param::kConcurrency,
                           .value = 0}}}};
  std::vector<PhaseOracle> oracle = {Oracle(0, 10, 10, 200, 20, 2), Oracle(10, 30, 10, 200, 20, 2)};
  SimulationResult run;
  run.phases = {Phase(0, 10, {1000, 1000}, 20), Phase(10, 30, {3500, 50}, 20)};
  run.limit_changes = {{{0.0, 10}}, {{0.0, 10}}};
  Complete(run, 0, 10.5, 100, 20, /*client=*/0);
  Complete(run, 0, 10.5, 100, 20, /*client=*/1);
  // Client 0 alone: half of X* until 11 s, then X*.
  Complete(run, 10.5, 11, 100, 20, /*client=*/0);
  Complete(run, 11, 30, 200, 20, /*client=*/0);
  // Client 0's completions interleave with client 1's: the run's are in end order.
  std::sort(run.completions.begin(), run.completions.end(),
            [](const Completion& a, const Completion& b) { return a.end_s < b.end_s; });
  Score s = ScoreRun(w, oracle, run);
  ASSERT_EQ(s.takeovers.size(), 1u);
  EXPECT_EQ(s.takeovers[0].client, 1);
  EXPECT_NEAR(s.takeovers[0].idle_s, 10.495, 1e-9);
  // p50* = 10 ms: of the 100 ms windows sliding from 10.495 by 10 ms, the first with at least 19
  // successes (0.95 X*) is [10.995, 11.095): 60 round trips after 10.495.
  ASSERT_TRUE(s.takeovers[0].rtts.has_value());
  EXPECT_NEAR(*s.takeovers[0].rtts, 60.0, 1.0 + 1e-6);

  // A step that leaves both clients' demand: nobody goes idle.
  w.steps[0].changes[0].value = 5;
  EXPECT_TRUE(ScoreRun(w, oracle, run).takeovers.empty());
}

// A series of 100 ms buckets: `goodputs[i]` successes per second in bucket i.
std::vector<SeriesPoint> Buckets(const std::vector<double>& goodputs) {
  std::vector<SeriesPoint> series;
  for (size_t i = 0; i < goodputs.size(); ++i) {
    series.push_back({.end_s = 0.1 * static_cast<double>(i + 1), .throughput = goodputs[i]});
  }
  return series;
}

TEST(TimeToHoldGoodputTest, IsTheEndOfTheFirstSpanWhoseMeanReachesTheTarget) {
  // 0.5 s at 100/s, then 1000/s: the trailing second reaches 950/s only once it is all at
  // 1000/s, at 1.5 s (at 1.4 s it still holds 0.1 s at 100/s: 910/s).
  std::vector<double> goodputs(5, 100.0);
  goodputs.resize(30, 1000.0);
  const std::optional<double> t = TimeToHoldGoodput(Buckets(goodputs), 950.0, 1.0);
  ASSERT_TRUE(t.has_value());
  EXPECT_NEAR(*t, 1.5, 1e-9);
}

TEST(TimeToHoldGoodputTest, AShortBurstAboveTheTargetDoesNotCount) {
  std::vector<double> goodputs(30, 100.0);
  goodputs[10] = goodputs[11] = 5000.0;  // 0.2 s far above: the second around it averages 1080.
  EXPECT_FALSE(TimeToHoldGoodput(Buckets(goodputs), 1100.0, 1.0).has_value());
  // A noisy series whose mean is above the target holds it as soon as a second has passed.
  std::vector<double> noisy;
  for (int i = 0; i < 30; ++i) noisy.push_back(i % 2 == 0 ? 700.0 : 1300.0);
  const std::optional<double> t = TimeToHoldGoodput(Buckets(noisy), 950.0, 1.0);
  ASSERT_TRUE(t.has_value());
  EXPECT_NEAR(*t, 1.0, 1e-9);
}

TEST(TimeToHoldGoodputTest, NeverWithinTheSeriesIsNothing) {
  EXPECT_FALSE(TimeToHoldGoodput(Buckets(std::vector<double>(30, 900.0)), 950.0, 1.0));
  EXPECT_FALSE(TimeToHoldGoodput(Buckets(std::vector<double>(5, 2000.0)), 950.0, 1.0));
  EXPECT_FALSE(TimeToHoldGoodput({}, 950.0, 1.0));
}

}  // namespace
}  // namespace blobtune::workbench
