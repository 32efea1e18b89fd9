#include "blobtune/tuner/algorithms/aimd.h"

#include <algorithm>
#include <array>

#include "algorithm_internal.h"
#include "option_table.h"

namespace blobtune::tuner {

namespace internal = algorithms_internal;

template <>
internal::OptionTable<AimdLimit::Options> internal::OptionsOf<AimdLimit::Options>() {
  using O = AimdLimit::Options;
  static constexpr std::array kRows = {
      Option<&O::backoff_ratio>("backoff_ratio", ClosedOpen(0.5, 1),
                                "factor applied to the limit on a drop"),
      Option<&O::timeout>("timeout_ms", Above(0), "a success slower than this counts as a drop"),
  };
  static constexpr auto kOptions = Concat(LimitRows<O>(), kRows);
  return kOptions;
}

Status AimdOptions::Validate() const { return internal::CheckOptions(AimdLimit::kName, *this); }

int AimdLimit::Step(const Sample& sample) const {
  double estimate = limit_;
  if (sample.dropped || sample.latency > options_.timeout) {
    estimate = limit_ * options_.backoff_ratio;  // ClampLimit floors, as Java's (int) cast does.
  } else if (static_cast<long long>(sample.inflight) * 2 >= limit_) {
    estimate = limit_ + 1;
  }
  return internal::ClampLimit(estimate, min_limit(), max_limit());
}

int AimdLimit::Update(const Sample& sample) {
  const uint32_t replays = std::clamp<uint32_t>(sample.weight, 1, internal::kMaxWeightReplays);
  for (uint32_t i = 0; i < replays; ++i) {
    const int next = Step(sample);
    if (next == limit_) break;  // The state is just the limit: further replays change nothing.
    limit_ = next;
  }
  return limit_;
}

}  // namespace blobtune::tuner
