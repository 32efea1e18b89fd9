#include "twin.h"

#include <cmath>
#include <filesystem>

#include "oracle.h"
#include "workload.h"

namespace blobtune::plantbench {

TwinComparison CompareWithTwin(const std::string& file,
                               const std::vector<std::pair<int, double>>& real_sweep) {
  TwinComparison comparison;
  comparison.file = file;
  std::error_code error;
  if (!std::filesystem::exists(file, error)) {
    comparison.error = "no twin: " + file + " does not exist";
    return comparison;
  }
  StatusOr<workbench::Workload> workload = workbench::LoadWorkload(file);
  if (!workload.ok()) {
    comparison.error = "bad twin: " + workload.status().ToString();
    return comparison;
  }
  const workbench::Workload phase = workbench::PhaseWorkload(*workload, 0);
  for (const auto& [limit, real] : real_sweep) {
    StatusOr<workbench::SweepPoint> simulated =
        workbench::MeasureStaticLimit(phase, limit, workbench::OracleOptions{});
    if (!simulated.ok()) {
      comparison.error = "twin simulation failed at limit " + std::to_string(limit) + ": " +
                         simulated.status().ToString();
      comparison.sweep.clear();
      return comparison;
    }
    TwinPoint point{.limit = limit, .real = real, .twin = simulated->throughput};
    point.difference = real > 0.0 ? point.twin / real - 1.0 : 0.0;
    comparison.max_difference = std::max(comparison.max_difference, std::abs(point.difference));
    comparison.sweep.push_back(point);
  }
  return comparison;
}

}  // namespace blobtune::plantbench
