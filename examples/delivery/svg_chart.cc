#include "svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

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

// A tick label: three significant digits, whole numbers from 100 up.
std::string Label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), v >= 100 ? "%.0f" : "%.3g", v);
  return buf;
}

// One panel at `top`: frame, title, ticks and the series' polylines.
void DrawPanel(std::string& svg, double top, const ChartPanel& panel) {
  const double width = kWidth - kLeft - kRight;
  auto position = [&](double v) { return panel.log_x ? std::log(v) : v; };
  const double x0 = position(panel.x_min);
  const double span = std::max(position(panel.x_max) - x0, 1e-12);
  auto x = [&](double v) { return kLeft + width * (position(v) - x0) / span; };
  auto y = [&](double v) { return top + kPanelHeight * (1 - std::min(v, panel.y_max) / panel.y_max); };
  svg += "<text x='" + Number(kLeft) + "' y='" + Number(top - 8) + "' font-size='13'>" +
         panel.title + "</text>\n";
  std::vector<std::pair<double, std::string>> ticks = panel.x_ticks;
  if (ticks.empty()) {
    for (int tick = 0; tick <= 5; ++tick) {
      double v = panel.x_min + (panel.x_max - panel.x_min) * tick / 5;
      ticks.emplace_back(v, Label(v));
    }
  }
  for (const auto& [v, text] : ticks) {
    svg += "<text x='" + Number(x(v)) + "' y='" + Number(top + kPanelHeight + 14) +
           "' font-size='11' text-anchor='middle'>" + text + "</text>\n";
  }
  svg += "<rect x='" + Number(kLeft) + "' y='" + Number(top) + "' width='" + Number(width) +
         "' height='" + Number(kPanelHeight) + "' fill='none' stroke='#999'/>\n";
  for (int tick = 0; tick <= 4; ++tick) {
    double v = panel.y_max * tick / 4;
    svg += "<text x='" + Number(kLeft - 6) + "' y='" + Number(y(v) + 4) +
           "' font-size='11' text-anchor='end'>" + Label(v) + "</text>\n";
  }
  for (const ChartSeries& series : panel.series) {
    const std::string colour = series.colour == SIZE_MAX ? "#000" : kColours[series.colour % 8];
    std::string points;
    for (const auto& [px, py] : series.points) points += Number(x(px)) + "," + Number(y(py)) + " ";
    svg += "<polyline fill='none' stroke='" + colour + "' stroke-width='" + Number(series.stroke) +
           (series.dashed ? "' stroke-dasharray='6,4" : "") + "' points='" + points + "'/>\n";
    if (!series.markers) continue;
    for (const auto& [px, py] : series.points) {
      svg += "<circle cx='" + Number(x(px)) + "' cy='" + Number(y(py)) + "' r='3.5' fill='" +
             colour + "'/>\n";
    }
  }
}

}  // namespace

std::string ChartSvg(const std::vector<ChartPanel>& panels, const std::string& x_label,
                     const std::vector<std::string>& legend) {
  const double n = static_cast<double>(panels.size());
  const double axis = kTop + n * kPanelHeight + (n - 1) * kGap + 32;
  const double height = axis + 42 + 18.0 * static_cast<double>(legend.size());
  std::string svg = "<svg xmlns='http://www.w3.org/2000/svg' width='" + Number(kWidth) +
                    "' height='" + Number(height) + "' font-family='sans-serif'>\n"
                    "<rect width='100%' height='100%' fill='white'/>\n";
  for (size_t p = 0; p < panels.size(); ++p) {
    DrawPanel(svg, kTop + static_cast<double>(p) * (kPanelHeight + kGap), panels[p]);
  }
  svg += "<text x='" + Number(kWidth / 2) + "' y='" + Number(axis) +
         "' font-size='12' text-anchor='middle'>" + x_label + "</text>\n";
  for (size_t r = 0; r < legend.size(); ++r) {
    double ly = axis + 20 + 18.0 * static_cast<double>(r);
    svg += "<rect x='" + Number(kLeft) + "' y='" + Number(ly - 10) +
           "' width='14' height='10' fill='" + kColours[r % 8] + "'/><text x='" +
           Number(kLeft + 20) + "' y='" + Number(ly) + "' font-size='12'>" + legend[r] +
           "</text>\n";
  }
  return svg + "</svg>\n";
}

Status WriteSvg(const std::string& svg, const std::string& file) {
  std::ofstream out(file);
  out << svg;
  out.close();
  if (!out) return Status::Unavailable("cannot write the plot to '" + file + "'");
  return Status();
}

}  // namespace blobtune::delivery
