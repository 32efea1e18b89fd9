// ComputeOracle: the best static limit of each phase of a workload, found by brute force.
//
// For each phase (the stretch between two steps) the phase's parameters are held constant and a
// plain static cap (no algorithm) is swept over limits 1, 2, ... up to the workload's max_limit
// (or the most a closed-loop client can ever have in flight). Each point runs a fresh simulation
// after a warm-up, seeded identically, in parallel threads. Then
//
//   X_peak = the highest throughput (goodput) of the sweep,
//   L*     = the smallest limit reaching at least 97% of X_peak,
//   X*, p50*, p99* = throughput and access latency quantiles measured at L*.
//
// With several clients each gets the same static limit L. Phases with the same parameters (a
// step and its recovery) share one sweep.
//
//   StatusOr<std::vector<PhaseOracle>> oracle = ComputeOracle(workload, OracleOptions{});
//
// Thread-safety: reentrant; it runs its own threads and joins them before returning.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_ORACLE_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_ORACLE_H_

#include <cstdint>
#include <vector>

#include "blobtune/base/status_or.h"
#include "recovery.h"
#include "workload.h"

namespace blobtune::workbench {

struct OracleOptions {
  double warmup_s = 5.0;            // Simulated time before measuring each point.
  double measure_s = 120.0;         // Most simulated time measured per point...
  uint64_t max_successes = 30'000;  // ...or fewer, once this many requests succeeded.
  double knee_fraction = 0.97;      // L* reaches this fraction of the peak.
  int threads = 2;                  // Sweep points simulated at once.
};

struct SweepPoint {
  int limit = 0;
  double throughput = 0.0;  // Successes per second, all clients.
  double p50_ms = 0.0;
  double p99_ms = 0.0;
  std::vector<double> client_throughput;
  // Goodput and p99 of the run's windows of 10 median latencies (recovery.h).
  WindowNoise window_noise;
};

struct PhaseOracle {
  double start_s = 0.0;
  double end_s = 0.0;
  int limit = 1;              // L*.
  double throughput = 0.0;    // X*.
  double p50_ms = 0.0;        // Median access latency at L*.
  double p99_ms = 0.0;        // p99*.
  std::vector<double> client_throughput;  // Each client's throughput at L*.
  WindowNoise window_noise;               // Of the windows at L* (recovery.h).
  std::vector<SweepPoint> sweep;          // Every point measured, by limit.
};

// The parameters in force during phase `phase` (steps up to its start applied, none after).
Workload PhaseWorkload(const Workload& workload, size_t phase);

StatusOr<std::vector<PhaseOracle>> ComputeOracle(const Workload& workload,
                                                 const OracleOptions& options);

// One point of a sweep: `phase_workload` (no steps, see PhaseWorkload) under a static cap of
// `limit` for every client, warm-up and measurement as in `options` (its `threads` unused).
StatusOr<SweepPoint> MeasureStaticLimit(const Workload& phase_workload, int limit,
                                        const OracleOptions& options);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_ORACLE_H_
