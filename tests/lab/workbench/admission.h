// Admission: how the simulator asks whether one more access of a client may start.
//
// Two implementations: StaticCap, a plain cap with no algorithm (what the oracle sweeps), and
// LimiterAdmission (limiter_admission.h), the real blobtune::tuner::Limiter driven through a
// FakeClock. The simulator holds tickets, not Permits, so both look the same to it.
//
//   StaticCap cap(4);
//   std::optional<int> ticket = cap.TryAdmit();   // nullopt: 4 accesses already in flight
//   cap.Finish(*ticket, AccessOutcome::kSuccess, /*bytes=*/0);
//
// Thread-safety: none; a simulation drives its admissions from one thread.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_ADMISSION_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_ADMISSION_H_

#include <cstdint>
#include <optional>

namespace blobtune::workbench {

enum class AccessOutcome { kSuccess, kDropped };

class Admission {
 public:
  Admission() = default;
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;
  virtual ~Admission() = default;

  // A ticket for one access, or std::nullopt when the limit is reached. Never waits.
  virtual std::optional<int> TryAdmit() = 0;
  // The client turned an access away for want of a permit (its queue was full).
  virtual void Refuse() = 0;
  // A queued access reached its deadline before a permit came free: its caller gave up.
  virtual void Expire() = 0;
  // The access of `ticket` starts now, after its setup (see Permit::RestartTiming).
  virtual void RestartTiming(int ticket) = 0;
  // Ends the access of `ticket` (each ticket exactly once).
  virtual void Finish(int ticket, AccessOutcome outcome, uint64_t bytes) = 0;
  virtual int limit() const = 0;
  virtual int inflight() const = 0;

  // Whether requests wait in the admission's own queue (a limiter shared with other clients,
  // limiter_admission.h), which decides whose request a freed permit goes to. Then the
  // simulator calls Wait() for every request instead of TryAdmit(), TakeGrant() for its queued
  // requests after any client's release, and Leave() for a queued request whose deadline passed.
  // Otherwise the simulator queues requests itself and asks again after the client's releases.
  virtual bool queues() const { return false; }
  // Queues `request`; its ticket if it is granted at once.
  virtual std::optional<int> Wait(int request) {
    (void)request;
    return std::nullopt;
  }
  // The ticket of queued `request` once it has been granted, else std::nullopt.
  virtual std::optional<int> TakeGrant(int request) {
    (void)request;
    return std::nullopt;
  }
  // Queued `request` gives up: it leaves the queue, or gives back the permit granted to it.
  virtual void Leave(int request) { (void)request; }
};

// A fixed cap: no algorithm, no samples.
class StaticCap final : public Admission {
 public:
  explicit StaticCap(int limit) : limit_(limit) {}

  std::optional<int> TryAdmit() override {
    if (inflight_ >= limit_) return std::nullopt;
    ++inflight_;
    return 0;
  }
  void Refuse() override {}
  void Expire() override {}
  void RestartTiming(int /*ticket*/) override {}
  void Finish(int /*ticket*/, AccessOutcome /*outcome*/, uint64_t /*bytes*/) override {
    --inflight_;
  }
  int limit() const override { return limit_; }
  int inflight() const override { return inflight_; }

 private:
  int limit_;
  int inflight_ = 0;
};

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_ADMISSION_H_
