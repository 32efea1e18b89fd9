#include "blobtune/tuner/algorithms/knee.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <utility>
#include <vector>

#include "algorithm_internal.h"
#include "knee_internal.h"
#include "option_table.h"

namespace blobtune::tuner {

namespace internal = algorithms_internal;
using namespace knee_internal;

namespace {

constexpr std::string_view kName = "knee";
// A drop faster than this fraction of the baseline is an error, not overload.
constexpr double kFastDropFraction = 0.5;
// A drop slower than this multiple of the usual latency hung or timed out: it held a permit
// without being served.
constexpr double kHangRatio = 3.0;
// Proposals at least this far from the limit (relative), or kJumpAccesses, apply at once;
// smaller ones need two windows in a row agreeing on the direction.
constexpr double kJumpFraction = 0.2;
constexpr int kJumpAccesses = 2;
constexpr double kMaxStep = 0.1;
// A limit is app-limited (it does not bind) while fewer than this fraction of it is in use.
constexpr double kBusyFraction = 0.5;

// Windows need at least this many successes (when min_window_samples allows), even at limit 1.
constexpr int kMinSamplesFloor = 8;

// Weight of a window in the latency cv average: slow, the cv sets the queue allowance.
constexpr double kCvSmoothing = 0.05;

}  // namespace

namespace algorithms_internal {

// The options as the registry's text names them (option_table.h).
template <>
OptionTable<KneeLimit::Options> OptionsOf<KneeLimit::Options>() {
  using O = KneeLimit::Options;
  static constexpr std::array kRows = {
      Option<&O::headroom>("headroom", Closed(0, 100),
                           "queue allowed above the knee, in units of sqrt(B) accesses"),
      Option<&O::headroom_per_cv>("headroom_per_cv", Closed(0, 100),
                                  "headroom added per unit of latency variation within windows"),
      Option<&O::headroom_per_gap_deviation>("headroom_per_gap_deviation", Closed(0, 100),
                                             "headroom per unit of variation of the gaps between "
                                             "completions"),
      Option<&O::max_headroom>("max_headroom", Closed(0, 100), "most headroom, at least headroom"),
      Option<&O::smoothing>("smoothing", OpenClosed(0, 1),
                            "weight of a new window in the goodput average"),
      Option<&O::window_rtts>("window_rtts", OpenClosed(0, 1000),
                              "shortest window, in baseline latencies"),
      Option<&O::min_window_samples>("min_window_samples", Closed(1, 100000),
                                     "successes a window needs (capped at 4 * limit)"),
      Option<&O::max_window_time>("max_window_time_ms", OpenClosed(0, kHourMs),
                                  "longest window; one this old closes on its next sample"),
      Option<&O::max_decrease>("max_decrease", Open(0, 1),
                               "smallest factor one window may cut the limit by"),
      Option<&O::growth_factor>(
          "growth_factor", Closed(1, 10),
          "factor the limit grows by per window while latency shows no queue"),
      Option<&O::growth_tolerance>(
          "growth_tolerance", Closed(0, 10),
          "latency above the baseline still read as no queue, as a fraction"),
      Option<&O::climb>(
          "climb", Closed(0, 2),
          "climbing past the knee: 0 never, 1 when completions come in batches, 2 always"),
  };
  static constexpr auto kOptions = Concat(LimitRows<O>(), kRows);
  return kOptions;
}

}  // namespace algorithms_internal

Status KneeLimit::Options::Validate() const {
  if (Status s = internal::CheckOptions(kName, *this); !s.ok()) return s;
  if (max_headroom < headroom) {
    return internal::InvalidField(kName, "max_headroom", "must be >= headroom", max_headroom);
  }
  return Status::Ok();
}

StatusOr<KneeLimit> KneeLimit::Create(const Options& options) {
  if (Status status = options.Validate(); !status.ok()) return status;
  return KneeLimit(options);
}

KneeLimit::KneeLimit(const Options& options)
    : options_(options),
      limit_(options.initial_limit),
      climb_countdown_(kClimbFirstInterval),
      climb_interval_(kClimbFirstInterval) {}

int KneeLimit::MinWindowSamples() const {
  if (state_ == State::kProbing) {
    if (!shallow_probe_) return options_.min_window_samples;
    return recheck_probe_ ? kRecheckProbeSamples
                          : std::min(kShallowProbeSamples, options_.min_window_samples);
  }
  return std::max(1, std::min(options_.min_window_samples, std::max(kMinSamplesFloor, 4 * limit_)));
}

int KneeLimit::Update(const Sample& sample) {
  // A probe measures only accesses granted under the pinned limit (and, while it drains, none).
  if (state_ == State::kProbing && probe_draining_ > 0) {
    if (sample.start < probe_epoch_) --probe_draining_;
    if (probe_draining_ == 0 || sample.end() >= probe_drain_deadline_) {
      probe_draining_ = 0;
      probe_epoch_ = sample.end();
      window_ = Window{.open_at = probe_epoch_, .open = true};
    }
    return limit_;
  }
  if (state_ == State::kProbing && sample.start < probe_epoch_) return limit_;
  AddToWindow(sample);
  const TimePoint now = sample.end();
  if (WindowDue(now)) CloseWindow(now);
  return limit_;
}

void KneeLimit::AddToWindow(const Sample& sample) {
  const double weight = std::max<uint32_t>(sample.weight, 1);
  if (!window_.open) {
    window_ = Window{.open_at = sample.start, .open = true};
    window_limit_ = limit_;
    window_max_inflight_ = 0;
  }
  const bool empty = window_.served == 0 && window_.slow_drops == 0 && window_.fast_drops == 0;
  // After an idle gap the window starts at the first access it measures, so that the gap does
  // not dilute its goodput.
  if (empty && sample.start > window_.open_at) window_.open_at = sample.start;
  window_max_inflight_ = std::max(window_max_inflight_, sample.inflight);
  window_.setup_sum_s += weight * std::max(0.0, Seconds(sample.setup));
  window_.refused += sample.refused;
  window_.expired += sample.expired;
  CountArrival(sample, weight);
  CountCompletionGap(sample);
  if (sample.inflight >= limit_) window_.limit_reached = true;
  const double latency_s = std::max(0.0, Seconds(sample.latency));
  // A drop that took about as long as a success was served by the resource all the same (its
  // deadline passed while it waited for a permit, or in the resource): it counts towards the
  // resource's throughput. Otherwise the limit would follow goodput down when deadlines expire
  // in our own queue, and collapse with it.
  const double reference_s = std::max(baseline_s_.value_or(0.0), last_latency_s_.value_or(0.0));
  const bool served =
      !sample.dropped || (baseline_s_ && latency_s >= kFastDropFraction * *baseline_s_ &&
                          latency_s <= kHangRatio * reference_s);
  if (served) {
    CountNoLoadLatency(sample, latency_s);
    window_.served += weight;
    window_.latency_sum_s += weight * latency_s;
    window_.latency_sq_sum_s2 += weight * latency_s * latency_s;
    const double bytes = static_cast<double>(sample.bytes);
    window_.bytes_sum += weight * bytes;
    window_.bytes_sq_sum += weight * bytes * bytes;
    window_.latency_bytes_sum += weight * bytes * latency_s;
  } else if (baseline_s_ && latency_s < kFastDropFraction * *baseline_s_) {
    window_.fast_drops += weight;
  } else {
    window_.slow_drops += weight;
    window_.slow_drop_latency_sum_s += weight * latency_s;
  }
}

bool KneeLimit::WindowDue(TimePoint now) const {
  if (!window_.open || now <= window_.open_at) return false;
  const Duration age = now - window_.open_at;
  if (age >= options_.max_window_time) return true;
  // A window spans a few times the time a permit is held: its accesses were granted under
  // the limit it measures.
  double reference_s = MeanSetupSeconds();
  if (baseline_s_) {
    reference_s += *baseline_s_;
  } else if (window_.served > 0) {
    reference_s += window_.latency_sum_s / window_.served;
  }
  if (Seconds(age) < options_.window_rtts * reference_s || window_.served < MinWindowSamples()) {
    return false;
  }
  // The first window, one access at a time, measures the first baseline over more accesses
  // (see kFirstWindowSamples).
  if (!baseline_s_ && window_max_inflight_ <= 1) {
    return window_.served >= kFirstWindowSamples || age >= kFirstWindowMaxTime ||
           window_.slow_drops > 0 || window_.fast_drops > 0;
  }
  return true;
}

void KneeLimit::CloseWindow(TimePoint now) {
  const Window w = window_;
  const int window_limit = window_limit_;
  const int window_max_inflight = window_max_inflight_;
  window_ = Window{.open_at = now, .open = true};
  window_limit_ = limit_;
  window_max_inflight_ = 0;

  const double duration_s = Seconds(now - w.open_at);
  if (duration_s <= 0 || (w.served == 0 && w.slow_drops == 0)) return;
  const double goodput = w.served / duration_s;
  std::optional<double> latency_s;
  if (w.served > 0) latency_s = w.latency_sum_s / w.served;
  if (latency_s) last_latency_s_ = latency_s;
  UpdateSizeSlope(w);

  if (state_ == State::kProbing) {
    CloseProbeWindow(now, w, duration_s, latency_s);
    return;
  }

  UpdateGapDeviation(w, duration_s, latency_s, window_limit);
  const bool had_baseline = baseline_s_.has_value();
  UpdateBaseline(w, window_limit, window_max_inflight, latency_s);
  if (!baseline_s_) return;
  if (!had_baseline) {
    StartFreshPool(w, /*from_shallow_probe=*/false);
    SetNoLoadDeviation();
  }
  // The baseline for this window's accesses (their size may differ from those behind W0).
  const double baseline = BaselineFor(MeanBytes(w));

  if (latency_s &&
      StartProbeIfStale(now, w, duration_s, *latency_s, window_limit, window_max_inflight)) {
    return;
  }

  // A fresh baseline rests on few accesses: the no-queue test allows for its standard error
  // (cv * W0 / sqrt(n); twice that after a shallow probe, see kShallowProbeBaselineErrors), so
  // that a baseline a few percent low by chance does not end slow start at once and leave the
  // limit below the knee.
  const double baseline_errors = fresh_from_shallow_probe_ ? kShallowProbeBaselineErrors : 1.0;
  const double baseline_error =
      fresh_served_ > 0 && fresh_served_ < kBaselineBlock
          ? baseline_errors * baseline * std::sqrt(latency_cv2_.value_or(0.0) / fresh_served_)
          : 0.0;
  // A queue is judged against the whole time a permit is held: with setup S, the tolerance
  // is (1 + t) * (W0 + S) - S.
  const double samples = w.served + w.slow_drops + w.fast_drops;
  const double mean_setup_s = samples > 0 ? w.setup_sum_s / samples : 0.0;
  const bool no_queue = latency_s && *latency_s <= (1 + options_.growth_tolerance) * baseline +
                                                       options_.growth_tolerance * mean_setup_s +
                                                       baseline_error;
  // Slow start: only until the first window that shows a queue, and again after a probe or
  // once demand fills an app-limited limit (what was learned while idle says little).
  const bool slow_start =
      state_ == State::kStartup || state_ == State::kGrowing || state_ == State::kAppLimited;
  // The limit binds if some access found it full and the permits were busy on average (by
  // Little's law, served * latency / duration in flight, plus those held in setup): at a limit
  // of 1 every access finds it full, even while idle.
  const double setup_holding = w.setup_sum_s / duration_s;
  // Where callers shed, refused demand binds the limit however idle its permits were.
  const bool refusing = CountRefusals(w, window_limit);
  CountExpiries(w);
  const bool limit_binds =
      loss_mode_ || (w.limit_reached && latency_s &&
                     goodput * *latency_s + setup_holding >= kBusyFraction * window_limit);
  // Where callers shed, only refusals say that demand wants more (latency may never show it).
  const bool growing = slow_start && no_queue && (loss_mode_ ? refusing : limit_binds);
  if (growing && fresh_served_ > 0 && fresh_served_ < kBaselineBlock) {
    // A fresh baseline rests on a few accesses; windows of slow start that show no queue
    // measure it too, and refine it (up or down) until it rests on a block.
    fresh_served_ += w.served;
    fresh_latency_sum_s_ += w.latency_sum_s;
    fresh_bytes_sum_ += w.bytes_sum;
    baseline_s_ = fresh_latency_sum_s_ / fresh_served_;
    baseline_bytes_ = fresh_bytes_sum_ / fresh_served_;
    NoteLowestBaseline();
  }
  // A ratio of averages rather than an average of ratios: per-window rates are biased upwards
  // (a window ends on a completion) and noisy.
  if (!goodput_ || growing || state_ == State::kGrowing || state_ == State::kStartup) {
    smoothed_served_ = w.served;
    smoothed_duration_s_ = duration_s;
    smoothed_bytes_ = w.bytes_sum;
  } else {
    smoothed_served_ += options_.smoothing * (w.served - smoothed_served_);
    smoothed_duration_s_ += options_.smoothing * (duration_s - smoothed_duration_s_);
    smoothed_bytes_ += options_.smoothing * (w.bytes_sum - smoothed_bytes_);
  }
  goodput_ = smoothed_served_ / smoothed_duration_s_;
  drop_holding_ += options_.smoothing * (w.slow_drop_latency_sum_s / duration_s - drop_holding_);
  setup_holding_ += options_.smoothing * (setup_holding - setup_holding_);

  UpdateBatchedFraction(w);
  if (const std::optional<double> cv2 = LatencyCv2(w)) {
    latency_cv2_ = latency_cv2_ ? *latency_cv2_ + kCvSmoothing * (*cv2 - *latency_cv2_) : *cv2;
  }
  double target = (loss_mode_ ? LossTarget(*goodput_) : Target(*goodput_)) + climb_;
  // Without significant refusals, the limit only falls: to what the demand needed.
  if (loss_mode_ && !refusing) {
    target = std::min({target, static_cast<double>(limit_), DemandQuantile()});
  }
  if (growing) {
    target = std::max(target, limit_ * options_.growth_factor);
    state_ = State::kGrowing;
  } else if (!limit_binds) {
    target = std::min(target, static_cast<double>(limit_));
    state_ = State::kAppLimited;
  } else {
    state_ = State::kTracking;
  }
  if (HoldForClimb(w, duration_s, latency_s.value_or(0.0), window_limit)) return;
  // A shared climb moves c every window: the target follows at once.
  if (state_ == State::kTracking && climb_shared_) target = Target(*goodput_) + climb_;
  const double floor = std::ceil(limit_ * options_.max_decrease);
  const int proposal = internal::ClampLimit(std::max(std::round(target), floor), options_.min_limit,
                                            options_.max_limit);
  const int diff = proposal - limit_;
  if (diff == 0) {
    pending_direction_ = 0;
    return;
  }
  const int direction = diff > 0 ? 1 : -1;
  if (growing) {
    limit_ = proposal;
    pending_direction_ = 0;
    return;
  }
  // A large cut applies at once: the queue it removes costs every access now. Any other move
  // waits for a second window that agrees, and an increase is at most kMaxStep of the limit,
  // so that noise in one window does not carry the limit away from the knee.
  const bool jump = std::abs(diff) >= std::max<double>(kJumpAccesses, kJumpFraction * limit_);
  if ((jump && direction < 0) || direction == pending_direction_) {
    const int step = std::max(1, static_cast<int>(kMaxStep * limit_));
    limit_ = direction > 0 ? std::min(proposal, limit_ + step) : proposal;
    pending_direction_ = 0;
  } else {
    pending_direction_ = direction;
  }
}

std::optional<double> KneeLimit::LatencyCv2(const Window& w) {
  if (w.served < 2) return std::nullopt;
  const double mean = w.latency_sum_s / w.served;
  const double variance = std::max(0.0, w.latency_sq_sum_s2 / w.served - mean * mean);
  return mean > 0 ? variance / (mean * mean) : 0.0;
}

double KneeLimit::Target(double goodput) const {
  // Permits held in setup are busy like the resource's own: they take the queue allowance too
  // (otherwise, while setup dominates, the target would barely exceed the permits in use).
  const double busy = goodput * BaselineFor(RecentBytes()) + setup_holding_;
  return busy + Headroom() * std::sqrt(SpreadFraction(busy, goodput) * busy) + drop_holding_;
}

double KneeLimit::SpreadFraction(double busy, double goodput) const {
  // Completions as regular as a clock say nothing about the servers (and rounding error in
  // both deviations would read as any number of them).
  if (!no_load_deviation_s_ || !gap_deviation_ || *gap_deviation_ < kMinGapDeviation) return 1.0;
  const double servers = *no_load_deviation_s_ * goodput / *gap_deviation_;
  const double c = servers - kServersShift;  // c <= 1 counts as one server: f = 1.
  if (c <= 1 || busy <= 1) return 1.0;
  const double f = std::pow(c, -kServersExponent) * std::max(0.0, busy - c) / (busy - 1);
  return std::max(kMinSpreadFraction, std::min(1.0, f));
}

void KneeLimit::CountNoLoadLatency(const Sample& sample, double latency_s) {
  if (baseline_s_ || sample.inflight > 1 || limit_ > 1) return;
  if (no_load_latencies_s_.size() < kFirstWindowSamples) no_load_latencies_s_.push_back(latency_s);
}

void KneeLimit::SetNoLoadDeviation() {
  const std::vector<double> latencies = std::exchange(no_load_latencies_s_, {});
  if (latencies.size() < kNoLoadSamples) return;
  double mean = 0;
  for (double latency : latencies) mean += latency;
  mean /= latencies.size();
  double deviation = 0;
  for (double latency : latencies) deviation += std::abs(latency - mean);
  no_load_deviation_s_ = deviation / latencies.size();
}

void KneeLimit::UpdateGapDeviation(const Window& w, double duration_s,
                                   std::optional<double> latency_s, int window_limit) {
  if (w.gaps < kMinGapsPerWindow || !w.limit_reached || !latency_s) return;
  if (w.served / duration_s * *latency_s < kGapBusyFraction * window_limit) return;
  const double deviation = w.gap_deviation / w.gaps;
  gap_deviation_ = gap_deviation_
                       ? *gap_deviation_ + kGapDeviationSmoothing * (deviation - *gap_deviation_)
                       : deviation;
}

double KneeLimit::Headroom() const {
  const double cv = std::sqrt(latency_cv2_.value_or(0.0));
  double headroom = options_.headroom + options_.headroom_per_cv * cv;
  // The bottleneck's own spread, which latency hides where a round trip makes up most of it.
  // It shows in latency at no load too: gaps that vary more than x * D0 (k * Dg) vary with
  // the arrivals, not the service. Batched completions say nothing about it.
  if (gap_deviation_ && *gap_deviation_ >= kMinGapDeviation && no_load_deviation_s_ && goodput_ &&
      !CompletionsBatched()) {
    const double spread = std::min(*gap_deviation_, *no_load_deviation_s_ * *goodput_);
    headroom = std::max(headroom, options_.headroom_per_gap_deviation * spread);
  }
  return std::min(options_.max_headroom, headroom);
}

std::optional<double> KneeLimit::knee() const noexcept {
  if (!goodput_ || !baseline_s_) return std::nullopt;
  return *goodput_ * BaselineFor(RecentBytes());
}

double KneeLimit::MeanSetupSeconds() const {
  return goodput_ && *goodput_ > 0 ? setup_holding_ / *goodput_ : 0.0;
}

AlgorithmEstimates KneeLimit::estimates() const {
  AlgorithmEstimates estimates;
  if (baseline_s_) estimates.baseline_latency = FromSeconds(BaselineFor(RecentBytes()));
  if (last_latency_s_) estimates.recent_latency = FromSeconds(*last_latency_s_);
  estimates.max_throughput = goodput_;
  switch (state_) {
    case State::kStartup:
      estimates.state = "startup";
      break;
    case State::kGrowing:
      estimates.state = "growing";
      break;
    case State::kTracking:
      estimates.state = climb_phase_ == ClimbPhase::kIdle ? "tracking" : "climbing";
      break;
    case State::kAppLimited:
      estimates.state = "app_limited";
      break;
    case State::kProbing:
      estimates.state = "probing";
      break;
  }
  return estimates;
}

std::unique_ptr<LimitAlgorithm> KneeLimit::Clone() const {
  return std::make_unique<KneeLimit>(*this);
}

}  // namespace blobtune::tuner
