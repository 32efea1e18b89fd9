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
//   step_recovery_rtts, step_service_in_band = for each step that counts, in order, the
//                      service after it (recovery.h): the round trips at L* until a window of
//                      10 of them first reaches 0.9 X* with p99 at most 1.5 p99* (null: never),
//                      and the fraction of the phase's later windows that do.
//   recovery_rtts    = the worst entry of step_recovery_rtts (null if any is), 0 without steps
//   service_in_band  = the lowest entry of step_service_in_band, 1 without steps
//   step_limit_in_band = for each step that counts, the fraction of the new phase's time that
//                      the limit spent within +-15% of its L* (at least +-1; the lowest client's):
//                      a diagnostic of where the limit sat, not a goal.
//   limit_cv         = standard deviation / mean of the limit, time-weighted over the second half
//                      of every phase (the steady part), averaged over phases and clients.
//   fairness         = Jain's index of the clients' throughputs, each divided by its throughput at
//                      L* (so unequal demands are not unfairness); null for one client.
//   takeovers        = for each client a step idles (its demand drops to 0 at a phase's start):
//                      from the end of its last success, the round trips at L* until a window of
//                      10 of them in which the other clients reach 0.95 X* (recovery.h,
//                      TakeoverRtts; null: never). A diagnostic of sharing, not part of the bar.
//
// Thread-safety: a pure function.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_SCORE_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_SCORE_H_

#include <optional>
#include <vector>

#include "oracle.h"
#include "simulator.h"
#include "workload.h"

namespace blobtune::workbench {

// A client going idle and the others taking over its capacity (see above).
struct Takeover {
  int client = 0;
  double idle_s = 0.0;
  std::optional<double> rtts;
};

// The share of the phase's X* the other clients must reach in a takeover.
inline constexpr double kTakeoverFraction = 0.95;

struct Score {
  double throughput_ratio = 0.0;
  double p99_ratio = 0.0;
  // The worst of step_recovery_rtts (null if any is null); 0 without a step that counts.
  std::optional<double> recovery_rtts = 0.0;
  // The lowest of step_service_in_band; 1 without a step that counts.
  double service_in_band = 1.0;
  // One entry per step that counts, in order.
  std::vector<std::optional<double>> step_recovery_rtts;
  std::vector<double> step_service_in_band;
  std::vector<double> step_limit_in_band;
  double limit_cv = 0.0;
  std::optional<double> fairness;
  std::vector<Takeover> takeovers;
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

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_SCORE_H_
