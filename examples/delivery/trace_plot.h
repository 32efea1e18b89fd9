// TracePlot: an SVG of blob-path runs over time, drawn with blobtune::svg: the limit (thick) and permits in
// flight (thin) in the top panel, permits finished per second below, one colour per run.
//
//   Status s = WriteTracePlot({{"auto", result.trace}, {"10", other.trace}}, "delivery.svg");
//
// Thread-safety: reentrant.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_TRACE_PLOT_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_TRACE_PLOT_H_

#include <string>
#include <utility>
#include <vector>

#include "blobtune/base/status.h"
#include "delivery_run.h"

namespace blobtune::delivery {

struct TracedRun {
  std::string label;  // e.g. "concurrency auto"
  std::vector<TracePoint> trace;
};

std::string TracePlotSvg(const std::vector<TracedRun>& runs);

// UNAVAILABLE if `file` cannot be written.
Status WriteTracePlot(const std::vector<TracedRun>& runs, const std::string& file);

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_TRACE_PLOT_H_
