// WriteSvgPlot: one SVG per workload, drawn with blobtune::svg (metrics/svg).
//
// Four panels share the time axis: limit (with the oracle's L* per phase as a dashed black
// line), permits in flight, throughput (with X*), and mean access latency (with p99* dotted).
// Each algorithm is one coloured line; with several clients, lines show the mean per client.
//
//   Status s = WriteSvgPlot(workload_report, "plots/delivery_model.svg");
//
// Thread-safety: reentrant.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_SVG_PLOT_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_SVG_PLOT_H_

#include <string>

#include "bench_runner.h"
#include "blobtune/base/status.h"

namespace blobtune::workbench {

// The SVG document for one workload. REQUIRES: the runs kept their series.
std::string SvgPlot(const WorkloadReport& report);

// Writes SvgPlot(report) to `file`; UNAVAILABLE if the file cannot be written.
Status WriteSvgPlot(const WorkloadReport& report, const std::string& file);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_SVG_PLOT_H_
