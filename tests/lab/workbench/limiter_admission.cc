#include "limiter_admission.h"

#include <limits>

namespace blobtune::workbench {

StatusOr<std::unique_ptr<LimiterAdmission>> LimiterAdmission::Create(
    std::unique_ptr<tuner::LimitAlgorithm> algorithm, Clock& clock,
    tuner::LimiterObserver* observer) {
  tuner::LimiterOptions options;
  options.algorithm = std::move(algorithm);
  options.clock = &clock;
  options.observer = observer;
  options.max_queue = 0;
  // Time every permit: simulated completion rates can exceed the default and the algorithms
  // should see every sample, as they would at a real, slower rate.
  options.full_sampling_rate = 1e12;
  StatusOr<std::unique_ptr<tuner::Limiter>> limiter = tuner::Limiter::Create(std::move(options));
  if (!limiter.ok()) return limiter.status();
  return std::unique_ptr<LimiterAdmission>(
      new LimiterAdmission(*std::move(limiter), tuner::PartitionId{}, /*shared=*/false));
}

StatusOr<std::shared_ptr<tuner::Limiter>> LimiterAdmission::CreateShared(
    std::unique_ptr<tuner::LimitAlgorithm> algorithm, Clock& clock,
    tuner::LimiterObserver* observer, std::span<const tuner::PartitionOptions> partitions) {
  tuner::LimiterOptions options;
  options.algorithm = std::move(algorithm);
  options.clock = &clock;
  options.observer = observer;
  // Every waiting request of every client queues in it: no bound that a simulation could reach.
  options.max_queue = std::numeric_limits<size_t>::max();
  options.full_sampling_rate = 1e12;  // As in Create().
  options.partitions.assign(partitions.begin(), partitions.end());
  StatusOr<std::unique_ptr<tuner::Limiter>> limiter = tuner::Limiter::Create(std::move(options));
  if (!limiter.ok()) return limiter.status();
  return std::shared_ptr<tuner::Limiter>(*std::move(limiter));
}

std::unique_ptr<LimiterAdmission> LimiterAdmission::ForPartition(
    std::shared_ptr<tuner::Limiter> limiter, tuner::PartitionId partition) {
  return std::unique_ptr<LimiterAdmission>(
      new LimiterAdmission(std::move(limiter), partition, /*shared=*/true));
}

LimiterAdmission::~LimiterAdmission() {
  for (auto& [request, turn] : turns_) tuner::Limiter::AsyncAccess::Abandon(*limiter_, *turn);
  turns_.clear();
  permits_.clear();
}

int LimiterAdmission::inflight() const {
  return shared_ ? limiter_->partition(partition_).inflight : limiter_->inflight();
}

std::optional<int> LimiterAdmission::TryAdmit() {
  std::optional<tuner::Permit> permit = limiter_->TryAcquire(partition_);
  if (!permit) return std::nullopt;
  return Keep(*std::move(permit));
}

std::optional<int> LimiterAdmission::Wait(int request) {
  auto turn = std::make_unique<Turn>();
  turn->partition = partition_.index;
  // No deadline in the limiter: the simulator ends a wait with Leave().
  if (!tuner::Limiter::AsyncAccess::Enqueue(*limiter_, *turn, TimePoint::max())) {
    return std::nullopt;  // Cannot happen with CreateShared()'s queue bound.
  }
  turns_.emplace(request, std::move(turn));
  return Poll(request);
}

std::optional<int> LimiterAdmission::TakeGrant(int request) { return Poll(request); }

std::optional<int> LimiterAdmission::Poll(int request) {
  auto it = turns_.find(request);
  if (it == turns_.end()) return std::nullopt;
  std::optional<StatusOr<tuner::Permit>> result =
      tuner::Limiter::AsyncAccess::Poll(*limiter_, *it->second, TimePoint::max());
  if (!result) return std::nullopt;
  turns_.erase(it);
  if (!result->ok()) return std::nullopt;
  return Keep(*std::move(*result));
}

void LimiterAdmission::Leave(int request) {
  auto it = turns_.find(request);
  if (it == turns_.end()) return;
  tuner::Limiter::AsyncAccess::Abandon(*limiter_, *it->second);
  turns_.erase(it);
}

int LimiterAdmission::Keep(tuner::Permit permit) {
  int ticket;
  if (free_tickets_.empty()) {
    ticket = static_cast<int>(permits_.size());
    permits_.push_back(std::move(permit));
  } else {
    ticket = free_tickets_.back();
    free_tickets_.pop_back();
    permits_[static_cast<size_t>(ticket)] = std::move(permit);
  }
  return ticket;
}

void LimiterAdmission::Refuse() {
  // The simulator refuses only while no permit is free, so this fails and counts; were one
  // free, it would go back at once, unused and unsampled.
  std::optional<tuner::Permit> unused = limiter_->TryAcquire(partition_);
}

void LimiterAdmission::Expire() {
  // As in Refuse(): were a permit free, it would go back at once, unused and unsampled.
  StatusOr<tuner::Permit> unused = limiter_->Acquire(partition_, limiter_->clock().Now());
}

void LimiterAdmission::RestartTiming(int ticket) {
  permits_[static_cast<size_t>(ticket)].RestartTiming();
}

void LimiterAdmission::Finish(int ticket, AccessOutcome outcome, uint64_t bytes) {
  tuner::Permit& permit = permits_[static_cast<size_t>(ticket)];
  if (outcome == AccessOutcome::kSuccess) {
    permit.Success(bytes);
  } else {
    permit.Dropped();
  }
  free_tickets_.push_back(ticket);
}

}  // namespace blobtune::workbench
