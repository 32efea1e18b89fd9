// Sample: what one finished access tells a limit algorithm.
//
// The limiter turns each permit that reports an outcome into a Sample and feeds it to the
// algorithm in the order the permits finished. Algorithms are pure functions of these samples:
// they never read a clock, so `start` and `latency` are their only notion of time.
//
// Thread-safety: a plain value.
#ifndef BLOBTUNE_TUNER_SAMPLE_H_
#define BLOBTUNE_TUNER_SAMPLE_H_

#include <cstdint>

#include "blobtune/base/clock.h"

namespace blobtune::tuner {

struct Sample {
  // When the permit was granted.
  TimePoint start{};
  // From grant to Success() or Dropped(). For a dropped access this is how long it took to
  // fail, which may be far below the real service time (a fast error) or a whole deadline.
  Duration latency{};
  // Permits in flight when this one was granted, counting itself (so >= 1).
  int inflight = 1;
  // True when the access failed because of overload: a timeout, a rejection downstream.
  bool dropped = false;
  // Payload size of the access when the caller reported one; 0 otherwise.
  uint64_t bytes = 0;
  // How long the permit was held before its access started, when the caller restarted the
  // timing (Permit::RestartTiming); 0 otherwise. Not the resource's latency, but a slot was
  // busy all the same: at a rate x, a limit needs x * setup permits on top of what the resource
  // holds (e.g. a write permit taken before the request body arrived).
  Duration setup{};
  // TryAcquire() calls that found no free permit since the previous sample: demand turned away
  // by callers that shed instead of waiting. Those lose what the limit refuses, even while
  // most permits sit idle (a permit freed by a completion waits for the next arrival). Failed
  // waits (Acquire) do not count: a queue refills freed permits at once.
  uint32_t refused = 0;
  // Acquires (Acquire(), AsyncAcquire) that ended in DEADLINE_EXCEEDED since the previous
  // sample: callers that waited for a permit until their deadline (or the overload wait) and
  // gave up. Demand the limit did not serve in time, from callers that queue.
  uint32_t expired = 0;
  // How many finished accesses this sample stands for. 1 unless the limiter times only one in
  // `weight` permits because the completion rate is very high (see LimiterOptions); the sample
  // is then taken as representative of them all, outcome (dropped or not) included.
  uint32_t weight = 1;

  // When the access finished.
  TimePoint end() const { return start + latency; }
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_SAMPLE_H_
