// WaitQueue: the intrusive, allocation-free list of acquirers waiting for a permit.
//
// Nodes live in the acquirers themselves (a blocking acquirer's stack frame, an async
// operation's state), so queueing never allocates. FIFO and LIFO differ only in which end a new
// waiter joins; grants always take the front.
//
// Thread-safety: none; the Limiter guards it with its queue mutex.
#ifndef BLOBTUNE_TUNER_SRC_WAIT_QUEUE_H_
#define BLOBTUNE_TUNER_SRC_WAIT_QUEUE_H_

#include <cassert>
#include <cstddef>

#include "blobtune/tuner/internal/waiter.h"

namespace blobtune::tuner::internal {

class WaitQueue {
 public:
  WaitQueue() = default;
  WaitQueue(const WaitQueue&) = delete;
  WaitQueue& operator=(const WaitQueue&) = delete;

  bool empty() const noexcept { return head_ == nullptr; }
  size_t size() const noexcept { return size_; }
  Waiter* front() const noexcept { return head_; }

  void PushBack(Waiter* w) noexcept {
    assert(w->prev == nullptr && w->next == nullptr);
    w->prev = tail_;
    (tail_ ? tail_->next : head_) = w;
    tail_ = w;
    ++size_;
  }

  void PushFront(Waiter* w) noexcept {
    assert(w->prev == nullptr && w->next == nullptr);
    w->next = head_;
    (head_ ? head_->prev : tail_) = w;
    head_ = w;
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

}  // namespace blobtune::tuner::internal

#endif  // BLOBTUNE_TUNER_SRC_WAIT_QUEUE_H_
