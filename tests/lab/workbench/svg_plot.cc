#include "svg_plot.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "blobtune/svg/chart.h"

namespace blobtune::workbench {
namespace {

std::string Seconds(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

struct PanelSpec {
  std::string title;
  std::function<double(const SeriesPoint&)> value;
  // The oracle's value per phase, drawn as a black step line (or nothing).
  std::function<double(const PhaseOracle&)> reference;
  std::string reference_dash;
};

svg::Panel DrawPanel(const WorkloadReport& report, const PanelSpec& spec) {
  svg::Panel panel{
      .title = spec.title, .x_min = 0, .x_max = report.workload.duration_s, .y_grid = true};
  double y_max = 0.0;
  for (size_t i = 0; i < report.runs.size(); ++i) {
    svg::Series line{.colour = i, .stroke = 1.3};
    for (const SeriesPoint& p : report.runs[i].simulation.series) {
      line.points.emplace_back(p.end_s, spec.value(p));
      y_max = std::max(y_max, spec.value(p));
    }
    panel.series.push_back(std::move(line));
  }
  for (const PhaseOracle& phase : report.oracle) {
    if (phase.start_s > 0.0) panel.x_marks.push_back(phase.start_s);  // Step times.
  }
  if (spec.reference) {
    svg::Series step{.colour = svg::kBlack, .stroke = 1.5, .dash = spec.reference_dash};
    for (const PhaseOracle& phase : report.oracle) {
      const double v = spec.reference(phase);
      y_max = std::max(y_max, v);
      step.points.emplace_back(phase.start_s, v);
      step.points.emplace_back(phase.end_s, v);
    }
    panel.series.push_back(std::move(step));
  }
  panel.y_max = svg::NiceMax(y_max * 1.05);
  return panel;
}

}  // namespace

std::string SvgPlot(const WorkloadReport& report) {
  const std::vector<PanelSpec> specs = {
      {"limit (dashed: oracle L*)", [](const SeriesPoint& p) { return p.mean_limit; },
       [](const PhaseOracle& o) { return static_cast<double>(o.limit); }, "6,4"},
      {"permits in flight", [](const SeriesPoint& p) { return p.mean_inflight; }, nullptr, ""},
      {"throughput, successes/s (dashed: oracle X*)",
       [](const SeriesPoint& p) { return p.throughput; },
       [](const PhaseOracle& o) { return o.throughput; }, "6,4"},
      {"mean access latency, ms (dotted: oracle p99*)",
       [](const SeriesPoint& p) { return p.mean_latency_ms; },
       [](const PhaseOracle& o) { return o.p99_ms; }, "2,3"},
  };
  svg::Chart chart{.title = report.workload.name,
                   .width = 960,
                   .panel_height = 180,
                   .gap = 40,
                   .x_label = "time, s (0 to " + Seconds(report.workload.duration_s) + ")",
                   .legend_on_top = true};
  for (const PanelSpec& spec : specs) chart.panels.push_back(DrawPanel(report, spec));
  for (const AlgorithmRun& run : report.runs) chart.legend.push_back(run.algorithm);
  return svg::ChartSvg(chart);
}

Status WriteSvgPlot(const WorkloadReport& report, const std::string& file) {
  if (!svg::WriteFile(SvgPlot(report), file)) {
    return Status::Unavailable(file + ": cannot write the plot");
  }
  return Status::Ok();
}

}  // namespace blobtune::workbench
