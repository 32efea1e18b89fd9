// The oracle finds the knee of plants whose knee is known, and holds each phase's parameters.
#include "oracle.h"

#include <gtest/gtest.h>

namespace blobtune::workbench {
namespace {

OracleOptions FastOracle() {
  OracleOptions options;
  options.warmup_s = 1.0;
  options.measure_s = 30.0;
  options.max_successes = 20'000;
  return options;
}

Workload TwoStages(double delay_ms, Distribution service_ms, int concurrency) {
  Workload w;
  w.name = "two_stages";
  w.duration_s = 60.0;
  w.max_limit = 200;
  StageSpec network{.name = "network", .kind = StageSpec::Kind::kDelay,
                    .service_ms = Distribution::Constant(delay_ms)};
  StageSpec server{.name = "server", .kind = StageSpec::Kind::kQueue, .servers = 1,
                   .service_ms = std::move(service_ms)};
  w.stages = {network, server};
  ClientSpec client{.name = "c", .concurrency = concurrency, .path = {0, 1}};
  w.clients = {client};
  return w;
}

TEST(OracleTest, PureDelayPlantPeaksAtTheDemand) {
  Workload w = TwoStages(5.0, Distribution::Constant(0.0), 40);
  w.stages[1].servers = 1000;  // No bottleneck: throughput = limit / 5 ms.
  StatusOr<std::vector<PhaseOracle>> oracle = ComputeOracle(w, FastOracle());
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  ASSERT_EQ(oracle->size(), 1u);
  EXPECT_EQ((*oracle)[0].limit, 39);  // The smallest limit with 97% of 40 / 5 ms.
  EXPECT_NEAR((*oracle)[0].throughput, 39 / 0.005, 1.0);
}

TEST(OracleTest, ConstantServiceKneeIsWaitPlusServiceOverService) {
  // 4 ms round trip + 1 ms constant service: the server saturates at limit 5 = (4 + 1) / 1.
  Workload w = TwoStages(4.0, Distribution::Constant(1.0), 64);
  StatusOr<std::vector<PhaseOracle>> oracle = ComputeOracle(w, FastOracle());
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  EXPECT_EQ((*oracle)[0].limit, 5);
  EXPECT_NEAR((*oracle)[0].throughput, 1000.0, 5.0);
  EXPECT_NEAR((*oracle)[0].p99_ms, 5.0, 0.1);
}

TEST(OracleTest, MeasuresTheDemandWhereNoAccessWaitsBeyondAFlatStretch) {
  // 4 ms round trip, a 0.1 ms server that costs 0.4 ms more for an access that waited for its
  // permit, 100 callers. Below 100 every access waits: the server saturates at 2,000/s from
  // limit 9 on, and the sweep would stop long before 100. At 100 nobody waits: 10,000/s.
  Workload w = TwoStages(4.0, Distribution::Constant(0.1), 100);
  w.stages[1].per_wait_ms = 0.4;
  StatusOr<std::vector<PhaseOracle>> oracle = ComputeOracle(w, FastOracle());
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  EXPECT_EQ((*oracle)[0].limit, 100);
  EXPECT_NEAR((*oracle)[0].throughput, 10'000.0, 50.0);
  EXPECT_NEAR((*oracle)[0].sweep[8].throughput, 2'000.0, 10.0);  // Limit 9: the flat stretch.
}

TEST(OracleTest, EachPhaseHasItsOwnParametersAndEqualPhasesShareASweep) {
  Workload w = TwoStages(4.0, Distribution::Constant(1.0), 64);
  ParamChange slower{.is_stage = true, .indices = {1}, .param = ParamChange::Param::kScale,
                     .value = 2.0, .target = "stage.server.scale"};
  ParamChange back = slower;
  back.value = 1.0;
  w.steps = {{.at_s = 20.0, .changes = {slower}}, {.at_s = 40.0, .changes = {back}}};
  EXPECT_EQ(PhaseWorkload(w, 1).stages[1].scale, 2.0);
  EXPECT_EQ(PhaseWorkload(w, 2).stages[1].scale, 1.0);
  StatusOr<std::vector<PhaseOracle>> oracle = ComputeOracle(w, FastOracle());
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  ASSERT_EQ(oracle->size(), 3u);
  EXPECT_EQ((*oracle)[1].limit, 3);  // (4 + 2) / 2.
  EXPECT_NEAR((*oracle)[1].throughput, 500.0, 3.0);
  EXPECT_EQ((*oracle)[0].throughput, (*oracle)[2].throughput);
  EXPECT_EQ((*oracle)[2].start_s, 40.0);
  EXPECT_EQ((*oracle)[2].end_s, 60.0);
}

}  // namespace
}  // namespace blobtune::workbench
