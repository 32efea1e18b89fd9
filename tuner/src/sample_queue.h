// SampleQueue: a bounded lock-free queue of Samples from releasing threads to whichever thread
// currently applies them to the limit algorithm.
//
// Any number of producers; one consumer at a time (the holder of the limiter's algorithm flag;
// the flag's acquire/release hands consumption from one thread to the next). Each slot carries
// a sequence number (Vyukov's bounded queue), so a push is one compare-and-swap on the tail plus
// one store, and nothing allocates after construction. A full queue refuses the sample.
//
// Memory ordering: a slot's sequence is stored with seq_cst after its sample is written and read
// with seq_cst before the sample is read. seq_cst (not just release/acquire) is what lets the
// limiter's producer/consumer hand-over be lost-wakeup free: a producer publishes, then tries the
// algorithm flag; the consumer clears the flag, then looks for published slots; in the single
// total order one of the two must see the other.
//
// Thread-safety: TryPush from any thread; TryPop and HasReady only by the current consumer.
#ifndef BLOBTUNE_TUNER_SRC_SAMPLE_QUEUE_H_
#define BLOBTUNE_TUNER_SRC_SAMPLE_QUEUE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "blobtune/tuner/sample.h"

namespace blobtune::tuner::internal {

class SampleQueue {
 public:
  // REQUIRES: capacity is a power of two.
  explicit SampleQueue(size_t capacity)
      : slots_(std::make_unique<Slot[]>(capacity)), mask_(capacity - 1) {
    for (size_t i = 0; i < capacity; ++i) slots_[i].sequence.store(i, std::memory_order_relaxed);
  }
  SampleQueue(const SampleQueue&) = delete;
  SampleQueue& operator=(const SampleQueue&) = delete;

  bool TryPush(const Sample& sample) noexcept {
    uint64_t pos = tail_.load(std::memory_order_relaxed);
    for (;;) {
      Slot& slot = slots_[pos & mask_];
      uint64_t seq = slot.sequence.load(std::memory_order_acquire);
      auto diff = static_cast<int64_t>(seq - pos);
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          slot.sample = sample;
          slot.sequence.store(pos + 1, std::memory_order_seq_cst);
          return true;
        }
      } else if (diff < 0) {
        return false;  // Full: the slot still holds an unconsumed sample from a lap ago.
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
  }

  bool TryPop(Sample* out) noexcept {
    uint64_t pos = head_.load(std::memory_order_relaxed);
    Slot& slot = slots_[pos & mask_];
    if (slot.sequence.load(std::memory_order_seq_cst) != pos + 1) return false;
    *out = slot.sample;
    slot.sequence.store(pos + mask_ + 1, std::memory_order_release);
    head_.store(pos + 1, std::memory_order_relaxed);
    return true;
  }

  // True if the next sample to pop has been published.
  bool HasReady() const noexcept {
    uint64_t pos = head_.load(std::memory_order_relaxed);
    return slots_[pos & mask_].sequence.load(std::memory_order_seq_cst) == pos + 1;
  }

 private:
  struct Slot {
    std::atomic<uint64_t> sequence{0};
    Sample sample;
  };

  std::unique_ptr<Slot[]> slots_;
  const uint64_t mask_;
  alignas(64) std::atomic<uint64_t> tail_{0};  // Next position to claim (producers).
  alignas(64) std::atomic<uint64_t> head_{0};  // Next position to pop (the consumer).
};

}  // namespace blobtune::tuner::internal

#endif  // BLOBTUNE_TUNER_SRC_SAMPLE_QUEUE_H_
