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
// Waiting: acquirers that find no free slot wait in a bounded queue (LimiterOptions::queue_order)
// until a release or a higher limit grants them a permit, or Acquire() fails them. While anyone
// waits, new acquirers queue behind them. With partitions, a freed permit goes to the partition
// that partition.h's rule picks, and to that partition's first waiter.
//
// What a permit costs: TryAcquire() and the release of an untimed permit are inline and take no
// lock; an uncontended pair is one compare-and-swap and one fetch_sub on one word, and a permit
// allocates nothing. The figures, and those of an observer and of partitions:
// docs/ARCHITECTURE.md, "What a permit costs".
//
// Timing: a timed permit costs two clock reads; which permits are timed, and what their samples
// weigh: LimiterOptions::full_sampling_rate. Samples reach the algorithm without any thread
// blocking on another's (internal/limiter_state.h); only the waiting path takes a mutex.
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
#include <string_view>
#include <utility>
#include <vector>

#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"
#include "blobtune/tuner/algorithm_state.h"
#include "blobtune/tuner/internal/limiter_state.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "blobtune/tuner/limiter_observer.h"
#include "blobtune/tuner/partition.h"

namespace blobtune::tuner {

class Limiter;

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
  // `overload_wait`, whatever its deadline, and then fails with DEADLINE_EXCEEDED. So once more
  // arrives than the limit lets through in time, the excess is refused promptly instead of each
  // request waiting out its deadline, until a window passes without a timeout; bursts the limit
  // absorbs still wait up to their deadline. Only an acquirer that waited out its own deadline
  // counts as a timeout, not one whose wait this cut short, so that a queue of short waits (a
  // limit below a steady closed-loop demand) leaves the state when the window ends. (The
  // classic signal, a queue not empty for a while, fails under group commits, whose batched
  // releases empty the queue many times a second.) Default: off (Duration::max()).
  Duration overload_wait = Duration::max();
  // How long the overload lasts after an acquirer waited out its deadline, for overload_wait
  // and QueueOrder::kAdaptive. Default: 100 ms. REQUIRES: >= 0, like overload_wait.
  Duration overload_window = std::chrono::milliseconds(100);
  // Completions per second below which every permit is timed. Above it, one permit in
  // `stride` (a power of two) is, so that about this many samples per second reach the
  // algorithm, each weighing as many completions as it stands for; and one is timed whenever no
  // sample came for a few milliseconds, so that a falling rate is noticed. Default: 20000 per
  // second. REQUIRES: > 0.
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
  Permit(Permit&& other) noexcept { Take(other); }
  Permit& operator=(Permit&& other) noexcept {
    if (this != &other) {
      Release(PermitOutcome::kIgnored, 0);
      Take(other);
    }
    return *this;
  }
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
  // Untimed, or timed from `start` with a sample that stands for `weight` (> 0) completions.
  Permit(Limiter* limiter, uint32_t partition, int inflight, TimePoint start = {},
         uint32_t weight = 0) noexcept
      : limiter_(limiter), start_(start), inflight_(inflight), weight_(weight),
        partition_(partition) {}
  void Release(PermitOutcome outcome, uint64_t bytes) noexcept;
  // Takes over `other`'s slot, leaving it empty. REQUIRES: this holds nothing.
  void Take(Permit& other) noexcept {
    limiter_ = std::exchange(other.limiter_, nullptr);
    start_ = other.start_;
    setup_ = other.setup_;
    inflight_ = other.inflight_;
    weight_ = other.weight_;
    partition_ = other.partition_;
  }

  Limiter* limiter_ = nullptr;
  TimePoint start_{};  // Grant time (or RestartTiming()); meaningful only when weight_ > 0.
  Duration setup_{};   // Held before RestartTiming().
  int inflight_ = 0;
  uint32_t weight_ = 0;  // 0: untimed. Otherwise the completions its sample stands for.
  uint32_t partition_ = 0;
};

