// LimiterAdmission: the real blobtune::tuner::Limiter behind the simulator's Admission interface.
//
// A client's own limiter is created with `max_queue = 0` (the simulator keeps its own per-client
// queue and retries after every release) and the simulation's FakeClock, which the simulator
// sets to each event's time before calling in, so the algorithm sees simulated latencies.
//
// Clients may instead share one limiter through its partitions (Workload::partitions). Then the
// limiter decides whose request a freed permit goes to, so every request that waits for a permit
// waits in the limiter's own queue (queues() is true).
//
//   FakeClock clock;
//   auto admission = LimiterAdmission::Create(std::move(algorithm), clock).value();
//   auto shared = LimiterAdmission::CreateShared(std::move(algorithm), clock, nullptr,
//                                                workload.partitions).value();
//   auto reader = LimiterAdmission::ForPartition(shared, tuner::PartitionId{0});
//
// Thread-safety: none beyond the limiter's own; one simulation thread drives it.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_LIMITER_ADMISSION_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_LIMITER_ADMISSION_H_

#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "admission.h"
#include "blobtune/base/clock.h"
#include "blobtune/base/status_or.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "blobtune/tuner/limiter.h"
#include "blobtune/tuner/limiter_observer.h"
#include "blobtune/tuner/partition.h"

namespace blobtune::workbench {

class LimiterAdmission final : public Admission {
 public:
  static StatusOr<std::unique_ptr<LimiterAdmission>> Create(
      std::unique_ptr<tuner::LimitAlgorithm> algorithm, Clock& clock,
      tuner::LimiterObserver* observer = nullptr);
  // A limiter with `partitions` for several clients to share (ForPartition).
  static StatusOr<std::shared_ptr<tuner::Limiter>> CreateShared(
      std::unique_ptr<tuner::LimitAlgorithm> algorithm, Clock& clock,
      tuner::LimiterObserver* observer, std::span<const tuner::PartitionOptions> partitions);
  // One client's admission to `limiter` in `partition`.
  static std::unique_ptr<LimiterAdmission> ForPartition(std::shared_ptr<tuner::Limiter> limiter,
                                                        tuner::PartitionId partition);

  // Leaves the limiter's queue and releases held permits (as ignored) before the limiter goes.
  ~LimiterAdmission() override;

  std::optional<int> TryAdmit() override;
  // Asks the limiter once more, which refuses (no permit is free) and counts the refusal for
  // the algorithm (Sample::refused).
  void Refuse() override;
  // Asks the limiter with a deadline that has passed, which times out (no permit is free) and
  // counts the expiry for the algorithm (Sample::expired).
  void Expire() override;
  void RestartTiming(int ticket) override;
  void Finish(int ticket, AccessOutcome outcome, uint64_t bytes) override;
  int limit() const override { return limiter_->limit(); }
  // The permits of this client's partition when the limiter is shared.
  int inflight() const override;
  bool queues() const override { return shared_; }
  std::optional<int> Wait(int request) override;
  std::optional<int> TakeGrant(int request) override;
  void Leave(int request) override;

  const tuner::Limiter& limiter() const { return *limiter_; }

 private:
  // A request's place in a shared limiter's queue. The simulator polls it, so a grant needs no
  // wake-up.
  struct Turn final : tuner::internal::Waiter {
    void Notify() override {}
  };

  LimiterAdmission(std::shared_ptr<tuner::Limiter> limiter, tuner::PartitionId partition,
                   bool shared)
      : limiter_(std::move(limiter)), partition_(partition), shared_(shared) {}
  int Keep(tuner::Permit permit);
  // The ticket of `request`'s turn if it was granted (and the turn is gone then).
  std::optional<int> Poll(int request);

  std::shared_ptr<tuner::Limiter> limiter_;
  const tuner::PartitionId partition_;
  const bool shared_;
  std::unordered_map<int, std::unique_ptr<Turn>> turns_;  // Queued requests, by request.
  std::vector<tuner::Permit> permits_;  // Indexed by ticket.
  std::vector<int> free_tickets_;
};

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_LIMITER_ADMISSION_H_
