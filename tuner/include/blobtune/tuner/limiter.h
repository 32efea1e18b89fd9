// Limiter: admits at most `limit()` concurrent accesses and lets a LimitAlgorithm move the limit
// from what the accesses measure.
//
// Each access holds a Permit. The permit's owner reports how the access went (Success(),
// Dropped(), or nothing) and the permit's destructor always gives the slot back. Finished permits
// become Samples that feed the algorithm, which sets the limit for the next accesses.
//
//   auto limiter = Limiter::Create({.algorithm = MakeAlgorithm(spec).value()}).value();
//   if (std::optional<Permit> permit = limiter->TryAcquire()) {       // never waits
//     Status s = DoTheAccess();
//     s.ok() ? permit->Success() : permit->Dropped();
//   }
//   StatusOr<Permit> p = limiter->Acquire(std::chrono::milliseconds(50));  // waits in the queue
//   // Asynchronously (callbacks, use_future, use_awaitable): see async_acquire.h.
//   // Callers that are not alike (a reader and a bulk sync): partitions, see partition.h.
//
// Waiting: acquirers that find no free slot wait in a bounded queue (FIFO by default, LIFO as an
// option) until a permit is released or the limit grows, their deadline passes
// (DEADLINE_EXCEEDED), their stop_token is triggered or CancelWaiters() is called (CANCELLED), or
// the queue is full (RESOURCE_EXHAUSTED). While anyone waits, new acquirers queue behind them.
// With partitions, a freed permit goes to the partition that partition.h's rule picks, and to
// the first waiter (in queue order) of that partition.
//
// What a permit costs: TryAcquire() and the release of an untimed permit are inline, and an
// uncontended pair is one compare-and-swap and one fetch_sub on one word (the permits in flight,
// whether anyone waits, and a grant count), which sits alone on its cache line, plus reads of the
// limit and the sampling mask from a line that is hardly ever written: no mutex, no allocation, no
// other shared write. Those two locked instructions are the floor of any counting limiter (a
// semaphore on an atomic counter does the same); the rest is building the permit and two tests for
// an observer. On two cores the word's line passes between them, for the limiter as for that
// semaphore; the limiter costs more there, most likely because it does more between its two
// instructions, so the other core takes the line in between more often. Measured with
// blobtune-tuner-bench (medians of 10 interleaved repetitions, ns of real time per TryAcquire() +
// Success(), gradient algorithm, GCC 12 -O2, 2 x86-64 vCPUs, three runs on a quiet machine):
// one thread, semaphore 4.5-4.6, limiter 5.4-5.6 (1.18-1.24x); two threads running at once,
// semaphore 10.8-13.8, limiter 16.2-17.8 (1.26-1.64x). An observer adds two virtual calls per
// permit (OnGranted, OnReleased); metrics/ LimiterMetrics makes each an add to the calling
// thread's own counter cells, which no other thread writes: 6.1-6.8 ns on one thread (1.12-1.22x
// the bare limiter), 16.2-18.3 on two (0.92-1.12x). A limiter with partitions adds an add and a
// subtract on the partition's own counter (a line of its own): 9.6 ns on one thread, 4.0 ns more
// than the same limiter without partitions.
//
// Timing: latency is measured with two clock reads per permit while completions are slower than
// LimiterOptions::full_sampling_rate; above it, one permit in `stride` is timed and its sample
// weighs as many completions as it stands for, so an untimed permit reads no clock. One grant
// in stride / 32 (every 4th at lower strides) reads the coarse clock, and times its permit if
// no sample came for a few milliseconds, so that a falling rate is noticed. Samples go through
// a bounded lock-free queue to whichever releasing thread holds the (try-only, never
// waited-for) algorithm flag, so no thread ever blocks on another's sample. The waiting path
// (queue, timeouts) uses a mutex.
//
// Thread-safety: all methods are safe to call from any thread. The limiter must outlive its
// permits and waiters.
#ifndef BLOBTUNE_TUNER_LIMITER_H_
#define BLOBTUNE_TUNER_LIMITER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "blobtune/base/clock.h"
#include "blobtune/base/mutex.h"
#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"
#include "blobtune/base/thread_annotations.h"
#include "blobtune/tuner/internal/waiter.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "blobtune/tuner/limiter_observer.h"
#include "blobtune/tuner/partition.h"
#include "blobtune/tuner/sample.h"

