#include "trace_plot.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>

namespace blobtune::delivery {
namespace {

constexpr double kWidth = 900, kPanelHeight = 220, kLeft = 70, kRight = 20, kTop = 40, kGap = 50;
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f"};

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

// One panel: axes, a title, and for each run a polyline of value(point) against time.
void Panel(std::string& svg, double top, const std::string& title, double t_max, double y_max,
           const std::vector<TracedRun>& runs,
           const std::vector<std::pair<std::function<double(const TracePoint&)>, double>>& lines) {
  const double width = kWidth - kLeft - kRight;
  auto x = [&](double t) { return kLeft + width * t / t_max; };
  auto y = [&](double v) { return top + kPanelHeight * (1 - v / y_max); };
  svg += "<text x='" + Number(kLeft) + "' y='" + Number(top - 8) + "' font-size='13'>" + title +
         "</text>\n";
  for (int tick = 0; tick <= 5; ++tick) {
    double t = t_max * tick / 5;
    svg += "<text x='" + Number(x(t)) + "' y='" + Number(top + kPanelHeight + 14) +
           "' font-size='11' text-anchor='middle'>" + Number(t) + "</text>\n";
  }
  svg += "<rect x='" + Number(kLeft) + "' y='" + Number(top) + "' width='" + Number(width) +
         "' height='" + Number(kPanelHeight) + "' fill='none' stroke='#999'/>\n";
  for (int tick = 0; tick <= 4; ++tick) {
    double v = y_max * tick / 4;
    svg += "<text x='" + Number(kLeft - 6) + "' y='" + Number(y(v) + 4) +
           "' font-size='11' text-anchor='end'>" + Number(v) + "</text>\n";
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const auto& [value, stroke] : lines) {
      std::string points;
      for (const TracePoint& p : runs[r].trace) {
        points += Number(x(p.t_s)) + "," + Number(y(std::min(value(p), y_max))) + " ";
      }
      svg += "<polyline fill='none' stroke='" + std::string(kColours[r % 8]) +
             "' stroke-width='" + Number(stroke) + "' points='" + points + "'/>\n";
    }
  }
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
  limit_max = std::min(limit_max * 1.1, 200.0);  // A limit far above the knee is clipped.
  throughput_max *= 1.1;
  const double height = kTop + 2 * kPanelHeight + kGap + 74 + 18.0 * static_cast<double>(runs.size());
  std::string svg = "<svg xmlns='http://www.w3.org/2000/svg' width='" + Number(kWidth) +
                    "' height='" + Number(height) + "' font-family='sans-serif'>\n"
                    "<rect width='100%' height='100%' fill='white'/>\n";
  Panel(svg, kTop, "limit (thick) and permits in flight (thin)", t_max, limit_max, runs,
        {{[](const TracePoint& p) { return static_cast<double>(p.limit); }, 2.5},
         {[](const TracePoint& p) { return static_cast<double>(p.inflight); }, 0.8}});
  double second = kTop + kPanelHeight + kGap;
  Panel(svg, second, "permits finished per second", t_max, throughput_max, runs,
        {{[](const TracePoint& p) { return p.throughput; }, 1.5}});
  double axis = second + kPanelHeight + 32;
  svg += "<text x='" + Number(kWidth / 2) + "' y='" + Number(axis) +
         "' font-size='12' text-anchor='middle'>seconds since the delivery started</text>\n";
  for (size_t r = 0; r < runs.size(); ++r) {
    double ly = axis + 20 + 18.0 * static_cast<double>(r);
    svg += "<rect x='" + Number(kLeft) + "' y='" + Number(ly - 10) + "' width='14' height='10' fill='" +
           kColours[r % 8] + "'/><text x='" + Number(kLeft + 20) + "' y='" + Number(ly) +
           "' font-size='12'>" + runs[r].label + "</text>\n";
  }
  return svg + "</svg>\n";
}

Status WriteTracePlot(const std::vector<TracedRun>& runs, const std::string& file) {
  std::ofstream out(file);
  out << TracePlotSvg(runs);
  out.close();
  if (!out) return Status::Unavailable("cannot write the plot to '" + file + "'");
  return Status();
}

}  // namespace blobtune::delivery
