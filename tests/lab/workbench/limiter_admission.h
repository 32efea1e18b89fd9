// LimiterAdmission: the real blobtune::tuner::Limiter behind the simulator's Admission interface.
//
// The limiter is created with `max_queue = 0` (the simulator keeps its own per-client queue and
// retries after every release) and the simulation's FakeClock, which the simulator sets to each
// event's time before calling in, so the algorithm sees simulated latencies.
//
//   FakeClock clock;
//   auto admission = LimiterAdmission::Create(std::move(algorithm), clock).value();
//
// Thread-safety: none beyond the limiter's own; one simulation thread drives it.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_LIMITER_ADMISSION_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_LIMITER_ADMISSION_H_

#include <memory>
#include <vector>

#include "admission.h"
#include "blobtune/tuner/clock.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "blobtune/tuner/limiter.h"
#include "blobtune/tuner/limiter_observer.h"
#include "blobtune/tuner/status_or.h"

namespace blobtune::workbench {

class LimiterAdmission final : public Admission {
 public:
  static StatusOr<std::unique_ptr<LimiterAdmission>> Create(
      std::unique_ptr<tuner::LimitAlgorithm> algorithm, Clock& clock,
      tuner::LimiterObserver* observer = nullptr);

  // Releases held permits (as ignored) before the limiter goes.
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
  int inflight() const override { return limiter_->inflight(); }

  const tuner::Limiter& limiter() const { return *limiter_; }

 private:
  explicit LimiterAdmission(std::unique_ptr<tuner::Limiter> limiter)
      : limiter_(std::move(limiter)) {}

  std::unique_ptr<tuner::Limiter> limiter_;
  std::vector<tuner::Permit> permits_;  // Indexed by ticket.
  std::vector<int> free_tickets_;
};

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_LIMITER_ADMISSION_H_
