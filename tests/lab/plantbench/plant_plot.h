// WritePlantPlot: one SVG per plant, drawn by the workbench's plotter (svg_plot.h): limit,
// permits in flight, goodput and mean access latency over a point's time (warm-up included; a
// grey line marks the start of the measured window), one line per algorithm from the
// repetition with its median throughput ratio, and the oracle's L*, X* and p99* as dashed
// references over the window. For server_mixed_16k the limit is the mean of the server's read
// and write limits and the latency the server's mean permit latency (p99* is the client's).
//
//   Status s = WritePlantPlot(report, report.plants[0], "plots/lmdb_put_1k.svg");
//
// Thread-safety: reentrant.
#ifndef BLOBTUNE_TESTS_LAB_PLANTBENCH_PLANT_PLOT_H_
#define BLOBTUNE_TESTS_LAB_PLANTBENCH_PLANT_PLOT_H_

#include <string>

#include "blobtune/base/status.h"
#include "plant_bench.h"

namespace blobtune::plantbench {

// UNAVAILABLE if the file cannot be written.
Status WritePlantPlot(const PlantBenchReport& report, const PlantReport& plant,
                      const std::string& file);

}  // namespace blobtune::plantbench

#endif  // BLOBTUNE_TESTS_LAB_PLANTBENCH_PLANT_PLOT_H_
