#include "blobtune/tuner/algorithms/marginal.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>

#include "algorithm_internal.h"
#include "option_table.h"

namespace blobtune::tuner {
namespace {

namespace internal = algorithms_internal;

// A slot spans one mean hold time for the accesses granted under the previous limit to finish,
// and at least one more to measure.
constexpr double kSlotLatencies = 2;
// ln X of a slot with n Poisson successes is known to 1 / sqrt(n): 35% for 8, enough to see a
// doubling (ln 2 = 0.69) at two standard errors.
constexpr double kMinSlotSuccesses = 8;
// A slot shrinks only when this fraction of it would do, so that its length does not flap
// between two powers of two.
constexpr int64_t kSlotShrink = 4;
// Startup ends when a doubling's elasticity is below startup_gain by this many standard
// errors: one, so that noise more often carries startup one doubling too far (which the
// next doubling shows) than stops it far below the knee (which only probes can climb).
constexpr double kStartupErrors = 1;
// A drop faster than this share of the mean hold time never waited for the resource.
constexpr double kFastError = 0.5;
// A slot binds when at least this share of its accesses found the limit full.
constexpr double kBindingShare = 0.5;

double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The longest slot, about 18 minutes; a hold time past it leaves nothing to measure.
constexpr int64_t kMaxSlotNs = int64_t{1} << 40;
// The smallest power of two nanoseconds of at least `seconds` (at least 1 us, at most 2^40 ns).
int64_t SlotLength(double seconds) {
  int64_t ns = 1024;
  while (static_cast<double>(ns) < seconds * 1e9 && ns < kMaxSlotNs) ns *= 2;
  return ns;
}

}  // namespace

// The options as the registry's text names them (option_table.h).
template <>
internal::OptionTable<MarginalLimit::Options> internal::OptionsOf<MarginalLimit::Options>() {
  using O = MarginalLimit::Options;
  static constexpr std::array kRows = {
      Option<&O::threshold>("threshold", Open(0, 1),
                            "the elasticity below which a permit no longer pays"),
      Option<&O::probe>("probe", OpenClosed(0, 1),
                        "how far a probe goes, as a fraction of the limit"),
      Option<&O::cycle>("cycle", Closed(2, 64), "slots per probe"),
      Option<&O::step>("step", OpenClosed(0, 1),
                       "the move of ln(limit) per probe that calls for one"),
      Option<&O::confidence>(
          "confidence", Above(0),
          "standard errors of evidence before a probe switches to startup or drain"),
      Option<&O::startup_gain>(
          "startup_gain", Open(0, 1),
          "the elasticity a doubling must show to double again; above threshold"),
  };
  static constexpr auto kOptions = Concat(LimitRows<O>(), kRows);
  return kOptions;
}

Status MarginalOptions::Validate() const {
  constexpr std::string_view kName = MarginalLimit::kName;
  if (Status s = internal::CheckOptions(kName, *this); !s.ok()) return s;
  if (startup_gain <= threshold) {
    return internal::InvalidField(kName, "startup_gain", "must be > threshold", startup_gain);
  }
  return Status::Ok();
}

AlgorithmEstimates MarginalLimit::estimates() const {
  AlgorithmEstimates e;
  if (held_s_ > 0) {
    e.recent_latency =
        std::chrono::duration_cast<Duration>(std::chrono::duration<double>(held_s_));
  }
  switch (phase_) {
    case Phase::kStartup: e.state = "startup"; break;
    case Phase::kDrain: e.state = "drain"; break;
    case Phase::kCruise:
      e.state = limit_ == BaseLimit() ? "cruise" : (limit_ > BaseLimit() ? "probe up" : "probe down");
      break;
  }
  return e;
}

int MarginalLimit::BaseLimit() const {
  return internal::ClampLimit(std::exp(ln_base_) + 0.5, min_limit(), max_limit());
}

double MarginalLimit::ElasticityError(double dl, double inverse_successes) const {
  return std::sqrt(noise_ * inverse_successes) / std::abs(dl);
}

void MarginalLimit::StartSlot(TimePoint at) {
  const int64_t length = slot_.length_ns;
  slot_ = Slot{};
  slot_.length_ns = length;
  slot_.index = FloorDiv(at.time_since_epoch().count(), length);
  const int base = BaseLimit();
  limit_ = base;
  if (phase_ == Phase::kCruise && slot_.index % options_.cycle == 0) {
    // Up in even cycles, down in odd ones, counted from time: see the header.
    const bool up = FloorDiv(slot_.index, options_.cycle) % 2 == 0;
    const double factor = 1 + options_.probe;
    limit_ = up ? std::max(base + 1, static_cast<int>(std::lround(base * factor)))
                : std::min(base - 1, static_cast<int>(std::lround(base / factor)));
    limit_ = std::clamp(limit_, min_limit(), max_limit());
  }
  slot_.limit = limit_;
  // The limit applies from now, which is later than the slot's start when the previous slot
  // was shorter; accesses granted under the previous limit finish within about one hold time.
  slot_.measured_from =
      at + std::chrono::duration_cast<Duration>(std::chrono::duration<double>(held_s_));
}

int MarginalLimit::Update(const Sample& sample) {
  const TimePoint end = sample.end();
  const double held = Seconds(sample.latency + sample.setup);
  if (!started_) {
    if (sample.dropped) return limit_;
    started_ = true;
    if (held_s_ <= 0) held_s_ = std::max(held, 1e-6);  // Unless a saved state set it.
    slot_.length_ns = SlotLength(kSlotLatencies * held_s_);
    StartSlot(end);
  }
  if (sample.dropped && held < kFastError * held_s_) return limit_;  // An error: ignored.
  const TimePoint slot_start(Duration(slot_.index * slot_.length_ns));
  if (end >= slot_start + Duration(slot_.length_ns)) {
    CloseSlot();
    StartSlot(end);
  }
  if (sample.refused > 0 || sample.expired > 0) slot_.pressure = true;
  if (end < slot_.measured_from) return limit_;
  const double w = sample.weight;
  slot_.accesses += w;
  if (sample.inflight >= slot_.limit) slot_.full += w;
  if (!sample.dropped) {
    slot_.successes += w;
    slot_.held_sum += w * held;
  }
  return limit_;
}

void MarginalLimit::CloseSlot() {
  const Slot& slot = slot_;
  if (slot.successes <= 0) return;
  const TimePoint slot_end(Duration((slot.index + 1) * slot.length_ns));
  const double measured_s = Seconds(slot_end - slot.measured_from);
  // Averages over about one cycle of slots, as the noise estimate does.
  held_s_ += (slot.held_sum / slot.successes - held_s_) / options_.cycle;
  const double rate = slot.successes / measured_s;
  // The next slots: long enough for the hold time and for kMinSlotSuccesses at this rate.
  const int64_t wanted =
      SlotLength(std::max(kSlotLatencies * held_s_, held_s_ + kMinSlotSuccesses / rate));
  const int64_t length =
      (wanted > slot.length_ns || kSlotShrink * wanted <= slot.length_ns) ? wanted
                                                                          : slot.length_ns;
  if (slot.successes < kMinSlotSuccesses / 2) {
    slot_.length_ns = length;
    return;  // Too few to say anything.
  }
  const Measure m{slot.pressure || slot.full >= kBindingShare * slot.accesses, slot.limit,
                  std::log(rate), slot.successes};
  slot_.length_ns = length;

  switch (phase_) {
    case Phase::kStartup:
      if (last_.binds && m.limit > last_.limit) {
        const double dl = std::log(static_cast<double>(m.limit) / last_.limit);
        const double gain = m.ln_rate - last_.ln_rate;
        const double error = ElasticityError(dl, 1 / m.successes + 1 / last_.successes);
        if (gain / dl < options_.startup_gain - kStartupErrors * error) {
          // A startup that a probe began ends no lower than that probe, which paid: where a
          // knee slows the resource past it, the doubling lost what the probe gained.
          const double knee =
              std::log(static_cast<double>(last_.limit)) + std::clamp(gain, 0.0, dl);
          ln_base_ = std::max(knee, std::log(static_cast<double>(startup_floor_)));
          Enter(Phase::kCruise, {});
          return;
        }
      }
      if (!m.binds) return;  // Limited by demand: a higher limit would teach nothing.
      Enter(m.limit >= max_limit() ? Phase::kCruise : Phase::kStartup, m);
      return;
    case Phase::kDrain: {
      const double dl = std::log(static_cast<double>(last_.limit) / m.limit);
      const double loss = last_.ln_rate - m.ln_rate;
      if (loss < options_.threshold * dl && m.limit > min_limit()) {
        Enter(Phase::kDrain, m);
        return;
      }
      ln_base_ = std::log(static_cast<double>(m.limit)) + std::clamp(loss, 0.0, dl);
      Enter(Phase::kCruise, {});
      return;
    }
    case Phase::kCruise:
      Cruise(m);
      return;
  }
}

void MarginalLimit::Enter(Phase phase, const Measure& from) {
  phase_ = phase;
  last_ = from;
  before_ = probe_ = {};
  up_ = down_ = {};
  descent_ = 0;
  startup_floor_ = 1;
  if (phase == Phase::kStartup) {
    ln_base_ = std::log(std::min(2.0 * from.limit, static_cast<double>(max_limit())));
  } else if (phase == Phase::kDrain) {
    ln_base_ = std::log(std::max(0.5 * from.limit, static_cast<double>(min_limit())));
  }
}

void MarginalLimit::Cruise(const Measure& m) {
  const int64_t position = slot_.index % options_.cycle;
  if (position == 0) {
    probe_ = m;  // Judged even when it does not bind: then its extra permits gained nothing.
    return;
  }
  if (position == 1 && probe_.successes > 0 && before_.binds && m.binds &&
      before_.limit == m.limit && probe_.limit != m.limit) {
    const double dl = std::log(static_cast<double>(probe_.limit) / m.limit);
    const double e = (probe_.ln_rate - 0.5 * (before_.ln_rate + m.ln_rate)) / dl;
    const double error = ElasticityError(
        dl, 1 / probe_.successes + 0.25 / before_.successes + 0.25 / m.successes);
    // Evidence pooled over the consecutive probes of one direction that agree, weighted by
    // the inverse of their variance.
    Evidence& pool = dl > 0 ? up_ : down_;
    const bool agrees = dl > 0 ? e > options_.threshold : e < options_.threshold;
    if (!agrees) pool = {};
    pool.weight += 1 / (error * error);
    pool.sum += e / (error * error);
    const double mean = pool.sum / pool.weight;
    const double z = (mean - options_.threshold) * std::sqrt(pool.weight);
    if (dl > 0) {
      if (mean >= options_.startup_gain && z >= options_.confidence) {
        const int probed = probe_.limit;
        Enter(Phase::kStartup, m);
        startup_floor_ = probed;
        return;
      }
      if (agrees) {
        ln_base_ += options_.step;
        descent_ = 0;
      }
    } else {
      if (-z >= options_.confidence) {
        Enter(Phase::kDrain, m);
        return;
      }
      if (agrees) {
        // Above the knee both probes see a flat curve, and noise hides how flat: consecutive
        // moves down double, so that a limit far above the knee comes down in a few probes.
        ln_base_ -= std::min(std::ldexp(options_.step, descent_++), std::log(2.0));
      } else {
        descent_ = 0;
      }
    }
    ln_base_ = std::clamp(ln_base_, std::log(static_cast<double>(min_limit())),
                          std::log(static_cast<double>(max_limit())));
  }
  if (before_.binds && m.binds && before_.limit == m.limit) {
    const double d = m.ln_rate - before_.ln_rate;
    const double inverse = 1 / m.successes + 1 / before_.successes;
    noise_ += (d * d / inverse - noise_) / options_.cycle;
  }
  probe_ = {};
  before_ = m;
}

AlgorithmState MarginalLimit::SaveState() const {
  AlgorithmState state = LimitAlgorithm::SaveState();
  state.values = {{"limit", std::exp(ln_base_)}, {"hold_s", held_s_}, {"noise", noise_}};
  return state;
}

Status MarginalLimit::RestoreState(const AlgorithmState& state) {
  const std::optional<double> limit = state.Find("limit");
  const std::optional<double> hold = state.Find("hold_s");
  const std::optional<double> noise = state.Find("noise");
  if (state.algorithm != kName || !limit || !hold || !noise || *limit < 1 || *hold <= 0 ||
      *hold > Seconds(Duration(kMaxSlotNs)) || *noise <= 0) {
    return Status::InvalidArgument("marginal cannot start from the state of " + state.algorithm +
                                   " (it needs limit >= 1, hold_s > 0 up to 2^40 ns, noise > 0)");
  }
  // It goes on probing from the saved limit: the resource may have changed while it was away,
  // and the probes say so within a few cycles.
  phase_ = Phase::kCruise;
  ln_base_ = std::log(std::clamp(*limit, static_cast<double>(min_limit()),
                                 static_cast<double>(max_limit())));
  limit_ = BaseLimit();
  held_s_ = *hold;
  noise_ = *noise;
  return Status::Ok();
}

}  // namespace blobtune::tuner
