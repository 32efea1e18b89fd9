#include "sweep_plot.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "blobtune/svg/chart.h"

namespace blobtune::delivery {
namespace {

std::string SizeText(size_t bytes) {
  if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1 << 10) && bytes % (1 << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

}  // namespace

std::string SweepPlotSvg(const std::vector<SweepSeries>& series) {
  double lo = std::numeric_limits<double>::max(), hi = 0, ratio_max = 1;
  std::vector<size_t> sizes;
  for (const SweepSeries& s : series) {
    for (const auto& [size, ratio] : s.ratios) {
      lo = std::min(lo, static_cast<double>(size));
      hi = std::max(hi, static_cast<double>(size));
      ratio_max = std::max(ratio_max, ratio);
      sizes.push_back(size);
    }
  }
  if (sizes.empty()) lo = hi = 1;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  // Half a decade of room on each side keeps the end points off the frame.
  svg::Panel panel{.title = "blob path time / legacy path time (same messages, same bytes)",
                   .x_min = lo / 1.8,
                   .x_max = hi * 1.8,
                   .log_x = true,
                   .y_max = ratio_max * 1.15};
  for (size_t size : sizes) panel.x_ticks.emplace_back(static_cast<double>(size), SizeText(size));
  std::vector<std::string> legend;
  for (size_t i = 0; i < series.size(); ++i) {
    svg::Series line{.colour = i, .stroke = 2, .markers = true};
    for (const auto& [size, ratio] : series[i].ratios) {
      line.points.emplace_back(static_cast<double>(size), ratio);
    }
    panel.series.push_back(std::move(line));
    legend.push_back(series[i].label);
  }
  panel.series.push_back(svg::Series{.colour = svg::kBlack, .stroke = 1, .dash = "6,4",
                                     .points = {{panel.x_min, 1.0}, {panel.x_max, 1.0}}});
  return svg::ChartSvg({.panels = {panel},
                        .x_label = "message size (log scale); dashed: the legacy path",
                        .legend = legend});
}

Status WriteSweepPlot(const std::vector<SweepSeries>& series, const std::string& file) {
  if (!svg::WriteFile(SweepPlotSvg(series), file)) {
    return Status::Unavailable("cannot write the plot to '" + file + "'");
  }
  return Status::Ok();
}

}  // namespace blobtune::delivery
