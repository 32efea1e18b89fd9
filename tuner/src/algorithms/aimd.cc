#include "blobtune/tuner/algorithms/aimd.h"

#include <algorithm>

#include "algorithm_internal.h"

namespace blobtune::tuner {

namespace internal = algorithms_internal;

Status AimdLimit::Options::Validate() const {
  if (Status s = internal::ValidateLimits("aimd", min_limit, initial_limit, max_limit); !s.ok()) {
    return s;
  }
  if (!(backoff_ratio >= 0.5 && backoff_ratio < 1.0)) {  // Also rejects NaN.
    return internal::InvalidField("aimd", "backoff_ratio", "must lie within [0.5, 1)",
                                  backoff_ratio);
  }
  return internal::RequirePositive("aimd", "timeout", timeout);
}

StatusOr<AimdLimit> AimdLimit::Create(const Options& options) {
  if (Status status = options.Validate(); !status.ok()) return status;
  return AimdLimit(options);
}

int AimdLimit::Step(const Sample& sample) const {
  double estimate = limit_;
  if (sample.dropped || sample.latency > options_.timeout) {
    estimate = limit_ * options_.backoff_ratio;  // ClampLimit floors, as Java's (int) cast does.
  } else if (static_cast<long long>(sample.inflight) * 2 >= limit_) {
    estimate = limit_ + 1;
  }
  return internal::ClampLimit(estimate, options_.min_limit, options_.max_limit);
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

std::unique_ptr<LimitAlgorithm> AimdLimit::Clone() const {
  return std::make_unique<AimdLimit>(*this);
}

}  // namespace blobtune::tuner
