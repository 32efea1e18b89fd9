// LimiterMetrics: the Prometheus series of one Limiter, collected through its LimiterObserver
// interface: counters and histograms as permits come and go, and, from the limiter's creation
// to its destruction, its gauges read at scrape time (limit, inflight, queue length, bounds,
// the algorithm's name, state and estimates).
//
//   metrics::LimiterMetrics* m = registry.AddLimiter("put").value();
//   tuner::LimiterOptions options;
//   options.observer = m;                            // all it takes: the limiter links itself
//   auto limiter = tuner::Limiter::Create(std::move(options)).value();
//
// Sampling: every grant, failure and release is counted exactly. Permit latencies come from the
// limiter's samples: above LimiterOptions::full_sampling_rate only one permit in `stride` is
// timed and its sample is counted with its weight, so the histogram's count still estimates
// completions. Ignored permits carry no sample and no latency.
//
// Locking: the callbacks on the permit path write only cells of the calling thread's own
// (PerThreadCounters, AtomicHistogram): no lock, no locked instruction, no cache line shared
// with another thread, no allocation after a thread's first permit. A scrape sums the threads'
// cells. A mutex guards the link to the limiter; only the limiter's creation and destruction and
// scrapes take it.
//
// Thread-safety: all methods may be called from any number of threads at once. The object must
// outlive the limiter it observes. It observes one limiter at a time: a second limiter created
// with it replaces the first's gauges.
#ifndef BLOBTUNE_METRICS_LIMITER_METRICS_H_
#define BLOBTUNE_METRICS_LIMITER_METRICS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/base/mutex.h"
#include "blobtune/base/thread_annotations.h"
#include "blobtune/metrics/histogram.h"
#include "blobtune/metrics/per_thread_counters.h"
#include "blobtune/tuner/limiter.h"
#include "blobtune/tuner/limiter_observer.h"

namespace blobtune::metrics {

// How an acquire ended: the `outcome` label of blobtune_limiter_permits_total. The first three
// are how a granted permit was released; the others why an acquire got no permit.
enum class PermitEnd { kSuccess, kDropped, kIgnored, kRejected, kTimeout, kCancelled, kQueueFull };
inline constexpr size_t kPermitEndCount = 7;

// "success", "dropped", "ignored", "rejected", "timeout", "cancelled", "queue_full".
std::string_view PermitEndName(PermitEnd end) noexcept;

// What the attached limiter showed at one scrape.
struct LimiterGauges {
  int limit = 0;
  int inflight = 0;
  size_t queue_length = 0;
  uint32_t sample_stride = 1;
  uint64_t lost_samples = 0;
  int min_limit = 0;  // The algorithm's bounds: limit stays within them.
  int max_limit = 0;
  std::string algorithm;
  std::optional<double> baseline_latency_seconds;
  std::optional<double> recent_latency_seconds;
  std::optional<double> max_throughput;  // Permits per second.
  std::string state;                     // Empty when the algorithm has no state machine.
};

// One partition of a limiter with partitions (tuner/partition.h) at one scrape.
struct PartitionSnapshot {
  std::string name;
  std::array<uint64_t, kPermitEndCount> permits{};  // Indexed by PermitEnd.
  HistogramSnapshot success_latency;                // Nanoseconds, the partition's successes.
  HistogramSnapshot queue_wait;                     // Nanoseconds, the partition's grants.
  std::optional<tuner::PartitionStatus> status;     // Set while the observed limiter exists.
};

// One limiter's series at one moment.
struct LimiterSnapshot {
  std::string name;
  std::array<uint64_t, kPermitEndCount> permits{};  // Indexed by PermitEnd.
  uint64_t limit_increases = 0;
  uint64_t limit_decreases = 0;
  HistogramSnapshot success_latency;    // Nanoseconds, successful permits.
  HistogramSnapshot dropped_latency;    // Nanoseconds, dropped permits.
  HistogramSnapshot queue_wait;         // Nanoseconds, every grant (0 for an immediate one).
  std::optional<LimiterGauges> gauges;  // Set while the observed limiter exists.
  // Empty unless the observed limiter has partitions.
  std::vector<PartitionSnapshot> partitions;
};

class LimiterMetrics final : public tuner::LimiterObserver {
 public:
  explicit LimiterMetrics(std::string name);
  LimiterMetrics(const LimiterMetrics&) = delete;
  LimiterMetrics& operator=(const LimiterMetrics&) = delete;
  ~LimiterMetrics() override = default;

