// PartitionQueues: the limiter's acquirers waiting for a permit, one intrusive queue per
// partition, and the rule that picks which partition's waiter gets the next free permit
// (partition.h states it for users).
//
// The queues are lists of nodes that live in the acquirers themselves (a blocking acquirer's
// stack frame, an async operation's state), so queueing never allocates. FIFO and LIFO differ
// only in which end a new waiter joins; grants always take the front.
//
// Thread-safety: none; the Limiter guards them with its queue mutex.
#ifndef BLOBTUNE_TUNER_SRC_PARTITION_QUEUES_H_
#define BLOBTUNE_TUNER_SRC_PARTITION_QUEUES_H_

#include <cassert>
#include <cstddef>
#include <span>
#include <tuple>
#include <vector>

#include "blobtune/tuner/internal/limiter_state.h"
#include "blobtune/tuner/partition.h"

namespace blobtune::tuner::internal {

// One partition's waiters: an intrusive, allocation-free list.
class WaitQueue {
 public:
  WaitQueue() = default;
  WaitQueue(const WaitQueue&) = delete;
  WaitQueue& operator=(const WaitQueue&) = delete;

  bool empty() const noexcept { return head_ == nullptr; }
  size_t size() const noexcept { return size_; }
  Waiter* front() const noexcept { return head_; }

  void Push(Waiter* w, bool front) noexcept {
    assert(w->prev == nullptr && w->next == nullptr);
    if (front) {
      w->next = head_;
      (head_ ? head_->prev : tail_) = w;
      head_ = w;
    } else {
      w->prev = tail_;
      (tail_ ? tail_->next : head_) = w;
      tail_ = w;
    }
    ++size_;
  }
  // REQUIRES: w is in this queue.
  void Remove(Waiter* w) noexcept {
    (w->prev ? w->prev->next : head_) = w->next;
    (w->next ? w->next->prev : tail_) = w->prev;
    w->prev = w->next = nullptr;
    --size_;
  }

 private:
  Waiter* head_ = nullptr;
  Waiter* tail_ = nullptr;
  size_t size_ = 0;
};

class PartitionQueues {
 public:
  // REQUIRES: at least one partition.
  explicit PartitionQueues(std::span<const PartitionOptions> partitions);
  PartitionQueues(const PartitionQueues&) = delete;
  PartitionQueues& operator=(const PartitionQueues&) = delete;

  bool empty() const noexcept { return size_ == 0; }
  size_t size() const noexcept { return size_; }
  size_t size(size_t partition) const noexcept { return queues_[partition].size(); }

  // Queues `w` in its partition (w->partition), at the back or the front.
  void Push(Waiter* w, bool front) noexcept;
  // REQUIRES: w is queued.
  void Remove(Waiter* w) noexcept;

  // The waiter that gets the next free permit under `limit`, given each partition's permits in
  // flight (`inflight(p)`), or nullptr if none waits. Does not dequeue it. It is the first waiter
  // of the partition that comes first in this order: under its share (inflight < share x limit)
  // before at or over it; then the higher priority; then the lower pass; then the lower index.
  template <typename InflightOf>
  Waiter* Next(int limit, InflightOf&& inflight) noexcept {
    if (queues_.size() == 1) return queues_[0].front();  // Whole limit: no counts to read.
    Waiter* next = nullptr;
    std::tuple<bool, int, double> next_key;  // Larger first.
    for (size_t p = 0; p < queues_.size(); ++p) {
      if (queues_[p].empty()) continue;
      const Standing& s = standing_[p];
      const auto key = std::make_tuple(inflight(p) < s.share * limit, s.priority, -s.pass);
      if (next == nullptr || key > next_key) {
        next = queues_[p].front();
        next_key = key;
      }
    }
    return next;
  }
  // `w`, which Next() returned, is granted: dequeues it and advances its partition's pass.
  void Grant(Waiter* w) noexcept;

 private:
  // What the choice of a partition looks at, besides its waiters and its permits in flight.
  struct Standing {
    double share = 0.0;
    int priority = 0;
    double pass = 0.0;    // Permits it got from the queue, each counted as `stride` (Grant()).
    double stride = 1.0;  // What one permit adds to its pass: 1 / share.
  };

  std::vector<WaitQueue> queues_;
  std::vector<Standing> standing_;
  // The pass of the partition served last: a partition that starts waiting again starts there,
  // not with credit saved while it was idle.
  double virtual_time_ = 0.0;
  size_t size_ = 0;
};

}  // namespace blobtune::tuner::internal

#endif  // BLOBTUNE_TUNER_SRC_PARTITION_QUEUES_H_
