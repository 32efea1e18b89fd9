#include "blobtune/tuner/clock.h"

namespace blobtune {

Clock& Clock::Steady() noexcept {
  static SteadyClock clock;  // Stateless; constructed once, never destroyed before use ends.
  return clock;
}

}  // namespace blobtune
