// MarginalLimit: blobtune's default limit algorithm. It keeps the limit where one more permit
// stops paying in goodput: it probes a little above and below the limit, measures what the
// marginal permits add, and moves towards where they add less than `threshold` of their share.
//
//   StatusOr<MarginalLimit> marginal = MarginalLimit::Create({.limits = {.max_limit = 256}});
//   if (!marginal.ok()) return marginal.status();
//   int limit = marginal->Update(sample);
//
// The law (docs/TUNING.md derives every number):
//   Slots. Time, read from the samples, is cut into slots of P ns, the smallest power of two
//     of at least kSlotLatencies mean latencies (latency plus setup: how long a permit is held)
//     and long enough for kMinSlotSuccesses successes. Slots start at multiples of P, so
//     limiters that share a resource, and so its latency, share slot boundaries. A slot's
//     goodput X counts the successes that end in it after its first mean latency (accesses
//     granted under the previous limit finish then). A slot *binds* when at least half of its
//     accesses were granted with the limit full, or an acquirer was refused or expired.
//   Elasticity. e = d ln X / d ln L between two limits: 1 where every permit adds its share of
//     goodput, 0 where it only adds latency (Little's law: the two elasticities sum to 1).
//     Its standard error comes from v, the variance of ln X between successive slots at one
//     limit times their successes (averaged over about one cycle of slots, as the mean hold
//     time is), so noisy plants need stronger evidence.
//   Startup, from initial_limit: the limit doubles after every slot that binds, until a
//     doubling shows e < startup_gain by at least kStartupErrors standard errors. The limit
//     then becomes L_prev * X / X_prev: where the previous limit, scaled at e = 1, reaches the
//     goodput the doubling saw (the knee, for a resource whose goodput stops at a knee).
//   Cruise. Cycles of `cycle` slots. The first slot of each cycle probes: at L * (1 + probe)
//     in even cycles, at L / (1 + probe) in odd ones (cycles are counted from time too, so
//     limiters of one resource probe together and each sees what more permits do to the whole,
//     not what it takes from the others). The probe's e is measured against the mean of the
//     base slots just before and after it, which must both bind. Evidence is pooled over the
//     consecutive probes of one direction that agree (up: e > threshold; down: e < threshold),
//     weighted by their inverse variances, into a mean e and a z = (e - threshold) / error:
//       probe up:    pooled e >= startup_gain and z >= confidence: startup, which ends no
//                    lower than the probe (its doubling may lose what the probe gained, past
//                    a knee where the resource slows). Otherwise, if it agrees: ln L += step.
//       probe down:  z <= -confidence: drain. Otherwise, if it agrees: ln L -= step, doubled
//                    for each agreeing probe down in a row before it (at most ln 2).
//   Drain. The limit halves after every slot while a halving loses less than `threshold` of its
//     share (e < threshold), down to min_limit; then, as startup ends, the limit becomes where
//     the last halving, scaled at e = 1, regains the goodput it lost.
//   Errors. A drop faster than kFastError of the mean latency is an error that never reached
//     the resource: it is ignored, it moves nothing. Slower drops (timeouts, hangs) held
//     their permits, which the slot's binding and goodput see; they are never goodput.
//   Bounds. Every limit is within [min_limit, max_limit], and never below 1.
// What probing costs a steady plant: one slot in `cycle` runs at a limit `probe` away from L,
// above it in half of the cycles (latency up to (1 + probe) times L's, the p99 a little) and
// below it in the other half (goodput down by about e * ln(1 + probe) for that slot). With the
// defaults: one slot in 8 above, one in 8 below. docs/TUNING.md has the figures measured.
//
// Thread-safety: none; driven by one thread at a time.
#ifndef BLOBTUNE_TUNER_ALGORITHMS_MARGINAL_H_
#define BLOBTUNE_TUNER_ALGORITHMS_MARGINAL_H_

#include <cmath>
#include <cstdint>
#include <string_view>

