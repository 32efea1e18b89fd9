// MissesOfBar: the one per-workload pass/fail of the tuning bar, the same for the suite, for
// generated workloads and for the real plants (blobtune-plantbench).
//
// A result meets the bar when
//   throughput_ratio >= 0.95, p99_ratio <= 1.25,
//   recovery_rtts <= 30 and service_in_band >= 0.9 (the worst step of the run; both are met
//   trivially without steps), and
//   fairness >= 0.95 where there are several clients.
// What misses is named by the measure's JSON name ("throughput_ratio", "p99_ratio",
// "recovery_rtts", "service_in_band", "fairness"), in that order.
//
//   std::vector<std::string> misses = MissesOfBar(score);
//   bool meets_bar = misses.empty();
//
// Thread-safety: a pure function.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_BAR_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_BAR_H_

#include <string>
#include <vector>

#include "score.h"

namespace blobtune::workbench {

struct Bar {
  double min_throughput_ratio = 0.95;
  double max_p99_ratio = 1.25;
  double max_recovery_rtts = 30.0;
  double min_service_in_band = 0.9;
  double min_fairness = 0.95;
};

// The measures of `score` that miss `bar`, by JSON name; empty when the bar is met.
std::vector<std::string> MissesOfBar(const Score& score, const Bar& bar = Bar{});

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_BAR_H_
