#include "blobtune/tuner/algorithms/vegas.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "algorithm_internal.h"
#include "option_table.h"

namespace blobtune::tuner {

namespace internal = algorithms_internal;

template <>
internal::OptionTable<VegasLimit::Options> internal::OptionsOf<VegasLimit::Options>() {
  using O = VegasLimit::Options;
  static constexpr std::array kRows = {
      Option<&O::smoothing>("smoothing", OpenClosed(0, 1),
                            "weight of the new estimate in each update"),
      Option<&O::alpha_factor>("alpha_factor", OpenClosed(0, 1000),
                               "queue, in multiples of log(limit), below which the limit grows"),
      Option<&O::beta_factor>("beta_factor", OpenClosed(0, 1000),
                              "queue, in multiples of log(limit), above which the limit shrinks; "
                              "at least alpha_factor"),
      Option<&O::threshold_factor>("threshold_factor", Closed(0, 1000),
                                   "queue, in multiples of log(limit), at or below which the limit "
                                   "grows by beta; at most alpha_factor"),
      Option<&O::probe_multiplier>("probe_multiplier", Closed(1, kLimitCeiling),
                                   "no-load latency is re-probed every ~this * limit samples"),
      Option<&O::seed>("seed", AtLeast(0), "seed of the probe jitter PRNG"),
  };
  static constexpr auto kOptions = Concat(LimitRows<O>(), kRows);
  return kOptions;
}

Status VegasOptions::Validate() const {
  constexpr std::string_view kName = VegasLimit::kName;
  if (Status s = internal::CheckOptions(kName, *this); !s.ok()) return s;
  if (beta_factor < alpha_factor) {
    return internal::InvalidField(kName, "beta_factor", "must be >= alpha_factor", beta_factor);
  }
  if (threshold_factor > alpha_factor) {
    return internal::InvalidField(kName, "threshold_factor", "must be <= alpha_factor",
                                  threshold_factor);
  }
  return Status::Ok();
}

double VegasLimit::DrawProbeJitter() {
  // From the top 53 bits: unlike std::uniform_real_distribution this gives the same sequence on
  // every standard library, so a seed reproduces a run anywhere.
  const double unit = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
  return 0.5 + 0.5 * unit;
}

void VegasLimit::Step(Duration rtt, int inflight, bool dropped) {
  if (rtt <= Duration::zero()) return;
  last_rtt_ = rtt;

  ++probe_count_;
  if (probe_jitter_ * options_.probe_multiplier * estimated_limit_ <=
      static_cast<double>(probe_count_)) {
    probe_jitter_ = DrawProbeJitter();
    probe_count_ = 0;
    rtt_noload_ = rtt;
    return;
  }
  if (rtt_noload_ == Duration::zero() || rtt < rtt_noload_) {
    rtt_noload_ = rtt;
    return;
  }

  const double noload_ratio =
      static_cast<double>(rtt_noload_.count()) / static_cast<double>(rtt.count());
  const double queue = std::ceil(estimated_limit_ * (1 - noload_ratio));
  const int whole_limit = static_cast<int>(estimated_limit_);
  const int log_limit = internal::Log10Root(whole_limit);

  double estimate;
  if (dropped) {
    estimate = estimated_limit_ - log_limit;
  } else if (static_cast<double>(inflight) * 2 < estimated_limit_) {
    return;
  } else if (queue <= options_.threshold_factor * log_limit) {
    estimate = estimated_limit_ + options_.beta_factor * log_limit;
  } else if (queue < options_.alpha_factor * log_limit) {
    estimate = estimated_limit_ + log_limit;
  } else if (queue > options_.beta_factor * log_limit) {
    estimate = estimated_limit_ - log_limit;
  } else {
    return;
  }

  estimate =
      std::clamp(estimate, static_cast<double>(min_limit()), static_cast<double>(max_limit()));
  estimated_limit_ = (1 - options_.smoothing) * estimated_limit_ + options_.smoothing * estimate;
  limit_ = internal::ClampLimit(estimated_limit_, min_limit(), max_limit());
}

int VegasLimit::Update(const Sample& sample) {
  const uint32_t replays = std::clamp<uint32_t>(sample.weight, 1, internal::kMaxWeightReplays);
  for (uint32_t i = 0; i < replays; ++i) Step(sample.latency, sample.inflight, sample.dropped);
  return limit_;
}

AlgorithmEstimates VegasLimit::estimates() const {
  AlgorithmEstimates estimates;
  if (rtt_noload_ > Duration::zero()) estimates.baseline_latency = rtt_noload_;
  if (last_rtt_ > Duration::zero()) estimates.recent_latency = last_rtt_;
  return estimates;
}

}  // namespace blobtune::tuner
