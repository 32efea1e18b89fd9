#include "access_meter.h"

#include <algorithm>
#include <cmath>

namespace blobtune::plantbench {

void AtomicLatencyHistogram::Observe(Duration latency, uint64_t weight) noexcept {
  const double nanos = static_cast<double>(latency.count());
  size_t bucket = 0;
  if (nanos > kMinNanos) {
    double index = std::floor(std::log(nanos / kMinNanos) / std::log(kGrowth)) + 1.0;
    bucket = static_cast<size_t>(std::min(index, static_cast<double>(kBuckets - 1)));
  }
  counts_[bucket].fetch_add(weight, std::memory_order_relaxed);
}

double AtomicLatencyHistogram::QuantileMs(double q) const noexcept {
  uint64_t total = 0;
  for (const std::atomic<uint64_t>& count : counts_) total += count.load(std::memory_order_relaxed);
  if (total == 0) return 0.0;
  const uint64_t rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(total))));
  uint64_t seen = 0;
  size_t bucket = 0;
  for (; bucket + 1 < kBuckets; ++bucket) {
    seen += counts_[bucket].load(std::memory_order_relaxed);
    if (seen >= rank) break;
  }
  // Bucket b > 0 holds (kMin g^(b-1), kMin g^b].
  const double nanos =
      bucket == 0 ? kMinNanos : kMinNanos * std::pow(kGrowth, static_cast<double>(bucket) - 0.5);
  return nanos / 1e6;
}

AccessMeter::Window AccessMeter::window() const noexcept {
  Window w;
  w.successes = window_successes_.load(std::memory_order_relaxed);
  w.refused = window_refused_.load(std::memory_order_relaxed);
  w.attempts = window_attempts_.load(std::memory_order_relaxed);
  w.p99_ms = window_latency_.QuantileMs(0.99);
  return w;
}

AccessMeter::Totals AccessMeter::totals() const noexcept {
  Totals t;
  t.successes = total_successes_.load(std::memory_order_relaxed);
  t.timed_weight = total_timed_weight_.load(std::memory_order_relaxed);
  t.latency_sum_ms = static_cast<double>(total_latency_ns_.load(std::memory_order_relaxed)) / 1e6;
  return t;
}

void AccessMeter::OnAcquireFailed(tuner::PartitionId /*partition*/, tuner::AcquireFailure why) {
  // A cancelled acquire is the plant shutting down after the window, not a refusal.
  if (why == tuner::AcquireFailure::kCancelled) return;
  if (!in_window_.load(std::memory_order_relaxed)) return;
  window_refused_.fetch_add(1, std::memory_order_relaxed);
  window_attempts_.fetch_add(1, std::memory_order_relaxed);
}

void AccessMeter::OnReleased(tuner::PartitionId /*partition*/, tuner::PermitOutcome outcome,
                             const tuner::Sample* sample) {
  const bool success = outcome == tuner::PermitOutcome::kSuccess;
  if (success) {
    total_successes_.fetch_add(1, std::memory_order_relaxed);
    if (sample != nullptr) {
      total_timed_weight_.fetch_add(sample->weight, std::memory_order_relaxed);
      total_latency_ns_.fetch_add(static_cast<uint64_t>(sample->latency.count()) * sample->weight,
                                  std::memory_order_relaxed);
    }
  }
  if (!in_window_.load(std::memory_order_relaxed)) return;
  window_attempts_.fetch_add(1, std::memory_order_relaxed);
  if (!success) return;
  window_successes_.fetch_add(1, std::memory_order_relaxed);
  if (sample != nullptr) window_latency_.Observe(sample->latency, sample->weight);
}

}  // namespace blobtune::plantbench
