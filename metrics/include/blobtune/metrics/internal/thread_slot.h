// ThreadSlot: a small number naming the calling thread among the threads alive now, so that a
// per-thread cell (per_thread_counters.h) is found with one thread-local load and an index.
//
//   uint32_t slot = internal::ThreadSlot();   // the same on every call from this thread
//   if (slot < internal::kThreadSlots) ...     // this thread's own cells; else the shared ones
//
// A thread takes a free slot on its first call and gives it back when it exits; a
// later thread may get the same slot. Taking and giving back go through one mutex, so whatever
// the old owner wrote to its cells happens-before whatever the new owner writes: a slot's cells
// always have a single writer. Beyond kThreadSlots live threads, the others share kSharedSlot,
// whose cells take atomic read-modify-writes. So does a thread calling from a thread_local
// destructor after its slot was given back.
//
// Thread-safety: any thread; each thread sees its own slot.
#ifndef BLOBTUNE_METRICS_INTERNAL_THREAD_SLOT_H_
#define BLOBTUNE_METRICS_INTERNAL_THREAD_SLOT_H_

#include <cstdint>
#include <limits>

namespace blobtune::metrics::internal {

// Threads that can own a slot at once. Per-thread cells are allocated lazily, per slot used.
inline constexpr uint32_t kThreadSlots = 256;
// The slot of every thread beyond those: shared by them, so written with atomic adds.
inline constexpr uint32_t kSharedSlot = kThreadSlots;

// The calling thread's slot; kUnassignedSlot until its first ThreadSlot() call. Constant-
// initialized, so reading it is one load from the thread's block (no TLS wrapper call).
inline constexpr uint32_t kUnassignedSlot = std::numeric_limits<uint32_t>::max();
inline constinit thread_local uint32_t current_thread_slot = kUnassignedSlot;

// Takes a slot for the calling thread and arranges for its exit to give it back.
uint32_t AssignThreadSlot() noexcept;

// The calling thread's slot: below kThreadSlots if it owns one, else kSharedSlot.
inline uint32_t ThreadSlot() noexcept {
  const uint32_t slot = current_thread_slot;
  if (slot == kUnassignedSlot) [[unlikely]] return AssignThreadSlot();
  return slot;
}

}  // namespace blobtune::metrics::internal

#endif  // BLOBTUNE_METRICS_INTERNAL_THREAD_SLOT_H_
