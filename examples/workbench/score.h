// ScoreRun: how well one algorithm did on one workload, against the oracle's static optimum.
//
// Phase p runs from start_p to end_p (cut short if fixed work finished early) and has weight
// w_p = end_p - start_p; phases whose oracle throughput X*_p is 0 (an idle phase) carry no
// weight. X_p and p99_p are the algorithm's goodput and p99 access latency in phase p.
//
//   throughput_ratio = sum_p w_p X_p / X*_p / sum_p w_p
//   p99_ratio        = sum_p w_p p99_p / p99*_p / sum_p w_p
//   regret           = sum_p w_p [ max(0, 1 - X_p / X*_p) + 0.1 max(0, log2(p99_p / p99*_p)) ]
//                      / sum_p w_p
//     (a lost tenth of the throughput costs as much as a doubled p99; 0 is the oracle's score)
//   recovery_rtts    = after the step with the largest change of L* (|log L*_new / L*_old|), the
//                      time until the limit stays within +-15% of the new L* (at least +-1) to the
//                      end of that phase, divided by the new phase's median latency at L*;
//                      0 without steps (steps into a phase with X* = 0 do not count), null if
//                      the limit is outside the band when the phase ends; with several
//                      clients, the slowest client's.
//   step_recovery_rtts = the same after each step that counts, in order (issue 4's bar asks
//                      for every step; recovery_rtts is one of these).
//   step_in_band     = after each step that counts, the fraction of the new phase's time that
//                      the limit spent within that band (the lowest client's): how near L* it
//                      stayed, where recovery says only whether it ever stopped leaving.
//   limit_cv         = standard deviation / mean of the limit, time-weighted over the second half
//                      of every phase (the steady part), averaged over phases and clients.
//   fairness         = Jain's index of the clients' throughputs, each divided by its throughput at
//                      L* (so unequal demands are not unfairness); null for one client.
//
// Thread-safety: a pure function.
#ifndef BLOBTUNE_EXAMPLES_WORKBENCH_SCORE_H_
#define BLOBTUNE_EXAMPLES_WORKBENCH_SCORE_H_

#include <optional>
#include <vector>

#include "oracle.h"
#include "simulator.h"
#include "workload.h"

namespace blobtune::workbench {

struct Score {
  double throughput_ratio = 0.0;
  double p99_ratio = 0.0;
  std::optional<double> recovery_rtts;
  std::vector<std::optional<double>> step_recovery_rtts;
  std::vector<double> step_in_band;  // One per entry of step_recovery_rtts.
  double limit_cv = 0.0;
  std::optional<double> fairness;
  double regret = 0.0;
  // For the table: time-weighted goodput, p99 and mean limit of the whole run.
  double throughput = 0.0;
  double p99_ms = 0.0;
  double mean_limit = 0.0;
};

// The latency-to-throughput exchange rate of the regret (see above).
inline constexpr double kRegretLatencyWeight = 0.1;
// The band around L* that counts as recovered.
inline constexpr double kRecoveryBand = 0.15;

// REQUIRES: `run` simulated `workload` with phase bounds PhaseBounds(workload); `oracle` has
// one entry per phase.
Score ScoreRun(const Workload& workload, const std::vector<PhaseOracle>& oracle,
               const SimulationResult& run);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_EXAMPLES_WORKBENCH_SCORE_H_
