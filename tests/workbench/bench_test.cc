// Whole workbench runs: the real limiter in the loop, the suite, and reproducible reports.
#include "bench_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "blobtune/tuner/algorithm_registry.h"
#include "limiter_admission.h"
#include "report.h"

namespace blobtune::workbench {
namespace {

const std::string kWorkloads = BLOBTUNE_WORKLOADS_DIR;

std::vector<std::string> SuiteFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(kWorkloads)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

BenchOptions QuickOptions(std::vector<std::string> files) {
  BenchOptions options;
  options.workload_files = std::move(files);
  options.algorithms = {"fixed:limit=6", "aimd", "vegas"};
  options.oracle.warmup_s = 1.0;
  options.oracle.measure_s = 20.0;
  options.oracle.max_successes = 5000;
  return options;
}

TEST(BenchTest, EveryWorkloadOfTheSuiteParses) {
  std::vector<std::string> files = SuiteFiles();
  EXPECT_GE(files.size(), 12u);
  for (const std::string& file : files) {
    StatusOr<Workload> w = LoadWorkload(file);
    EXPECT_TRUE(w.ok()) << w.status();
    if (w.ok()) {
      EXPECT_EQ(w->name, std::filesystem::path(file).stem().string());
    }
  }
}

TEST(BenchTest, TheLimiterWithAFixedAlgorithmBehavesLikeAStaticCap) {
  StatusOr<Workload> w = LoadWorkload(kWorkloads + "/lmdb_commit_curve.json");
  ASSERT_TRUE(w.ok()) << w.status();
  w->duration_s = 20.0;
  SimulationOptions options;
  options.phase_bounds = {0.0, 20.0};
  options.make_admission = [](size_t, Clock&) -> StatusOr<std::unique_ptr<Admission>> {
    return std::unique_ptr<Admission>(std::make_unique<StaticCap>(6));
  };
  StatusOr<SimulationResult> cap = Simulate(*w, options);
  options.make_admission = [](size_t, Clock& clock) -> StatusOr<std::unique_ptr<Admission>> {
    StatusOr<std::unique_ptr<tuner::LimitAlgorithm>> fixed =
        MakeRegistryAlgorithm("fixed:limit=6", {});
    if (!fixed.ok()) return fixed.status();
    StatusOr<std::unique_ptr<LimiterAdmission>> limiter =
        LimiterAdmission::Create(*std::move(fixed), clock);
    if (!limiter.ok()) return limiter.status();
    return std::unique_ptr<Admission>(*std::move(limiter));
  };
  StatusOr<SimulationResult> limiter = Simulate(*w, options);
  ASSERT_TRUE(cap.ok() && limiter.ok());
  EXPECT_EQ(cap->events, limiter->events);
  EXPECT_EQ(cap->phases[0].successes, limiter->phases[0].successes);
  EXPECT_EQ(cap->phases[0].latency.QuantileMs(0.99), limiter->phases[0].latency.QuantileMs(0.99));
}

TEST(BenchTest, AnAdaptiveAlgorithmMovesTheLimit) {
  BenchOptions options = QuickOptions({kWorkloads + "/lmdb_commit_curve.json"});
  options.algorithms = {"aimd"};
  StatusOr<BenchReport> report = RunBench(options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GT(report->workloads[0].runs[0].simulation.limit_changes[0].size(), 1u);
}

TEST(BenchTest, TheOracleScheduleOfClientsInPartitionsIsOneSharedLimit) {
  // Two saturating clients share one limiter: the schedule's L* is their total, not each one's.
  BenchOptions options = QuickOptions({kWorkloads + "/partitions/partition_shares.json"});
  options.algorithms = {std::string(kOracleSchedule)};
  StatusOr<BenchReport> report = RunBench(options);
  ASSERT_TRUE(report.ok()) << report.status();
  const WorkloadReport& entry = report->workloads[0];
  const Score& oracle = entry.runs[0].score;
  EXPECT_GE(oracle.throughput_ratio, 0.95);
  EXPECT_LE(oracle.p99_ratio, 1.25);
  for (const auto& changes : entry.runs[0].simulation.limit_changes) {
    for (const auto& [t, limit] : changes) EXPECT_EQ(limit, entry.oracle[0].limit) << t;
  }
}

TEST(BenchTest, SameSeedGivesIdenticalJson) {
  std::vector<std::string> files = {kWorkloads + "/multi_client.json",
                                    kWorkloads + "/capacity_halves.json"};
  StatusOr<BenchReport> a = RunBench(QuickOptions(files));
  ASSERT_TRUE(a.ok()) << a.status();
  BenchOptions options = QuickOptions(files);
  options.threads = 1;  // Threads change the schedule, never the result.
  StatusOr<BenchReport> b = RunBench(options);
  ASSERT_TRUE(b.ok()) << b.status();
  std::string json_a = ReportJson(*a, "gradient2");
  EXPECT_EQ(json_a, ReportJson(*b, "gradient2"));
  EXPECT_NE(json_a.find("\"fairness\": 0."), std::string::npos);  // multi_client has three.
  // One recovery per step: none for multi_client, two for capacity_halves.
  EXPECT_NE(json_a.find("\"step_recovery_rtts\": []"), std::string::npos);
  EXPECT_NE(json_a.find("\"step_recovery_rtts\": [\n"), std::string::npos);
  EXPECT_NE(json_a.find("\"step_limit_in_band\": []"), std::string::npos);
  EXPECT_NE(json_a.find("\"step_limit_in_band\": [\n"), std::string::npos);

  options.seed = 12345;
  StatusOr<BenchReport> c = RunBench(options);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NE(json_a, ReportJson(*c, "gradient2"));
}

TEST(BenchTest, AMalformedWorkloadFailsNamingFileAndField) {
  std::string file = ::testing::TempDir() + "/bad_workload.json";
  {
    std::ofstream out(file);
    out << R"({"name": "bad", "duration_s": 10,
               "stages": [{"name": "s", "kind": "queue", "servers": -1, "service_ms": 1}],
               "clients": [{"load": {"type": "closed", "concurrency": 1}}]})";
  }
  StatusOr<BenchReport> report = RunBench(QuickOptions({file}));
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(report.status().message().find("bad_workload.json: stages[0].servers: must be an "
                                           "integer in [1, 1000000], got -1"),
            std::string::npos)
      << report.status();
}

}  // namespace
}  // namespace blobtune::workbench
