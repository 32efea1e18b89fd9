// Internal: LimiterState, what a Limiter holds and does short of building permits: the admission
// word and the inline half of the hot path, the wait queue, the samples and the algorithm. Not
// part of the API (limiter.h is): it is in a header only because TryAcquire() and the release of
// an untimed permit are inlined into their callers. Limiter derives from it privately. Waiter, a
// node of the wait queue, is here because async_acquire.h derives from it.
//
// Thread-safety: as the Limiter's; each member says what makes it safe.
#ifndef BLOBTUNE_TUNER_INTERNAL_LIMITER_STATE_H_
#define BLOBTUNE_TUNER_INTERNAL_LIMITER_STATE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "blobtune/base/clock.h"
#include "blobtune/base/mutex.h"
#include "blobtune/base/thread_annotations.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "blobtune/tuner/limiter_observer.h"
#include "blobtune/tuner/partition.h"
#include "blobtune/tuner/sample.h"

namespace blobtune::tuner {

enum class QueueOrder;  // limiter.h
struct LimiterOptions;  // limiter.h

namespace internal {

class PartitionQueues;
class SampleQueue;

// A node in the limiter's wait queue. Every field is guarded by the limiter's queue mutex.
struct Waiter {
  enum class State {
    kIdle,     // Not queued yet.
    kWaiting,  // In the queue.
    kGranted,  // A slot was taken for it; granted_* say which. No longer queued.
    kFailed,   // `failure` says why. No longer queued.
  };

  Waiter() = default;
  Waiter(const Waiter&) = delete;
  Waiter& operator=(const Waiter&) = delete;

  // Called with the queue mutex held right after `state` left kWaiting: wake the acquirer.
  virtual void Notify() = 0;

  State state = State::kIdle;
  AcquireFailure failure = AcquireFailure::kRejected;
  int granted_inflight = 0;
  uint64_t granted_sequence = 0;
  TimePoint queued_at{};
  // The partition it waits in (PartitionId::index).
  uint32_t partition = 0;
  // False when overload shedding cut its deadline (LimiterOptions::overload_wait).
  bool full_wait = true;
  Waiter* prev = nullptr;
  Waiter* next = nullptr;

 protected:
  ~Waiter() = default;
};

// A partition's permits in flight, on a cache line of its own.
struct alignas(64) PartitionCount {
  std::atomic<int> inflight{0};
};

class LimiterState {
 protected:
  // Takes the options' algorithm. REQUIRES: options.Validate() is OK and names an algorithm.
  explicit LimiterState(LimiterOptions& options);
  LimiterState(const LimiterState&) = delete;
  LimiterState& operator=(const LimiterState&) = delete;
  ~LimiterState();

  // state_ packs the permits in flight (low bits), whether anyone is queued (one bit) and a
  // count of grants (high bits), so that a grant is one compare-and-swap that also sees the
  // queue and yields the sequence number used for sampling, and a release is one fetch_sub
  // that also says whether a waiter needs the slot.
  static constexpr int kInflightBits = 21;
  static constexpr uint64_t kInflightMask = (uint64_t{1} << kInflightBits) - 1;
  static constexpr uint64_t kQueuedBit = uint64_t{1} << kInflightBits;
  static constexpr int kSequenceShift = kInflightBits + 1;
  static constexpr uint64_t kGrantUnit = uint64_t{1} << kSequenceShift;

