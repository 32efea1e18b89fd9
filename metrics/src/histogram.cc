#include "blobtune/metrics/histogram.h"

#include <algorithm>
#include <utility>

namespace blobtune::metrics {
namespace {

std::vector<uint64_t> StrictlyIncreasing(std::vector<uint64_t> bounds) {
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  return bounds;
}

}  // namespace

AtomicHistogram::AtomicHistogram(std::vector<uint64_t> upper_bounds)
    : upper_bounds_(StrictlyIncreasing(std::move(upper_bounds))),
      sum_index_(upper_bounds_.size() + 1),
      counts_(upper_bounds_.size() + 2) {}

void AtomicHistogram::ObserveNonZero(uint64_t value, uint64_t weight) noexcept {
  // A binary search over ~20 bounds: a handful of predictable compares, no shared writes.
  const auto it = std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(), value);
  const auto bucket = static_cast<size_t>(it - upper_bounds_.begin());
  counts_.Add(bucket, weight, sum_index_, value * weight);
}

HistogramSnapshot AtomicHistogram::Snapshot() const {
  std::vector<uint64_t> totals = counts_.Read();
  HistogramSnapshot s;
  s.upper_bounds = upper_bounds_;
  s.sum = totals[sum_index_];
  totals.pop_back();
  s.counts = std::move(totals);
  for (uint64_t count : s.counts) s.count += count;
  return s;
}

std::vector<uint64_t> LatencyBucketsNanos() {
  constexpr uint64_t kUs = 1000;
  constexpr uint64_t kMs = 1000 * kUs;
  constexpr uint64_t kS = 1000 * kMs;
  return {25 * kUs,   50 * kUs,  100 * kUs, 250 * kUs,  500 * kUs, 1 * kMs,
          2500 * kUs, 5 * kMs,   10 * kMs,  25 * kMs,   50 * kMs,  100 * kMs,
          250 * kMs,  500 * kMs, 1 * kS,    2500 * kMs, 5 * kS,    10 * kS};
}

std::vector<uint64_t> BatchSizeBuckets() {
  std::vector<uint64_t> bounds;
  for (uint64_t b = 1; b <= 4096; b *= 2) bounds.push_back(b);
  return bounds;
}

}  // namespace blobtune::metrics
