#include "svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>

namespace blobtune::workbench {
namespace {

constexpr double kWidth = 960, kLeft = 70, kRight = 20, kTop = 60, kPanel = 180, kGap = 40;
constexpr const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten.
double NiceMax(double value) {
  if (value <= 0.0) return 1.0;
  double magnitude = std::pow(10.0, std::floor(std::log10(value)));
  for (double step : {1.0, 2.0, 5.0, 10.0}) {
    if (value <= step * magnitude) return step * magnitude;
  }
  return 10.0 * magnitude;
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

struct Panel {
  std::string title;
  std::function<double(const SeriesPoint&)> value;
  // The oracle's value per phase, drawn as a step line (or nothing).
  std::function<double(const PhaseOracle&)> reference;
  std::string reference_style;
};

class Canvas {
 public:
  Canvas(double duration_s, double top, double y_max)
      : duration_s_(duration_s), top_(top), y_max_(y_max) {}
  double X(double t) const { return kLeft + (kWidth - kLeft - kRight) * t / duration_s_; }
  double Y(double v) const { return top_ + kPanel * (1.0 - std::min(v, y_max_) / y_max_); }

 private:
  double duration_s_, top_, y_max_;
};

void DrawPanel(std::ostringstream& svg, const WorkloadReport& report, const Panel& panel,
               double top) {
  double duration = report.workload.duration_s;
  double y_max = 0.0;
  for (const AlgorithmRun& run : report.runs) {
    for (const SeriesPoint& p : run.simulation.series) y_max = std::max(y_max, panel.value(p));
  }
  if (panel.reference) {
    for (const PhaseOracle& phase : report.oracle) y_max = std::max(y_max, panel.reference(phase));
  }
  y_max = NiceMax(y_max * 1.05);
  Canvas c(duration, top, y_max);
  svg << "<text x=\"" << kLeft << "\" y=\"" << top - 6 << "\" font-weight=\"bold\">"
      << panel.title << "</text>\n";
  svg << "<rect x=\"" << kLeft << "\" y=\"" << top << "\" width=\"" << kWidth - kLeft - kRight
      << "\" height=\"" << kPanel << "\" fill=\"none\" stroke=\"#999\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    double v = y_max * i / 4.0;
    svg << "<text x=\"" << kLeft - 6 << "\" y=\"" << c.Y(v) + 4
        << "\" text-anchor=\"end\" font-size=\"11\">" << Number(v) << "</text>\n";
    if (i > 0 && i < 4) {
      svg << "<line x1=\"" << kLeft << "\" x2=\"" << kWidth - kRight << "\" y1=\"" << c.Y(v)
          << "\" y2=\"" << c.Y(v) << "\" stroke=\"#eee\"/>\n";
    }
  }
  for (const PhaseOracle& phase : report.oracle) {  // Step times.
    if (phase.start_s > 0.0) {
      svg << "<line x1=\"" << c.X(phase.start_s) << "\" x2=\"" << c.X(phase.start_s) << "\" y1=\""
          << top << "\" y2=\"" << top + kPanel << "\" stroke=\"#ccc\"/>\n";
    }
  }
  for (size_t i = 0; i < report.runs.size(); ++i) {
    svg << "<polyline fill=\"none\" stroke-width=\"1.3\" stroke=\"" << kColours[i % 10]
        << "\" points=\"";
    for (const SeriesPoint& p : report.runs[i].simulation.series) {
      svg << Number(c.X(p.end_s)) << "," << Number(c.Y(panel.value(p))) << " ";
    }
    svg << "\"/>\n";
  }
  if (panel.reference) {
    svg << "<polyline fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\" " << panel.reference_style
        << " points=\"";
    for (const PhaseOracle& phase : report.oracle) {
      double y = c.Y(panel.reference(phase));
      svg << Number(c.X(phase.start_s)) << "," << Number(y) << " " << Number(c.X(phase.end_s))
          << "," << Number(y) << " ";
    }
    svg << "\"/>\n";
  }
}

}  // namespace

std::string SvgPlot(const WorkloadReport& report) {
  std::vector<Panel> panels = {
      {"limit (dashed: oracle L*)", [](const SeriesPoint& p) { return p.mean_limit; },
       [](const PhaseOracle& o) { return static_cast<double>(o.limit); },
       "stroke-dasharray=\"6,4\""},
      {"permits in flight", [](const SeriesPoint& p) { return p.mean_inflight; }, nullptr, ""},
      {"throughput, successes/s (dashed: oracle X*)",
       [](const SeriesPoint& p) { return p.throughput; },
       [](const PhaseOracle& o) { return o.throughput; }, "stroke-dasharray=\"6,4\""},
      {"mean access latency, ms (dotted: oracle p99*)",
       [](const SeriesPoint& p) { return p.mean_latency_ms; },
       [](const PhaseOracle& o) { return o.p99_ms; }, "stroke-dasharray=\"2,3\""},
  };
  double height = kTop + panels.size() * (kPanel + kGap) + 20;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"13\">\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"" << kLeft << "\" y=\"22\" font-size=\"16\" font-weight=\"bold\">"
      << report.workload.name << "</text>\n";
  double x = kLeft;
  for (size_t i = 0; i < report.runs.size(); ++i) {  // Legend.
    svg << "<rect x=\"" << x << "\" y=\"32\" width=\"14\" height=\"4\" fill=\"" << kColours[i % 10]
        << "\"/><text x=\"" << x + 18 << "\" y=\"38\">" << report.runs[i].algorithm << "</text>\n";
    x += 30 + 8.0 * static_cast<double>(report.runs[i].algorithm.size());
  }
  for (size_t i = 0; i < panels.size(); ++i) {
    DrawPanel(svg, report, panels[i], kTop + 10 + static_cast<double>(i) * (kPanel + kGap));
  }
  double axis_y = kTop + 10 + panels.size() * (kPanel + kGap) - kGap + 16;
  svg << "<text x=\"" << kWidth - kRight << "\" y=\"" << axis_y
      << "\" text-anchor=\"end\" font-size=\"11\">time, s (0 to "
      << Number(report.workload.duration_s) << ")</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

Status WriteSvgPlot(const WorkloadReport& report, const std::string& file) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << SvgPlot(report);
  out.close();
  if (!out) return Status::Unavailable(file + ": cannot write the plot");
  return Status::Ok();
}

}  // namespace blobtune::workbench