  // The `limiter` label value.
  const std::string& name() const noexcept { return name_; }

  LimiterSnapshot Snapshot() const;

  // tuner::LimiterObserver.
  void OnLimiterCreated(const tuner::Limiter& limiter) override;
  void OnLimiterDestroyed(const tuner::Limiter& limiter) override;
  void OnGranted(tuner::PartitionId partition, Duration queue_wait) override;
  void OnAcquireFailed(tuner::PartitionId partition, tuner::AcquireFailure why) override;
  void OnReleased(tuner::PartitionId partition, tuner::PermitOutcome outcome,
                  const tuner::Sample* sample) override;
  void OnLimitChanged(int old_limit, int new_limit,
                      const tuner::AlgorithmEstimates& estimates) override;

 private:
  // Counts `end` for the limiter and, if it has partitions, for `partition`.
  void Count(tuner::PartitionId partition, PermitEnd end) noexcept {
    permits_.Add(static_cast<size_t>(end));
    if (PerThreadCounters* by_partition = partition_permits_.load(std::memory_order_relaxed)) {
      by_partition->Add(partition.index * kPermitEndCount + static_cast<size_t>(end));
    }
  }
  // OnReleased() of a permit with a sample. Out of line, so that OnReleased() stays a leaf
  // function for untimed permits.
  [[gnu::noinline]] void OnTimedRelease(tuner::PartitionId partition, tuner::PermitOutcome outcome,
                                        const tuner::Sample& sample);

  // The latency histograms of one partition.
  struct PartitionHistograms {
    PartitionHistograms();
    AtomicHistogram success_latency;
    AtomicHistogram queue_wait;
  };

  // OnGranted() of a limiter with partitions. Out of line, so that OnGranted() stays a leaf
  // function for limiters without.
  [[gnu::noinline]] void OnPartitionGranted(tuner::PartitionId partition, Duration queue_wait);

  const std::string name_;
  // Indexed by PermitEnd; written on every acquire and release.
  PerThreadCounters permits_{kPermitEndCount};
  // Monotonic counters, relaxed: each is read on its own at scrape time. Shared atomics: a limit
  // changes at most once per sample, far less often than permits come and go.
  std::atomic<uint64_t> limit_increases_{0};
  std::atomic<uint64_t> limit_decreases_{0};
  AtomicHistogram success_latency_;
  AtomicHistogram dropped_latency_;
  AtomicHistogram queue_wait_;

  // For a limiter with partitions: counters indexed by partition x kPermitEndCount + PermitEnd,
  // made when the first such limiter is created (before it grants a permit) and kept.
  std::atomic<PerThreadCounters*> partition_permits_{nullptr};
  // Likewise, by partition index: set for each partition of such a limiter when it is created.
  std::array<std::atomic<PartitionHistograms*>, tuner::Limiter::kMaxPartitions>
      partition_histograms_{};

  mutable Mutex link_mu_;
  // The observed limiter, from its creation to its destruction.
  const tuner::Limiter* limiter_ BLOBTUNE_GUARDED_BY(link_mu_) = nullptr;
  std::unique_ptr<PerThreadCounters> partition_permits_owner_ BLOBTUNE_GUARDED_BY(link_mu_);
  std::vector<std::unique_ptr<PartitionHistograms>> partition_histograms_owner_
      BLOBTUNE_GUARDED_BY(link_mu_);
  // Of the last such limiter.
  std::vector<std::string> partition_names_ BLOBTUNE_GUARDED_BY(link_mu_);
};

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_LIMITER_METRICS_H_
