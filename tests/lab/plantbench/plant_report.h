// The plant bench's outputs: the JSON other tools read, and the tables people read.
//
// JSON (names are an interface; keep them; numbers rounded to 4 significant digits):
//   {"default_algorithm": "marginal", "repetitions": 3, "seconds": 2, "warmup_seconds": 1,
//    "plants": [{"name": "lmdb_put_1k",
//      "oracle": {"limit": 16, "throughput": 5210, "p99_ms": 4.1},
//      "sweep": [{"limit": 1, "throughput": 610, "p99_ms": 2.0,
//                 "throughput_by_repetition": [612, 598, 610]}, ...],
//      "results": [{"algorithm": "aimd", "throughput_ratio": 0.97, "p99_ratio": 1.1,
//                   "regret": 0.04, "mean_limit": 19.5, "refused_fraction": 0,
//                   "meets_bar": true, "misses": [],
//                   "throughput_ratio_by_repetition": [0.97, 0.96, 0.99]}],
//      "twin": {"file": ".../plant_lmdb_put_1k.json",                       (with --twin)
//               "sweep": [{"limit": 1, "real": 610, "twin": 640, "difference": 0.049}],
//               "max_difference": 0.12}}]}
//   A plant whose twin could not be compared has "twin": {"file": ..., "error": "..."}.
//
// Thread-safety: pure functions.
#ifndef BLOBTUNE_TESTS_LAB_PLANTBENCH_PLANT_REPORT_H_
#define BLOBTUNE_TESTS_LAB_PLANTBENCH_PLANT_REPORT_H_

#include <ostream>
#include <string>

#include "plant_bench.h"

namespace blobtune::plantbench {

// The report as JSON text (two-space indented).
std::string ReportJson(const PlantBenchReport& report, const std::string& default_algorithm);

// Per plant: the sweep (L* marked), a row per algorithm with the misses of the bar, and the
// twin's curve beside the real one when there is one.
void PrintTables(const PlantBenchReport& report, std::ostream& out);

}  // namespace blobtune::plantbench

#endif  // BLOBTUNE_TESTS_LAB_PLANTBENCH_PLANT_REPORT_H_
