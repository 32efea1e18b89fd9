// AtomicHistogram: a fixed-bucket histogram for observer callbacks on the limiter's
// acquire/release path, whose Observe() shares no cache line with other threads: the bucket
// counts and the sum are PerThreadCounters (per_thread_counters.h), combined at scrape time.
//
// prometheus-cpp 1.0.1's Histogram::Observe takes a std::mutex (core/src/histogram.cc), and even
// a shared atomic add passes its cache line between the cores that observe, so blobtune counts
// buckets itself and hands the result to prometheus-cpp at scrape time (see exporter.h).
//
//   AtomicHistogram h(LatencyBucketsNanos());          // values in nanoseconds
//   h.Observe(latency.count());                         // from any thread
//   h.Observe(latency.count(), /*weight=*/8);           // one sample standing for 8 events
//   HistogramSnapshot s = h.Snapshot();                 // at scrape time
//
// Values and bounds are unsigned integers in the unit the caller chooses (nanoseconds for
// latencies, operations for batch sizes); the exposition scales them to base units.
//
// Cost: Observe(0) adds to this thread's cell of the first bucket, inline; any other value
// finds its bucket by binary search and adds to this thread's cells of that bucket and the sum.
//
// Memory ordering: relaxed, as in PerThreadCounters. A snapshot taken while observations run
// may count an observation in its bucket but not yet in the sum (or the reverse), which
// Prometheus tolerates. The count is the sum of the bucket counts read, so buckets and count
// always agree, and no count goes down from one snapshot to the next.
//
// Thread-safety: Observe() and Snapshot() may be called from any number of threads at once.
#ifndef BLOBTUNE_METRICS_HISTOGRAM_H_
#define BLOBTUNE_METRICS_HISTOGRAM_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "blobtune/metrics/per_thread_counters.h"

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
  void Observe(uint64_t value, uint64_t weight = 1) noexcept {
    // Most observations on the permit path are zero (a grant without waiting): the first
    // bucket, nothing to add to the sum, no search.
    if (value == 0) [[likely]] {
      counts_.Add(0, weight);
    } else {
      ObserveNonZero(value, weight);
    }
  }

  HistogramSnapshot Snapshot() const;

  const std::vector<uint64_t>& upper_bounds() const noexcept { return upper_bounds_; }

 private:
  void ObserveNonZero(uint64_t value, uint64_t weight) noexcept;

  const std::vector<uint64_t> upper_bounds_;
  const size_t sum_index_;  // upper_bounds_.size() + 1: the counter after the +Inf bucket.
  // One counter per bucket (the last is +Inf), then the sum of value * weight.
  PerThreadCounters counts_;
};

// Bounds for latencies, in nanoseconds: 25 us to 10 s, about three per decade.
std::vector<uint64_t> LatencyBucketsNanos();
// Bounds for group-commit batch sizes, in operations: 1, 2, 4, ..., 4096.
std::vector<uint64_t> BatchSizeBuckets();

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_HISTOGRAM_H_
