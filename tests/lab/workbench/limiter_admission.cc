#include "limiter_admission.h"

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
  return std::unique_ptr<LimiterAdmission>(new LimiterAdmission(*std::move(limiter)));
}

LimiterAdmission::~LimiterAdmission() { permits_.clear(); }

std::optional<int> LimiterAdmission::TryAdmit() {
  std::optional<tuner::Permit> permit = limiter_->TryAcquire();
  if (!permit) return std::nullopt;
  int ticket;
  if (free_tickets_.empty()) {
    ticket = static_cast<int>(permits_.size());
    permits_.push_back(*std::move(permit));
  } else {
    ticket = free_tickets_.back();
    free_tickets_.pop_back();
    permits_[static_cast<size_t>(ticket)] = *std::move(permit);
  }
  return ticket;
}

void LimiterAdmission::Refuse() {
  // The simulator refuses only while no permit is free, so this fails and counts; were one
  // free, it would go back at once, unused and unsampled.
  std::optional<tuner::Permit> unused = limiter_->TryAcquire();
}

void LimiterAdmission::Expire() {
  // As in Refuse(): were a permit free, it would go back at once, unused and unsampled.
  StatusOr<tuner::Permit> unused = limiter_->Acquire(limiter_->clock().Now());
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
