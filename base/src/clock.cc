#include "blobtune/base/clock.h"

#include <time.h>

namespace blobtune {

Clock& Clock::Steady() noexcept {
  static SteadyClock clock;  // Stateless; constructed once, never destroyed before use ends.
  return clock;
}

TimePoint SteadyClock::CoarseNow() const noexcept {
  // libstdc++'s steady_clock is CLOCK_MONOTONIC, whose coarse variant shares its epoch.
  timespec ts{};
  if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0) return Now();
  return TimePoint(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
}

}  // namespace blobtune
