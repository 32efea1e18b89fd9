#include "blobtune/metrics/per_thread_counters.h"

#include <cassert>
#include <new>

namespace blobtune::metrics {
namespace {

// A block's alignment and the multiple its size is padded to: two 64-byte lines, because
// x86's adjacent-line prefetcher fetches lines in pairs (folly's
// hardware_destructive_interference_size is 128 on x86-64 for the same reason).
constexpr size_t kBlockAlignment = 128;

size_t BlockBytes(size_t counters) {
  const size_t bytes = counters * sizeof(std::atomic<uint64_t>);
  return (bytes + kBlockAlignment - 1) / kBlockAlignment * kBlockAlignment;
}

}  // namespace

PerThreadCounters::PerThreadCounters(size_t size)
    : size_(size), shared_(std::make_unique<Cells[]>(size)) {
  assert(size > 0);
}

PerThreadCounters::~PerThreadCounters() {
  for (std::atomic<Cells*>& block : blocks_) {
    Cells* cells = block.load(std::memory_order_acquire);
    if (cells == nullptr) continue;
    std::destroy_n(cells, size_);
    ::operator delete(cells, std::align_val_t{kBlockAlignment});
  }
}

void PerThreadCounters::AddSlow(size_t a, uint64_t delta_a, size_t b,
                                uint64_t delta_b) noexcept {
  const uint32_t slot = internal::ThreadSlot();
  Cells* cells = nullptr;
  if (slot < internal::kThreadSlots) {
    cells = blocks_[slot].load(std::memory_order_relaxed);
    if (cells == nullptr) {
      void* memory =
          ::operator new(BlockBytes(size_), std::align_val_t{kBlockAlignment}, std::nothrow);
      if (memory != nullptr) {
        cells = static_cast<Cells*>(memory);
        for (size_t i = 0; i < size_; ++i) new (&cells[i]) Cells(0);
        // Release: a reader that sees the pointer sees zeroed cells.
        blocks_[slot].store(cells, std::memory_order_release);
      }
    }
  }
  if (cells != nullptr) {
    Bump(cells[a], delta_a);
    Bump(cells[b], delta_b);
  } else {
    shared_[a].fetch_add(delta_a, std::memory_order_relaxed);
    shared_[b].fetch_add(delta_b, std::memory_order_relaxed);
  }
}

std::vector<uint64_t> PerThreadCounters::Read() const {
  std::vector<uint64_t> totals(size_);
  for (size_t i = 0; i < size_; ++i) totals[i] = shared_[i].load(std::memory_order_relaxed);
  for (const std::atomic<Cells*>& block : blocks_) {
    const Cells* cells = block.load(std::memory_order_acquire);
    if (cells == nullptr) continue;
    for (size_t i = 0; i < size_; ++i) totals[i] += cells[i].load(std::memory_order_relaxed);
  }
  return totals;
}

}  // namespace blobtune::metrics
