// Steps of a closed-loop client's concurrency: a client that starts late, one that steps down,
// fixed work that waits for its start, and an oracle that sweeps each concurrency of its own.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "admission.h"
#include "oracle.h"
#include "simulator.h"
#include "workload.h"

namespace blobtune::workbench {
namespace {

class ConcurrencyStepTest : public ::testing::Test {
 protected:
  // A constant 10 ms delay and one closed-loop client of `concurrency` jobs ("c").
  static Workload Delay10ms(int concurrency) {
    Workload w;
    w.name = "concurrency_steps";
    w.duration_s = 2.0;
    StageSpec network{.name = "network",
                      .kind = StageSpec::Kind::kDelay,
                      .service_ms = Distribution::Constant(10.0)};
    w.stages = {network};
    ClientSpec client{.name = "c", .concurrency = concurrency, .path = {0}};
    w.clients = {client};
    return w;
  }

  static void StepConcurrency(Workload& w, double at_s, int concurrency) {
    ParamChange change{.is_stage = false,
                       .indices = {0},
                       .param = ParamChange::Param::kConcurrency,
                       .value = static_cast<double>(concurrency),
                       .target = "client.c.concurrency"};
    w.steps.push_back({.at_s = at_s, .changes = {change}});
  }

  // Runs `w` under a static cap far above its demand, with 0.5 s buckets.
  static SimulationResult Run(const Workload& w) {
    SimulationOptions options;
    options.phase_bounds = PhaseBounds(w);
    options.bucket_s = 0.5;
    options.make_admission = [](size_t, Clock&) -> StatusOr<std::unique_ptr<Admission>> {
      return std::unique_ptr<Admission>(std::make_unique<StaticCap>(100));
    };
    StatusOr<SimulationResult> result = Simulate(w, options);
    EXPECT_TRUE(result.ok()) << result.status();
    return *std::move(result);
  }
};

TEST_F(ConcurrencyStepTest, ClientAtZeroStartsItsJobsAtTheStep) {
  Workload w = Delay10ms(0);
  StepConcurrency(w, 1.0, 5);
  SimulationResult result = Run(w);
  ASSERT_EQ(result.phases.size(), 2u);
  EXPECT_EQ(result.phases[0].successes, 0u);
  EXPECT_EQ(result.phases[0].throughput(), 0.0);
  // Five jobs from 1.00 s, each 10 ms: five successes at 1.01 s, 1.02 s, ..., 1.99 s.
  EXPECT_EQ(result.phases[1].successes, 5u * 99u);
  ASSERT_EQ(result.series.size(), 4u);
  EXPECT_EQ(result.series[0].mean_inflight, 0.0);  // At 0.5 s.
  EXPECT_EQ(result.series[2].mean_inflight, 5.0);  // At 1.5 s.
}

TEST_F(ConcurrencyStepTest, StepDownLetsJobsFinishWithoutReplacingThem) {
  // Ten jobs in flight when the concurrency drops to 4 at 1.005 s: all ten end at 1.01 s, and
  // only four start again.
  Workload w = Delay10ms(10);
  StepConcurrency(w, 1.005, 4);
  SimulationResult result = Run(w);
  EXPECT_EQ(result.series[0].mean_inflight, 10.0);
  EXPECT_EQ(result.series[2].mean_inflight, 4.0);
  EXPECT_EQ(result.phases[1].successes, 10u + 4u * 98u);
  // Back up to 10 at 1.5 s: six more start at once.
  StepConcurrency(w, 1.5, 10);
  result = Run(w);
  EXPECT_EQ(result.phases[2].successes, 10u * 49u + 4u);  // 1.51 s, ..., 1.99 s; 4 at 1.5 s.
}

TEST_F(ConcurrencyStepTest, FixedWorkWaitsForItsStart) {
  Workload w = Delay10ms(0);
  w.clients[0].total_jobs = 20;
  StepConcurrency(w, 1.0, 5);
  SimulationResult result = Run(w);
  EXPECT_DOUBLE_EQ(result.end_s, 1.04);  // 20 jobs, 5 at a time, 10 ms each.
  EXPECT_EQ(result.phases[1].successes, 20u);
}

TEST_F(ConcurrencyStepTest, OracleSweepsEachConcurrencyOfItsOwn) {
  // A pure delay's L* is its demand: 97% of the goodput at 8 jobs needs all 8, at 16 all 16.
  Workload w = Delay10ms(0);
  w.duration_s = 4.0;
  StepConcurrency(w, 1.0, 8);
  StepConcurrency(w, 2.0, 0);
  StepConcurrency(w, 3.0, 16);
  OracleOptions options;
  options.warmup_s = 1.0;
  options.measure_s = 10.0;
  StatusOr<std::vector<PhaseOracle>> oracle = ComputeOracle(w, options);
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  ASSERT_EQ(oracle->size(), 4u);
  // No client runs: one idle point, X* = 0.
  for (size_t idle : {0u, 2u}) {
    EXPECT_EQ((*oracle)[idle].throughput, 0.0) << idle;
    EXPECT_EQ((*oracle)[idle].sweep.size(), 1u) << idle;
  }
  EXPECT_EQ((*oracle)[1].limit, 8);
  EXPECT_EQ((*oracle)[1].sweep.back().limit, 8);  // The sweep stops at the concurrency.
  EXPECT_NEAR((*oracle)[1].throughput, 800.0, 1.0);
  EXPECT_EQ((*oracle)[3].limit, 16);
  EXPECT_NEAR((*oracle)[3].throughput, 1600.0, 1.0);
}

}  // namespace
}  // namespace blobtune::workbench
