#include "report.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

namespace blobtune::workbench {
namespace {

using json = nlohmann::ordered_json;  // Keys in the documented order.

// Rounds to 4 significant digits, so reports diff cleanly and read well.
double Round(double value) {
  if (value == 0.0 || !std::isfinite(value)) return value;
  double scale = std::pow(10.0, 3 - std::floor(std::log10(std::abs(value))));
  return std::round(value * scale) / scale;
}

json OptionalNumber(const std::optional<double>& value) {
  return value ? json(Round(*value)) : json(nullptr);
}

json StepRecoveries(const Score& score) {
  json steps = json::array();
  for (const std::optional<double>& rtts : score.step_recovery_rtts) {
    steps.push_back(OptionalNumber(rtts));
  }
  return steps;
}

json StepsInBand(const Score& score) {
  json steps = json::array();
  for (double fraction : score.step_in_band) steps.push_back(Round(fraction));
  return steps;
}

std::string Format(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string FormatOptional(const char* format, const std::optional<double>& value) {
  return value ? Format(format, *value) : std::string("-");
}

}  // namespace

std::string ReportJson(const BenchReport& report, const std::string& default_algorithm) {
  json workloads = json::array();
  for (const WorkloadReport& entry : report.workloads) {
    json phases = json::array();
    for (const PhaseOracle& phase : entry.oracle) {
      phases.push_back({{"start_s", Round(phase.start_s)},
                        {"end_s", Round(phase.end_s)},
                        {"oracle",
                         {{"limit", phase.limit},
                          {"throughput", Round(phase.throughput)},
                          {"p99_ms", Round(phase.p99_ms)}}}});
    }
    json results = json::array();
    for (const AlgorithmRun& run : entry.runs) {
      const Score& s = run.score;
      results.push_back({{"algorithm", run.algorithm},
                         {"throughput_ratio", Round(s.throughput_ratio)},
                         {"p99_ratio", Round(s.p99_ratio)},
                         {"recovery_rtts", OptionalNumber(s.recovery_rtts)},
                         {"limit_cv", Round(s.limit_cv)},
                         {"fairness", OptionalNumber(s.fairness)},
                         {"regret", Round(s.regret)},
                         {"step_recovery_rtts", StepRecoveries(s)},
                         {"step_in_band", StepsInBand(s)}});
    }
    workloads.push_back({{"name", entry.workload.name}, {"phases", phases}, {"results", results}});
  }
  json root = {{"default_algorithm", default_algorithm}, {"workloads", workloads}};
  return root.dump(2) + "\n";
}

void PrintTable(const BenchReport& report, std::ostream& out) {
  std::map<std::string, std::pair<double, int>> regret_by_algorithm;
  std::vector<std::string> order;
  for (const WorkloadReport& entry : report.workloads) {
    out << entry.workload.name << "\n";
    for (const PhaseOracle& phase : entry.oracle) {
      char line[160];
      std::snprintf(line, sizeof line,
                    "  oracle %6.1f-%-6.1f s  L* %-4d X* %9.1f/s  p50* %8.2f ms  p99* %8.2f ms\n",
                    phase.start_s, phase.end_s, phase.limit, phase.throughput, phase.p50_ms,
                    phase.p99_ms);
      out << line;
    }
    out << "  algorithm      X ratio  p99 ratio  recovery  limit cv  fairness  regret"
           "      X/s   p99 ms  mean L\n";
    for (const AlgorithmRun& run : entry.runs) {
      const Score& s = run.score;
      char line[200];
      std::snprintf(line, sizeof line, "  %-13s %8s %10s %9s %9s %9s %7s %8s %8s %7s\n",
                    run.algorithm.c_str(), Format("%.3f", s.throughput_ratio).c_str(),
                    Format("%.2f", s.p99_ratio).c_str(),
                    FormatOptional("%.1f", s.recovery_rtts).c_str(),
                    Format("%.3f", s.limit_cv).c_str(), FormatOptional("%.3f", s.fairness).c_str(),
                    Format("%.3f", s.regret).c_str(), Format("%.1f", s.throughput).c_str(),
                    Format("%.1f", s.p99_ms).c_str(), Format("%.1f", s.mean_limit).c_str());
      out << line;
      auto [it, inserted] = regret_by_algorithm.try_emplace(run.algorithm, 0.0, 0);
      if (inserted) order.push_back(run.algorithm);
      it->second.first += s.regret;
      ++it->second.second;
    }
    out << "\n";
  }
  out << "mean regret over " << report.workloads.size() << " workloads (lower is better):\n";
  for (const std::string& algorithm : order) {
    const auto& [sum, count] = regret_by_algorithm[algorithm];
    char line[100];
    std::snprintf(line, sizeof line, "  %-13s %.3f\n", algorithm.c_str(), sum / count);
    out << line;
  }
}

}  // namespace blobtune::workbench