namespace blobtune::tuner {

class Limiter;

namespace internal {
class PartitionQueues;
class SampleQueue;
// A partition's permits in flight, on a cache line of its own.
struct alignas(64) PartitionCount {
  std::atomic<int> inflight{0};
};
}  // namespace internal

// Which queued acquirer a freed slot goes to.
enum class QueueOrder {
  kFifo,  // The longest waiting: fair, bounded wait.
  kLifo,  // The newest: under sustained overload, fresh requests succeed while stale ones time out.
          // Whenever demand stays above the limit (a closed loop of more callers than the limit)
          // the oldest waiters starve until their deadline.
  // The longest waiting, but the newest while overloaded (a queued acquirer waited out its
  // deadline within the last overload_window): adaptive LIFO, fair in a steady queue and
  // fresh-first under overload.
  kAdaptive,
};

struct LimiterOptions {
  // Moves the limit. Default (nullptr): MakeDefaultAlgorithm().
  std::unique_ptr<LimitAlgorithm> algorithm;
  // Source of time for latencies and deadlines. Not owned; must outlive the limiter.
  // Default (nullptr): Clock::Steady().
  Clock* clock = nullptr;
  // Receives every grant, failure, release and limit change. Not owned; must outlive the
  // limiter. Default: none.
  LimiterObserver* observer = nullptr;
  // Most acquirers that may wait at once; more get RESOURCE_EXHAUSTED. 0 disables waiting.
  // Default: 1024.
  size_t max_queue = 1024;
  // Default: FIFO.
  QueueOrder queue_order = QueueOrder::kFifo;
  // Shedding under overload (after adaptive LIFO and CoDel): while a queued acquirer has timed
  // out within the last `overload_window`, an acquirer that has to queue waits at most
  // `overload_wait`, whatever its deadline, and then fails with DEADLINE_EXCEEDED. A timeout
  // means more arrives than the limit lets through within the deadline; from then on the
  // excess is refused promptly instead of each request waiting out its whole deadline first,
  // until a whole window passes without a timeout. Bursts the limit absorbs still wait up to
  // their deadline. Only an acquirer that waited out its own deadline counts as such a timeout,
  // not one whose wait this cut short: a queue whose waits are short (a limit below a steady
  // demand, as in a closed loop) leaves the state when the window ends, instead of each cut
  // wait that runs out keeping it alive. (A queue that has not been empty for a while is the
  // classic signal, but group commits release permits in batches that empty the queue many
  // times a second under overload.) Default: off (Duration::max()).
  Duration overload_wait = Duration::max();
  // How long the overload lasts after an acquirer waited out its deadline, for overload_wait
  // and QueueOrder::kAdaptive. Default: 100 ms. REQUIRES: >= 0, like overload_wait.
  Duration overload_window = std::chrono::milliseconds(100);
  // Completions per second below which every permit is timed. Above it, one permit in
  // `stride` (a power of two) is, so that about this many samples per second reach the
  // algorithm. Default: 20000 per second. REQUIRES: > 0.
  double full_sampling_rate = 20000.0;
  // Callers that share the limit with guaranteed shares and priorities (partition.h). At most
  // kMaxPartitions. Default: none, one partition that has the whole limit.
  std::vector<PartitionOptions> partitions;

  // OK, or INVALID_ARGUMENT saying which field is wrong.
  Status Validate() const;
};

// A right to one concurrent access. Move-only; releasing is automatic.
//
// Report the outcome once with Success() or Dropped(); that releases the permit and feeds a
// sample to the algorithm. A permit destroyed without an outcome is released as ignored: no
// sample (use that for accesses whose latency says nothing about the resource, e.g. a client
// error). Thread-safety: a Permit is owned by one thread at a time.
class Permit {
 public:
  Permit() noexcept = default;  // Holds nothing.
  Permit(Permit&& other) noexcept
      : limiter_(std::exchange(other.limiter_, nullptr)),
        start_(other.start_),
        setup_(other.setup_),
        inflight_(other.inflight_),
        weight_(other.weight_),
        partition_(other.partition_) {}
  Permit& operator=(Permit&& other) noexcept;
  Permit(const Permit&) = delete;
  Permit& operator=(const Permit&) = delete;
  ~Permit() { Release(PermitOutcome::kIgnored, 0); }

