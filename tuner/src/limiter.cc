#include "blobtune/tuner/limiter.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "blobtune/base/text.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "partition_queues.h"
#include "sample_queue.h"

namespace blobtune::tuner {
namespace {

using internal::Waiter;

constexpr size_t kSampleQueueCapacity = 1024;
// Completions are counted over at least this much sample time before the stride is re-chosen.
constexpr Duration kStrideWindow = std::chrono::milliseconds(10);
constexpr uint32_t kMaxStride = 1024;
// While only one permit in `stride` is timed, one is timed at least this often anyway.
constexpr Duration kMaxSampleGap = std::chrono::milliseconds(20);
// While stride > 1, one grant in stride / kOverdueChecksPerStride (but at least one in
// kMinOverdueCheckEvery; powers of two) looks at the coarse clock to see whether a sample is
// overdue: a cost that follows the sampling rate rather than the completion rate, as a coarse
// clock read costs about as much as a whole untimed permit. A rate that collapses is then
// noticed within stride / 32 grants of a sample falling due instead of `stride` grants.
constexpr uint64_t kOverdueChecksPerStride = 32;
constexpr uint64_t kMinOverdueCheckEvery = 4;
// Readers of estimates() see a copy at most this many samples old (or fresher on limit changes).
constexpr uint32_t kEstimatesEverySamples = 256;

// A blocking acquirer's queue node: it sleeps on its own condition variable.
struct BlockingWaiter final : Waiter {
  void Notify() override { cv.NotifyOne(); }
  CondVar cv;
};

// Adds one to refused_ or expired_. Saturates rather than wraps if no sample takes the count
// for a long time.
void CountUp(std::atomic<uint32_t>& count) noexcept {
  uint32_t n = count.load(std::memory_order_relaxed);
  while (n != std::numeric_limits<uint32_t>::max() &&
         !count.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) {
  }
}

}  // namespace

Status LimiterOptions::Validate() const {
  if (!(full_sampling_rate > 0.0) || !std::isfinite(full_sampling_rate)) {
    return Status::InvalidArgument("full_sampling_rate must be a positive, finite rate per second, not " +
                                   std::to_string(full_sampling_rate));
  }
  if (algorithm != nullptr && (algorithm->limit() < 1 || algorithm->limit() > Limiter::kMaxLimit)) {
    return Status::InvalidArgument("the algorithm's initial limit " +
                                   std::to_string(algorithm->limit()) + " is outside [1, " +
                                   std::to_string(Limiter::kMaxLimit) + "]");
  }
  if (overload_wait < Duration::zero() || overload_window < Duration::zero()) {
    return Status::InvalidArgument("overload_wait and overload_window must not be negative");
  }
  if (partitions.size() > Limiter::kMaxPartitions) {
    return Status::InvalidArgument("at most " + std::to_string(Limiter::kMaxPartitions) +
                                   " partitions, got " + std::to_string(partitions.size()));
  }
  double shares = 0.0;
  for (size_t i = 0; i < partitions.size(); ++i) {
    const PartitionOptions& p = partitions[i];
    const std::string where = "partitions[" + std::to_string(i) + "]";
    if (p.name.empty()) return Status::InvalidArgument(where + ".name must not be empty");
    if (std::any_of(partitions.begin(), partitions.begin() + i,
                    [&](const PartitionOptions& q) { return q.name == p.name; })) {
      return Status::InvalidArgument(where + ".name \"" + p.name + "\" is used twice");
    }
    if (!(p.share >= 0.0 && p.share <= 1.0)) {
      return Status::InvalidArgument(where + ".share must be in [0, 1], got " +
                                     FormatNumber(p.share));
    }
    shares += p.share;
  }
  // A little slack for shares written as decimals (0.7 + 0.2 + 0.1 is not exactly 1).
  if (shares > 1.0 + 1e-9) {
    return Status::InvalidArgument("the partitions' shares add up to " + FormatNumber(shares) +
                                   ", more than 1");
  }
  return Status();
}

StatusOr<std::unique_ptr<Limiter>> Limiter::Create(LimiterOptions options) {
  Status valid = options.Validate();
  if (!valid.ok()) return valid.WithContext("invalid limiter options");
  if (options.algorithm == nullptr) options.algorithm = MakeDefaultAlgorithm();
  std::unique_ptr<Limiter> limiter(new Limiter(options));
  if (limiter->observer_ != nullptr) limiter->observer_->OnLimiterCreated(*limiter);
  return limiter;
}

internal::LimiterState::LimiterState(LimiterOptions& options)
    : clock_(options.clock != nullptr ? *options.clock : Clock::Steady()),
      observer_(options.observer),
      max_queue_(options.max_queue),
      queue_order_(options.queue_order),
      overload_wait_(options.overload_wait),
      overload_window_(options.overload_window),
      full_sampling_rate_(options.full_sampling_rate),
      algorithm_name_(options.algorithm->name()),
      min_limit_(options.algorithm->min_limit()),
      max_limit_(options.algorithm->max_limit()),
      partitioned_(!options.partitions.empty()),
      partitions_(partitioned_ ? std::move(options.partitions)
                               : std::vector<PartitionOptions>{PartitionOptions{.share = 1.0}}),
      partition_counts_(partitioned_ ? new internal::PartitionCount[partitions_.size()] : nullptr),
      limit_(options.algorithm->limit()),
      samples_(std::make_unique<internal::SampleQueue>(kSampleQueueCapacity)),
      algorithm_(std::move(options.algorithm)),
      queue_(std::make_unique<internal::PartitionQueues>(partitions_)) {
  MutexLock lock(estimates_mu_);
  estimates_ = algorithm_->estimates();
}

internal::LimiterState::~LimiterState() = default;

Limiter::~Limiter() {
  if (observer_ != nullptr) observer_->OnLimiterDestroyed(*this);
  assert(inflight() == 0 && "a Permit outlived its Limiter");
  assert(queue_length() == 0 && "an acquirer still waits on a destroyed Limiter");
}

// --- Granting -------------------------------------------------------------------------------

Permit Limiter::MakeCheckedPermit(uint32_t partition, int inflight, uint64_t sequence) noexcept {
  uint32_t stride = stride_.load(std::memory_order_relaxed);
  uint64_t weight = 1;
  if (stride > 1) {
    // Time one grant in `stride` (a power of two), and any grant once a sample is overdue.
    bool timed = (sequence & (stride - 1)) == 0 ||
                 clock_.CoarseNow().time_since_epoch().count() >=
                     sample_due_ns_.load(std::memory_order_relaxed);
    if (!timed) return Permit(this, partition, inflight);
    // The sample stands for the grants since the previous timed one. Relaxed: weights only
    // need to add up, not to order anything.
    uint64_t previous = last_timed_sequence_.load(std::memory_order_relaxed);
    while (sequence > previous && !last_timed_sequence_.compare_exchange_weak(
                                      previous, sequence, std::memory_order_relaxed)) {
    }
    weight = std::min<uint64_t>(sequence > previous ? sequence - previous : 1, kMaxStride * 4);
  }
  return Permit(this, partition, inflight, clock_.Now(), static_cast<uint32_t>(weight));
}

bool internal::LimiterState::TryClaimGuaranteed(uint32_t partition, int* inflight,
                                                uint64_t* sequence) noexcept {
  if (!partitioned_) return false;
  const int guaranteed = Guaranteed(partition);
  std::atomic<int>& count = partition_counts_[partition].inflight;
  int held = count.load(std::memory_order_relaxed);
  do {
    if (held >= guaranteed) return false;
  } while (!count.compare_exchange_weak(held, held + 1, std::memory_order_relaxed));
  // Acquire, as a grant's CAS: what the slot's last holder did happens-before.
  const uint64_t state = state_.fetch_add(kGrantUnit + 1, std::memory_order_acquire);
  *inflight = static_cast<int>((state & kInflightMask) + 1);
  *sequence = state >> kSequenceShift;
  return true;
}

std::optional<Permit> Limiter::TryGrantAtOnce(PartitionId partition, bool try_free_slot) {
  int inflight = 0;
  uint64_t sequence = 0;
  if (try_free_slot && TryTakeSlot(&inflight, &sequence)) {
    CountGrant(partition.index);
  } else if (!TryClaimGuaranteed(partition.index, &inflight, &sequence)) {
    return std::nullopt;
  }
  if (observer_ != nullptr) observer_->OnGranted(partition, Duration::zero());
  return MakePermit(partition.index, inflight, sequence);
}

std::optional<Permit> Limiter::TryAcquireSlow(PartitionId partition) {
  if (std::optional<Permit> permit = TryGrantAtOnce(partition, /*try_free_slot=*/false)) {
    return permit;
  }
  CountUp(refused_);
  if (observer_ != nullptr) observer_->OnAcquireFailed(partition, AcquireFailure::kRejected);
  return std::nullopt;
}

StatusOr<Permit> Limiter::Failure(PartitionId partition, AcquireFailure why) {
  // Every acquire that times out, queued or not, ends here once.
  if (why == AcquireFailure::kTimeout) CountUp(expired_);
  if (observer_ != nullptr) observer_->OnAcquireFailed(partition, why);
  std::string where = " (limit " + std::to_string(limit()) + ", " + std::to_string(inflight()) +
                      " in flight, " + std::to_string(queue_length()) + " waiting)";
  switch (why) {
    case AcquireFailure::kTimeout:
      return Status::DeadlineExceeded("no permit before the deadline" + where);
    case AcquireFailure::kCancelled:
      return Status::Cancelled("acquire cancelled while waiting for a permit" + where);
    case AcquireFailure::kQueueFull:
      return Status::Overloaded("the limiter's wait queue is full (max_queue " +
                                std::to_string(max_queue_) + ")" + where);
    case AcquireFailure::kRejected:
      break;
  }
  return Status::Overloaded("no permit free" + where);
}

void internal::LimiterState::GrantWaiters() {
  MutexLock lock(queue_mu_);
  GrantWaitersLocked();
}

void internal::LimiterState::GrantWaitersLocked() {
  while (!queue_->empty()) {
    Waiter* w = queue_->Next(limit_.load(std::memory_order_relaxed), [this](size_t p) {
      return partition_counts_[p].inflight.load(std::memory_order_relaxed);
    });
    if (w == nullptr) break;
    int inflight = 0;
    uint64_t sequence = 0;
    if (TryTakeSlot</*kForWaiter=*/true>(&inflight, &sequence)) {
      CountGrant(w->partition);
    } else if (!TryClaimGuaranteed(w->partition, &inflight, &sequence)) {  // Counts it.
      break;
    }
    queue_->Grant(w);
    w->state = Waiter::State::kGranted;
    w->granted_inflight = inflight;
    w->granted_sequence = sequence;
    w->Notify();
  }
  QueueChangedLocked();
}

void internal::LimiterState::QueueChangedLocked() {
  waiters_.store(queue_->size(), std::memory_order_relaxed);
  const bool queued = !queue_->empty();
  if (queued == queued_bit_) return;
  queued_bit_ = queued;
  // seq_cst: see the note on state_ (setting the bit pairs with a limit increase).
  queued ? state_.fetch_or(kQueuedBit, std::memory_order_seq_cst)
         : state_.fetch_and(~kQueuedBit, std::memory_order_seq_cst);
}

void internal::LimiterState::FailWaiterLocked(Waiter& w, AcquireFailure why) {
  assert(w.state == Waiter::State::kWaiting);
  queue_->Remove(&w);
  QueueChangedLocked();
  w.state = Waiter::State::kFailed;
  w.failure = why;
  if (why == AcquireFailure::kTimeout && w.full_wait) last_queue_timeout_ = clock_.Now();
  w.Notify();
}

std::optional<TimePoint> internal::LimiterState::EnqueueLocked(Waiter& w, TimePoint deadline) {
  assert(w.state == Waiter::State::kIdle);
  if (queue_->size() >= max_queue_) return std::nullopt;
  const TimePoint now = clock_.Now();
  const bool overloaded = last_queue_timeout_ && now - *last_queue_timeout_ < overload_window_;
  w.full_wait = true;
  if (overloaded && overload_wait_ != Duration::max() && now + overload_wait_ < deadline) {
    deadline = now + overload_wait_;
    w.full_wait = false;
  }
  w.queued_at = now;
  w.state = Waiter::State::kWaiting;
  const bool newest_first = queue_order_ == QueueOrder::kLifo ||
                            (queue_order_ == QueueOrder::kAdaptive && overloaded);
  queue_->Push(&w, newest_first);
  // Set the queued bit, then retry: a release that freed a slot before the bit was set is seen
  // by the retry; one after it sees the bit and grants.
  QueueChangedLocked();
  GrantWaitersLocked();
  return deadline;
}

StatusOr<Permit> Limiter::Acquire(PartitionId partition, TimePoint deadline,
                                  std::stop_token stop) {
  if (partition.index >= partitions_.size()) {
    return Status::InvalidArgument("no partition " + std::to_string(partition.index) +
                                   " (the limiter has " + std::to_string(partitions_.size()) +
                                   ")");
  }
  if (std::optional<Permit> permit = TryGrantAtOnce(partition)) return *std::move(permit);
  if (clock_.Now() >= deadline) return Failure(partition, AcquireFailure::kTimeout);

  BlockingWaiter waiter;
  waiter.partition = partition.index;
  // Constructed before taking queue_mu_: if stop was already requested the callback runs
  // right here and must be able to lock.
  std::stop_callback on_stop(stop, [this, &waiter] { AsyncAccess::Cancel(*this, waiter); });
  {  // Observer calls and Status construction happen after the queue mutex is released.
    MutexLock lock(queue_mu_);
    if (stop.stop_requested()) {
      waiter.state = Waiter::State::kFailed;
      waiter.failure = AcquireFailure::kCancelled;
    } else if (std::optional<TimePoint> wait_until = EnqueueLocked(waiter, deadline)) {
      deadline = *wait_until;
    } else {
      waiter.state = Waiter::State::kFailed;
      waiter.failure = AcquireFailure::kQueueFull;
    }
    while (waiter.state == Waiter::State::kWaiting) {
      TimePoint now = clock_.Now();
      if (now >= deadline) {
        FailWaiterLocked(waiter, AcquireFailure::kTimeout);
        break;
      }
      waiter.cv.WaitFor(lock, clock_.RealWaitFor(deadline - now));
    }
  }
  return Outcome(waiter);
}

StatusOr<Permit> Limiter::Outcome(const Waiter& w) {
  assert(w.state == Waiter::State::kGranted || w.state == Waiter::State::kFailed);
  const PartitionId partition{w.partition};
  if (w.state == Waiter::State::kFailed) return Failure(partition, w.failure);
  if (observer_ != nullptr) observer_->OnGranted(partition, clock_.Now() - w.queued_at);
  return MakePermit(w.partition, w.granted_inflight, w.granted_sequence);
}

void Limiter::CancelWaiters() {
  MutexLock lock(queue_mu_);
  // Every waiter, whatever the limit: Next() with a limit no count reaches lists them all.
  while (Waiter* w = queue_->Next(kMaxLimit, [](size_t) { return 0; })) {
    FailWaiterLocked(*w, AcquireFailure::kCancelled);
  }
}

std::optional<PartitionId> Limiter::FindPartition(std::string_view name) const {
  if (!partitioned_) return std::nullopt;  // Its one partition has no name.
  for (size_t p = 0; p < partitions_.size(); ++p) {
    if (partitions_[p].name == name) return PartitionId{static_cast<uint32_t>(p)};
  }
  return std::nullopt;
}

PartitionStatus Limiter::partition(PartitionId partition) const {
  assert(partition.index < partitions_.size());
  PartitionStatus status;
  status.options = partitions_[partition.index];
  status.inflight = partitioned_
                        ? partition_counts_[partition.index].inflight.load(std::memory_order_relaxed)
                        : inflight();
  {
    MutexLock lock(queue_mu_);
    status.waiting = queue_->size(partition.index);
  }
  status.guaranteed = Guaranteed(partition.index);
  return status;
}

// --- Releasing and sampling ------------------------------------------------------------------

void Permit::RestartTiming() noexcept {
  if (limiter_ == nullptr || weight_ == 0) return;
  const TimePoint now = limiter_->clock_.Now();
  setup_ += now - start_;
  start_ = now;
}

void Limiter::ReleaseTimed(const Permit& permit, PermitOutcome outcome, uint64_t bytes) noexcept {
  // A plain load first: without refusals or timeouts, releases write nothing more.
  auto take = [](std::atomic<uint32_t>& count) {
    return count.load(std::memory_order_relaxed) == 0
               ? uint32_t{0}
               : count.exchange(0, std::memory_order_relaxed);
  };
  const bool sampled = outcome != PermitOutcome::kIgnored;
  Sample sample;
  if (sampled) {
    sample = {.start = permit.start_,
              .latency = clock_.Now() - permit.start_,
              .inflight = permit.inflight_,
              .dropped = outcome == PermitOutcome::kDropped,
              .bytes = bytes,
              .setup = permit.setup_,
              .refused = take(refused_),
              .expired = take(expired_),
              .weight = permit.weight_};
  }
  ReturnSlot(permit.partition_);
  if (observer_ != nullptr) {
    observer_->OnReleased(PartitionId{permit.partition_}, outcome, sampled ? &sample : nullptr);
  }
  if (!sampled) return;
  if (!samples_->TryPush(sample)) lost_samples_.fetch_add(1, std::memory_order_relaxed);
  ApplyPublishedSamples();
}

void internal::LimiterState::ApplyPublishedSamples() noexcept {
  // Whoever wins the flag applies every published sample, then looks once more after letting
  // go: a producer that failed to win the flag published before trying, so either it or the
  // loser-turned-winner here sees its sample (see sample_queue.h).
  while (!algorithm_busy_.exchange(true, std::memory_order_seq_cst)) {
    Sample next;
    while (samples_->TryPop(&next)) ApplySample(next);
    algorithm_busy_.store(false, std::memory_order_seq_cst);
    if (!samples_->HasReady()) return;
  }
}

void internal::LimiterState::ApplySample(const Sample& sample) noexcept {
  const int old_limit = limit_.load(std::memory_order_relaxed);
  const int new_limit = std::clamp(algorithm_->Update(sample), 1, Limiter::kMaxLimit);
  UpdateStride(sample);
  if (new_limit == old_limit && ++samples_since_estimates_ < kEstimatesEverySamples) return;
  if (new_limit != old_limit) limit_.store(new_limit, std::memory_order_seq_cst);
  samples_since_estimates_ = 0;
  const AlgorithmEstimates estimates = algorithm_->estimates();
  {
    MutexLock lock(estimates_mu_);
    estimates_ = estimates;
  }
  if (new_limit == old_limit) return;
  if (observer_ != nullptr) observer_->OnLimitChanged(old_limit, new_limit, estimates);
  // A higher limit frees slots for waiters; seq_cst store then load pairs with EnqueueLocked().
  if (new_limit > old_limit && (state_.load(std::memory_order_seq_cst) & kQueuedBit) != 0) {
    GrantWaiters();
  }
}

void internal::LimiterState::UpdateStride(const Sample& sample) noexcept {
  TimePoint end = sample.end();
  sample_due_ns_.store((end + kMaxSampleGap).time_since_epoch().count(), std::memory_order_relaxed);
  if (rate_window_completions_ == 0 || end < rate_window_start_) rate_window_start_ = end;
  rate_window_completions_ += sample.weight;
  Duration span = end - rate_window_start_;
  if (span < kStrideWindow) return;
  double rate = static_cast<double>(rate_window_completions_) /
                std::chrono::duration<double>(span).count();
  uint32_t stride = 1;
  while (stride < kMaxStride && stride * 2 <= rate / full_sampling_rate_) stride *= 2;
  if (stride > 1 && stride_.load(std::memory_order_relaxed) == 1) {
    last_timed_sequence_.store(state_.load(std::memory_order_relaxed) >> kSequenceShift,
                               std::memory_order_relaxed);
  }
  stride_.store(stride, std::memory_order_relaxed);
  const uint64_t check_every =
      std::min<uint64_t>(stride, std::max(kMinOverdueCheckEvery, stride / kOverdueChecksPerStride));
  check_mask_.store(check_every - 1, std::memory_order_relaxed);
  rate_window_completions_ = 0;
}

AlgorithmState Limiter::SaveAlgorithmState() {
  // The one caller that waits for the flag: a thread holding it only applies samples, and
  // nothing it does waits for this one.
  while (algorithm_busy_.exchange(true, std::memory_order_seq_cst)) std::this_thread::yield();
  Sample next;
  while (samples_->TryPop(&next)) ApplySample(next);
  AlgorithmState state = algorithm_->SaveState();
  algorithm_busy_.store(false, std::memory_order_seq_cst);
  // Samples published while this held the flag, whose producers left them to the holder.
  if (samples_->HasReady()) ApplyPublishedSamples();
  return state;
}

AlgorithmEstimates Limiter::estimates() const {
  MutexLock lock(estimates_mu_);
  return estimates_;
}

// --- Async access ----------------------------------------------------------------------------

std::optional<TimePoint> Limiter::AsyncAccess::Enqueue(Limiter& limiter, Waiter& w,
                                                       TimePoint deadline) {
  MutexLock lock(limiter.queue_mu_);
  return limiter.EnqueueLocked(w, deadline);
}

std::optional<StatusOr<Permit>> Limiter::AsyncAccess::Poll(Limiter& limiter, Waiter& w,
                                                           TimePoint deadline) {
  MutexLock lock(limiter.queue_mu_);
  if (w.state == Waiter::State::kIdle) {
    assert(false && "polled a waiter that was never queued");
    return Status::Internal("polled a waiter that was never queued");
  }
  if (w.state == Waiter::State::kWaiting) {
    if (limiter.clock_.Now() < deadline) return std::nullopt;
    limiter.FailWaiterLocked(w, AcquireFailure::kTimeout);
  }
  StatusOr<Permit> result = limiter.Outcome(w);
  // A result handed out leaves the waiter idle, so that abandoning it later gives nothing back.
  w.state = Waiter::State::kIdle;
  return result;
}

void Limiter::AsyncAccess::Cancel(Limiter& limiter, Waiter& w) {
  MutexLock lock(limiter.queue_mu_);
  if (w.state == Waiter::State::kWaiting) limiter.FailWaiterLocked(w, AcquireFailure::kCancelled);
}

void Limiter::AsyncAccess::Abandon(Limiter& limiter, Waiter& w) {
  bool give_back = false;
  {
    MutexLock lock(limiter.queue_mu_);
    if (w.state == Waiter::State::kWaiting) {
      limiter.queue_->Remove(&w);
      limiter.QueueChangedLocked();
    }
    give_back = w.state == Waiter::State::kGranted;
    w.state = Waiter::State::kIdle;
  }
  // The slot was taken for an acquirer that is gone: return it, unobserved and unsampled.
  if (give_back) limiter.ReturnSlot(w.partition);
}

}  // namespace blobtune::tuner
