// SweepPlot: the chart of a size sweep: the blob path's mean time over the legacy path's at the
// same point, against message size (log scale), one line per concurrency, with the legacy path
// as a dashed line at 1.
//
//   Status s = WriteSweepPlot({{"concurrency 2", {{10240, 2.9}, {102400, 1.6}}}}, "sweep.svg");
//
// Thread-safety: reentrant.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_SWEEP_PLOT_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_SWEEP_PLOT_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "blobtune/base/status.h"

namespace blobtune::delivery {

struct SweepSeries {
  std::string label;                               // e.g. "concurrency auto"
  std::vector<std::pair<size_t, double>> ratios;   // (message size in bytes, ratio to legacy)
};

std::string SweepPlotSvg(const std::vector<SweepSeries>& series);

// UNAVAILABLE if `file` cannot be written.
Status WriteSweepPlot(const std::vector<SweepSeries>& series, const std::string& file);

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_SWEEP_PLOT_H_