  // True while the permit holds a slot.
  bool valid() const noexcept { return limiter_ != nullptr; }
  explicit operator bool() const noexcept { return valid(); }

  // The access succeeded; `bytes` is its payload size, if known. Releases the permit.
  void Success(uint64_t bytes = 0) { Release(PermitOutcome::kSuccess, bytes); }
  // The access failed because of overload (timeout, rejection downstream). Releases the permit.
  void Dropped() { Release(PermitOutcome::kDropped, 0); }
  // Releases the permit without a sample.
  void Ignore() { Release(PermitOutcome::kIgnored, 0); }

  // The access starts now: its latency is measured from here instead of from the grant (for a
  // permit taken before its access could begin, e.g. while the payload was still arriving).
  // The time held until then is reported apart, as the sample's `setup`.
  void RestartTiming() noexcept;

  // Permits in flight when this one was granted, counting itself.
  int inflight_at_grant() const noexcept { return inflight_; }
  // The partition it was granted to.
  PartitionId partition() const noexcept { return PartitionId{partition_}; }

 private:
  friend class Limiter;
  // Untimed.
  Permit(Limiter* limiter, uint32_t partition, int inflight) noexcept
      : limiter_(limiter), inflight_(inflight), partition_(partition) {}
  // Timed from `start`; its sample stands for `weight` completions.
  Permit(Limiter* limiter, uint32_t partition, TimePoint start, int inflight,
         uint32_t weight) noexcept
      : limiter_(limiter), start_(start), inflight_(inflight), weight_(weight),
        partition_(partition) {}
  void Release(PermitOutcome outcome, uint64_t bytes) noexcept;

  Limiter* limiter_ = nullptr;
  TimePoint start_{};  // Grant time (or RestartTiming()); meaningful only when weight_ > 0.
  Duration setup_{};   // Held before RestartTiming().
  int inflight_ = 0;
  uint32_t weight_ = 0;  // 0: untimed. Otherwise the completions its sample stands for.
  uint32_t partition_ = 0;
};

class Limiter {
 public:
  // INVALID_ARGUMENT if the options do not validate. The observer, if any, hears of the new
  // limiter (LimiterObserver::OnLimiterCreated) before this returns.
  static StatusOr<std::unique_ptr<Limiter>> Create(LimiterOptions options);

  Limiter(const Limiter&) = delete;
  Limiter& operator=(const Limiter&) = delete;
  // Tells the observer first (LimiterObserver::OnLimiterDestroyed).
  // REQUIRES: no permit is held and nobody waits.
  ~Limiter();

  // The most partitions a limiter may have.
  static constexpr size_t kMaxPartitions = 64;

  // A permit for `partition` if a slot is free and nobody is queued; std::nullopt (a rejection)
  // otherwise. Inline: the permit is built where the caller keeps it.
  // REQUIRES: partition.index < partition_count(). Always inlined: a compiler left to itself
  // may call it out of line once the caller's loop grows, which costs more than the rest.
  [[gnu::always_inline]] std::optional<Permit> TryAcquire(PartitionId partition = {}) {
    int inflight = 0;
    uint64_t sequence = 0;
    if (!TryTakeFreeSlot(&inflight, &sequence)) [[unlikely]] return TryAcquireSlow(partition);
    CountGrant(partition.index);
    if (observer_ != nullptr) observer_->OnGranted(partition, Duration::zero());
    return MakePermit(partition.index, inflight, sequence);
  }

  // Waits in the queue until a permit is granted (OK), `deadline` passes (DEADLINE_EXCEEDED;
  // sooner while overloaded, see LimiterOptions::overload_wait), `stop` is triggered or
  // CancelWaiters() runs (CANCELLED), or the queue is full (RESOURCE_EXHAUSTED). A deadline in the
  // past still takes a free slot if there is one. INVALID_ARGUMENT for a partition it does not
  // have.
  StatusOr<Permit> Acquire(PartitionId partition, TimePoint deadline, std::stop_token stop = {});
  StatusOr<Permit> Acquire(PartitionId partition, Duration timeout, std::stop_token stop = {}) {
    return Acquire(partition, clock_.Now() + timeout, std::move(stop));
  }
  StatusOr<Permit> Acquire(TimePoint deadline, std::stop_token stop = {}) {
    return Acquire(PartitionId{}, deadline, std::move(stop));
  }
  StatusOr<Permit> Acquire(Duration timeout, std::stop_token stop = {}) {
    return Acquire(PartitionId{}, clock_.Now() + timeout, std::move(stop));
  }

