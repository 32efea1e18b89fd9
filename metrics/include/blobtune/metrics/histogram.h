// AtomicHistogram: a fixed-bucket histogram whose Observe() is a few relaxed atomic adds, for
// observer callbacks on the limiter's acquire/release path.
//
// prometheus-cpp 1.0.1's Histogram::Observe takes a std::mutex (core/src/histogram.cc), and the
// observers must not take locks, so blobtune counts buckets itself and hands the result to
// prometheus-cpp at scrape time (see exporter.h).
//
//   AtomicHistogram h(LatencyBucketsNanos());          // values in nanoseconds
//   h.Observe(latency.count());                         // from any thread
//   h.Observe(latency.count(), /*weight=*/8);           // one sample standing for 8 events
//   HistogramSnapshot s = h.Snapshot();                 // at scrape time
//
// Values and bounds are unsigned integers in the unit the caller chooses (nanoseconds for
// latencies, operations for batch sizes); the exposition scales them to base units.
//
// Memory ordering: every atomic is relaxed. Each bucket and the sum are independent monotonic
// counters; a snapshot taken while observations run may count an observation in its bucket
// but not yet in the sum (or the reverse), which Prometheus tolerates. The count is the sum of
// the bucket counts read, so buckets and count always agree.
//
// Thread-safety: Observe() and Snapshot() may be called from any number of threads at once.
#ifndef BLOBTUNE_METRICS_HISTOGRAM_H_
#define BLOBTUNE_METRICS_HISTOGRAM_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace blobtune::metrics {

// A histogram's counts at one moment.
struct HistogramSnapshot {
  std::vector<uint64_t> upper_bounds;  // Inclusive upper bounds, strictly increasing.
  // Per bucket, not cumulative; one more than upper_bounds (the last is the +Inf bucket).
  std::vector<uint64_t> counts;
  uint64_t count = 0;  // Sum of `counts` (weights included).
  uint64_t sum = 0;    // Sum of value * weight.
};

class AtomicHistogram {
 public:
  // REQUIRES: `upper_bounds` is strictly increasing (checked: otherwise they are sorted and
  // de-duplicated).
  explicit AtomicHistogram(std::vector<uint64_t> upper_bounds);

  AtomicHistogram(const AtomicHistogram&) = delete;
  AtomicHistogram& operator=(const AtomicHistogram&) = delete;
  ~AtomicHistogram() = default;

  // Counts `weight` events of size `value`: into the first bucket whose bound is >= value.
  void Observe(uint64_t value, uint64_t weight = 1) noexcept;

  HistogramSnapshot Snapshot() const;

  const std::vector<uint64_t>& upper_bounds() const noexcept { return upper_bounds_; }

 private:
  const std::vector<uint64_t> upper_bounds_;
  // upper_bounds_.size() + 1 counters; each is only ever incremented.
  const std::unique_ptr<std::atomic<uint64_t>[]> counts_;
  std::atomic<uint64_t> sum_{0};
};

// Bounds for latencies, in nanoseconds: 25 us to 10 s, about three per decade.
std::vector<uint64_t> LatencyBucketsNanos();
// Bounds for group-commit batch sizes, in operations: 1, 2, 4, ..., 4096.
std::vector<uint64_t> BatchSizeBuckets();

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_HISTOGRAM_H_
