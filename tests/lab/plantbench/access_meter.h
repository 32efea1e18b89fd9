// AccessMeter: what one point's limiter did, counted as its LimiterObserver: the successes,
// refusals and attempts of the measured window, the access latency of its successes (p99), and
// running totals for the time series.
//
//   AccessMeter meter;
//   auto limiter = MakePointLimiter(spec, &meter).value();   // the meter outlives the limiter
//   ... warm-up ...
//   meter.OpenWindow();  ... measured ...  meter.CloseWindow();
//   AccessMeter::Window w = meter.window();                  // w.successes, w.p99_ms
//
// Access latency is the permit's, grant to Success() (the limiter's Sample). Above the
// limiter's full_sampling_rate only one permit in `stride` is timed; its sample counts with its
// weight, so the quantiles still stand for every success. Counts are exact (OnReleased is called
// for every permit, timed or not).
//
// Locking: none. Every callback is a few relaxed atomic adds (observers must not lock); a
// window's edges may count an event that ends right at OpenWindow()/CloseWindow() on either
// side, which is noise far below a point's thousands of accesses.
//
// Thread-safety: all methods may be called from any number of threads at once.
#ifndef BLOBTUNE_TESTS_LAB_PLANTBENCH_ACCESS_METER_H_
#define BLOBTUNE_TESTS_LAB_PLANTBENCH_ACCESS_METER_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "blobtune/tuner/limiter_observer.h"

namespace blobtune::plantbench {

// Log-spaced latency buckets of atomic counters: 1 us to 100 s, each 2% wider than the last,
// so a quantile is exact to about 1% of its value. Thread-safety: Observe() and QuantileMs()
// from any threads at once; a quantile taken while observations run sees some of them.
class AtomicLatencyHistogram {
 public:
  AtomicLatencyHistogram() = default;
  AtomicLatencyHistogram(const AtomicLatencyHistogram&) = delete;
  AtomicLatencyHistogram& operator=(const AtomicLatencyHistogram&) = delete;
  ~AtomicLatencyHistogram() = default;

  void Observe(Duration latency, uint64_t weight) noexcept;
  // The q-quantile in milliseconds (0 when empty), the geometric middle of its bucket.
  // REQUIRES: 0 < q <= 1.
  double QuantileMs(double q) const noexcept;

 private:
  static constexpr double kMinNanos = 1'000.0;  // Everything at or below: the first bucket.
  static constexpr double kGrowth = 1.02;
  static constexpr size_t kBuckets = 932;  // 1 + ceil(ln(1e8) / ln(1.02)): up to 100 s.
  std::array<std::atomic<uint64_t>, kBuckets> counts_{};
};

class AccessMeter final : public tuner::LimiterObserver {
 public:
  // The measured window's counts.
  struct Window {
    uint64_t successes = 0;
    uint64_t refused = 0;   // Acquires that timed out, found the queue full or were rejected.
    uint64_t attempts = 0;  // Permits released (any outcome) plus refused acquires.
    double p99_ms = 0.0;
  };
  // Since construction, window or not: for the time series.
  struct Totals {
    uint64_t successes = 0;
    uint64_t timed_weight = 0;    // Successes the timed samples stand for.
    double latency_sum_ms = 0.0;  // Their latency, weighted.
  };

  AccessMeter() = default;
  AccessMeter(const AccessMeter&) = delete;
  AccessMeter& operator=(const AccessMeter&) = delete;
  ~AccessMeter() override = default;

  void OpenWindow() noexcept { in_window_.store(true, std::memory_order_relaxed); }
  void CloseWindow() noexcept { in_window_.store(false, std::memory_order_relaxed); }
  Window window() const noexcept;
  Totals totals() const noexcept;

  // tuner::LimiterObserver.
  void OnAcquireFailed(tuner::PartitionId partition, tuner::AcquireFailure why) override;
  void OnReleased(tuner::PartitionId partition, tuner::PermitOutcome outcome,
                  const tuner::Sample* sample) override;

 private:
  // Memory ordering: relaxed everywhere; each counter is read on its own.
  std::atomic<bool> in_window_{false};
  std::atomic<uint64_t> window_successes_{0};
  std::atomic<uint64_t> window_refused_{0};
  std::atomic<uint64_t> window_attempts_{0};
  AtomicLatencyHistogram window_latency_;
  std::atomic<uint64_t> total_successes_{0};
  std::atomic<uint64_t> total_timed_weight_{0};
  std::atomic<uint64_t> total_latency_ns_{0};
};

}  // namespace blobtune::plantbench

#endif  // BLOBTUNE_TESTS_LAB_PLANTBENCH_ACCESS_METER_H_
