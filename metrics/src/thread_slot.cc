#include "blobtune/metrics/internal/thread_slot.h"

#include <vector>

#include "blobtune/base/mutex.h"
#include "blobtune/base/thread_annotations.h"

namespace blobtune::metrics::internal {
namespace {

// The free slots. Thread-safety: any thread.
class SlotTable {
 public:
  SlotTable() {
    MutexLock lock(mu_);
    free_.reserve(kThreadSlots);  // Give() then never allocates.
    for (uint32_t slot = kThreadSlots; slot > 0; --slot) free_.push_back(slot - 1);
  }

  // A free slot (the most recently given back first: its cells are the likeliest to be warm),
  // or kSharedSlot if none is free.
  uint32_t Take() noexcept {
    MutexLock lock(mu_);
    if (free_.empty()) return kSharedSlot;
    const uint32_t slot = free_.back();
    free_.pop_back();
    return slot;
  }

  void Give(uint32_t slot) noexcept {
    MutexLock lock(mu_);
    free_.push_back(slot);
  }

 private:
  Mutex mu_;
  // Taken from the back; initially the lowest slot is there, so the first threads use the
  // lowest slots.
  std::vector<uint32_t> free_ BLOBTUNE_GUARDED_BY(mu_);
};

SlotTable& Table() {
  // Never destroyed: threads may exit (and give their slots back) after static destruction.
  static SlotTable* table = new SlotTable;
  return *table;
}

// Gives the thread's slot back when the thread exits.
struct SlotOwner {
  SlotOwner() = default;
  SlotOwner(const SlotOwner&) = delete;
  SlotOwner& operator=(const SlotOwner&) = delete;
  ~SlotOwner() {
    // From here on the thread (in a later thread_local destructor) writes the shared cells.
    current_thread_slot = kSharedSlot;
    if (slot < kThreadSlots) Table().Give(slot);
  }
  uint32_t slot = kSharedSlot;
};

}  // namespace

uint32_t AssignThreadSlot() noexcept {
  const uint32_t slot = Table().Take();
  if (slot < kThreadSlots) {
    thread_local SlotOwner owner;
    owner.slot = slot;
  }
  current_thread_slot = slot;
  return slot;
}

}  // namespace blobtune::metrics::internal
