// Uses the installed blobtune headers and libraries the way an embedding program would.
#include <cstdio>

#include "blobtune/tuner/clock.h"
#include "blobtune/tuner/status.h"
#include "blobtune/tuner/status_or.h"

namespace {

blobtune::StatusOr<int> ParsePositive(int value) {
  if (value <= 0) return blobtune::Status::InvalidArgument("value must be positive");
  return value;
}

}  // namespace

int main() {
  blobtune::StatusOr<int> good = ParsePositive(3);
  blobtune::StatusOr<int> bad = ParsePositive(-1);
  blobtune::TimePoint t0 = blobtune::Clock::Steady().Now();
  blobtune::TimePoint t1 = blobtune::Clock::Steady().Now();
  if (!good.ok() || *good != 3 || bad.ok() || t1 < t0) {
    std::fprintf(stderr, "consumer: unexpected results from the installed blobtune\n");
    return 1;
  }
  std::printf("consumer: %s\n", bad.status().ToString().c_str());
  return 0;
}
