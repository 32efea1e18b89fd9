// RunBench: runs every algorithm over every workload, next to the oracle, and scores the runs.
//
// For each workload: the oracle's sweep per phase (oracle.h), then one simulation per algorithm
// with a fresh algorithm in each client's real Limiter (limiter_admission.h), then the scores
// (score.h). Simulations run on `threads` threads; each is seeded from the workload (or the
// --seed override), so a run gives the same report whatever the thread count.
//
//   BenchOptions options;
//   options.workload_files = {"tests/workloads/delivery_model.json"};
//   options.algorithms = {"aimd", "gradient2"};
//   StatusOr<BenchReport> report = RunBench(options);
//
// Thread-safety: reentrant.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_BENCH_RUNNER_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_BENCH_RUNNER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/base/status_or.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "blobtune/tuner/limiter_observer.h"
#include "oracle.h"
#include "score.h"
#include "simulator.h"
#include "workload.h"

namespace blobtune::workbench {

// What a workload says about the limits of the algorithms run on it.
struct LimitBounds {
  int max_limit = 1000;
  int initial_limit = 0;  // 0: the algorithm's own default.
};

// Not an algorithm: the oracle's L* of each phase as a static limit switched at each step, a
// clairvoyant reference that shows what the bar asks is within reach of a static limit.
inline constexpr std::string_view kOracleSchedule = "oracle";

// Makes one algorithm instance from a spec ("aimd", "aimd:backoff_ratio=0.8").
using AlgorithmFactory = std::function<StatusOr<std::unique_ptr<tuner::LimitAlgorithm>>(
    const std::string& spec, const LimitBounds& bounds)>;

// The registry's algorithms (algorithm_registry.h), with max_limit and initial_limit taken from
// the workload when the spec leaves them out and the algorithm has them.
StatusOr<std::unique_ptr<tuner::LimitAlgorithm>> MakeRegistryAlgorithm(const std::string& spec,
                                                                       const LimitBounds& bounds);

struct BenchOptions {
  std::vector<std::string> workload_files;
  // Workloads already parsed (generated ones, say), run after the files; `seed` applies to them
  // too.
  std::vector<Workload> workloads;
  // Algorithm specs to run (or kOracleSchedule). REQUIRES: non-empty.
  std::vector<std::string> algorithms;
  // Replaces every workload's own seed.
  std::optional<uint64_t> seed;
  OracleOptions oracle;
  // When set, a directory that keeps each workload's oracle across runs (oracle_cache.h).
  std::string oracle_cache_dir;
  int threads = 2;
  // Keep each run's time series (for plots).
  bool keep_series = false;
  AlgorithmFactory make_algorithm = MakeRegistryAlgorithm;
  // When set, called once for each simulated limiter with its name ("<workload>/<spec>", plus
  // "/client<i>" on multi-client workloads); the limiter reports to the observer returned
  // (nullptr: none). Observers must outlive RunBench and be thread-safe (see `threads`).
  std::function<tuner::LimiterObserver*(const std::string& name)> observe_limiter;
  // Called with one line per finished step of work ("oracle delivery_model 1.2 s").
  std::function<void(std::string_view)> progress;
};

struct AlgorithmRun {
  std::string algorithm;
  SimulationResult simulation;
  Score score;
};

struct WorkloadReport {
  std::string file;  // Empty for a workload given as a value.
  Workload workload;
  std::vector<PhaseOracle> oracle;
  std::vector<AlgorithmRun> runs;
};

struct BenchReport {
  std::vector<WorkloadReport> workloads;
};

StatusOr<BenchReport> RunBench(const BenchOptions& options);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_BENCH_RUNNER_H_
