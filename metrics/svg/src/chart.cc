#include "blobtune/svg/chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

namespace blobtune::svg {
namespace {

constexpr double kLeft = 70, kRight = 20, kTop = 40, kHeading = 30;
// Category 10: distinct for the first few series, which is all a chart here has.
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

// A tick label: three significant digits, whole numbers from 100 up.
std::string Label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), std::fabs(v) >= 100 ? "%.0f" : "%.3g", v);
  return buf;
}

// "'" + escaped + "'": an attribute value.
std::string Quoted(std::string_view text) { return "'" + EscapeXml(text) + "'"; }

// Maps data to the frame of one panel.
class Frame {
 public:
  Frame(const Panel& panel, double width, double top, double height)
      : panel_(panel), width_(width), top_(top), height_(height) {
    x0_ = Position(panel.x_min, panel.log_x);
    x_span_ = std::max(Position(panel.x_max, panel.log_x) - x0_, 1e-12);
    y_min_ = panel.y_min;
    y_max_ = panel.y_max;
    if (panel.log_y && !(y_min_ > 0)) y_min_ = SmallestPositiveY(panel);
    if (!(y_max_ > y_min_)) y_max_ = AutoMax(panel, y_min_);
    y0_ = Position(y_min_, panel.log_y);
    y_span_ = std::max(Position(y_max_, panel.log_y) - y0_, 1e-12);
  }

  double y_min() const { return y_min_; }
  double y_max() const { return y_max_; }
  bool Drawable(double x, double y) const {
    return std::isfinite(x) && std::isfinite(y) && (!panel_.log_x || x > 0) &&
           (!panel_.log_y || y > 0);
  }
  double X(double v) const { return kLeft + width_ * (Position(v, panel_.log_x) - x0_) / x_span_; }
  double Y(double v) const {
    const double f = (Position(v, panel_.log_y) - y0_) / y_span_;
    return top_ + height_ * (1 - std::clamp(f, 0.0, 1.0));
  }

 private:
  static double Position(double v, bool log) { return log ? std::log(v) : v; }
  static double SmallestPositiveY(const Panel& panel) {
    double lo = std::numeric_limits<double>::infinity();
    for (const Series& s : panel.series) {
      for (const auto& [x, y] : s.points) {
        if (y > 0 && std::isfinite(y)) lo = std::min(lo, y);
      }
    }
    return std::isfinite(lo) ? std::pow(10.0, std::floor(std::log10(lo))) : 1.0;
  }
  static double AutoMax(const Panel& panel, double y_min) {
    double hi = y_min;
    for (const Series& s : panel.series) {
      for (const auto& [x, y] : s.points) {
        if (std::isfinite(y)) hi = std::max(hi, y);
      }
    }
    if (panel.log_y) return std::max(NiceMax(hi * 1.05), y_min * 10);
    // The first tick above the highest point, with a little room above it.
    const double span = (hi - y_min) * 1.05;
    const double step = NiceStep(span, panel.y_integer);
    return y_min + std::max(1.0, std::ceil(span / step - 1e-9)) * step;
  }

  const Panel& panel_;
  double width_, top_, height_;
  double x0_ = 0, x_span_ = 1, y0_ = 0, y_span_ = 1, y_min_ = 0, y_max_ = 1;
};

std::vector<double> YTicks(const Panel& panel, const Frame& frame) {
  std::vector<double> ticks;
  if (panel.log_y) {
    for (double v = std::pow(10.0, std::ceil(std::log10(frame.y_min()) - 1e-9));
         v <= frame.y_max() * (1 + 1e-9) && ticks.size() < 12; v *= 10) {
      ticks.push_back(v);
    }
    if (ticks.empty()) ticks = {frame.y_min(), frame.y_max()};
    return ticks;
  }
  const double step = NiceStep(frame.y_max() - frame.y_min(), panel.y_integer);
  for (double v = std::ceil(frame.y_min() / step - 1e-9) * step;
       v <= frame.y_max() * (1 + 1e-9) + 1e-12 && ticks.size() < 12; v += step) {
    ticks.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);  // No "-0".
  }
  return ticks;
}

// One polyline per run of finite points: a NaN (or another non-finite value) ends a run, so
// missing data shows as a gap. Points a log axis cannot place are left out without a break.
void DrawSeries(std::string& svg, const Series& series, const Frame& frame) {
  const std::string colour(Colour(series.colour));
  std::vector<std::vector<std::pair<double, double>>> runs(1);
  for (const auto& [px, py] : series.points) {
    if (!std::isfinite(px) || !std::isfinite(py)) {
      if (!runs.back().empty()) runs.emplace_back();
      continue;
    }
    if (frame.Drawable(px, py)) runs.back().emplace_back(frame.X(px), frame.Y(py));
  }
  for (const auto& run : runs) {
    if (run.empty()) continue;
    std::string points;
    for (const auto& [x, y] : run) points += Number(x) + "," + Number(y) + " ";
    points.pop_back();
    svg += "<polyline fill='none' stroke='" + colour + "' stroke-width='" +
           Number(series.stroke) + "'";
    if (!series.dash.empty()) svg += " stroke-dasharray=" + Quoted(series.dash);
    if (!series.id.empty()) svg += " data-series=" + Quoted(series.id);
    svg += " points='" + points + "'/>\n";
    // A line of one point draws nothing: show it as a dot.
    if (!series.markers && run.size() > 1) continue;
    for (const auto& [x, y] : run) {
      svg += "<circle cx='" + Number(x) + "' cy='" + Number(y) + "' r='3.5' fill='" + colour +
             "'/>\n";
    }
  }
}

