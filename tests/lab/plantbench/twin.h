// CompareWithTwin: a plant's measured sweep next to its simulated twin's, limit by limit.
//
// The twin is a workbench workload (docs/WORKLOADS.md) that models the plant. For each limit of
// the real sweep, workbench::MeasureStaticLimit simulates the twin under that static limit
// (default OracleOptions), and
//
//   difference     = twin goodput / real goodput - 1
//   max_difference = the largest |difference| of the sweep
//
// A twin with steps is taken at its first phase's parameters (workbench::PhaseWorkload).
//
//   TwinComparison twin = CompareWithTwin("tests/workloads/plant_lmdb_put_1k.json",
//                                         {{1, 640.0}, {2, 1210.0}});
//   if (!twin.error.empty()) std::cerr << twin.error << "\n";   // e.g. no such file
//
// Thread-safety: reentrant.
#ifndef BLOBTUNE_TESTS_LAB_PLANTBENCH_TWIN_H_
#define BLOBTUNE_TESTS_LAB_PLANTBENCH_TWIN_H_

#include <string>
#include <utility>
#include <vector>

namespace blobtune::plantbench {

struct TwinPoint {
  int limit = 0;
  double real = 0.0;  // Goodput, per second.
  double twin = 0.0;
  double difference = 0.0;  // twin / real - 1.
};

struct TwinComparison {
  std::string file;
  // Why there is no comparison (a missing or bad file, a failed simulation); empty otherwise.
  std::string error;
  std::vector<TwinPoint> sweep;
  double max_difference = 0.0;
};

// The twin of `file` at each (limit, real goodput) of `real_sweep`.
TwinComparison CompareWithTwin(const std::string& file,
                               const std::vector<std::pair<int, double>>& real_sweep);

}  // namespace blobtune::plantbench

#endif  // BLOBTUNE_TESTS_LAB_PLANTBENCH_TWIN_H_
