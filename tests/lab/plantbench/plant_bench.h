// RunPlantBench: every plant's fixed-limit sweep (the oracle) and every algorithm, in real time,
// repetition by repetition, and the ratios of each algorithm against the best fixed limit.
//
// A repetition runs, plant after plant, every sweep limit ("fixed:limit=L", L in 1, 2, 4, ...,
// 256 up to the plant's demand) and every algorithm once, in an order shuffled per repetition
// by a seeded RNG, so that drift of the machine (the disk's speed swings by minutes) hits all
// alike. Then, per plant:
//
//   sweep[L]      = median over repetitions of goodput and p99 at limit L
//   L*            = the smallest L whose median goodput is >= 97% of the highest median
//   X*, p99*      = the medians at L*
//   and per algorithm and repetition r, against r's own fixed points:
//     throughput_ratio_r = goodput_r / (the highest fixed goodput of r)
//     p99_ratio_r        = p99_r / (the p99 of r's point at L*)
//     regret_r           = max(0, 1 - throughput_ratio_r) + 0.1 max(0, log2(p99_ratio_r))
//     refused_fraction_r = refused_r / attempts_r
//   reported as medians over the repetitions, with the bar of the workbench (bar.h) on them.
//
//   BenchOptions options{.plants = {"lmdb_put_1k"}, .algorithms = {"marginal"}};
//   StatusOr<PlantBenchReport> report = RunPlantBench(options);
//
// Thread-safety: reentrant, but plants share the machine: run one bench at a time.
#ifndef BLOBTUNE_TESTS_LAB_PLANTBENCH_PLANT_BENCH_H_
#define BLOBTUNE_TESTS_LAB_PLANTBENCH_PLANT_BENCH_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/base/status_or.h"
#include "simulator.h"  // workbench::SeriesPoint
#include "twin.h"

namespace blobtune::plantbench {

struct BenchOptions {
  std::vector<std::string> plants;      // Names (real_plant.h). REQUIRES: non-empty.
  std::vector<std::string> algorithms;  // Registry specs; may be empty (the sweep alone).
  int repetitions = 3;
  double warmup_s = 1.0;
  double measure_s = 2.0;
  uint64_t seed = 1;
  // Compare each plant's sweep with its simulated twin, <twin_dir>/plant_<name>.json.
  bool twin = false;
  std::string twin_dir;
  // Set (e.g. by SIGINT) to stop after the point that runs: the bench returns CANCELLED.
  const std::atomic<bool>* interrupted = nullptr;
  // One line per finished point.
  std::function<void(std::string_view)> progress;
};

struct SweepEntry {
  int limit = 0;
  double throughput = 0.0;  // Median goodput over repetitions.
  double p99_ms = 0.0;      // Median p99.
  std::vector<double> throughput_by_repetition;
};

// What "reaching the best fixed limit's goodput" means for AlgorithmResult::time_to_hold_s.
inline constexpr double kHoldGoodputShare = 0.95;
inline constexpr double kHoldSeconds = 1.0;

struct AlgorithmResult {
  std::string algorithm;
  // Medians over repetitions (see above).
  double throughput_ratio = 0.0;
  double p99_ratio = 0.0;
  double regret = 0.0;
  double mean_limit = 0.0;
  double refused_fraction = 0.0;
  // Seconds from the point's start (warm-up included) until its goodput first holds
  // kHoldGoodputShare of the repetition's best fixed goodput over kHoldSeconds
  // (workbench::TimeToHoldGoodput); nullopt when it did not within the point.
  std::optional<double> time_to_hold_s;
  std::vector<double> throughput_ratio_by_repetition;
  std::vector<std::string> misses;  // workbench::MissesOfBar; empty when the bar is met.
  // The time series of the repetition with the median throughput_ratio (for the plot).
  std::vector<workbench::SeriesPoint> series;
};

struct PlantReport {
  std::string name;
  int oracle_limit = 0;            // L*.
  double oracle_throughput = 0.0;  // X*.
  double oracle_p99_ms = 0.0;      // p99*.
  std::vector<SweepEntry> sweep;   // By limit.
  std::vector<AlgorithmResult> results;
  std::optional<TwinComparison> twin;
};

struct PlantBenchReport {
  int repetitions = 0;
  double warmup_s = 0.0;
  double measure_s = 0.0;
  std::vector<PlantReport> plants;
};

// The sweep limits for a demand of `callers`: 1, 2, 4, ..., 256, none above `callers`.
std::vector<int> SweepLimits(int callers);

// NOT_FOUND for an unknown plant, INVALID_ARGUMENT for a bad algorithm spec (both before any
// point runs), CANCELLED when interrupted, or the first point's error.
StatusOr<PlantBenchReport> RunPlantBench(const BenchOptions& options);

}  // namespace blobtune::plantbench

#endif  // BLOBTUNE_TESTS_LAB_PLANTBENCH_PLANT_BENCH_H_
