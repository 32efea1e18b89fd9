#include "blobtune/tuner/algorithms/gradient2.h"

#include <algorithm>
#include <array>
#include <chrono>

#include "algorithm_internal.h"
#include "option_table.h"

namespace blobtune::tuner {

namespace internal = algorithms_internal;

namespace {

// ExpAvgMeasurement's warm-up length, fixed by Gradient2Limit's constructor.
constexpr int kLongRttWarmup = 10;
// When long_rtt exceeds this multiple of the current latency, it decays by kLongRttDecay.
constexpr double kLongRttResetRatio = 2.0;
constexpr double kLongRttDecay = 0.95;

}  // namespace

template <>
internal::OptionTable<Gradient2Limit::Options> internal::OptionsOf<Gradient2Limit::Options>() {
  using O = Gradient2Limit::Options;
  static constexpr std::array kRows = {
      Option<&O::smoothing>("smoothing", OpenClosed(0, 1),
                            "weight of the new estimate in each update"),
      Option<&O::queue_size>("queue_size", Closed(0, kLimitCeiling),
                             "accesses the limit may grow by per update while latency is low"),
      Option<&O::long_window>("long_window", AtLeast(1),
                              "span of the long-term latency average, in updates"),
      Option<&O::rtt_tolerance>(
          "rtt_tolerance", Closed(1, 100),
          "latency over the long-term average, as a ratio, before the limit shrinks"),
      Option<&O::window_size>("window_size", AtLeast(0),
                              "samples a window needs to produce an update; 0 disables the window"),
      Option<&O::min_window_time>("min_window_time_ms", Above(0), "shortest window"),
      Option<&O::max_window_time>("max_window_time_ms", OpenClosed(0, kHourMs),
                                  "longest window, at least min_window_time_ms"),
      Option<&O::min_rtt_threshold>("min_rtt_threshold_ms", AtLeast(0),
                                    "windowed samples faster than this are ignored"),
  };
  static constexpr auto kOptions = Concat(LimitRows<O>(), kRows);
  return kOptions;
}

Status Gradient2Options::Validate() const {
  constexpr std::string_view kName = Gradient2Limit::kName;
  if (Status s = internal::CheckOptions(kName, *this); !s.ok()) return s;
  if (max_window_time < min_window_time) {
    return internal::InvalidField(
        kName, "max_window_time_ms", "must be >= min_window_time_ms",
        std::chrono::duration<double, std::milli>(max_window_time).count());
  }
  return Status::Ok();
}

void Gradient2Limit::Step(double rtt_ns, int inflight) {
  if (rtt_ns <= 0) return;
  last_rtt_ns_ = rtt_ns;

  if (long_rtt_.count < kLongRttWarmup) {
    ++long_rtt_.count;
    long_rtt_.sum += rtt_ns;
    long_rtt_.value = long_rtt_.sum / long_rtt_.count;
  } else {
    const double factor = 2.0 / (options_.long_window + 1);
    long_rtt_.value = long_rtt_.value * (1 - factor) + rtt_ns * factor;
  }
  const double long_rtt = long_rtt_.value;
  if (long_rtt / rtt_ns > kLongRttResetRatio) long_rtt_.value *= kLongRttDecay;

  if (inflight < estimated_limit_ / 2) return;

  const double gradient = std::clamp(options_.rtt_tolerance * long_rtt / rtt_ns, 0.5, 1.0);
  double estimate = estimated_limit_ * gradient + options_.queue_size;
  estimate = estimated_limit_ * (1 - options_.smoothing) + estimate * options_.smoothing;
  estimated_limit_ =
      std::clamp(estimate, static_cast<double>(min_limit()), static_cast<double>(max_limit()));
  limit_ = internal::ClampLimit(estimated_limit_, min_limit(), max_limit());
}

void Gradient2Limit::AddToWindow(const Sample& sample) {
  if (sample.latency < options_.min_rtt_threshold) return;

  const uint32_t weight = std::max<uint32_t>(sample.weight, 1);
  window_.min_rtt = std::min(window_.min_rtt, sample.latency);
  window_.rtt_sum_ns += static_cast<double>(sample.latency.count()) * weight;
  window_.count += weight;
  window_.max_inflight = std::max(window_.max_inflight, sample.inflight);

  const TimePoint end = sample.end();
  if (end <= next_window_end_) return;

  const Window closed = window_;
  window_ = Window{};
  // Clamping the min latency first keeps the doubling from overflowing; the result is the same.
  const Duration span = std::clamp(std::min(closed.min_rtt, options_.max_window_time) * 2,
                                   options_.min_window_time, options_.max_window_time);
  next_window_end_ = end + span;
  if (closed.count >= static_cast<uint64_t>(options_.window_size)) {
    Step(closed.rtt_sum_ns / static_cast<double>(closed.count), closed.max_inflight);
  }
}

int Gradient2Limit::Update(const Sample& sample) {
  if (options_.window_size > 0) {
    AddToWindow(sample);
    return limit_;
  }
  const uint32_t replays = std::clamp<uint32_t>(sample.weight, 1, internal::kMaxWeightReplays);
  const auto rtt_ns = static_cast<double>(sample.latency.count());
  for (uint32_t i = 0; i < replays; ++i) Step(rtt_ns, sample.inflight);
  return limit_;
}

AlgorithmEstimates Gradient2Limit::estimates() const {
  if (long_rtt_.count == 0) return {};
  return {.baseline_latency = Duration(static_cast<Duration::rep>(long_rtt_.value)),
          .recent_latency = Duration(static_cast<Duration::rep>(last_rtt_ns_))};
}

}  // namespace blobtune::tuner
