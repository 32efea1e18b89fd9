// The simulator against queueing theory: results a correct discrete-event simulation must give.
#include "simulator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <string_view>
#include <vector>

#include "admission.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "limiter_admission.h"
#include "workload.h"

namespace blobtune::workbench {
namespace {

class SimulatorTest : public ::testing::Test {
 protected:
  // One stage, one client; the test fills in the details.
  static Workload OneStage(StageSpec::Kind kind, Distribution service_ms, int servers = 1) {
    Workload w;
    w.name = "test";
    w.seed = 42;
    StageSpec stage;
    stage.name = "stage";
    stage.kind = kind;
    stage.servers = servers;
    stage.service_ms = std::move(service_ms);
    w.stages.push_back(stage);
    ClientSpec client;
    client.name = "c";
    client.path = {0};
    w.clients.push_back(client);
    return w;
  }

  // Group commit: one batch stage, `commit_ms` per batch plus `per_request_ms` per member, and a
  // closed-loop client of `concurrency` jobs.
  static Workload GroupCommit(double commit_ms, double per_request_ms, int concurrency) {
    Workload w = OneStage(StageSpec::Kind::kBatch, Distribution::Constant(commit_ms));
    w.stages[0].per_request_ms = per_request_ms;
    w.clients[0].concurrency = concurrency;
    return w;
  }

  static SimulationResult Run(const Workload& w, int limit, std::vector<double> bounds,
                              double bucket_s = 0.0) {
    SimulationOptions options;
    options.phase_bounds = std::move(bounds);
    options.bucket_s = bucket_s;
    options.make_admission = [limit](size_t, Clock&) -> StatusOr<std::unique_ptr<Admission>> {
      return std::unique_ptr<Admission>(std::make_unique<StaticCap>(limit));
    };
    StatusOr<SimulationResult> result = Simulate(w, options);
    EXPECT_TRUE(result.ok()) << result.status();
    return *std::move(result);
  }
};

TEST_F(SimulatorTest, PureDelayThroughputIsExactlyLimitOverDelay) {
  Workload w = OneStage(StageSpec::Kind::kDelay, Distribution::Constant(2.0));
  w.clients[0].concurrency = 100;
  SimulationResult result = Run(w, 10, {1.0, 11.0});
  EXPECT_DOUBLE_EQ(result.phases[0].throughput(), 10 / 0.002);
  EXPECT_DOUBLE_EQ(result.phases[0].latency.MeanMs(), 2.0);
}

TEST_F(SimulatorTest, AccessesThatWaitedForTheirPermitPayTheWaitingPathsWork) {
  // One 1 ms server; an access whose permit came after waiting costs 1 ms more there.
  Workload w = OneStage(StageSpec::Kind::kQueue, Distribution::Constant(1.0));
  w.stages[0].per_wait_ms = 1.0;
  w.clients[0].concurrency = 4;
  // A cap of 4 never makes the 4 jobs wait: 1 ms each, 1,000/s.
  EXPECT_NEAR(Run(w, 4, {1.0, 11.0}).phases[0].throughput(), 1000.0, 1.0);
  // A cap of 2 makes every later access wait: 2 ms each, 500/s.
  EXPECT_NEAR(Run(w, 2, {1.0, 11.0}).phases[0].throughput(), 500.0, 1.0);
}

TEST_F(SimulatorTest, AWriterThatWaitsForItsBatchToRefillCommitsFullerBatches) {
  // A 0.1 ms thread in front of a 1 ms batch writer; 4 jobs. Without a refill wait the writer
  // commits 1, then 3, then 1, ...: 4 per 2 ms. Waiting up to 1 ms for as many as last time
  // (3), it commits 3 every 1.2 ms: 1 ms of commit, then 0.2 ms until the thread has passed two
  // of the three it released, who join the one left waiting: 2,500/s.
  Workload w = OneStage(StageSpec::Kind::kQueue, Distribution::Constant(0.1));
  StageSpec writer;
  writer.name = "writer";
  writer.kind = StageSpec::Kind::kBatch;
  writer.service_ms = Distribution::Constant(1.0);
  w.stages.push_back(writer);
  w.clients[0].path = {0, 1};
  w.clients[0].concurrency = 4;
  EXPECT_NEAR(Run(w, 4, {10.0, 110.0}).phases[0].throughput(), 2000.0, 1.0);
  w.stages[1].refill_wait_ms = 1.0;
  EXPECT_NEAR(Run(w, 4, {10.0, 110.0}).phases[0].throughput(), 3 / 0.0012, 1.0);
}

TEST_F(SimulatorTest, EachRequestTakesOneOfSeveralPathsByWeight) {
  // A quarter of the requests take a 1 ms delay, the rest a 3 ms one: 2.5 ms on average, so 10
  // permits carry 4,000 requests per second.
  Workload w = OneStage(StageSpec::Kind::kDelay, Distribution::Constant(1.0));
  StageSpec slow = w.stages[0];
  slow.name = "slow";
  slow.service_ms = Distribution::Constant(3.0);
  w.stages.push_back(slow);
  w.clients[0].concurrency = 100;
  w.clients[0].paths = {{.weight = 1.0, .path = {0}}, {.weight = 3.0, .path = {1}}};
  SimulationResult result = Run(w, 10, {1.0, 101.0});
  EXPECT_NEAR(result.phases[0].throughput(), 4000.0, 40.0);
  EXPECT_NEAR(result.phases[0].latency.MeanMs(), 2.5, 0.03);
}

TEST_F(SimulatorTest, SetupHoldsThePermitBeforeThePlant) {
  // 8 ms under the permit before a 2 ms delay: each permit turns over every 10 ms.
  Workload w = OneStage(StageSpec::Kind::kDelay, Distribution::Constant(2.0));
  w.clients[0].concurrency = 100;
  w.clients[0].setup_ms = Distribution::Constant(8.0);
  SimulationResult result = Run(w, 10, {1.0, 11.0});
  EXPECT_DOUBLE_EQ(result.phases[0].throughput(), 10 / 0.010);
  EXPECT_DOUBLE_EQ(result.phases[0].latency.MeanMs(), 10.0);  // From the grant.
}

// Records the samples the real limiter feeds it; the limit stays put.
class RecordingAlgorithm final : public tuner::LimitAlgorithm {
 public:
  explicit RecordingAlgorithm(std::vector<tuner::Sample>* samples) : samples_(samples) {}
  std::string_view name() const noexcept override { return "recording"; }
  int limit() const noexcept override { return 4; }
  int min_limit() const noexcept override { return 4; }
  int max_limit() const noexcept override { return 4; }
  int Update(const tuner::Sample& sample) override {
    samples_->push_back(sample);
    return 4;
  }
  std::unique_ptr<tuner::LimitAlgorithm> Clone() const override {
    return std::make_unique<RecordingAlgorithm>(samples_);
  }

