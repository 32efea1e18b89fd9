// blobtune::svg: line charts drawn by hand as SVG, with the standard library alone. One module
// for every picture blobtune draws: the delivery benchmark's sweeps and traces, the workbench's
// per-workload plots and the live status page that metrics/ serves.
//
// It lives under metrics/ because metrics (a library) draws the status page, and examples link
// it from there. It is internal, not part of the public surface: its header is not installed and
// its layout and options may change with the pictures; the static library is exported only
// because blobtune::metrics links it.
//
//   svg::Chart chart{.title = "latency", .x_label = "seconds"};
//   svg::Panel& panel = chart.panels.emplace_back(svg::Panel{.title = "p99, ms"});
//   panel.series.push_back({.colour = 0, .points = {{0, 1.5}, {1, 2.0}}});
//   chart.legend = {"read"};
//   std::string document = svg::ChartSvg(chart);
//
// Every text (titles, labels, legend, attributes) is escaped for XML, so any string is safe to
// draw. A point that is not finite (NaN: no value there) breaks its line in two, so a gap in the
// data is a gap in the picture; a point that is not positive on a log axis is left out.
//
// Thread-safety: reentrant (no shared state).
#ifndef BLOBTUNE_SVG_CHART_H_
#define BLOBTUNE_SVG_CHART_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blobtune::svg {

// The series' colour when it is not a palette entry.
inline constexpr size_t kBlack = SIZE_MAX;

struct Series {
  size_t colour = 0;  // Index into the palette (modulo its size), as the legend's; kBlack: black.
  double stroke = 1.5;
  // An SVG stroke-dasharray ("6,4" dashed, "2,3" dotted); empty: solid.
  std::string dash;
  bool markers = false;  // A dot at every point.
  // A name for machines (the polyline's data-series attribute), e.g. "limit". Optional.
  std::string id;
  std::vector<std::pair<double, double>> points;  // (x, y) in data units.
};

struct Panel {
  std::string title;
  double x_min = 0, x_max = 1;
  bool log_x = false;  // Points with x <= 0 are left out; REQUIRES: x_min > 0 when set.
  // The y axis runs from y_min (0 by default) to y_max; values beyond are clipped to the frame.
  // y_max <= y_min: the first tick above every point. Linear ticks are round: multiples of a
  // step that is 1, 2 or 5 times a power of ten, about five intervals over the axis.
  double y_min = 0, y_max = 0;
  bool log_y = false;      // Log scale; needs y_min > 0 (else the smallest positive y is used).
  bool y_grid = false;     // Light horizontal lines at the inner y ticks.
  bool y_integer = false;  // The values are counts: whole-number ticks (a step of at least 1).
  // Labelled x positions; empty: six evenly spaced numbers.
  std::vector<std::pair<double, std::string>> x_ticks;
  std::vector<double> x_marks;  // Light vertical lines (e.g. phase changes).
  std::vector<Series> series;
};

struct Chart {
  std::string title;  // Bold, at the top; empty: none.
  double width = 900;
  double panel_height = 220;
  double gap = 50;            // Between panels.
  std::vector<Panel> panels;  // Top to bottom, sharing nothing but the width.
  std::string x_label;        // Under the last panel.
  // Legend entries, one per palette colour in order: under the x label, or in one row under the
  // title with legend_on_top.
  std::vector<std::string> legend;
  bool legend_on_top = false;
};

// The SVG document.
std::string ChartSvg(const Chart& chart);

// `text` with &, <, >, " and ' replaced by entities, and control characters other than tab and
// newline (not allowed in XML 1.0) replaced by '?'.
std::string EscapeXml(std::string_view text);

// The palette's colour for `index` ("#1f77b4", ...); "#000" for kBlack.
std::string_view Colour(size_t index);

// A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten, >= value; 1 for value <= 0.
double NiceMax(double value);

// The tick step for a linear axis spanning `span`: the smallest 1, 2 or 5 times a power of ten
// that is at least span / 5, and at least 1 when `integer`.
double NiceStep(double span, bool integer);

// Writes `document` to `file`; false if it cannot be written.
bool WriteFile(const std::string& document, const std::string& file);

}  // namespace blobtune::svg

#endif  // BLOBTUNE_SVG_CHART_H_