  // Takes a slot if inflight < limit and nobody is queued (TryAcquire, and Acquire before it
  // queues) or, for the first queued waiter (kForWaiter), if inflight < limit. On success fills
  // the grant's inflight and sequence. A waiter's loads are seq_cst (see the memory-ordering note
  // on state_: its retry after setting the queued bit must see a limit raised meanwhile).
  template <bool kForWaiter = false>
  bool TryTakeSlot(int* inflight, uint64_t* sequence) noexcept {
    constexpr std::memory_order kLoad =
        kForWaiter ? std::memory_order_seq_cst : std::memory_order_relaxed;
    constexpr std::memory_order kTake =
        kForWaiter ? std::memory_order_seq_cst : std::memory_order_acquire;
    uint64_t state = state_.load(kLoad);
    for (;;) {
      const uint64_t held = state & kInflightMask;
      if ((!kForWaiter && (state & kQueuedBit) != 0) ||
          held >= static_cast<uint64_t>(limit_.load(kLoad))) {
        return false;
      }
      if (state_.compare_exchange_weak(state, state + kGrantUnit + 1, kTake, kLoad)) [[likely]] {
        *inflight = static_cast<int>(held + 1);
        *sequence = state >> kSequenceShift;
        return true;
      }
    }
  }
  // Counts a grant to `partition` (only a limiter with partitions counts per partition).
  void CountGrant(uint32_t partition) noexcept {
    if (partitioned_) partition_counts_[partition].inflight.fetch_add(1, std::memory_order_relaxed);
  }
  // Whether grant number `sequence` is untimed without a look at the clock.
  bool Untimed(uint64_t sequence) const noexcept {
    return (sequence & check_mask_.load(std::memory_order_relaxed)) != 0;
  }
  // Gives a slot of `partition` back and hands it to a waiter, if any.
  void ReturnSlot(uint32_t partition) noexcept {
    // First the partition's count, so that a waiter chosen for the slot sees it.
    if (partitioned_) partition_counts_[partition].inflight.fetch_sub(1, std::memory_order_relaxed);
    // Release, and in the same word whether a waiter needs the slot (see state_).
    if ((state_.fetch_sub(1, std::memory_order_release) & kQueuedBit) != 0) [[unlikely]] {
      GrantWaiters();
    }
  }
  // Takes a slot for `partition` beyond the limit if it holds fewer permits than it is
  // guaranteed (partition.h). On success fills the grant's inflight and sequence. The permits in
  // flight stay below the limit plus the guarantees, 2 x Limiter::kMaxLimit, within kInflightMask.
  bool TryClaimGuaranteed(uint32_t partition, int* inflight, uint64_t* sequence) noexcept;
  // floor(share x limit): the permits `partition` is sure to get now. The guarantees of all
  // partitions add up to at most the limit.
  int Guaranteed(uint32_t partition) const noexcept {
    return static_cast<int>(partitions_[partition].share * limit_.load(std::memory_order_relaxed));
  }

  // Grants free slots to queued waiters, in queue order.
  void GrantWaiters();
  void GrantWaitersLocked() BLOBTUNE_REQUIRES(queue_mu_);
  // Queues `w` and grants it a slot at once if one is free. Returns how long it may wait: its
  // `deadline`, or sooner while overloaded (see LimiterOptions::overload_wait); std::nullopt if
  // the queue is full.
  std::optional<TimePoint> EnqueueLocked(Waiter& w, TimePoint deadline)
      BLOBTUNE_REQUIRES(queue_mu_);
  void FailWaiterLocked(Waiter& w, AcquireFailure why) BLOBTUNE_REQUIRES(queue_mu_);
  // After any change to the queue: sets waiters_ to its size, and kQueuedBit to whether it
  // holds anyone.
  void QueueChangedLocked() BLOBTUNE_REQUIRES(queue_mu_);

  // Applies the published samples while it wins algorithm_busy_, as often as samples remain.
  void ApplyPublishedSamples() noexcept;
  // REQUIRES: the caller holds algorithm_busy_.
  void ApplySample(const Sample& sample) noexcept;
  void UpdateStride(const Sample& sample) noexcept;

