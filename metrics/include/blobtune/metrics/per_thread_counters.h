// PerThreadCounters: a fixed set of monotonic counters that any number of threads add to
// without sharing a cache line. Each thread adds to cells of its own, and a read sums the cells
// of every thread, as brpc's bvar, folly's ThreadCachedInt and Linux's per-CPU counters do.
// For counters written on every permit and read only at scrape time.
//
//   PerThreadCounters c(3);
//   c.Add(1);                                 // any thread: this thread's cell of counter 1
//   c.Add(0, 5, 2, 40);                       // two counters, one lookup of the cells
//   std::vector<uint64_t> totals = c.Read();  // at scrape time: {5, 1, 40}
//
// Cost: Add() is a thread-local load, a pointer load, and a load and a store of a cell on
// cache lines that only this thread writes: no locked read-modify-write instruction, and no
// cache line passes between cores, however many threads add at once. Read() walks the cells of
// every slot used so far (at most internal::kThreadSlots blocks of size() counters).
//
// Cells: one block of cells per thread slot (internal/thread_slot.h), allocated on the slot's
// first Add() and kept until the object is destroyed. A thread that exits leaves its counts in
// its block, and the next thread given its slot adds to them, so no count is ever lost or moved.
// Blocks are 128-byte aligned and padded: 64-byte lines, and x86's adjacent-line prefetcher
// pulls lines in pairs. Threads beyond internal::kThreadSlots, and a thread whose block could
// not be allocated, add to one shared block with atomic fetch_add: slower, still exact.
//
// Memory ordering: relaxed. A thread's cells have one writer (the owner of its slot; owners
// change through the slot table's mutex), so an increment is a relaxed load and store. A read
// sees each cell at some moment: a total never goes down from one read to the next, and every
// Add() that happened-before a Read() is in it. Totals of different counters read together are
// not a snapshot of one instant.
//
// Thread-safety: Add() and Read() from any number of threads at once. REQUIRES: nobody adds
// while the object is destroyed.
#ifndef BLOBTUNE_METRICS_PER_THREAD_COUNTERS_H_
#define BLOBTUNE_METRICS_PER_THREAD_COUNTERS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "blobtune/metrics/internal/thread_slot.h"

namespace blobtune::metrics {

class PerThreadCounters {
 public:
  // `size` counters, all zero. REQUIRES: size > 0.
  explicit PerThreadCounters(size_t size);
  PerThreadCounters(const PerThreadCounters&) = delete;
  PerThreadCounters& operator=(const PerThreadCounters&) = delete;
  ~PerThreadCounters();

  size_t size() const noexcept { return size_; }

  // Adds `delta` to counter `index`. REQUIRES: index < size().
  void Add(size_t index, uint64_t delta = 1) noexcept {
    if (Cells* cells = OwnCells()) [[likely]] {
      Bump(cells[index], delta);
    } else {
      AddSlow(index, delta, index, 0);
    }
  }
  // Adds `delta_a` to counter `a` and `delta_b` to counter `b`. REQUIRES: both < size().
  void Add(size_t a, uint64_t delta_a, size_t b, uint64_t delta_b) noexcept {
    if (Cells* cells = OwnCells()) [[likely]] {
      Bump(cells[a], delta_a);
      Bump(cells[b], delta_b);
    } else {
      AddSlow(a, delta_a, b, delta_b);
    }
  }

  // Every counter's total.
  std::vector<uint64_t> Read() const;

 private:
  using Cells = std::atomic<uint64_t>;

  // Written by one thread only: a plain increment, no read-modify-write.
  static void Bump(Cells& cell, uint64_t delta) noexcept {
    cell.store(cell.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }

  // The calling thread's own cells if it has a slot and its block exists; else nullptr, and
  // AddSlow() sorts it out. No call on the way, so that the callers need no stack frame.
  Cells* OwnCells() const noexcept {
    // kUnassignedSlot is above kThreadSlots too.
    const uint32_t slot = internal::current_thread_slot;
    if (slot >= internal::kThreadSlots) [[unlikely]] return nullptr;
    // Relaxed: only the slot's owner stores this pointer (see blocks_).
    return blocks_[slot].load(std::memory_order_relaxed);
  }
  // Add() for a thread without a slot yet or without a block yet (allocates it), or beyond
  // the slots (the shared cells).
  void AddSlow(size_t a, uint64_t delta_a, size_t b, uint64_t delta_b) noexcept;

  const size_t size_;
  // Per slot, its block of size_ cells once allocated. Stored (release) only by the slot's
  // owner; Read() loads it with acquire, which makes the zeroed cells visible. A later owner
  // of the slot sees it through the slot table's mutex.
  std::array<std::atomic<Cells*>, internal::kThreadSlots> blocks_{};
  // For threads without a block of their own.
  const std::unique_ptr<Cells[]> shared_;
};

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_PER_THREAD_COUNTERS_H_