#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"
#include "blobtune/tuner/algorithms/algorithm_base.h"
#include "blobtune/tuner/sample.h"

namespace blobtune::tuner {

struct MarginalOptions {
  // Startup doubles from initial_limit. Default: initial 4, min 1, max 1000 accesses.
  LimitBounds<4, 1, 1000> limits;
  // The elasticity below which a permit no longer pays: lower keeps more goodput at more
  // latency, higher keeps latency lower at some goodput. Default: 0.1. REQUIRES: (0, 1).
  double threshold = 0.1;
  // How far a probe goes: a larger probe sees a small gain sooner and costs more while it
  // runs. Default: 0.25 (a quarter of the limit, at least one access). REQUIRES: (0, 1].
  double probe = 0.25;
  // Slots per probe: more probes notice a change sooner and cost more. Default: 4.
  // REQUIRES: 2..64.
  int cycle = 4;
  // The move of ln(limit) per probe that calls for one: larger follows changes faster and
  // wanders further on noise. Default: 0.08. REQUIRES: (0, 1].
  double step = 0.08;
  // Standard errors of evidence before a probe switches to startup or drain. Default: 3.
  // REQUIRES: > 0.
  double confidence = 3;
  // The elasticity a doubling must show to double again. Default: 0.5. REQUIRES: (threshold, 1).
  double startup_gain = 0.5;

  Status Validate() const;
};

class MarginalLimit final : public AlgorithmBase<MarginalLimit, MarginalOptions> {
 public:
  static constexpr std::string_view kName = "marginal";

  int Update(const Sample& sample) override;
  AlgorithmEstimates estimates() const override;
  // The limit, the mean hold time and the noise: a restored instance cruises from there.
  AlgorithmState SaveState() const override;
  Status RestoreState(const AlgorithmState& state) override;

 private:
  using AlgorithmBase::AlgorithmBase;

  enum class Phase { kStartup, kDrain, kCruise };
  // What one slot saw, from its first mean latency on.
  struct Slot {
    int64_t index = 0;        // Start / length.
    int64_t length_ns = 0;
    TimePoint measured_from{};  // Accesses that end before are the previous limit's.
    int limit = 0;            // In force during the slot.
    double successes = 0;     // Weighted.
    double accesses = 0;      // Weighted: successes and slow drops.
    double full = 0;          // Accesses granted with the limit full.
    double held_sum = 0;      // Of the successes: latency plus setup, seconds.
    bool pressure = false;    // An acquirer was refused or expired.
  };
  // A slot reduced to what the law compares.
  struct Measure {
    bool binds = false;
    int limit = 0;
    double ln_rate = 0;    // ln of goodput per second.
    double successes = 0;
  };

  struct Evidence {
    double weight = 0;  // Sum of 1 / variance.
    double sum = 0;     // Sum of elasticity / variance.
  };

  int BaseLimit() const;
  void StartSlot(TimePoint at);
  void CloseSlot();
  void Cruise(const Measure& m);
  void Enter(Phase phase, const Measure& from);
  // The standard error of an elasticity from goodputs measured with these successes.
  double ElasticityError(double dl, double inverse_successes) const;

  Phase phase_ = Phase::kStartup;
  double ln_base_ = std::log(static_cast<double>(limit_));  // ln of the limit between probes.
  Measure last_;             // Startup, drain: the slot before.
  Measure before_;           // Cruise: the base slot before the probe (or the last one).
  Measure probe_;            // Cruise: the probe slot awaiting its judgement.
  Evidence up_, down_;
  int descent_ = 0;
  int startup_floor_ = 1;    // Startup: the lowest limit it may end at.
  double noise_ = 1;         // v: Var(ln X) of a slot times its successes (1 for Poisson).
  double held_s_ = 0;        // Mean time a success held its permit, last slot (seconds).
  Slot slot_;
  bool started_ = false;
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_ALGORITHMS_MARGINAL_H_