  Clock& clock_;
  LimiterObserver* const observer_;
  const size_t max_queue_;
  const QueueOrder queue_order_;
  const Duration overload_wait_;
  const Duration overload_window_;
  const double full_sampling_rate_;
  const std::string algorithm_name_;
  const int min_limit_;
  const int max_limit_;
  const bool partitioned_;  // Partitions were given: grants and releases count per partition.
  const std::vector<PartitionOptions> partitions_;  // One, unnamed, when none were given.
  // Each partition's permits in flight (partitioned_ only).
  const std::unique_ptr<PartitionCount[]> partition_counts_;

  // --- Hot path. Memory ordering: a grant's successful CAS is acquire and a release's
  // fetch_sub is release, so whatever a permit holder did happens-before the next holder of
  // that slot (semaphore semantics). Queueing sets kQueuedBit with a read-modify-write of
  // state_ itself, so a release and a new waiter order themselves in that one word: either the
  // release sees the bit and grants, or the waiter's retry after setting it sees the free slot.
  // A limit increase (store limit_, then load state_) and a waiter's queueing (set the bit, then
  // load limit_) are seq_cst: either the raiser sees the bit and grants, or the waiter sees the
  // new limit.
  //
  // The one word every grant and release writes, alone on its line: on two cores that line
  // passes between them, and nothing else a permit reads should go with it.
  alignas(64) std::atomic<uint64_t> state_{0};
  // What every grant reads and hardly anything writes (a limit change, a stride change), on a
  // line of its own that each core keeps a copy of.
  alignas(64) std::atomic<int> limit_;
  // A grant whose sequence has any of these bits set is untimed without a clock read; fewer
  // bits than stride - 1 (kOverdueChecksPerStride in limiter.cc).
  std::atomic<uint64_t> check_mask_{0};
  std::atomic<uint32_t> stride_{1};
  // Written by timed permits (one grant in `stride`), so not on either line above. While
  // stride_ > 1: the grant sequence of the last timed permit (to weigh samples), and the
  // coarse time by which the next permit must be timed whatever the stride, so that a falling
  // rate is noticed within kMaxSampleGap instead of `stride` grants later.
  alignas(64) std::atomic<uint64_t> last_timed_sequence_{0};
  std::atomic<int64_t> sample_due_ns_{0};
  std::atomic<uint64_t> lost_samples_{0};
  // Failed TryAcquire() calls since the last sample took them (Sample::refused). Its own line:
  // under overload every failed TryAcquire() writes it, and state_ should not pay for that.
  alignas(64) std::atomic<uint32_t> refused_{0};
  // Acquires that timed out since the last sample took them (Sample::expired).
  std::atomic<uint32_t> expired_{0};

  // --- Samples. Pushed lock-free by any releasing thread; applied by whichever thread wins
  // algorithm_busy_ (a try-only flag: nobody waits for it).
  alignas(64) std::unique_ptr<SampleQueue> samples_;
  std::atomic<bool> algorithm_busy_{false};
  // Written only by the holder of algorithm_busy_; estimates_mu_ guards copies for readers.
  std::unique_ptr<LimitAlgorithm> algorithm_;
  TimePoint rate_window_start_{};
  uint64_t rate_window_completions_ = 0;
  uint32_t samples_since_estimates_ = 0;
  mutable Mutex estimates_mu_;
  AlgorithmEstimates estimates_ BLOBTUNE_GUARDED_BY(estimates_mu_);

  // --- Waiting path.
  mutable Mutex queue_mu_;
  std::unique_ptr<PartitionQueues> queue_ BLOBTUNE_PT_GUARDED_BY(queue_mu_);
  // Whether kQueuedBit is set in state_.
  bool queued_bit_ BLOBTUNE_GUARDED_BY(queue_mu_) = false;
  // queue_->size(), for queue_length() without the mutex.
  std::atomic<size_t> waiters_{0};
  // When a queued acquirer last timed out.
  std::optional<TimePoint> last_queue_timeout_ BLOBTUNE_GUARDED_BY(queue_mu_);
};

}  // namespace internal
}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_INTERNAL_LIMITER_STATE_H_
