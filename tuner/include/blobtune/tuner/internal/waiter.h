// Internal: a node in a Limiter's wait queue. Public only because the header-only async front
// (async_acquire.h) derives from it; not part of the API.
//
// Thread-safety: every field is guarded by the owning limiter's queue mutex.
#ifndef BLOBTUNE_TUNER_INTERNAL_WAITER_H_
#define BLOBTUNE_TUNER_INTERNAL_WAITER_H_

#include <cstdint>

#include "blobtune/base/clock.h"
#include "blobtune/tuner/limiter_observer.h"

namespace blobtune::tuner::internal {

struct Waiter {
  enum class State {
    kIdle,     // Not queued yet.
    kWaiting,  // In the queue.
    kGranted,  // A slot was taken for it; granted_* say which. No longer queued.
    kFailed,   // `failure` says why. No longer queued.
  };

  Waiter() = default;
  Waiter(const Waiter&) = delete;
  Waiter& operator=(const Waiter&) = delete;

  // Called with the queue mutex held right after `state` left kWaiting: wake the acquirer.
  virtual void Notify() = 0;

  State state = State::kIdle;
  AcquireFailure failure = AcquireFailure::kRejected;
  int granted_inflight = 0;
  uint64_t granted_sequence = 0;
  TimePoint queued_at{};
  // The partition it waits in (PartitionId::index).
  uint32_t partition = 0;
  // False when overload shedding cut its deadline (LimiterOptions::overload_wait).
  bool full_wait = true;
  Waiter* prev = nullptr;
  Waiter* next = nullptr;

 protected:
  ~Waiter() = default;
};

}  // namespace blobtune::tuner::internal

#endif  // BLOBTUNE_TUNER_INTERNAL_WAITER_H_
