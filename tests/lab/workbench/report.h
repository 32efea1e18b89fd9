// The workbench's outputs: the JSON other tools read, and the table people read.
//
// JSON (names are an interface; keep them; docs/WORKLOADS.md describes each):
//   {"default_algorithm": "marginal",
//    "workloads": [{"name": "...",
//      "phases": [{"start_s": 0, "end_s": 60,
//                  "oracle": {"limit": 11, "throughput": 480.0, "p99_ms": 25.1}}],
//      "results": [{"algorithm": "aimd", "throughput_ratio": 0.93, "p99_ratio": 1.8,
//                   "recovery_rtts": 12.0, "service_in_band": 0.97, "limit_cv": 0.08,
//                   "fairness": null, "regret": 0.12, "meets_bar": false,
//                   "misses": ["throughput_ratio", "p99_ratio"], "step_recovery_rtts": [...],
//                   "step_service_in_band": [...], "step_limit_in_band": [...]}]}]}
//
// Thread-safety: pure functions.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_REPORT_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_REPORT_H_

#include <ostream>
#include <string>

#include "bench_runner.h"

namespace blobtune::workbench {

// `value` rounded to 4 significant digits, as every report of the workbench and the plant bench
// prints its figures, so that reports diff cleanly and read well.
double RoundForReport(double value);

// The report as JSON text (two-space indented, numbers rounded to 4 significant digits).
std::string ReportJson(const BenchReport& report, const std::string& default_algorithm);

// One block per workload (its oracle, then a row per algorithm), then the mean regret of each
// algorithm over all workloads.
void PrintTable(const BenchReport& report, std::ostream& out);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_REPORT_H_
