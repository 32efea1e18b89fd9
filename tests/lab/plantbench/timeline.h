// RunTimeline: the clock of one point. Sleeps through the warm-up, opens the measured window,
// reads the plant's gauge every 10 ms until the window ends, closes it, and returns the time
// series (a point about every 100 ms, warm-up included) and the time-weighted mean limit.
//
//   Timeline t = RunTimeline(spec, [&] { return PlantGauge{...}; },
//                            [&] { meter.OpenWindow(); }, [&] { meter.CloseWindow(); });
//
// The plant runs its demand on its own threads meanwhile; the gauge is read on the calling
// thread, so it must be safe to read from there (atomics, a snapshot).
//
// Thread-safety: reentrant; blocks the calling thread for warm-up + window.
#ifndef BLOBTUNE_TESTS_LAB_PLANTBENCH_TIMELINE_H_
#define BLOBTUNE_TESTS_LAB_PLANTBENCH_TIMELINE_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "real_plant.h"
#include "simulator.h"  // workbench::SeriesPoint

namespace blobtune::plantbench {

// What a plant shows at one moment: its limit and permits in flight now (a mean where a plant
// has several limiters), and running totals since it started.
struct PlantGauge {
  double limit = 0.0;
  double inflight = 0.0;
  uint64_t successes = 0;
  uint64_t timed_weight = 0;  // Successes that the latency sum stands for.
  double latency_sum_ms = 0.0;
};

struct Timeline {
  double measured_s = 0.0;  // From opening the window to closing it.
  double mean_limit = 0.0;  // Time-weighted over the window.
  // end_s counts from the start of the warm-up; the window starts at spec.warmup_s.
  std::vector<workbench::SeriesPoint> series;
};

Timeline RunTimeline(const PointSpec& spec, const std::function<PlantGauge()>& read_gauge,
                     const std::function<void()>& open_window,
                     const std::function<void()>& close_window);

}  // namespace blobtune::plantbench

#endif  // BLOBTUNE_TESTS_LAB_PLANTBENCH_TIMELINE_H_
