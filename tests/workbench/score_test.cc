// Scores computed from hand-made runs, where the right answer is known.
#include "score.h"

#include <gtest/gtest.h>

#include <cmath>

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
};

TEST_F(ScoreTest, MatchingTheOracleScoresZeroRegret) {
  Workload w = Steps();
  std::vector<PhaseOracle> oracle = {Oracle(0, 10, 4, 100, 20), Oracle(10, 20, 8, 50, 40),
                                     Oracle(20, 30, 4, 100, 20)};
  SimulationResult run;
  run.phases = {Phase(0, 10, {1000}, 20), Phase(10, 20, {500}, 40), Phase(20, 30, {1000}, 20)};
  run.limit_changes = {{{0.0, 4}, {10.0, 8}, {20.0, 4}}};
  Score s = ScoreRun(w, oracle, run);
  EXPECT_NEAR(s.throughput_ratio, 1.0, 1e-9);
  EXPECT_NEAR(s.p99_ratio, 1.0, 0.01);
  EXPECT_NEAR(s.regret, 0.0, 0.01);
  EXPECT_EQ(s.recovery_rtts, 0.0);  // The limit moved with the step.
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

TEST_F(ScoreTest, RecoveryIsTimeToStayInTheBandInMedianLatencies) {
  Workload w = Steps();
  // L* goes 4 -> 20 at 10 s (the worst step) and back to 4 at 20 s.
  std::vector<PhaseOracle> oracle = {Oracle(0, 10, 4, 100, 20), Oracle(10, 20, 20, 100, 20),
                                     Oracle(20, 30, 4, 100, 20)};
  SimulationResult run;
  run.phases = {Phase(0, 10, {1000}, 20), Phase(10, 20, {1000}, 20), Phase(20, 30, {1000}, 20)};
  // Enters the band [17, 23] at 10.5 s, leaves it at 11 s, enters again for good at 12 s.
  run.limit_changes = {{{0.0, 4}, {10.5, 18}, {11.0, 30}, {12.0, 21}, {20.0, 4}}};
  Score s = ScoreRun(w, oracle, run);
  ASSERT_TRUE(s.recovery_rtts.has_value());
  EXPECT_NEAR(*s.recovery_rtts, 2.0 / 0.010, 1e-6);  // 2 s in units of p50* = 10 ms.
  // Every step: the worst one, then the step back to 4 (at once: 0).
  ASSERT_EQ(s.step_recovery_rtts.size(), 2u);
  EXPECT_EQ(s.step_recovery_rtts[0], s.recovery_rtts);
  EXPECT_EQ(s.step_recovery_rtts[1], 0.0);
  // In the band [17, 23] for 0.5 s of 10.5-11 s and from 12 s: 8.5 s of the 10 s phase.
  ASSERT_EQ(s.step_in_band.size(), 2u);
  EXPECT_NEAR(s.step_in_band[0], 0.85, 1e-9);
  EXPECT_NEAR(s.step_in_band[1], 1.0, 1e-9);

  run.limit_changes = {{{0.0, 4}, {10.5, 18}, {19.0, 40}, {20.0, 4}}};  // Out at the end.
  EXPECT_FALSE(ScoreRun(w, oracle, run).recovery_rtts.has_value());
  // Back to 4 only 1 s into the last phase (band [3, 5]): 100 median latencies.
  run.limit_changes = {{{0.0, 4}, {10.0, 20}, {20.0, 9}, {21.0, 4}}};
  s = ScoreRun(w, oracle, run);
  EXPECT_EQ(s.recovery_rtts, 0.0);
  ASSERT_EQ(s.step_recovery_rtts.size(), 2u);
  EXPECT_EQ(s.step_recovery_rtts[0], 0.0);
  ASSERT_TRUE(s.step_recovery_rtts[1].has_value());
  EXPECT_NEAR(*s.step_recovery_rtts[1], 1.0 / 0.010, 1e-6);
  EXPECT_NEAR(s.step_in_band[1], 0.9, 1e-9);  // 9 at 20-21 s is outside [3, 5].
}

TEST_F(ScoreTest, InBandIsTheLowestClientsFractionOfThePhase) {
  Workload w = Steps(2);
  std::vector<PhaseOracle> oracle = {Oracle(0, 10, 4, 100, 20, 2), Oracle(10, 20, 20, 100, 20, 2),
                                     Oracle(20, 30, 4, 100, 20, 2)};
  SimulationResult run;
  run.phases = {Phase(0, 10, {500, 500}, 20), Phase(10, 20, {500, 500}, 20),
                Phase(20, 30, {500, 500}, 20)};
  // After the step back to 4 (band [3, 5]): one client there at once; the other leaves the band
  // for 20-22 s and 25-26 s, and is back in it when the phase ends.
  run.limit_changes = {{{0.0, 4}, {10.0, 20}, {20.0, 4}},
                       {{0.0, 4}, {10.0, 20}, {20.0, 8}, {22.0, 4}, {25.0, 2}, {26.0, 5}}};
  Score s = ScoreRun(w, oracle, run);
  ASSERT_EQ(s.step_in_band.size(), 2u);
  EXPECT_NEAR(s.step_in_band[0], 1.0, 1e-9);
  EXPECT_NEAR(s.step_in_band[1], 0.7, 1e-9);
  ASSERT_TRUE(s.step_recovery_rtts[1].has_value());
  EXPECT_NEAR(*s.step_recovery_rtts[1], 6.0 / 0.010, 1e-6);  // In for good from 26 s.
  // A client outside the band at the end: no recovery, and in-band time still counted.
  run.limit_changes[1].back() = {26.0, 9};
  s = ScoreRun(w, oracle, run);
  EXPECT_FALSE(s.step_recovery_rtts[1].has_value());
  EXPECT_NEAR(s.step_in_band[1], 0.3, 1e-9);
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

}  // namespace
}  // namespace blobtune::workbench
