// Helpers for the limit algorithm tests: samples on a fake time line that starts at the epoch.
#ifndef BLOBTUNE_TESTS_TUNER_ALGORITHMS_SAMPLE_MAKER_H_
#define BLOBTUNE_TESTS_TUNER_ALGORITHMS_SAMPLE_MAKER_H_

#include <cstdint>

#include "blobtune/base/clock.h"
#include "blobtune/tuner/sample.h"

namespace blobtune::tuner::testing {

// A success granted `start` after the epoch that took `latency` with `inflight` in flight.
inline Sample Success(Duration start, Duration latency, int inflight, uint32_t weight = 1) {
  return Sample{.start = TimePoint(start),
                .latency = latency,
                .inflight = inflight,
                .dropped = false,
                .weight = weight};
}

// The same access, failed because of overload.
inline Sample Drop(Duration start, Duration latency, int inflight, uint32_t weight = 1) {
  Sample sample = Success(start, latency, inflight, weight);
  sample.dropped = true;
  return sample;
}

}  // namespace blobtune::tuner::testing

#endif  // BLOBTUNE_TESTS_TUNER_ALGORITHMS_SAMPLE_MAKER_H_
