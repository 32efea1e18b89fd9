// ServiceAfterStep: recovery as users feel it, judged on the service the accesses get rather
// than on where the limit sits (a limit can sit above L* at the same goodput, and an idle phase
// teaches an algorithm nothing about the burst after it).
//
// After a step into a phase with oracle X*, p99* and median latency at L* of rtt = p50*, a
// window of W = 10 rtt slides over the phase in steps of one rtt (coarser for phases of more
// than about 5,000 round trips). A window is *in service* when the accesses that ended in it
// reach a goodput of at least
//   min(0.9 X*, the 2.5% quantile of the goodput of the static L*'s own windows)
// and their p99 (nearest rank) is at most
//   max(1.5 p99*, the 97.5% quantile of the p99 of the static L*'s own windows).
// The quantiles come from the oracle's run at L* (WindowNoise below). Where a window of 10
// round trips holds enough accesses they are the plain 0.9 X* and 1.5 p99*; where it holds few
// (a slow plant, a small L*, light demand), the static L* itself would miss those in many
// windows, and the measure would judge the noise of the plant rather than the algorithm. With
// the quantiles the static L* is in service in about 95% of its steady windows, against the
// bar's 90%.
//
//   recovery_rtts = (end of the first window in service - step) / rtt, null if none is; at
//                   least 10, since a window must fit in the new phase
//   in_band       = the fraction of the windows from that one to the phase's end that are in
//                   service (0 if none is)
//
// A step counts only into a phase with X* > 0 that is long enough for one window.
//
//   std::optional<StepService> s = ServiceAfterStep(run.completions, 40.0, 80.0, oracle[1]);
//
// Thread-safety: pure functions.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_RECOVERY_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_RECOVERY_H_

#include <limits>
#include <optional>
#include <vector>

#include "simulator.h"

namespace blobtune::workbench {

// The service window, in round trips at L*, and what a window must reach.
inline constexpr double kServiceWindowRtts = 10.0;
inline constexpr double kServiceGoodputFraction = 0.9;
inline constexpr double kServiceP99Factor = 1.5;
// The quantile of the static L*'s windows that bounds the thresholds (see above).
inline constexpr double kServiceNoiseQuantile = 0.025;

// What the windows of a run at a static limit look like: the kServiceNoiseQuantile quantile of
// their goodput and the (1 - kServiceNoiseQuantile) quantile of their p99.
// Default: no noise, which leaves the plain thresholds.
struct WindowNoise {
  double low_goodput = std::numeric_limits<double>::infinity();  // Per second.
  double high_p99_ms = 0.0;
};

// The noise of the windows of `window_s` that fit in [from_s, to_s), from a run's successes in
// end order; no noise (the plain thresholds) if none fits.
WindowNoise NoiseOfWindows(const std::vector<Completion>& completions, double from_s, double to_s,
                           double window_s);

struct StepService {
  std::optional<double> recovery_rtts;
  double in_band = 0.0;
};

struct PhaseOracle;

// The service after a step at `start_s` into a phase that ends at `end_s` (where measuring
// stopped), from every success of the run in end order; nullopt if the step does not count.
std::optional<StepService> ServiceAfterStep(const std::vector<Completion>& completions,
                                            double start_s, double end_s,
                                            const PhaseOracle& oracle);

// When a client goes idle at `idle_s` (its last success ended), how soon the other clients
// take over the capacity it leaves: the round trips (of the phase's rtt = p50*) from `idle_s` to
// the end of the first window of kServiceWindowRtts in which the other clients' successes reach
// `fraction` of the phase's X*; nullopt if none does before `end_s` (or the oracle has no X*).
std::optional<double> TakeoverRtts(const std::vector<Completion>& completions, int idle_client,
                                   double idle_s, double end_s, const PhaseOracle& oracle,
                                   double fraction);

// How soon a run's goodput reaches `target` (successes per second) and holds it: the end of the
// first span of `hold_s` over which the series' goodput, averaged over the span and weighted by
// each bucket's length, is at least `target`. Seconds on the series' clock (its end_s); nullopt
// if no such span ends within the series. The plant bench's "time to 0.95 X*" (docs/PLANTS.md):
// how long a start or a restart costs before the limit serves as the best fixed limit does.
std::optional<double> TimeToHoldGoodput(const std::vector<SeriesPoint>& series, double target,
                                        double hold_s);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_RECOVERY_H_
