#include "latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace blobtune::workbench {
namespace {

constexpr double kMinMs = 0.001;  // Bucket 0 holds everything up to 1 us.
constexpr double kGrowth = 1.01;
const double kLogGrowth = std::log(kGrowth);
constexpr size_t kBuckets = 2400;  // 1 us * 1.01^2400 is about 3 hours.

size_t BucketOf(double ms) {
  if (ms <= kMinMs) return 0;
  double index = std::ceil(std::log(ms / kMinMs) / kLogGrowth);
  return std::min(kBuckets - 1, static_cast<size_t>(index));
}

// The geometric middle of a bucket, so the quantile is within 0.5% of the truth.
double ValueOf(size_t bucket) {
  if (bucket == 0) return kMinMs;
  return kMinMs * std::pow(kGrowth, static_cast<double>(bucket) - 0.5);
}

}  // namespace

LatencyHistogram::LatencyHistogram() : buckets_(kBuckets, 0) {}

void LatencyHistogram::Record(Duration latency) {
  double ms = std::chrono::duration<double, std::milli>(latency).count();
  ++buckets_[BucketOf(ms)];
  ++count_;
  sum_ms_ += ms;
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < kBuckets; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ms_ += other.sum_ms_;
}

double LatencyHistogram::MeanMs() const {
  return count_ == 0 ? 0.0 : sum_ms_ / static_cast<double>(count_);
}

double LatencyHistogram::QuantileMs(double q) const {
  if (count_ == 0) return 0.0;
  // The smallest value with at least ceil(q * count) values at or below it.
  auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= rank) return ValueOf(i);
  }
  return ValueOf(kBuckets - 1);
}

}  // namespace blobtune::workbench