  // The partition of that name (LimiterOptions::partitions), if there is one.
  std::optional<PartitionId> FindPartition(std::string_view name) const;
  // How many partitions there are: at least 1 (a limiter without partitions has one, unnamed).
  size_t partition_count() const noexcept { return partitions_.size(); }
  // Whether it was given partitions (LimiterOptions::partitions).
  bool has_partitions() const noexcept { return partitioned_; }
  // A partition's options, permits in flight, waiters and guaranteed permits. Exact for each
  // number at some instant during the call. REQUIRES: partition.index < partition_count().
  PartitionStatus partition(PartitionId partition) const;

  // Fails every current waiter with CANCELLED (for shutdown). Later acquirers wait as usual.
  void CancelWaiters();

  // The current limit, permits in flight and queued acquirers. Each is exact at some instant
  // during the call; together they are a snapshot only when nothing else runs.
  int limit() const noexcept { return limit_.load(std::memory_order_relaxed); }
  int inflight() const noexcept {
    return static_cast<int>(state_.load(std::memory_order_relaxed) & kInflightMask);
  }
  size_t queue_length() const noexcept { return waiters_.load(std::memory_order_relaxed); }
  // Permits timed per completion (1 at low rates, a power of two above full_sampling_rate).
  uint32_t sample_stride() const noexcept { return stride_.load(std::memory_order_relaxed); }
  // Samples the algorithm never saw because the sample queue was full.
  uint64_t lost_samples() const noexcept { return lost_samples_.load(std::memory_order_relaxed); }

  // A copy of the algorithm's current estimates (for metrics and plots).
  AlgorithmEstimates estimates() const;
  std::string_view algorithm_name() const noexcept { return algorithm_name_; }
  // The algorithm's bounds (LimitAlgorithm::min_limit, max_limit): limit() stays within them.
  int min_limit() const noexcept { return min_limit_; }
  int max_limit() const noexcept { return max_limit_; }
  const Clock& clock() const noexcept { return clock_; }

  // Low-level access to the wait queue for async_acquire.h; not for direct use.
  class AsyncAccess;

 private:
  friend class Permit;
  friend class AsyncAccess;

  // state_ packs the permits in flight (low bits), whether anyone is queued (one bit) and a
  // count of grants (high bits), so that a grant is one compare-and-swap that also sees the
  // queue and yields the sequence number used for sampling, and a release is one fetch_sub
  // that also says whether a waiter needs the slot.
  static constexpr int kInflightBits = 21;
  static constexpr uint64_t kInflightMask = (uint64_t{1} << kInflightBits) - 1;
  static constexpr uint64_t kQueuedBit = uint64_t{1} << kInflightBits;
  static constexpr int kSequenceShift = kInflightBits + 1;
  static constexpr uint64_t kGrantUnit = uint64_t{1} << kSequenceShift;

 public:
  // The largest limit a limiter can enforce.
  static constexpr int kMaxLimit = 1'000'000;

 private:
  explicit Limiter(LimiterOptions options);