class Limiter : private internal::LimiterState {
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
  // otherwise. REQUIRES: partition.index < partition_count(). Always inlined, so the permit is
  // built where the caller keeps it: a compiler left to itself may call it out of line once the
  // caller's loop grows, which costs more than the rest.
  [[gnu::always_inline]] std::optional<Permit> TryAcquire(PartitionId partition = {}) {
    int inflight = 0;
    uint64_t sequence = 0;
    if (!TryTakeSlot(&inflight, &sequence)) [[unlikely]] return TryAcquireSlow(partition);
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
  // What the algorithm has learned (LimitAlgorithm::SaveState), for a limiter created later to
  // start from: restore it into that limiter's algorithm before Create() takes the algorithm.
  // Waits for the thread that applies samples, if one does, to finish its turn.
  AlgorithmState SaveAlgorithmState();
  std::string_view algorithm_name() const noexcept { return algorithm_name_; }
  // The algorithm's bounds (LimitAlgorithm::min_limit, max_limit): limit() stays within them.
  int min_limit() const noexcept { return min_limit_; }
  int max_limit() const noexcept { return max_limit_; }
  const Clock& clock() const noexcept { return clock_; }

  // The largest limit a limiter can enforce.
  static constexpr int kMaxLimit = 1'000'000;

  // Low-level access to the wait queue for async_acquire.h; not for direct use.
  class AsyncAccess;

 private:
  friend class Permit;
  friend class AsyncAccess;

  // The state and what the limiter does short of building permits: internal/limiter_state.h.
  using internal::LimiterState::LimiterState;

  // A permit for `partition` without waiting: a free slot while nobody is queued (unless
  // `try_free_slot` is false), or one the partition is guaranteed; observed as granted.
  // std::nullopt (nothing counted) otherwise.
  std::optional<Permit> TryGrantAtOnce(PartitionId partition, bool try_free_slot = true);
  // A TryAcquire() that found no free slot: a permit the partition is guaranteed, or a refusal
  // (counted, observed, std::nullopt).
  std::optional<Permit> TryAcquireSlow(PartitionId partition);
  // The permit of grant number `sequence`. Most grants are untimed once the completion rate
  // is high: those take no clock read and no call.
  Permit MakePermit(uint32_t partition, int inflight, uint64_t sequence) noexcept {
    if (Untimed(sequence)) [[likely]] return Permit(this, partition, inflight);
    return MakeCheckedPermit(partition, inflight, sequence);
  }
  // For a grant that the stride times, or one that checks whether a sample is overdue.
  Permit MakeCheckedPermit(uint32_t partition, int inflight, uint64_t sequence) noexcept;
  // A timed permit: its release makes a sample (unless it is ignored) for the algorithm.
  void ReleaseTimed(const Permit& permit, PermitOutcome outcome, uint64_t bytes) noexcept;
  // The CANCELLED, DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED of a failed acquire, counted and
  // observed.
  StatusOr<Permit> Failure(PartitionId partition, AcquireFailure why);
  // What a waiter that left the queue (granted or failed) gets: its permit, observed as granted,
  // or its Failure().
  StatusOr<Permit> Outcome(const internal::Waiter& w);
};

inline void Permit::Release(PermitOutcome outcome, uint64_t bytes) noexcept {
  if (limiter_ == nullptr) return;
  Limiter* limiter = std::exchange(limiter_, nullptr);
  if (weight_ != 0) {
    limiter->ReleaseTimed(*this, outcome, bytes);
  } else {  // Untimed: one fetch_sub (two with partitions), and the observer hears of it.
    limiter->ReturnSlot(partition_);
    LimiterObserver* observer = limiter->observer_;
    if (observer != nullptr) observer->OnReleased(PartitionId{partition_}, outcome, nullptr);
  }
}

class Limiter::AsyncAccess {
 public:
  static std::optional<Permit> TryAcquire(Limiter& limiter, PartitionId partition) {
    return limiter.TryGrantAtOnce(partition);
  }
  static std::optional<TimePoint> Enqueue(Limiter& limiter, internal::Waiter& w,
                                          TimePoint deadline);
  // The waiter's result once granted or failed; DEADLINE_EXCEEDED (and dequeued) once `deadline`
  // passed; std::nullopt while it should keep waiting.
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
