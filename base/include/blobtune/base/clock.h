// Clock: the source of time for everything in blobtune that measures or waits.
//
// Components take a `Clock&` instead of calling std::chrono directly, so tests and the tuning
// workbench can drive time by hand with a FakeClock (tests/common/fake_clock.h) and never sleep.
//
//   blobtune::Clock& clock = blobtune::Clock::Steady();
//   blobtune::TimePoint start = clock.Now();
//   ...
//   blobtune::Duration latency = clock.Now() - start;
//
// Thread-safety: every Clock implementation is safe to call from any number of threads.
#ifndef BLOBTUNE_BASE_CLOCK_H_
#define BLOBTUNE_BASE_CLOCK_H_

#include <chrono>

namespace blobtune {

using Duration = std::chrono::nanoseconds;
// Points in time share std::chrono::steady_clock's epoch type; for a FakeClock the epoch is
// whatever the test chose.
using TimePoint = std::chrono::time_point<std::chrono::steady_clock, Duration>;

class Clock {
 public:
  Clock() = default;
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;
  virtual ~Clock() = default;

  virtual TimePoint Now() const noexcept = 0;

  // A cheaper reading of Now() that may lag it by a few milliseconds (the kernel's tick). For
  // decisions that need no precision, on paths that cannot afford a precise read.
  virtual TimePoint CoarseNow() const noexcept { return Now(); }

  // How long a thread that must wait `remaining` of this clock's time should block in real time
  // before it looks at Now() again. A real clock returns `remaining`. A fake clock, whose time
  // only moves when a test advances it, returns a short real interval so that waiters notice
  // the jump promptly.
  virtual std::chrono::nanoseconds RealWaitFor(Duration remaining) const noexcept {
    return remaining;
  }

  // The process-wide std::chrono::steady_clock.
  static Clock& Steady() noexcept;
};

// std::chrono::steady_clock behind the Clock interface. Thread-safe.
class SteadyClock final : public Clock {
 public:
  TimePoint Now() const noexcept override {
    return std::chrono::time_point_cast<Duration>(std::chrono::steady_clock::now());
  }
  // CLOCK_MONOTONIC_COARSE: the same epoch as steady_clock, a few nanoseconds to read.
  TimePoint CoarseNow() const noexcept override;
};

}  // namespace blobtune

#endif  // BLOBTUNE_BASE_CLOCK_H_