  // Takes a slot if inflight < limit and nobody is queued (TryAcquire, and Acquire before it
  // queues). On success fills the grant's inflight and sequence.
  bool TryTakeFreeSlot(int* inflight, uint64_t* sequence) noexcept {
    uint64_t state = state_.load(std::memory_order_relaxed);
    for (;;) {
      const uint64_t held = state & kInflightMask;
      if ((state & kQueuedBit) != 0 ||
          held >= static_cast<uint64_t>(limit_.load(std::memory_order_relaxed))) {
        return false;
      }
      if (state_.compare_exchange_weak(state, state + kGrantUnit + 1, std::memory_order_acquire,
                                       std::memory_order_relaxed)) [[likely]] {
        *inflight = static_cast<int>(held + 1);
        *sequence = state >> kSequenceShift;
        return true;
      }
    }
  }
  // Takes a slot for the first queued waiter if inflight < limit. Same results.
  bool TryTakeSlotForWaiter(int* inflight, uint64_t* sequence) noexcept;
  // Counts a grant to `partition` (only a limiter with partitions counts per partition).
  void CountGrant(uint32_t partition) noexcept {
    if (partitioned_) partition_counts_[partition].inflight.fetch_add(1, std::memory_order_relaxed);
  }
  // Takes a slot for `partition` beyond the limit if it holds fewer permits than it is
  // guaranteed (partition.h). On success fills the grant's inflight and sequence. The permits in
  // flight stay below the limit plus the guarantees, 2 x kMaxLimit, within kInflightMask.
  bool TryClaimGuaranteed(uint32_t partition, int* inflight, uint64_t* sequence) noexcept;
  // floor(share x limit): the permits `partition` is sure to get now. The guarantees of all
  // partitions add up to at most the limit.
  int Guaranteed(uint32_t partition) const noexcept {
    return static_cast<int>(partitions_[partition].share * limit());
  }
  // A permit for `partition` without waiting: a free slot while nobody is queued, or one the
  // partition is guaranteed; observed as granted. std::nullopt (nothing counted) otherwise.
  std::optional<Permit> TryGrantAtOnce(PartitionId partition);
  // A TryAcquire() that found no free slot: a permit the partition is guaranteed, or a refusal
  // (counted, observed, std::nullopt).
  std::optional<Permit> TryAcquireSlow(PartitionId partition);
  // The permit of grant number `sequence`. Most grants are untimed once the completion rate
  // is high: those take no clock read and no call.
  Permit MakePermit(uint32_t partition, int inflight, uint64_t sequence) noexcept {
    if (Untimed(sequence)) [[likely]] return Permit(this, partition, inflight);
    return MakeCheckedPermit(partition, inflight, sequence);
  }
  // Whether grant number `sequence` is untimed without a look at the clock.
  bool Untimed(uint64_t sequence) const noexcept {
    return (sequence & check_mask_.load(std::memory_order_relaxed)) != 0;
  }
  // For a grant that the stride times, or one that checks whether a sample is overdue.
  Permit MakeCheckedPermit(uint32_t partition, int inflight, uint64_t sequence) noexcept;
  // An untimed permit: its release is one fetch_sub (two with partitions), and the observer
  // hears of it.
  void ReleaseUntimed(uint32_t partition, PermitOutcome outcome) noexcept {
    ReturnSlot(partition);
    if (observer_ != nullptr) observer_->OnReleased(PartitionId{partition}, outcome, nullptr);
  }
  // A timed permit: its release makes a sample (unless it is ignored) for the algorithm.
  void ReleaseTimed(const Permit& permit, PermitOutcome outcome, uint64_t bytes) noexcept;
  // Grants free slots to queued waiters, in queue order.
  void GrantWaiters();
  void GrantWaitersLocked() BLOBTUNE_REQUIRES(queue_mu_);
  // Queues `w` and grants it a slot at once if one is free. Returns how long it may wait: its
  // `deadline`, or sooner while overloaded (see overload_wait); std::nullopt if
  // the queue is full.
  std::optional<TimePoint> Enqueue(internal::Waiter& w, TimePoint deadline)
      BLOBTUNE_EXCLUDES(queue_mu_);
  std::optional<TimePoint> EnqueueLocked(internal::Waiter& w, TimePoint deadline)
      BLOBTUNE_REQUIRES(queue_mu_);
  // The waiter's result once granted or failed; DEADLINE_EXCEEDED (and dequeued) once `deadline`
  // passed; std::nullopt while it should keep waiting.
  std::optional<StatusOr<Permit>> PollLocked(internal::Waiter& w, TimePoint deadline)
      BLOBTUNE_REQUIRES(queue_mu_);
  StatusOr<Permit> Failure(PartitionId partition, AcquireFailure why);
  void FailWaiterLocked(internal::Waiter& w, AcquireFailure why) BLOBTUNE_REQUIRES(queue_mu_);
  // Gives a slot of `partition` back and hands it to a waiter, if any.
  void ReturnSlot(uint32_t partition) noexcept {
    // First the partition's count, so that a waiter chosen for the slot sees it.
    if (partitioned_) partition_counts_[partition].inflight.fetch_sub(1, std::memory_order_relaxed);
    // Release: what the holder did happens-before the slot's next grant. The same word says
    // whether anyone is queued, so either this sees the queued bit and grants, or the
    // enqueuer's retry (after it set the bit, later in the word's order) sees the free slot.
    if ((state_.fetch_sub(1, std::memory_order_release) & kQueuedBit) != 0) [[unlikely]] {
      GrantWaiters();
    }
  }
  // Sets or clears kQueuedBit to match whether the queue is empty.
  void UpdateQueuedBitLocked() BLOBTUNE_REQUIRES(queue_mu_);
  // Adds one to refused_ or expired_.
  static void CountUp(std::atomic<uint32_t>& count) noexcept;
  void RecordSample(const Sample& sample) noexcept;
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
  const std::unique_ptr<internal::PartitionCount[]> partition_counts_;

