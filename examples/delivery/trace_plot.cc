#include "trace_plot.h"

#include <algorithm>

#include "blobtune/svg/chart.h"

namespace blobtune::delivery {
namespace {

// One series per run of `value` against time.
template <typename Value>
std::vector<svg::Series> Series(const std::vector<TracedRun>& runs, double stroke, Value value) {
  std::vector<svg::Series> series;
  for (size_t r = 0; r < runs.size(); ++r) {
    svg::Series line{.colour = r, .stroke = stroke};
    for (const TracePoint& p : runs[r].trace) line.points.emplace_back(p.t_s, value(p));
    series.push_back(std::move(line));
  }
  return series;
}

}  // namespace

std::string TracePlotSvg(const std::vector<TracedRun>& runs) {
  double t_max = 0.001, limit_max = 1, throughput_max = 1;
  for (const TracedRun& run : runs) {
    for (const TracePoint& p : run.trace) {
      t_max = std::max(t_max, p.t_s);
      limit_max = std::max({limit_max, static_cast<double>(p.limit), static_cast<double>(p.inflight)});
      throughput_max = std::max(throughput_max, p.throughput);
    }
  }
  svg::Panel limits{.title = "limit (thick) and permits in flight (thin)",
                    .x_max = t_max,
                    .y_max = std::min(limit_max * 1.1, 200.0)};  // A limit far above the knee is clipped.
  limits.series = Series(runs, 2.5, [](const TracePoint& p) { return double(p.limit); });
  for (svg::Series& s : Series(runs, 0.8, [](const TracePoint& p) { return double(p.inflight); })) {
    limits.series.push_back(std::move(s));
  }
  svg::Panel throughput{.title = "permits finished per second",
                        .x_max = t_max,
                        .y_max = throughput_max * 1.1};
  throughput.series = Series(runs, 1.5, [](const TracePoint& p) { return p.throughput; });
  std::vector<std::string> legend;
  for (const TracedRun& run : runs) legend.push_back(run.label);
  return svg::ChartSvg({.panels = {limits, throughput},
                        .x_label = "seconds since the delivery started",
                        .legend = legend});
}

Status WriteTracePlot(const std::vector<TracedRun>& runs, const std::string& file) {
  if (!svg::WriteFile(TracePlotSvg(runs), file)) {
    return Status::Unavailable("cannot write the plot to '" + file + "'");
  }
  return Status::Ok();
}

}  // namespace blobtune::delivery
