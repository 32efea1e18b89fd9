// Regression tests of the knee algorithm on whole workbench runs: the real limiter in the loop
// against the oracle, on the workloads that motivated it (docs/KNEE.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench_runner.h"
#include "score.h"

namespace blobtune::workbench {
namespace {

const std::string kWorkloads = BLOBTUNE_WORKLOADS_DIR;

// knee and the best anchor (Envoy's gradient) on one workload, with the suite's oracle.
BenchReport RunKneeAndGradient(const std::string& workload) {
  BenchOptions options;
  options.workload_files = {kWorkloads + "/" + workload + ".json"};
  options.algorithms = {"knee", "gradient"};
  StatusOr<BenchReport> report = RunBench(options);
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *std::move(report) : BenchReport{};
}

// knee alone on one workload, with the workload's seed or another.
StatusOr<BenchReport> RunKnee(const std::string& workload, std::optional<uint64_t> seed) {
  BenchOptions options;
  options.workload_files = {kWorkloads + "/" + workload + ".json"};
  options.algorithms = {"knee"};
  options.seed = seed;
  return RunBench(options);
}

TEST(KneeBenchTest, SitsAtTheKneeOfTheDeliveryModel) {
  const BenchReport report = RunKneeAndGradient("delivery_model");
  ASSERT_EQ(report.workloads.size(), 1u);
  const std::vector<AlgorithmRun>& runs = report.workloads[0].runs;
  ASSERT_EQ(runs.size(), 2u);
  const Score& knee = runs[0].score;
  const Score& gradient = runs[1].score;
  // The bar (docs/WORKLOADS.md), and well below the best anchor (gradient: regret 0.23, p99 5x
  // the oracle's).
  EXPECT_GE(knee.throughput_ratio, 0.95);
  EXPECT_LE(knee.p99_ratio, 1.25);
  EXPECT_LT(knee.regret, 0.05);
  EXPECT_LT(knee.regret, gradient.regret);
}

TEST(KneeBenchTest, KeepsTheLmdbCommitCurveBusyWithoutQueueing) {
  const BenchReport report = RunKneeAndGradient("lmdb_commit_curve");
  ASSERT_EQ(report.workloads.size(), 1u);
  const Score& knee = report.workloads[0].runs[0].score;
  EXPECT_GE(knee.throughput_ratio, 0.95);
  EXPECT_LE(knee.p99_ratio, 1.25);
  EXPECT_LT(knee.regret, 0.05);
}

TEST(KneeBenchTest, CoversThePermitsHeldInSlowUploads) {
  // Each permit is held 40 ms before the store sees the request. Without Sample::setup, knee
  // saw an idle store and stayed at 1; with it, but windows as short as the store's latency,
  // their accesses were granted under other limits and app-limited spells set off slow start
  // again (the limit jumped to 2x L* and back, recovery 600 RTTs).
  const BenchReport report = RunKneeAndGradient("slow_uploads");
  ASSERT_EQ(report.workloads.size(), 1u);
  const Score& knee = report.workloads[0].runs[0].score;
  const Score& gradient = report.workloads[0].runs[1].score;
  EXPECT_GE(knee.throughput_ratio, 0.95);
  EXPECT_LE(knee.p99_ratio, 1.25);
  ASSERT_TRUE(knee.recovery_rtts.has_value());
  EXPECT_LE(*knee.recovery_rtts, 30);
  EXPECT_LT(knee.regret, gradient.regret);  // gradient sees only the store: throughput 0.59.
}

TEST(KneeBenchTest, TellsAWriterThatLostCapacityBehindSlowUploads) {
  // At 30 s the writer's commit takes twice as long (L* 72 -> 39). The slowdown probe halves
  // the limit; on these seeds its first accesses queued at the writer behind earlier ones still
  // uploading when it began, read the old latency ("the round trip grew": W0 from 0.7 to about
  // 47 ms), and the limit stayed near 75 for the rest of the run (p99 ratio 1.17-1.23, never
  // back in the band). The probe now waits for those to finish, and the permits held in uploads
  // follow the restarted goodput: back in the band within a few round trips.
  int met = 0;
  std::string missed;
  for (const uint64_t seed : {52, 58, 62, 100, 144}) {
    StatusOr<BenchReport> report = RunKnee("slow_uploads", seed);
    ASSERT_TRUE(report.ok()) << report.status();
    const Score& knee = report->workloads[0].runs[0].score;
    if (knee.recovery_rtts.has_value() && *knee.recovery_rtts <= 30 && knee.p99_ratio <= 1.25) {
      ++met;
    } else {
      missed += " seed " + std::to_string(seed) + ": p99 ratio " + std::to_string(knee.p99_ratio) +
                ", recovery " +
                (knee.recovery_rtts ? std::to_string(*knee.recovery_rtts) : "never") + ";";
    }
  }
  EXPECT_GE(met, 4) << missed;
}

TEST(KneeBenchTest, SharesOnePlantFairlyAmongThreeClients) {
  // Each client's share goes with its first baseline cubed, and none can measure it again
  // once the others queue: with the first baseline from 8 accesses, fairness was 0.93, 0.77
  // and 0.82 with the workload's seed, 7 and 8; from up to 96, 1.00, 0.99 and 0.995.
  for (const std::optional<uint64_t> seed : {std::optional<uint64_t>(), std::optional<uint64_t>(7),
                                             std::optional<uint64_t>(8)}) {
    StatusOr<BenchReport> report = RunKnee("multi_client", seed);
    ASSERT_TRUE(report.ok()) << report.status();
    const Score& knee = report->workloads[0].runs[0].score;
    ASSERT_TRUE(knee.fairness.has_value());
    EXPECT_GE(*knee.fairness, 0.95) << seed.value_or(0);
    EXPECT_LT(knee.regret, 0.06) << seed.value_or(0);
  }
}

TEST(KneeBenchTest, ServesAnOpenLoopClientWhoseCallersGiveUpWaiting) {
  // The seeds of 10-49 on which multi_client's open-loop client starved (its limit at 2 beside
  // the batch clients' 3 and 4; seed 34: 227 of its 300 requests a second served, fairness
  // 0.838, throughput ratio 0.876): none met the bar. Its expiring waiters allow a trial at 3
  // (Sample::expired); all seven meet it with them.
  int met = 0;
  std::string missed;
  for (const uint64_t seed : {11, 12, 16, 24, 30, 34, 36}) {
    StatusOr<BenchReport> report = RunKnee("multi_client", seed);
    ASSERT_TRUE(report.ok()) << report.status();
    const Score& knee = report->workloads[0].runs[0].score;
    ASSERT_TRUE(knee.fairness.has_value());
    if (*knee.fairness >= 0.95 && knee.throughput_ratio >= 0.95) {
      ++met;
    } else {
      missed += " seed " + std::to_string(seed) + ": fairness " + std::to_string(*knee.fairness) +
                ", throughput ratio " + std::to_string(knee.throughput_ratio) + ";";
    }
  }
  EXPECT_GE(met, 6) << missed;
}

TEST(KneeBenchTest, FollowsATenfoldRoundTripWithinThirtyRoundTrips) {
  // At 40 s the round trip becomes 10x longer and L* goes from 9 to 50. Cutting the limit
  // because goodput fell (the old knee went down to 2 and probed at 1) took 56 round trips
  // to reach the band; the sudden-slowdown probe halves the limit once and slow-starts. How
  // soon slow start reaches the band depends on the probe's W0, the mean of the first 8
  // accesses to complete, of a round trip with cv 0.3 (+-10%, and biased low): when slow start
  // took one standard error of it as its tolerance, a W0 5-7% low ended it early, the limit
  // crept up from the low 30s for 50 round trips or more, and a few runs probed at 1 on the
  // way. Over the workload's seed and seeds 1-20, 20 of 21 runs reach the band within 30
  // round trips and all 21 never go below 3 (16 and 19 with one standard error and h from
  // latency's cv alone; 15 and 17 before the servers' estimate k).
  // The oracle of the workload's own seed (L* 50) stands for all of them: the other runs
  // sweep almost nothing, which keeps the test short under the sanitizers.
  std::optional<PhaseOracle> slow;
  int within = 0;
  int halved_once = 0;
  std::vector<std::optional<uint64_t>> seeds = {std::nullopt};
  for (uint64_t seed = 1; seed <= 20; ++seed) seeds.push_back(seed);
  for (const std::optional<uint64_t> seed : seeds) {
    BenchOptions options;
    options.workload_files = {kWorkloads + "/latency_x10.json"};
    options.algorithms = {"knee"};
    options.seed = seed;
    if (slow) options.oracle = {.warmup_s = 0.01, .measure_s = 0.01, .max_successes = 1};
    StatusOr<BenchReport> report = RunBench(options);
    ASSERT_TRUE(report.ok()) << report.status();
    const WorkloadReport& workload = report->workloads[0];
    if (!slow) {
      slow = workload.oracle[1];
      ASSERT_EQ(slow->limit, 50);
    }
    const double band_low = slow->limit * (1 - kRecoveryBand);
    std::optional<double> reached;
    int lowest = 1000;
    for (const auto& [time_s, limit] : workload.runs[0].simulation.limit_changes[0]) {
      if (time_s < slow->start_s) continue;
      if (!reached) lowest = std::min(lowest, limit);
      if (!reached && limit >= band_low) reached = time_s;
    }
    const std::string which = seed ? std::to_string(*seed) : "the workload's";
    ASSERT_TRUE(reached.has_value()) << "seed " << which;
    if ((*reached - slow->start_s) * 1000 / slow->p50_ms <= 30) ++within;
    if (lowest >= 3) ++halved_once;  // Halved once from 7-9, not cut towards 1.
  }
  EXPECT_GE(within, 18);       // Six sevenths of the 21 runs.
  EXPECT_GE(halved_once, 19);  // Nine tenths.
}

// knee on blob_size_x10 with each of `seeds` (nullopt: the workload's own): in how many runs
// the limit stays within the band of L* (+-15%, at least +-1) for 95% of each phase after a
// step. At 40 s the blobs become ten times larger
// (L* 4 -> 3: the disk's time per byte dominates) and at 80 s they shrink back (L* 4). The
// oracle of the workload's own seed stands for all of them (L* 4, 3, 4 on every seed), so the
// other runs sweep almost nothing, which keeps the tests short under the sanitizers.
int SettledBlobSizeRuns(const std::vector<std::optional<uint64_t>>& seeds) {
  BenchOptions options;
  options.workload_files = {kWorkloads + "/blob_size_x10.json"};
  options.algorithms = {"knee"};
  const StatusOr<BenchReport> own = RunBench(options);
  EXPECT_TRUE(own.ok()) << own.status();
  if (!own.ok()) return -1;
  const WorkloadReport& reference = own->workloads[0];
  EXPECT_EQ(reference.oracle.size(), 3u);
  if (reference.oracle.size() != 3 || reference.oracle[1].limit != 3 ||
      reference.oracle[2].limit != 4) {
    ADD_FAILURE() << "blob_size_x10's oracle changed";
    return -1;
  }
  options.oracle = {.warmup_s = 0.01, .measure_s = 0.01, .max_successes = 1};
  int settled = 0;
  for (const std::optional<uint64_t> seed : seeds) {
    std::optional<StatusOr<BenchReport>> other;
    if (seed) {
      options.seed = seed;
      other = RunBench(options);
      EXPECT_TRUE(other->ok()) << other->status();
      if (!other->ok()) return -1;
    }
    const WorkloadReport& run = seed ? (**other).workloads[0] : reference;
    const Score score = ScoreRun(reference.workload, reference.oracle, run.runs[0].simulation);
    EXPECT_EQ(score.step_limit_in_band.size(), 2u);
    if (std::ranges::all_of(score.step_limit_in_band,
                            [](double fraction) { return fraction >= 0.95; })) {
      ++settled;
    }
  }
  return settled;
}

TEST(KneeBenchTest, FollowsBlobsThatGrowTenfoldAndShrinkBack) {
  // With the small blobs' W0 in the big-blob phase knee sat at 2, and after the step back the
  // requests queued with big blobs at limit 2 kept it out of the band for 77-260 round trips
  // (longer on two seeds). W0 for the accesses' size (Sample::bytes) keeps it at 3-4 there, in
  // the band for over 99% of each phase on every one of these runs.
  std::vector<std::optional<uint64_t>> seeds = {std::nullopt};
  for (uint64_t seed = 1; seed <= 20; ++seed) seeds.push_back(seed);
  EXPECT_GE(SettledBlobSizeRuns(seeds), 17);
}

TEST(KneeBenchTest, TellsLargerBlobsFromALongerRoundTrip) {
  // On these seeds the step to larger blobs shows as a sudden slowdown, and the shallow probe,
  // at half the limit, read about as long a latency as the window before it (seed 41: 13.9 ms
  // against 11.4): a halved queue of big blobs takes as long as a longer queue of small ones.
  // Compared as raw latencies that read as a longer round trip, and W0 became 7-11 ms (the
  // big blobs' is about 4). Each latency in units of the baseline for its window's sizes tells
  // them apart: the limit stays in the band.
  EXPECT_GE(SettledBlobSizeRuns({14, 15, 25, 35, 40, 41}), 5);
}

TEST(KneeBenchTest, DoesNotCollapseWhenDeadlinesExpireInItsOwnQueue) {
  // With seed 8, counting only goodput once drove the limit down to 1% of X*.
  StatusOr<BenchReport> report = RunKnee("hangs_until_deadline", 8);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GE(report->workloads[0].runs[0].score.throughput_ratio, 0.95);
}

TEST(KneeBenchTest, RefusesLittleWhereCallersShed) {
  // Requests that find no free permit are lost, at 85% of what the server can serve. Little's
  // law said the limit did not bind (most permits idle) and knee sat at 4, refusing a fifth
  // of the requests (throughput 0.78); Sample::refused says it binds.
  const BenchReport report = RunKneeAndGradient("shedding_server");
  ASSERT_EQ(report.workloads.size(), 1u);
  const Score& knee = report.workloads[0].runs[0].score;
  const Score& gradient = report.workloads[0].runs[1].score;
  EXPECT_GE(knee.throughput_ratio, 0.95);
  EXPECT_LE(knee.p99_ratio, 1.25);
  EXPECT_LT(knee.regret, gradient.regret);
}

TEST(KneeBenchTest, MeetsABurstThatOverloadsALossSystem) {
  // 1.5x what the server serves, shed: the idle permits, geometric with mean (1 - p) / p,
  // join the knee's target (it sat at 5 against L* 9 before, never in the band).
  const BenchReport report = RunKneeAndGradient("idle_then_burst");
  ASSERT_EQ(report.workloads.size(), 1u);
  const Score& knee = report.workloads[0].runs[0].score;
  EXPECT_GE(knee.throughput_ratio, 0.95);
  EXPECT_LE(knee.p99_ratio, 1.25);
  ASSERT_TRUE(knee.recovery_rtts.has_value());
  EXPECT_LE(*knee.recovery_rtts, 30);
}

}  // namespace
}  // namespace blobtune::workbench
