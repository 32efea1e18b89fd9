// Plant: the simulated resource behind the limiters, a chain of delay, k-server FIFO and batch
// stages.
//
// The plant knows nothing of events or limiters: the simulator tells it when a request enters a
// stage or finishes its service there, and the plant answers with the services that start and
// when they will end. A service time is
//
//   scale * (service_ms + per_mib_ms * MiB + per_wait_ms if the request waited) * contention,
//   contention = 1 + slowdown * max(0, in_stage - threshold),
//
// drawn when the service starts, where in_stage counts the requests in the stage (waiting or in
// service, this one included): past the contention threshold, overshooting costs throughput.
//
// A batch stage (group commit) has one writer. When it is idle it takes the waiting requests in
// FIFO order, at most max_batch, and serves them together as one batch of
//
//   scale * (service_ms + sum over members of (per_request_ms + per_mib_ms * MiB
//            + per_wait_ms if it waited)) * contention
//
// with one draw of service_ms per batch (a commit's fixed cost). Every member leaves at the end
// of the batch; the writer is free once the last one has left. With refill_wait_ms, a writer
// whose last batch had n > 1 members waits up to that long for n requests to be waiting before
// it starts a smaller batch (the store's batch_refill_wait: the writers it just released need a
// moment to queue their next puts). A batch starts only when the
// simulator calls StartBatches() at the end of an instant, so requests that arrive at the same
// time share a batch whatever order their events run in (as the store's WriteBatcher gives the
// writers it just released time to queue their next puts).
//
// Thread-safety: none; owned by one simulation.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_PLANT_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_PLANT_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "random.h"
#include "workload.h"

namespace blobtune::workbench {

class Plant {
 public:
  // A service that started: `request` leaves its stage at `done_ns` (a batch gives one per
  // member, all with the same `done_ns`).
  struct Started {
    int request;
    int64_t done_ns;
  };

  Plant(std::vector<StageSpec> stages, uint64_t seed);

  Plant(const Plant&) = delete;
  Plant& operator=(const Plant&) = delete;
  ~Plant() = default;

  // `request` (of blob size `bytes`; `waited`: its permit came after waiting in its client's
  // queue) arrives at `stage`; appends its service if it starts now (never at a batch stage:
  // see StartBatches).
  void Enter(int stage, int request, uint64_t bytes, bool waited, int64_t now_ns,
             std::vector<Started>& out);
  // A request's service at `stage` ended (once per member of a batch); appends the services that
  // start in the freed server.
  void Leave(int stage, int64_t now_ns, std::vector<Started>& out);
  // Starts a batch at every batch stage whose writer is idle while requests wait (and, with
  // refill_wait_ms, as many as in its last batch wait or the wait is over). Call after the last
  // event of each instant, before time advances.
  void StartBatches(int64_t now_ns, std::vector<Started>& out);
  // The earliest time after `now_ns` at which an idle writer stops waiting for its batch to
  // refill, if one waits: the simulator must call StartBatches() then.
  std::optional<int64_t> RefillDue(int64_t now_ns) const;

  // The current parameters, for steps to change. Call Rebalance() after changing `servers`.
  std::vector<StageSpec>& specs() { return specs_; }
  // Starts waiting requests if a queue stage now has idle servers.
  void Rebalance(int64_t now_ns, std::vector<Started>& out);

  int in_stage(int stage) const { return state_[static_cast<size_t>(stage)].in_stage; }

 private:
  struct Waiting {
    int request;
    uint64_t bytes;
    bool waited;
  };
  struct StageState {
    int busy = 0;
    int in_stage = 0;
    int batch_left = 0;  // Batch stages: members of the batch in service yet to leave.
    int last_batch = 0;  // Batch stages: members of the last batch...
    int64_t idle_since_ns = 0;  // ...and when it ended.
    std::deque<Waiting> waiting;
    Rng rng{0};
  };

  Started Start(int stage, Waiting who, int64_t now_ns);
  bool Refilling(size_t stage, int64_t now_ns) const;
  void StartBatch(int stage, int64_t now_ns, std::vector<Started>& out);
  void StartWaiting(int stage, int64_t now_ns, std::vector<Started>& out);

  std::vector<StageSpec> specs_;
  std::vector<StageState> state_;
};

// Milliseconds to the simulator's integer nanoseconds (rounded; never negative).
int64_t MsToNs(double ms);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_PLANT_H_
