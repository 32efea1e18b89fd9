// SvgChart: the line charts of blobtune-delivery, drawn by hand as SVG (no plotting library):
// stacked panels of polylines over one x axis, with ticks, a title per panel and a legend with
// one colour per series index.
//
//   ChartPanel panel{.title = "ratio to legacy", .x_min = 1, .x_max = 100, .y_max = 3};
//   panel.series.push_back({.colour = 0, .points = {{1, 2.1}, {100, 1.2}}});
//   std::string svg = ChartSvg({panel}, "message size", {"concurrency 2"});
//
// Thread-safety: reentrant.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_SVG_CHART_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_SVG_CHART_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "blobtune/tuner/status.h"

namespace blobtune::delivery {

struct ChartSeries {
  size_t colour = 0;  // Index into the palette, as the legend's; SIZE_MAX: black.
  double stroke = 1.5;
  bool dashed = false;
  bool markers = false;  // A dot at every point.
  std::vector<std::pair<double, double>> points;  // (x, y) in data units.
};

struct ChartPanel {
  std::string title;
  double x_min = 0, x_max = 1;
  bool log_x = false;  // REQUIRES: x_min > 0 when set.
  double y_max = 1;    // The y axis runs from 0; larger values are clipped.
  // Labelled x positions; empty: five evenly spaced numbers.
  std::vector<std::pair<double, std::string>> x_ticks;
  std::vector<ChartSeries> series;
};

// The SVG document: `panels` top to bottom, `x_label` under the last, then the legend.
std::string ChartSvg(const std::vector<ChartPanel>& panels, const std::string& x_label,
                     const std::vector<std::string>& legend);

// Writes `svg` to `file`; UNAVAILABLE if it cannot be written.
Status WriteSvg(const std::string& svg, const std::string& file);

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_SVG_CHART_H_
