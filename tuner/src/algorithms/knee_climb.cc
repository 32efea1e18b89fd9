// The knee algorithm's throughput climb (Options::climb; see knee.h): trials that
// move the limit a step and keep the higher limit only where goodput confirms it. The windows
// and the control law are in knee.cc, the baseline and its probes in knee_baseline.cc.
#include <algorithm>
#include <cmath>
#include <limits>

#include "blobtune/tuner/algorithms/knee.h"
#include "knee_internal.h"

namespace blobtune::tuner {

using namespace knee_internal;

void KneeLimit::RateBlocks::Add(double window_served, double window_duration_s) {
  open_served += window_served;
  open_duration_s += window_duration_s;
  if (open_served < block_size || open_duration_s <= 0) return;
  const double rate = open_served / open_duration_s;
  served += open_served;
  duration_s += open_duration_s;
  ++blocks;
  rate_sum += rate;
  rate_sq_sum += rate * rate;
  open_served = 0;
  open_duration_s = 0;
}

double KneeLimit::RateBlocks::StandardError() const {
  if (blocks < 2) return std::numeric_limits<double>::infinity();
  const double mean = rate_sum / blocks;
  const double variance = std::max(0.0, (rate_sq_sum - blocks * mean * mean) / (blocks - 1));
  return std::sqrt(variance / blocks);
}

void KneeLimit::CountCompletionGap(const Sample& sample) {
  const TimePoint end = sample.end();
  if (sample.weight <= 1 && last_end_ && goodput_ && *goodput_ > 0) {
    const double gap_s = std::abs(Seconds(end - *last_end_));
    window_.gaps += 1;
    window_.gap_deviation += std::abs(gap_s * *goodput_ - 1);
    if (gap_s < kShortGapFraction / *goodput_) window_.short_gaps += 1;
    if (gap_s < kCoincidentGapFraction / *goodput_) window_.coincident_gaps += 1;
  }
  if (!last_end_ || end > *last_end_) last_end_ = end;
}

void KneeLimit::UpdateBatchedFraction(const Window& w) {
  if (w.gaps < kMinGapsPerWindow) return;
  const double fraction = w.short_gaps / w.gaps;
  batched_fraction_ = batched_fraction_
                          ? *batched_fraction_ + kBatchedSmoothing * (fraction - *batched_fraction_)
                          : fraction;
  const double coincident = w.coincident_gaps / w.gaps;
  coincident_fraction_ =
      coincident_fraction_
          ? *coincident_fraction_ + kCoincidentSmoothing * (coincident - *coincident_fraction_)
          : coincident;
}

bool KneeLimit::CompletionsBatched() const {
  return (batched_fraction_ && *batched_fraction_ > kBatchedFraction) ||
         (coincident_fraction_ && *coincident_fraction_ > kCoincidentBatchedFraction);
}

bool KneeLimit::ClimbAllowed() const {
  return options_.climb == Options::Climb::kAlways ||
         (options_.climb == Options::Climb::kWhenBatched && (CompletionsBatched() || expiring_));
}

void KneeLimit::ShareClimb() {
  EndClimb(/*forget=*/false);
  climb_shared_ = true;
}

bool KneeLimit::ShareOrCapClimb(double duration_s, double latency_s) {
  if (climb_cut_countdown_ > 0) --climb_cut_countdown_;
  const double latency_ratio = latency_s / BaselineFor(RecentBytes());
  if (latency_ratio > kClimbLatencyCap) {
    // Whoever's accesses took latency there (our own step's, or other limiters'): share the
    // climb, and cut it.
    if (climb_cut_countdown_ == 0 && (climb_ > 0 || climb_phase_ != ClimbPhase::kIdle)) {
      climb_ *= kSharedCut;
      climb_cut_countdown_ = kSharedCutWindows;
    }
    ShareClimb();
    return true;
  }
  if (climb_shared_) {
    if (climb_cut_countdown_ == 0 && latency_s > 0) {
      const double round_trips = duration_s / latency_s;
      climb_ =
          std::max(0.0, climb_ + round_trips * (1 - kSharedClimbDecay * latency_ratio * climb_));
    }
    return true;
  }
  return false;
}

bool KneeLimit::HoldForClimb(const Window& w, double duration_s, double latency_s,
                             int window_limit) {
  if (!ClimbAllowed()) {
    EndClimb(/*forget=*/true);
    return false;
  }
  if (state_ != State::kTracking) {
    // Slow start looks for the knee anew (the resource changed); an app-limited spell only
    // ends the trial.
    EndClimb(/*forget=*/state_ == State::kGrowing);
    return false;
  }
  if (!CompletionsBatched()) {
    // The cap and the shared climb are for batching resources (Climb::kAlways climbs on others).
    climb_shared_ = false;
  } else if (ShareOrCapClimb(duration_s, latency_s)) {
    return false;
  }
  if (climb_phase_ == ClimbPhase::kIdle) {
    if (--climb_countdown_ > 0) return false;
    // Allowed for expiries alone: only where others queue on the resource (more latency than
    // our own accesses, each served within W0, explain); see "Expiries" in knee.h.
    if (options_.climb == Options::Climb::kWhenBatched && !CompletionsBatched() &&
        latency_s < window_limit * BaselineFor(MeanBytes(w))) {
      climb_countdown_ = 1;
      return false;
    }
    // Hold the limit and measure it: the reference span.
    climb_phase_ = ClimbPhase::kReference;
    climb_from_ = limit_;
    climb_reference_ =
        RateBlocks{.block_size = std::max(kClimbMinBlock, kClimbBlockPerLimit * limit_)};
    pending_direction_ = 0;
    return true;
  }
  // Only windows wholly under the held limit count, and in the trial not the first of them.
  if (window_limit != limit_) return true;
  if (climb_phase_ == ClimbPhase::kTrial && climb_settle_ > 0) {
    --climb_settle_;
    return true;
  }
  RateBlocks& span = climb_phase_ == ClimbPhase::kReference ? climb_reference_ : climb_trial_;
  span.Add(w.served, duration_s);
  if (span.blocks < kClimbBlocks) return true;
  if (climb_phase_ == ClimbPhase::kReference) {
    StartClimbTrial();
  } else {
    FinishClimbTrial();
  }
  return true;
}

void KneeLimit::StartClimbTrial() {
  const bool fast = climb_up_ && last_climb_gain_ >= kClimbFastGain && CompletionsBatched();
  const double fraction = fast ? kClimbFastStep : kClimbStep;
  const int step = std::max(1, static_cast<int>(std::lround(fraction * climb_from_)));
  // Down only as far as the climb reaches: below it is the control law's business.
  const int lowest = std::max(options_.min_limit, climb_from_ - static_cast<int>(climb_));
  const int to = climb_up_ ? std::min(options_.max_limit, climb_from_ + step)
                           : std::max(lowest, climb_from_ - step);
  if (to == climb_from_) {
    // No room that way (max_limit, or nothing climbed to go down from): the other way next.
    climb_phase_ = ClimbPhase::kIdle;
    climb_up_ = climb_ >= 1 ? !climb_up_ : true;
    climb_countdown_ = climb_interval_;
    return;
  }
  climb_to_ = to;
  limit_ = to;
  climb_phase_ = ClimbPhase::kTrial;
  climb_trial_ = RateBlocks{.block_size = climb_reference_.block_size};
  climb_settle_ = 1;
}

void KneeLimit::FinishClimbTrial() {
  const bool up = climb_to_ > climb_from_;
  const RateBlocks& high = up ? climb_trial_ : climb_reference_;
  const RateBlocks& low = up ? climb_reference_ : climb_trial_;
  // A step up must pay for its queue: a gain that is both worth having and real (noise must
  // not carry the limit up). A step back down keeps the climb unless the lower limit does
  // about as well: demanding significance there too would let noise wear a real climb away.
  bool keep_high = false;
  last_climb_gain_ = 0;
  if (low.Rate() > 0) {
    const double advantage = high.Rate() / low.Rate() - 1;
    const double error = std::hypot(high.StandardError(), low.StandardError()) / low.Rate();
    keep_high = advantage >= kClimbMinGain && (!up || advantage >= kClimbSignificance * error);
    if (up && keep_high) last_climb_gain_ = advantage;
  }
  const RateBlocks& kept = keep_high ? high : low;
  limit_ = keep_high ? std::max(climb_from_, climb_to_) : std::min(climb_from_, climb_to_);
  const bool moved = limit_ == climb_to_;
  // The kept span measured the goodput at the kept limit: restart the average from it, and
  // keep the limit there by adding what the knee's target lacks.
  RestartGoodput(kept.served, kept.duration_s, RecentBytes());
  climb_ = std::max(0.0, limit_ - Target(*goodput_));
  climb_phase_ = ClimbPhase::kIdle;
  pending_direction_ = 0;
  if (moved && (climb_up_ || climb_ >= 1)) {
    // It paid off (or cost nothing): the next step in the same direction at once.
    climb_countdown_ = 1;
    climb_interval_ = kClimbFirstInterval;
    return;
  }
  climb_countdown_ = climb_interval_;
  climb_interval_ = std::min(2 * climb_interval_, kClimbMaxInterval);
  climb_up_ = climb_ >= 1 ? !climb_up_ : true;
}

void KneeLimit::EndClimb(bool forget) {
  if (climb_phase_ == ClimbPhase::kTrial) limit_ = climb_from_;
  climb_phase_ = ClimbPhase::kIdle;
  if (!forget) return;
  climb_ = 0;
  last_climb_gain_ = 0;
  climb_shared_ = false;
  climb_cut_countdown_ = 0;
  climb_up_ = true;
  climb_interval_ = kClimbFirstInterval;
  climb_countdown_ = kClimbFirstInterval;
}

}  // namespace blobtune::tuner
