#include "plant_plot.h"

#include "bench_runner.h"
#include "svg_plot.h"

namespace blobtune::plantbench {

Status WritePlantPlot(const PlantBenchReport& report, const PlantReport& plant,
                      const std::string& file) {
  workbench::WorkloadReport plot;
  plot.workload.name = plant.name + " (real plant, median repetition)";
  plot.workload.duration_s = report.warmup_s + report.measure_s;
  workbench::PhaseOracle oracle;
  oracle.start_s = report.warmup_s;
  oracle.end_s = report.warmup_s + report.measure_s;
  oracle.limit = plant.oracle_limit;
  oracle.throughput = plant.oracle_throughput;
  oracle.p99_ms = plant.oracle_p99_ms;
  plot.oracle.push_back(oracle);
  for (const AlgorithmResult& result : plant.results) {
    workbench::AlgorithmRun run;
    run.algorithm = result.algorithm;
    run.simulation.series = result.series;
    plot.runs.push_back(std::move(run));
  }
  return workbench::WriteSvgPlot(plot, file);
}

}  // namespace blobtune::plantbench
