// LimiterObserver: how a Limiter reports what it does, without depending on any metrics library.
//
// metrics/ implements this with prometheus-cpp; tests implement it with counters. Callbacks run
// on the thread that caused the event, some of them on the acquire/release path, so an
// implementation must be cheap and must not block or call back into the limiter: atomics are
// fine, a mutex is not.
//
// Thread-safety: implementations must be safe to call from any number of threads at once.
#ifndef BLOBTUNE_TUNER_LIMITER_OBSERVER_H_
#define BLOBTUNE_TUNER_LIMITER_OBSERVER_H_

#include "blobtune/base/clock.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "blobtune/tuner/partition.h"
#include "blobtune/tuner/sample.h"

namespace blobtune::tuner {

class Limiter;

// How a permit ended.
enum class PermitOutcome { kSuccess, kDropped, kIgnored };

// Why an acquire did not get a permit.
enum class AcquireFailure { kRejected, kTimeout, kCancelled, kQueueFull };

class LimiterObserver {
 public:
  LimiterObserver() = default;
  LimiterObserver(const LimiterObserver&) = delete;
  LimiterObserver& operator=(const LimiterObserver&) = delete;
  virtual ~LimiterObserver() = default;

  // The observed limiter is built (Limiter::Create calls this before it returns) and until
  // OnLimiterDestroyed may be read from any thread: its limit, gauges, bounds and estimates.
  virtual void OnLimiterCreated(const Limiter& /*limiter*/) {}
  // The observed limiter is being destroyed (its destructor calls this first): from when this
  // returns, `limiter` must not be touched.
  virtual void OnLimiterDestroyed(const Limiter& /*limiter*/) {}

  // The callbacks below name the partition of the acquirer or permit (always the first, index
  // 0, for a limiter without partitions).

  // A permit was granted; `queue_wait` is zero for permits granted without waiting.
  virtual void OnGranted(PartitionId /*partition*/, Duration /*queue_wait*/) {}
  // An acquire ended without a permit.
  virtual void OnAcquireFailed(PartitionId /*partition*/, AcquireFailure /*why*/) {}
  // A permit was released. `sample` is null for ignored permits and for untimed ones.
  virtual void OnReleased(PartitionId /*partition*/, PermitOutcome /*outcome*/,
                          const Sample* /*sample*/) {}
  // The algorithm moved the limit. Called with the limiter's algorithm state consistent.
  virtual void OnLimitChanged(int /*old_limit*/, int /*new_limit*/,
                              const AlgorithmEstimates& /*estimates*/) {}
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_LIMITER_OBSERVER_H_
