// LatencyHistogram: quantiles of millions of latencies in constant memory.
//
// Buckets grow geometrically by 1% from 1 us to about 3 hours, so a quantile is exact to within
// 1% of its value; the mean and count are exact.
//
//   LatencyHistogram h;
//   h.Record(std::chrono::milliseconds(45));
//   double p99_ms = h.QuantileMs(0.99);
//
// Thread-safety: none; one simulation records into its own histograms.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_LATENCY_HISTOGRAM_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_LATENCY_HISTOGRAM_H_

#include <cstdint>
#include <vector>

#include "blobtune/base/clock.h"

namespace blobtune::workbench {

class LatencyHistogram {
 public:
  LatencyHistogram();

  LatencyHistogram(const LatencyHistogram&) = default;
  LatencyHistogram& operator=(const LatencyHistogram&) = default;
  LatencyHistogram(LatencyHistogram&&) noexcept = default;
  LatencyHistogram& operator=(LatencyHistogram&&) noexcept = default;
  ~LatencyHistogram() = default;

  void Record(Duration latency);
  void Merge(const LatencyHistogram& other);

  uint64_t count() const { return count_; }
  double MeanMs() const;
  // The q-quantile in milliseconds (0 when empty). REQUIRES: 0 <= q <= 1.
  double QuantileMs(double q) const;

 private:
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  double sum_ms_ = 0.0;
};

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_LATENCY_HISTOGRAM_H_
