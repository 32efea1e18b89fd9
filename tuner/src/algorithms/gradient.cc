#include "blobtune/tuner/algorithms/gradient.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "algorithm_internal.h"
#include "option_table.h"

namespace blobtune::tuner {

namespace internal = algorithms_internal;

namespace {

constexpr std::string_view kName = EnvoyGradientLimit::kName;
// Envoy re-measures minRTT after this many consecutive updates that leave the limit at the floor.
constexpr int kUpdatesAtFloorBeforeRemeasure = 5;
constexpr double kMinGradient = 0.5;
constexpr double kMaxGradient = 2.0;

}  // namespace

template <>
internal::OptionTable<EnvoyGradientLimit::Options>
internal::OptionsOf<EnvoyGradientLimit::Options>() {
  using O = EnvoyGradientLimit::Options;
  static constexpr std::array kRows = {
      Option<&O::concurrency_update_interval>("concurrency_update_interval_ms",
                                              OpenClosed(0, kDayMs),
                                              "how often the limit is recomputed"),
      Option<&O::sample_aggregate_percentile>(
          "sample_aggregate_percentile", Closed(0, 100),
          "percentile of latencies taken as sampleRTT and minRTT"),
      Option<&O::min_rtt_calc_interval>("min_rtt_calc_interval_ms", OpenClosed(0, kDayMs),
                                        "time between minRTT windows, before jitter"),
      Option<&O::min_rtt_request_count>("min_rtt_request_count", AtLeast(1),
                                        "samples a minRTT window gathers"),
      Option<&O::jitter_percent>("jitter_percent", Closed(0, 100),
                                 "random delay added to min_rtt_calc_interval, in percent of it"),
      Option<&O::min_concurrency>("min_concurrency", Closed(1, kLimitCeiling),
                                  "the limit pinned during a minRTT window, within the limits"),
      Option<&O::buffer_percent>("buffer_percent", Closed(0, 100),
                                 "margin added to minRTT, in percent of it"),
      Option<&O::seed>("seed", AtLeast(0), "seed of the jitter PRNG"),
  };
  static constexpr auto kOptions = Concat(LimitRows<O>(), kRows);
  return kOptions;
}

Status EnvoyGradientOptions::Validate() const {
  if (Status s = internal::CheckOptions(kName, *this); !s.ok()) return s;
  if (min_concurrency < limits.min_limit || min_concurrency > limits.max_limit) {
    return internal::InvalidField(kName, "min_concurrency",
                                  "must lie within [min_limit, max_limit]", min_concurrency);
  }
  return Status::Ok();
}

// Envoy's constructor pins the limit to min_concurrency and enters a minRTT window. It also arms
// the update timer, but that timer either fires inside the window (and disarms itself) or is
// re-armed when the window ends, so leaving it disarmed here behaves the same without needing
// a construction time.
EnvoyGradientLimit::EnvoyGradientLimit(const Options& options)
    : AlgorithmBase(options), deferred_limit_(options.limits.initial_limit), rng_(options.seed) {
  limit_ = options.min_concurrency;
}

int EnvoyGradientLimit::Update(const Sample& sample) {
  const TimePoint now = sample.end();
  FireDueDeadlines(now);

  if (sample.start < min_rtt_epoch_) return limit_;  // Granted before this minRTT window.
  const uint32_t weight = std::max<uint32_t>(sample.weight, 1);
  recorded_.push_back({sample.latency, weight});
  recorded_weight_ += weight;
  MaybeFinishMinRttWindow(now);
  return limit_;
}

void EnvoyGradientLimit::FireDueDeadlines(TimePoint now) {
  while (true) {
    const bool window_due = next_min_rtt_window_ && *next_min_rtt_window_ <= now;
    const bool update_due = next_update_ && *next_update_ <= now;
    if (!window_due && !update_due) return;
    if (window_due && (!update_due || *next_min_rtt_window_ <= *next_update_)) {
      const TimePoint at = *next_min_rtt_window_;
      next_min_rtt_window_.reset();
      EnterMinRttWindow(at);
    } else {
      OnUpdateDeadline(*next_update_, now);
    }
  }
}

void EnvoyGradientLimit::OnUpdateDeadline(TimePoint deadline, TimePoint now) {
  if (InMinRttWindow()) {
    // Envoy's timer gives up here; finishing the window re-arms it.
    next_update_.reset();
    return;
  }
  const Duration interval = options_.concurrency_update_interval;
  if (recorded_.empty()) {
    // Envoy fires and re-arms once per interval without doing anything; jump straight to the
    // first deadline after `now` so that a long idle gap costs one step, not one per interval.
    const auto skipped = (now - deadline) / interval + 1;
    next_update_ = deadline + skipped * interval;
    return;
  }
  sample_rtt_ = TakePercentile();
  SetLimit(CalculateNewLimit(), deadline);
  next_update_ = deadline + interval;
}

void EnvoyGradientLimit::EnterMinRttWindow(TimePoint at) {
  if (InMinRttWindow()) return;
  deferred_limit_ = limit_;
  SetLimit(options_.min_concurrency, at);
  // Latencies from before the window may not reflect the ideal latency.
  recorded_.clear();
  recorded_weight_ = 0;
  min_rtt_epoch_ = at;
}

void EnvoyGradientLimit::MaybeFinishMinRttWindow(TimePoint now) {
  if (!InMinRttWindow() ||
      recorded_weight_ < static_cast<uint64_t>(options_.min_rtt_request_count)) {
    return;
  }
  min_rtt_ = TakePercentile();
  SetLimit(deferred_limit_, now);
  deferred_limit_ = 0;
  next_min_rtt_window_ = now + Jittered(options_.min_rtt_calc_interval);
  next_update_ = now + options_.concurrency_update_interval;
}

int EnvoyGradientLimit::CalculateNewLimit() const {
  // Both are set by now (updates happen only after the first minRTT window); at least 1 ns.
  auto ns = [](std::optional<Duration> rtt) {
    return static_cast<double>(std::max<Duration::rep>(rtt.value_or(Duration::zero()).count(), 1));
  };
  const double min_rtt = ns(min_rtt_);
  const double buffered_min_rtt = min_rtt + min_rtt * options_.buffer_percent / 100;
  const double gradient =
      std::clamp(buffered_min_rtt / ns(sample_rtt_), kMinGradient, kMaxGradient);
  const double scaled = limit_ * gradient;
  return internal::ClampLimit(scaled + std::sqrt(scaled), min_limit(), max_limit());
}

void EnvoyGradientLimit::SetLimit(int new_limit, TimePoint at) {
  const bool at_floor = !InMinRttWindow() && limit_ == min_limit() && new_limit == min_limit();
  updates_at_floor_ = at_floor ? updates_at_floor_ + 1 : 0;
  limit_ = new_limit;
  // Stuck at the floor: the minRTT may be wrong, and the limit is already low enough to measure
  // it again. Envoy arms its timer with a zero delay; FireDueDeadlines() picks this up at once.
  if (updates_at_floor_ >= kUpdatesAtFloorBeforeRemeasure) next_min_rtt_window_ = at;
}

Duration EnvoyGradientLimit::TakePercentile() {
  std::ranges::sort(recorded_, {}, &Recorded::latency);
  // Nearest rank over the weights: the smallest latency whose cumulative weight reaches
  // ceil(p * total), with rank at least 1 so that p0 is the minimum.
  const double fraction = options_.sample_aggregate_percentile / 100;
  const auto rank = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::ceil(fraction * static_cast<double>(recorded_weight_))));
  Duration result = recorded_.back().latency;
  uint64_t cumulative = 0;
  for (const Recorded& r : recorded_) {
    cumulative += r.weight;
    if (cumulative >= rank) {
      result = r.latency;
      break;
    }
  }
  recorded_.clear();
  recorded_weight_ = 0;
  return result;
}

Duration EnvoyGradientLimit::Jittered(Duration interval) {
  const double fraction = options_.jitter_percent / 100;
  const auto range =
      static_cast<uint64_t>(std::ceil(static_cast<double>(interval.count()) * fraction));
  if (range == 0) return interval;
  // Envoy's `interval + random() % range`, in nanoseconds instead of milliseconds.
  return interval + Duration(static_cast<Duration::rep>(rng_() % range));
}

AlgorithmEstimates EnvoyGradientLimit::estimates() const {
  return {.baseline_latency = min_rtt_,
          .recent_latency = sample_rtt_,
          .state = InMinRttWindow() ? "min_rtt_window" : "adjusting"};
}

}  // namespace blobtune::tuner
