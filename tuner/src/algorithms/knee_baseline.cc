// The knee algorithm's baseline W0 and the probes that refresh it (see knee.h). The windows and
// the control law are in knee.cc.
#include <algorithm>
#include <cmath>

#include "algorithm_internal.h"
#include "blobtune/tuner/algorithms/knee.h"
#include "knee_internal.h"

namespace blobtune::tuner {

namespace internal = algorithms_internal;
using namespace knee_internal;

bool KneeLimit::StartProbeIfStale(TimePoint now, const Window& w, double duration_s,
                                  double latency_s, int window_limit, int window_max_inflight) {
  // The baseline for this window's accesses (their size may differ from those behind W0).
  const double baseline = BaselineFor(MeanBytes(w));
  const double goodput = w.served / duration_s;
  if ((state_ == State::kTracking || state_ == State::kAppLimited) && typical_latency_s_ &&
      goodput_) {
    if (latency_s > kSlowdownLatencyRatio * *typical_latency_s_ &&
        goodput < kSlowdownGoodputRatio * *goodput_) {
      // Hold the limit and the averages until the next window confirms or clears it.
      if (++slowdown_windows_ >= kSlowdownWindows) {
        slowdown_windows_ = 0;
        StartShallowProbe(now, latency_s, /*recheck=*/false);
        probe_reference_served_ = w.served;
        probe_reference_duration_s_ = duration_s;
        probe_reference_bytes_ = MeanBytes(w);
      }
      return true;
    }
    slowdown_windows_ = 0;
    // Compared at the size the lowest one was measured on.
    const bool raised = lowest_baseline_s_ && BaselineFor(lowest_baseline_bytes_) >
                                                  kRaisedBaselineRatio * *lowest_baseline_s_;
    const bool regular = LatencyTurnedRegular(w);
    if (raised && (recheck_due_ || regular || ++windows_since_check_ >= recheck_interval_)) {
      StartShallowProbe(now, latency_s, /*recheck=*/true);
      return true;
    }
  }
  typical_latency_s_ =
      typical_latency_s_
          ? *typical_latency_s_ + kLatencySmoothing * (latency_s - *typical_latency_s_)
          : latency_s;

  if (state_ == State::kTracking && window_max_inflight > 1) {
    // While the climb may run on a batching resource, latency that our own accesses cannot
    // explain is other limiters' accesses in our batches: the climb turns shared, and no probe
    // takes their queue for our baseline. Several windows in a row, so that noise does not pin
    // the limit.
    const bool climb = ClimbAllowed() && CompletionsBatched();
    const double margin = climb ? kSharedLatencyMargin : kImpossibleLatencyMargin;
    const bool impossible = latency_s > window_limit * baseline * margin;
    stale_windows_ = impossible ? stale_windows_ + 1 : 0;
    if (stale_windows_ >= kStaleWindowsBeforeProbe) {
      stale_windows_ = 0;
      if (climb) {
        ShareClimb();
      } else {
        StartProbe(now);
        return true;
      }
    }
  }

  return false;
}

bool KneeLimit::LatencyTurnedRegular(const Window& w) {
  const std::optional<double> cv2 = LatencyCv2(w);
  if (!cv2 || w.served < kSpreadMinSamples) return false;
  // Latency far more regular than it has been under this baseline: waiting behind many
  // accesses of ours averages their service times out, so our queue may now be most of it.
  // Meaningless for a resource whose latency hardly varies, and only once the usual spread
  // rests on enough windows.
  const bool regular = spread_windows_ >= kSpreadWindows &&
                       spread_cv2_ >= kSpreadMinCv * kSpreadMinCv &&
                       *cv2 < kRegularLatencyCv * kRegularLatencyCv * spread_cv2_;
  // A plain mean of the first kSpreadWindows windows, then an average of that span.
  ++spread_windows_;
  spread_cv2_ += (*cv2 - spread_cv2_) / std::min(spread_windows_, kSpreadWindows);
  return regular;
}

void KneeLimit::StartProbe(TimePoint now) {
  EndClimb(/*forget=*/true);  // The baseline was stale: so is what a climb learned.
  limit_before_probe_ = limit_;
  limit_ = std::max(1, options_.min_limit);
  probe_epoch_ = now;
  state_ = State::kProbing;
  shallow_probe_ = false;
}

void KneeLimit::StartShallowProbe(TimePoint now, double reference_latency_s, bool recheck) {
  // Keep what a climb learned, unless the probe finds that the knee moved (below).
  EndClimb(/*forget=*/false);
  recheck_probe_ = recheck;
  recheck_due_ = false;
  windows_since_check_ = 0;
  limit_before_probe_ = limit_;
  limit_ = internal::ClampLimit(std::ceil(limit_ / 2.0), options_.min_limit, options_.max_limit);
  probe_epoch_ = now;
  state_ = State::kProbing;
  shallow_probe_ = true;
  probe_reference_s_ = reference_latency_s;
  // Where accesses wait in setup, let the earlier ones finish first (see kDrainSetupPermits).
  probe_draining_ = setup_holding_ >= kDrainSetupPermits ? limit_before_probe_ : 0;
  probe_drain_deadline_ =
      now + FromSeconds(kDrainLatencies * reference_latency_s + MeanSetupSeconds());
}

void KneeLimit::StartFreshPool(const Window& w, bool from_shallow_probe) {
  fresh_from_shallow_probe_ = from_shallow_probe;
  fresh_served_ = w.served;
  fresh_latency_sum_s_ = w.latency_sum_s;
  fresh_bytes_sum_ = w.bytes_sum;
}

void KneeLimit::SetBaseline(double latency_s, double mean_bytes) {
  baseline_s_ = latency_s;
  baseline_bytes_ = mean_bytes;
  spread_windows_ = 0;
  spread_cv2_ = 0;
  NoteLowestBaseline();
  block_served_ = 0;
  block_latency_sum_s_ = 0;
  block_bytes_sum_ = 0;
  solo_served_ = 0;
  solo_latency_sum_s_ = 0;
  solo_bytes_sum_ = 0;
}

void KneeLimit::UpdateBaseline(const Window& w, int window_limit, int window_max_inflight,
                               std::optional<double> latency_s) {
  if (!latency_s) return;
  if (window_max_inflight <= 1) {
    // One access at a time: nothing of ours queued ahead of any of them, so these measure the
    // baseline itself. They are pooled over the last kBaselineBlock of them, so that a few
    // lucky ones (an idle client sees few) do not set it.
    const double keep = std::max(0.0, 1.0 - w.served / kBaselineBlock);
    solo_served_ = solo_served_ * keep + w.served;
    solo_latency_sum_s_ = solo_latency_sum_s_ * keep + w.latency_sum_s;
    solo_bytes_sum_ = solo_bytes_sum_ * keep + w.bytes_sum;
    baseline_s_ = solo_latency_sum_s_ / solo_served_;
    baseline_bytes_ = solo_bytes_sum_ / solo_served_;
    NoteLowestBaseline();
    return;
  }
  // Pool windows measured under one limit into blocks, so that no small lucky window sets it.
  if (block_limit_ != window_limit) {
    block_limit_ = window_limit;
    block_served_ = 0;
    block_latency_sum_s_ = 0;
    block_bytes_sum_ = 0;
  }
  block_served_ += w.served;
  block_latency_sum_s_ += w.latency_sum_s;
  block_bytes_sum_ += w.bytes_sum;
  if (block_served_ < kBaselineBlock && baseline_s_) return;
  const double candidate = block_latency_sum_s_ / block_served_;
  const double candidate_bytes = block_bytes_sum_ / block_served_;
  block_served_ = 0;
  block_latency_sum_s_ = 0;
  block_bytes_sum_ = 0;
  // Any block may lower it: with other clients on the resource, latency at a higher limit of
  // ours can be lower than it was at a lower one. Compared at the block's size.
  const double current = BaselineFor(candidate_bytes);
  if (!baseline_s_ || candidate < current) {
    // A raised baseline that a block lowers noticeably: latency falls with our limit, so at
    // least part of it is our queue, and the resource may have got faster: re-check now.
    if (baseline_s_ && candidate < (1 - kBlockDropForRecheck) * current) recheck_due_ = true;
    baseline_s_ = candidate;
    baseline_bytes_ = candidate_bytes;
    NoteLowestBaseline();
  }
}

void KneeLimit::CloseProbeWindow(TimePoint now, const Window& w, double duration_s,
                                 std::optional<double> latency_s) {
  if (!latency_s) return;  // Keep probing until an access succeeds.
  const double goodput = w.served / duration_s;
  const double mean_bytes = MeanBytes(w);
  const int probe_limit = limit_;
  if (!shallow_probe_) {
    // Only accesses granted under the pinned limit got here: their latency is the baseline.
    SetBaseline(*latency_s, mean_bytes);
    StartFreshPool(w, /*from_shallow_probe=*/false);
    limit_ = limit_before_probe_;
    state_ = State::kGrowing;  // The knee may have moved far: slow start again.
    pending_direction_ = 0;
    limit_ = internal::ClampLimit(std::round(Target(goodput_.value_or(goodput))),
                                  options_.min_limit, options_.max_limit);
    return;
  }
  limit_ = limit_before_probe_;
  pending_direction_ = 0;
  typical_latency_s_ = probe_reference_s_;
  if (recheck_probe_) {
    if (*latency_s < kNoQueueLatencyRatio * BaselineFor(mean_bytes)) {
      // Half the concurrency, and latency well below the baseline: the resource got faster,
      // and at least this much of the latency was our queue. Halve again at once until the
      // latency stops falling, so that one re-check finds the new baseline however far it
      // fell (each step is one probe window at a quarter, an eighth... of the limit).
      SetBaseline(*latency_s, mean_bytes);
      StartFreshPool(w, /*from_shallow_probe=*/true);
      recheck_lowered_ = true;
      if (probe_limit > options_.min_limit) {
        limit_ = probe_limit;
        StartShallowProbe(now, *latency_s, /*recheck=*/true);
        return;
      }
    }
    state_ = State::kTracking;
    recheck_interval_ = std::min(2 * recheck_interval_, kMaxRecheckWindows);
    // Whatever called it, the spread of latency so far says nothing more: measure it anew.
    spread_windows_ = 0;
    spread_cv2_ = 0;
    if (recheck_lowered_) {
      // Latency no longer falls with the concurrency: the baseline is found, and this probe's
      // limit is at or below the knee. Slow start from there (and refine the fresh baseline)
      // rather than refill the queue the re-check found.
      recheck_lowered_ = false;
      recheck_interval_ = kRecheckWindows;
      typical_latency_s_ = *baseline_s_;
      limit_ = probe_limit;
      state_ = State::kGrowing;
      EndClimb(/*forget=*/true);
    }
  } else if (*latency_s * SizeScale(mean_bytes, probe_reference_bytes_) >=
             kNoQueueLatencyRatio * probe_reference_s_) {
    // Half the concurrency, (nearly) the same latency: none of it was our queue. The
    // resource got slower; its knee may have moved far up: slow start again. (The probe's
    // latency at the slowdown window's sizes: when the accesses grew, a queue of them grew
    // with them, and our halved queue of larger ones can take as long as the slowdown
    // window's longer queue of smaller ones.)
    SetBaseline(*latency_s, mean_bytes);
    StartFreshPool(w, /*from_shallow_probe=*/true);
    typical_latency_s_ = *latency_s;
    recheck_interval_ = kRecheckWindows;
    state_ = State::kGrowing;
    EndClimb(/*forget=*/true);
  } else {
    // Our queue: the resource lost capacity and the baseline holds. The goodput average
    // is stale: restart it from the window that showed the slowdown, and cut to the target.
    state_ = State::kTracking;
    // Either window may understate it (the slowdown window straddles the change; the probe
    // may leave the resource idle): the higher one.
    if (goodput >= probe_reference_served_ / probe_reference_duration_s_) {
      RestartGoodput(w.served, duration_s, mean_bytes);
    } else {
      RestartGoodput(probe_reference_served_, probe_reference_duration_s_, probe_reference_bytes_);
    }
    limit_ = internal::ClampLimit(
        std::max(std::round(Target(*goodput_) + climb_), std::ceil(limit_ * options_.max_decrease)),
        options_.min_limit, limit_);
  }
}

}  // namespace blobtune::tuner