// One panel at `top`: frame, title, ticks, marks and the series' polylines.
void DrawPanel(std::string& svg, const Chart& chart, const Panel& panel, double top) {
  const double width = chart.width - kLeft - kRight;
  const Frame frame(panel, width, top, chart.panel_height);
  const double bottom = top + chart.panel_height;
  svg += "<text x='" + Number(kLeft) + "' y='" + Number(top - 8) + "' font-size='13'>" +
         EscapeXml(panel.title) + "</text>\n";
  std::vector<std::pair<double, std::string>> x_ticks = panel.x_ticks;
  if (x_ticks.empty()) {
    for (int tick = 0; tick <= 5; ++tick) {
      const double v = panel.log_x ? panel.x_min * std::pow(panel.x_max / panel.x_min, tick / 5.0)
                                   : panel.x_min + (panel.x_max - panel.x_min) * tick / 5;
      x_ticks.emplace_back(v, Label(v));
    }
  }
  for (const auto& [v, text] : x_ticks) {
    if (!frame.Drawable(v, panel.log_y ? frame.y_max() : 0)) continue;
    svg += "<text x='" + Number(frame.X(v)) + "' y='" + Number(bottom + 14) +
           "' font-size='11' text-anchor='middle'>" + EscapeXml(text) + "</text>\n";
  }
  for (double v : panel.x_marks) {
    if (!frame.Drawable(v, panel.log_y ? frame.y_max() : 0)) continue;
    svg += "<line x1='" + Number(frame.X(v)) + "' x2='" + Number(frame.X(v)) + "' y1='" +
           Number(top) + "' y2='" + Number(bottom) + "' stroke='#ccc'/>\n";
  }
  const std::vector<double> y_ticks = YTicks(panel, frame);
  for (size_t i = 0; i < y_ticks.size(); ++i) {
    const double y = frame.Y(y_ticks[i]);
    svg += "<text x='" + Number(kLeft - 6) + "' y='" + Number(y + 4) +
           "' font-size='11' text-anchor='end'>" + Label(y_ticks[i]) + "</text>\n";
    if (panel.y_grid && i > 0 && i + 1 < y_ticks.size()) {
      svg += "<line x1='" + Number(kLeft) + "' x2='" + Number(kLeft + width) + "' y1='" +
             Number(y) + "' y2='" + Number(y) + "' stroke='#eee'/>\n";
    }
  }
  svg += "<rect x='" + Number(kLeft) + "' y='" + Number(top) + "' width='" + Number(width) +
         "' height='" + Number(chart.panel_height) + "' fill='none' stroke='#999'/>\n";
  for (const Series& series : panel.series) DrawSeries(svg, series, frame);
}

}  // namespace

std::string EscapeXml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string_view Colour(size_t index) {
  return index == kBlack ? "#000" : kPalette[index % kPaletteSize];
}

double NiceMax(double value) {
  if (!(value > 0) || !std::isfinite(value)) return 1.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
  for (double step : {1.0, 2.0, 5.0}) {
    if (value <= step * magnitude * (1 + 1e-12)) return step * magnitude;
  }
  return 10.0 * magnitude;
}

double NiceStep(double span, bool integer) {
  const double step = NiceMax(span / 5);
  return integer ? std::max(1.0, std::round(step)) : step;
}

std::string ChartSvg(const Chart& chart) {
  const double n = static_cast<double>(chart.panels.size());
  const bool heading = !chart.title.empty() || (chart.legend_on_top && !chart.legend.empty());
  const double first = kTop + (heading ? kHeading : 0);
  const double axis = first + n * chart.panel_height + std::max(n - 1, 0.0) * chart.gap + 32;
  const double legend_rows = chart.legend_on_top ? 0 : static_cast<double>(chart.legend.size());
  const double height = axis + 24 + 18.0 * legend_rows;
  std::string svg = "<svg xmlns='http://www.w3.org/2000/svg' width='" + Number(chart.width) +
                    "' height='" + Number(height) + "' viewBox='0 0 " + Number(chart.width) + " " +
                    Number(height) +
                    "' font-family='sans-serif'>\n"
                    "<rect width='100%' height='100%' fill='white'/>\n";
  if (!chart.title.empty()) {
    svg += "<text x='" + Number(kLeft) + "' y='22' font-size='16' font-weight='bold'>" +
           EscapeXml(chart.title) + "</text>\n";
  }
  double legend_x = kLeft;
  for (size_t r = 0; r < chart.legend.size(); ++r) {
    const std::string colour(Colour(r));
    double ly = axis + 20 + 18.0 * static_cast<double>(r);
    double lx = kLeft;
    if (chart.legend_on_top) {
      ly = chart.title.empty() ? 22 : 46;
      lx = legend_x;
      legend_x += 30 + 8.0 * static_cast<double>(chart.legend[r].size());
    }
    svg += "<rect x='" + Number(lx) + "' y='" + Number(ly - 10) +
           "' width='14' height='10' fill='" + colour + "'/><text x='" + Number(lx + 20) + "' y='" +
           Number(ly) + "' font-size='12'>" + EscapeXml(chart.legend[r]) + "</text>\n";
  }
  for (size_t p = 0; p < chart.panels.size(); ++p) {
    DrawPanel(svg, chart, chart.panels[p],
              first + static_cast<double>(p) * (chart.panel_height + chart.gap));
  }
  if (!chart.x_label.empty()) {
    svg += "<text x='" + Number(chart.width / 2) + "' y='" + Number(axis) +
           "' font-size='12' text-anchor='middle'>" + EscapeXml(chart.x_label) + "</text>\n";
  }
  return svg + "</svg>\n";
}

bool WriteFile(const std::string& document, const std::string& file) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << document;
  out.close();
  return static_cast<bool>(out);
}

}  // namespace blobtune::svg