 private:
  std::vector<tuner::Sample>* samples_;
};

// One phase over `bounds`, every client behind the real limiter with a RecordingAlgorithm.
SimulationOptions Recording(std::vector<tuner::Sample>* samples, std::vector<double> bounds) {
  SimulationOptions options;
  options.phase_bounds = std::move(bounds);
  options.make_admission = [samples](size_t, Clock& clock) -> StatusOr<std::unique_ptr<Admission>> {
    StatusOr<std::unique_ptr<LimiterAdmission>> admission =
        LimiterAdmission::Create(std::make_unique<RecordingAlgorithm>(samples), clock);
    if (!admission.ok()) return admission.status();
    return std::unique_ptr<Admission>(*std::move(admission));
  };
  return options;
}

TEST_F(SimulatorTest, SetupReachesTheAlgorithmApartFromTheLatency) {
  Workload w = OneStage(StageSpec::Kind::kDelay, Distribution::Constant(2.0));
  w.clients[0].concurrency = 8;
  w.clients[0].setup_ms = Distribution::Constant(8.0);
  std::vector<tuner::Sample> samples;
  StatusOr<SimulationResult> result = Simulate(w, Recording(&samples, {0.0, 1.0}));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_GE(samples.size(), 100u);  // 4 permits, one per 10 ms each, for a second.
  for (const tuner::Sample& sample : samples) {
    EXPECT_EQ(sample.setup, std::chrono::milliseconds(8));
    EXPECT_EQ(sample.latency, std::chrono::milliseconds(2));
  }
}

TEST_F(SimulatorTest, RequestsThatExpireInTheQueueReachTheAlgorithmAsExpired) {
  // 600/s offered to 4 permits of 10 ms (400/s) with a 20 ms deadline: a third expire
  // waiting for a permit, and the limiter reports each with the next sample.
  Workload w = OneStage(StageSpec::Kind::kDelay, Distribution::Constant(10.0));
  w.clients[0].load = ClientSpec::Load::kOpen;
  w.clients[0].rate_per_s = 600.0;
  w.clients[0].deadline_ms = 20.0;
  w.duration_s = 2.0;
  std::vector<tuner::Sample> samples;
  StatusOr<SimulationResult> result = Simulate(w, Recording(&samples, {0.0, 2.0}));
  ASSERT_TRUE(result.ok()) << result.status();
  uint64_t expired = 0;
  for (const tuner::Sample& sample : samples) {
    expired += sample.expired;
    EXPECT_EQ(sample.refused, 0u);  // These callers wait; none sheds.
  }
  const uint64_t expired_in_queue = result->phases[0].expired;
  EXPECT_GT(expired_in_queue, 300u);
  // The few that expire after the run's end (while it drains) are in no phase, and those after
  // the last completion reach no sample.
  EXPECT_NEAR(static_cast<double>(expired), static_cast<double>(expired_in_queue), 10.0);
}

TEST_F(SimulatorTest, MM1MeanLatencyMatchesTheory) {
  // M/M/1 with lambda = 50/s and mu = 100/s: mean time in system 1 / (mu - lambda) = 20 ms,
  // mean number in system rho / (1 - rho) = 1.
  Workload w = OneStage(StageSpec::Kind::kQueue, Distribution::Exponential(10.0));
  w.clients[0].load = ClientSpec::Load::kOpen;
  w.clients[0].rate_per_s = 50.0;
  SimulationResult result = Run(w, 100000, {100.0, 4100.0}, /*bucket_s=*/0.0137);
  const PhaseStats& phase = result.phases[0];
  EXPECT_NEAR(phase.latency.MeanMs(), 20.0, 20.0 * 0.03);
  EXPECT_NEAR(phase.throughput(), 50.0, 50.0 * 0.01);
  // Little's law: time-average number in system = throughput x mean latency.
  double inflight = 0.0;
  for (const SeriesPoint& point : result.series) inflight += point.mean_inflight;
  inflight /= static_cast<double>(result.series.size());
  EXPECT_NEAR(inflight, phase.throughput() * phase.latency.MeanMs() / 1000.0, 0.03);
}

TEST_F(SimulatorTest, ClosedLoopObeysLittlesLawAtTheCap) {
  // With more work than permits, exactly `limit` accesses are always in flight.
  Workload w = OneStage(StageSpec::Kind::kQueue, Distribution::Lognormal(5.0, 1.5), 2);
  w.clients[0].concurrency = 50;
  SimulationResult result = Run(w, 6, {10.0, 1010.0});
  const PhaseStats& phase = result.phases[0];
  EXPECT_NEAR(phase.throughput() * phase.latency.MeanMs() / 1000.0, 6.0, 6.0 * 0.02);
  // Two servers of mean 5 ms saturate at 400/s.
  EXPECT_NEAR(phase.throughput(), 400.0, 400.0 * 0.03);
}

TEST_F(SimulatorTest, FixedWorkEndsWhenTheLastJobFinishes) {
  Workload w = OneStage(StageSpec::Kind::kDelay, Distribution::Constant(10.0));
  w.clients[0].concurrency = 100;
  w.clients[0].total_jobs = 100;
  SimulationResult result = Run(w, 10, {0.0, 60.0});
  EXPECT_DOUBLE_EQ(result.end_s, 0.1);
  EXPECT_EQ(result.phases[0].successes, 100u);
  EXPECT_DOUBLE_EQ(result.phases[0].end_s, 0.1);
}

TEST_F(SimulatorTest, DeadlineDropsRequestsThatQueueTooLong) {
  // 200/s offered to a 100/s server with a 50 ms deadline: at most ~100/s succeed.
  Workload w = OneStage(StageSpec::Kind::kQueue, Distribution::Constant(10.0));
  w.clients[0].load = ClientSpec::Load::kOpen;
  w.clients[0].rate_per_s = 200.0;
  w.clients[0].deadline_ms = 50.0;
  SimulationResult result = Run(w, 1000, {10.0, 110.0});
  const PhaseStats& phase = result.phases[0];
  EXPECT_LE(phase.throughput(), 100.5);
  EXPECT_GT(phase.dropped, 0u);
  EXPECT_LE(phase.latency.QuantileMs(1.0), 50.0 * 1.01);
}

TEST_F(SimulatorTest, StepChangesCapacityAtItsTime) {
  Workload w = OneStage(StageSpec::Kind::kQueue, Distribution::Constant(1.0), 4);
  w.clients[0].concurrency = 100;
  w.duration_s = 20.0;
  StepSpec step;
  step.at_s = 10.0;
  step.changes.push_back({.is_stage = true,
                          .indices = {0},
                          .param = ParamChange::Param::kServers,
                          .value = 2,
                          .target = ""});
  w.steps.push_back(step);
  SimulationResult result = Run(w, 100, PhaseBounds(w));
  EXPECT_NEAR(result.phases[0].throughput(), 4000.0, 1.0);
  EXPECT_NEAR(result.phases[1].throughput(), 2000.0, 1.0);
}

TEST_F(SimulatorTest, LatencyCountsInThePhaseTheRequestArrivedIn) {
  // One request at a time, 100 ms each: arrivals at 0, 0.1, ..., 0.9 s. Goodput counts where
  // requests end; latency where they arrived, so the request of 0.5 s is phase 0's latency but
  // phase 1's success, and the one of 0.9 s, still in flight when measuring stops at 0.95 s,
  // is followed to its end (the slowest requests are the likeliest to be cut off).
  Workload w = OneStage(StageSpec::Kind::kDelay, Distribution::Constant(100.0));
  w.clients[0].concurrency = 1;
  SimulationResult result = Run(w, 1, {0.0, 0.55, 0.95});
  EXPECT_EQ(result.phases[0].successes, 5u);
  EXPECT_EQ(result.phases[0].latency.count(), 6u);
  EXPECT_EQ(result.phases[1].successes, 4u);
  EXPECT_EQ(result.phases[1].latency.count(), 4u);
  EXPECT_DOUBLE_EQ(result.phases[1].latency.MeanMs(), 100.0);
  EXPECT_DOUBLE_EQ(result.end_s, 0.95);
}

TEST_F(SimulatorTest, BatchStageServesEveryWaitingRequestInOneBatch) {
  // Group commit, S = 1 ms per batch plus p = 0.25 ms per request: with all N requests in every
  // batch, throughput is N / (S + N p) and latency S + N p, rising with N past the knee.
  for (int n : {1, 4, 12}) {
    SimulationResult result = Run(GroupCommit(1.0, 0.25, n), 100, {1.0, 11.0});
    const double batch_ms = 1.0 + n * 0.25;
    EXPECT_DOUBLE_EQ(result.phases[0].throughput(), n / (batch_ms / 1000.0)) << n;
    EXPECT_DOUBLE_EQ(result.phases[0].latency.MeanMs(), batch_ms) << n;
  }
}

TEST_F(SimulatorTest, MaxBatchCapsEveryBatch) {
  // 12 requests, batches of at most 4: each batch takes 1 + 4 x 0.25 = 2 ms, so 4 / 2 ms, and
  // every request waits for the two batches ahead of it: 3 x 2 ms.
  Workload w = GroupCommit(1.0, 0.25, 12);
  w.stages[0].max_batch = 4;
  SimulationResult result = Run(w, 100, {1.0, 11.0});
  EXPECT_DOUBLE_EQ(result.phases[0].throughput(), 4 / 0.002);
  EXPECT_DOUBLE_EQ(result.phases[0].latency.MeanMs(), 6.0);
}

TEST_F(SimulatorTest, ArrivalDuringABatchWaitsForTheNextOne) {
  // Client "a" puts 3 requests into one batch at 0 ms: 2 + 3 x 0.5 = 3.5 ms. Client "b"'s one
  // request reaches the writer at 1 ms (after a 1 ms delay stage), waits out the batch in service
  // (2.5 ms more) and then has a batch of its own (2 + 0.5 ms): it ends at 6 ms.
  Workload w = GroupCommit(2.0, 0.5, 3);
  w.clients[0].total_jobs = 3;
  StageSpec net;
  net.name = "net";
  net.service_ms = Distribution::Constant(1.0);
  w.stages.push_back(net);
  ClientSpec b;
  b.name = "b";
  b.total_jobs = 1;
  b.path = {1, 0};
  w.clients.push_back(b);
  SimulationResult result = Run(w, 10, {0.0, 60.0});
  EXPECT_DOUBLE_EQ(result.end_s, 0.006);
  EXPECT_EQ(result.phases[0].successes_by_client, (std::vector<uint64_t>{3, 1}));
  EXPECT_DOUBLE_EQ(result.phases[0].latency.MeanMs(), (3 * 3.5 + 6.0) / 4);
  EXPECT_NEAR(result.phases[0].latency.QuantileMs(1.0), 6.0, 6.0 * 0.01);
}

TEST_F(SimulatorTest, SameSeedSameResult) {
  Workload w = OneStage(StageSpec::Kind::kQueue, Distribution::Pareto(3.0, 1.5), 1);
  w.clients[0].load = ClientSpec::Load::kOpen;
  w.clients[0].rate_per_s = 250.0;
  w.clients[0].failures.error_fraction = 0.05;
  SimulationResult a = Run(w, 8, {0.0, 30.0});
  SimulationResult b = Run(w, 8, {0.0, 30.0});
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.phases[0].successes, b.phases[0].successes);
  EXPECT_EQ(a.phases[0].latency.QuantileMs(0.99), b.phases[0].latency.QuantileMs(0.99));
  w.seed = 43;
  SimulationResult c = Run(w, 8, {0.0, 30.0});
  EXPECT_NE(a.events, c.events);
}

// Clients sharing one limiter of fixed limit `limit` through the workload's partitions.
SimulationResult RunShared(const Workload& w, int limit) {
  SimulationOptions options;
  options.phase_bounds = PhaseBounds(w);
  std::shared_ptr<tuner::Limiter> shared;
  options.make_admission = [&](size_t client, Clock& clock) -> StatusOr<std::unique_ptr<Admission>> {
    if (shared == nullptr) {
      shared = LimiterAdmission::CreateShared(
                   tuner::MakeAlgorithmFromText("fixed:limit=" + std::to_string(limit)).value(),
                   clock, nullptr, w.partitions)
                   .value();
    }
    return std::unique_ptr<Admission>(LimiterAdmission::ForPartition(
        shared, tuner::PartitionId{static_cast<uint32_t>(w.clients[client].partition)}));
  };
  StatusOr<SimulationResult> result = Simulate(w, options);
  EXPECT_TRUE(result.ok()) << result.status();
  return *std::move(result);
}

TEST(SharedLimiterTest, SaturatingPartitionsGetTheirSharesAndAnIdleOnesShareIsLent) {
  StatusOr<Workload> w =
      LoadWorkload(std::string(BLOBTUNE_WORKLOADS_DIR) + "/partitions/partition_shares.json");
  ASSERT_TRUE(w.ok()) << w.status();
  SimulationResult result = RunShared(*w, 3);
  const PhaseStats& both = result.phases[0];
  const double a = static_cast<double>(both.successes_by_client[0]);
  const double b = static_cast<double>(both.successes_by_client[1]);
  EXPECT_NEAR(a / (a + b), 0.7, 0.01);
  // Alone, the first client gets what both got together.
  const PhaseStats& alone = result.phases[1];
  EXPECT_GT(alone.throughput(), 0.97 * both.throughput());
}

TEST(SharedLimiterTest, APartitionOfHigherPriorityCutsTheReadersWaitBehindTheSync) {
  const std::string dir = std::string(BLOBTUNE_WORKLOADS_DIR) + "/partitions";
  StatusOr<Workload> partitioned = LoadWorkload(dir + "/partitioned_reader.json");
  StatusOr<Workload> shared = LoadWorkload(dir + "/shared_reader.json");
  ASSERT_TRUE(partitioned.ok() && shared.ok());
  const double with = RunShared(*partitioned, 3).phases[1].response_by_client[0].QuantileMs(0.99);
  const double without = RunShared(*shared, 3).phases[1].response_by_client[0].QuantileMs(0.99);
  // Without partitions the reader queues behind the sync's 64 jobs (about 30 ms).
  EXPECT_LT(with, 0.5 * without) << with << " ms with partitions, " << without << " without";
}

}  // namespace
}  // namespace blobtune::workbench
