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
