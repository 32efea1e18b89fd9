// FakeClock: a Clock whose time moves only when the owner advances it.
//
// For tests and the tuning workbench, not part of the installed library: controller dynamics are
// checked in simulated time, with no sleeping and identical results on every run. Link
// blobtune_test_common and #include "common/fake_clock.h".
//
//   blobtune::FakeClock clock;
//   limiter_options.clock = &clock;
//   clock.Advance(std::chrono::milliseconds(5));
//
// Thread-safety: Now(), Advance() and Set() may be called from any thread; time never goes back.
#ifndef BLOBTUNE_TESTS_COMMON_FAKE_CLOCK_H_
#define BLOBTUNE_TESTS_COMMON_FAKE_CLOCK_H_

#include <atomic>
#include <cstdint>

#include "blobtune/base/clock.h"

namespace blobtune {

class FakeClock final : public Clock {
 public:
  // Starts at `start`. The default is one hour past the epoch, so that `Now() - d` stays
  // positive for any reasonable d.
  explicit FakeClock(TimePoint start = TimePoint(std::chrono::hours(1))) noexcept
      : now_ns_(start.time_since_epoch().count()) {}

  TimePoint Now() const noexcept override {
    // Memory ordering: acquire pairs with the release in Advance()/Set(), so a thread that sees
    // the new time also sees what the advancing thread wrote before advancing.
    return TimePoint(Duration(now_ns_.load(std::memory_order_acquire)));
  }

  // A waiter cannot know when a test will advance fake time, so it looks again after a short
  // real interval (bounded by the fake time remaining, which is a lower bound of nothing but
  // keeps real-clock-like behaviour when a test never advances).
  std::chrono::nanoseconds RealWaitFor(Duration remaining) const noexcept override {
    constexpr std::chrono::nanoseconds kPoll = std::chrono::milliseconds(1);
    return remaining < kPoll ? remaining : kPoll;
  }

  // REQUIRES: by >= 0.
  void Advance(Duration by) noexcept {
    now_ns_.fetch_add(by.count() > 0 ? by.count() : 0, std::memory_order_acq_rel);
  }

  // Moves time to `to` if that is later than now; never moves it back.
  void Set(TimePoint to) noexcept {
    int64_t target = to.time_since_epoch().count();
    int64_t current = now_ns_.load(std::memory_order_relaxed);
    while (current < target &&
           !now_ns_.compare_exchange_weak(current, target, std::memory_order_acq_rel)) {
    }
  }

 private:
  std::atomic<int64_t> now_ns_;
};

}  // namespace blobtune

#endif  // BLOBTUNE_TESTS_COMMON_FAKE_CLOCK_H_
