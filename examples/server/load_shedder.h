// LoadShedder: refuses a request at once, before it queues for a permit, when queueing could only
// end in a refusal later. Refusing early is what keeps an overloaded server at its capacity: a
// request that waits for a permit costs a queue entry, a strand and a timer, and under overload
// most requests are refused, so their cost comes out of what the admitted ones need.
//
//   LoadShedder writes(write_limiter, "writes", options.wait_deadline);
//   if (Status shed = writes.Admit(now); !shed.ok()) return 503;   // at once, nothing queued
//   StatusOr<Permit> permit = co_await AsyncAcquire(..., deadline, ...);
//   writes.Observe(permit.status(), started, Clock::Steady().Now(), deadline);
//
// The rule: while a wait for a permit ran out its whole deadline within the last `window` (the
// limiter lets through less than arrives) and the last permit granted took at least half of
// the time its request had, a request that finds a whole limit's worth of requests waiting
// already is refused at once: it would wait only to time out. Otherwise it queues as usual:
// bursts the limit absorbs still wait, and so does a steady demand above the limit whose queue
// moves fast (a closed loop of more callers than the limit), whatever timeouts a stall of the
// store caused. The limiter's own shedding (LimiterOptions::overload_wait) bounds the wait.
//
// With partitions (tuner/partition.h) the rule applies to each partition on its own: a
// partition's requests are refused only after its own waits ran out and a limit's worth of its
// own requests wait, so an overloaded partition does not get another's refused.
//
// Thread-safety: not thread-safe; the server calls it from its event-loop thread only.
#ifndef BLOBTUNE_EXAMPLES_SERVER_LOAD_SHEDDER_H_
#define BLOBTUNE_EXAMPLES_SERVER_LOAD_SHEDDER_H_

#include <optional>
#include <string>
#include <vector>

#include "blobtune/base/clock.h"
#include "blobtune/tuner/limiter.h"
#include "blobtune/base/status.h"

namespace blobtune::server {

class LoadShedder {
 public:
  // `limiter` (not owned; may be null: admits everything) gates what `what` names ("writes").
  LoadShedder(tuner::Limiter* limiter, std::string what, Duration window)
      : limiter_(limiter),
        what_(std::move(what)),
        window_(window),
        partitions_(limiter != nullptr ? limiter->partition_count() : 1) {}
  LoadShedder(const LoadShedder&) = delete;
  LoadShedder& operator=(const LoadShedder&) = delete;
  ~LoadShedder() = default;

  // OK: go on and wait for a permit. UNAVAILABLE (answered 503): refused now, and the limiter
  // has counted the refusal (a failed TryAcquire) as demand it shed.
  Status Admit(TimePoint now, tuner::PartitionId partition = {});
  // How a wait for a permit (or an access that began with one) that began at `started` with
  // `deadline` ended at `now`: OK (granted), DEADLINE_EXCEEDED (timed out), or another failure
  // (no sign of load either way).
  void Observe(const Status& status, TimePoint started, TimePoint now, TimePoint deadline,
               tuner::PartitionId partition = {});

 private:
  tuner::Limiter* const limiter_;
  const std::string what_;
  const Duration window_;
  struct PartitionState {
    std::optional<TimePoint> last_timeout;  // Of a wait that ran out its whole deadline.
    bool slow = false;  // The last granted wait took at least half of the time it had.
  };
  std::vector<PartitionState> partitions_;  // Indexed by tuner::PartitionId::index.
};

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_LOAD_SHEDDER_H_