  // --- Hot path. Memory ordering: a grant's successful CAS is acquire and a release's
  // fetch_sub is release, so whatever a permit holder did happens-before the next holder of
  // that slot (semaphore semantics). Queueing sets kQueuedBit with a read-modify-write of
  // state_ itself, so a release and a new waiter order themselves in that one word and need
  // nothing stronger. A limit increase (store limit_, then load state_) and a waiter's queueing
  // (set the bit, then load limit_) are seq_cst: either the raiser sees the bit and grants, or
  // the waiter sees the new limit.
  //
  // The one word every grant and release writes, alone on its line: on two cores that line
  // passes between them, and nothing else a permit reads should go with it.
  alignas(64) std::atomic<uint64_t> state_{0};
  // What every grant reads and hardly anything writes (a limit change, a stride change), on a
  // line of its own that each core keeps a copy of.
  alignas(64) std::atomic<int> limit_;
  // A grant whose sequence has any of these bits set is untimed, without a clock read: below
  // stride - 1, so that grants that the stride does not time still look at the coarse clock
  // now and then (kOverdueChecksPerStride in limiter.cc).
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
  alignas(64) std::unique_ptr<internal::SampleQueue> samples_;
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
  std::unique_ptr<internal::PartitionQueues> queue_ BLOBTUNE_PT_GUARDED_BY(queue_mu_);
  // Whether kQueuedBit is set in state_.
  bool queued_bit_ BLOBTUNE_GUARDED_BY(queue_mu_) = false;
  // queue_->size(), for queue_length() without the mutex.
  std::atomic<size_t> waiters_{0};
  // When a queued acquirer last timed out.
  std::optional<TimePoint> last_queue_timeout_ BLOBTUNE_GUARDED_BY(queue_mu_);
};

inline void Permit::Release(PermitOutcome outcome, uint64_t bytes) noexcept {
  if (limiter_ == nullptr) return;
  Limiter* limiter = std::exchange(limiter_, nullptr);
  if (weight_ == 0) {
    limiter->ReleaseUntimed(partition_, outcome);
  } else {
    limiter->ReleaseTimed(*this, outcome, bytes);
  }
}

class Limiter::AsyncAccess {
 public:
  static std::optional<Permit> TryAcquire(Limiter& limiter, PartitionId partition);
  static std::optional<TimePoint> Enqueue(Limiter& limiter, internal::Waiter& w,
                                          TimePoint deadline) {
    return limiter.Enqueue(w, deadline);
  }
  static std::optional<StatusOr<Permit>> Poll(Limiter& limiter, internal::Waiter& w,
                                              TimePoint deadline);
  // Fails `w` with CANCELLED if it still waits.
  static void Cancel(Limiter& limiter, internal::Waiter& w);
  // For an acquirer that goes away without taking its result: dequeues `w`, or gives back the
  // slot it was granted.
  static void Abandon(Limiter& limiter, internal::Waiter& w);
  static StatusOr<Permit> Failure(Limiter& limiter, PartitionId partition, AcquireFailure why) {
    return limiter.Failure(partition, why);
  }
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_LIMITER_H_
