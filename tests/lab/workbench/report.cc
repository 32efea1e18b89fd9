#include "report.h"

#include "bar.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace blobtune::workbench {

double RoundForReport(double value) {
  if (value == 0.0 || !std::isfinite(value)) return value;
  double scale = std::pow(10.0, 3 - std::floor(std::log10(std::abs(value))));
  return std::round(value * scale) / scale;
}

namespace {

using json = nlohmann::ordered_json;  // Keys in the documented order.

double Round(double value) { return RoundForReport(value); }

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

json Takeovers(const Workload& workload, const Score& score) {
  json takeovers = json::array();
  for (const Takeover& t : score.takeovers) {
    takeovers.push_back({{"client", workload.clients[static_cast<size_t>(t.client)].name},
                         {"idle_s", Round(t.idle_s)},
                         {"rtts", OptionalNumber(t.rtts)}});
  }
  return takeovers;
}

json Fractions(const std::vector<double>& fractions) {
  json steps = json::array();
  for (double fraction : fractions) steps.push_back(Round(fraction));
  return steps;
}

// Per algorithm, in the order of first appearance: mean regret and the count meeting the bar.
struct AlgorithmTotals {
  std::string algorithm;
  double regret = 0.0;
  int runs = 0;
  int meeting_bar = 0;
};

// The totals of the workloads for which `include` is true.
template <typename Include>
std::vector<AlgorithmTotals> Totals(const BenchReport& report, Include include) {
  std::vector<AlgorithmTotals> totals;
  for (const WorkloadReport& entry : report.workloads) {
    if (!include(entry)) continue;
    for (const AlgorithmRun& run : entry.runs) {
      auto it = std::find_if(totals.begin(), totals.end(), [&](const AlgorithmTotals& t) {
        return t.algorithm == run.algorithm;
      });
      if (it == totals.end()) it = totals.insert(totals.end(), {.algorithm = run.algorithm});
      it->regret += run.score.regret;
      ++it->runs;
      it->meeting_bar += MissesOfBar(run.score).empty();
    }
  }
  return totals;
}

// The families of the report's workloads, in order of first appearance (none if no workload
// has one).
std::vector<std::string> Families(const BenchReport& report) {
  std::vector<std::string> families;
  for (const WorkloadReport& entry : report.workloads) {
    const std::string& family = entry.workload.family;
    if (!family.empty() && std::find(families.begin(), families.end(), family) == families.end()) {
      families.push_back(family);
    }
  }
  return families;
}

int CountFamily(const BenchReport& report, const std::string& family) {
  return static_cast<int>(std::count_if(
      report.workloads.begin(), report.workloads.end(),
      [&](const WorkloadReport& entry) { return entry.workload.family == family; }));
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
      std::vector<std::string> misses = MissesOfBar(s);
      results.push_back({{"algorithm", run.algorithm},
                         {"throughput_ratio", Round(s.throughput_ratio)},
                         {"p99_ratio", Round(s.p99_ratio)},
                         {"recovery_rtts", OptionalNumber(s.recovery_rtts)},
                         {"service_in_band", Round(s.service_in_band)},
                         {"limit_cv", Round(s.limit_cv)},
                         {"mean_limit", Round(s.mean_limit)},
                         {"fairness", OptionalNumber(s.fairness)},
                         {"regret", Round(s.regret)},
                         {"meets_bar", misses.empty()},
                         {"misses", misses},
                         {"step_recovery_rtts", StepRecoveries(s)},
                         {"step_service_in_band", Fractions(s.step_service_in_band)},
                         {"step_limit_in_band", Fractions(s.step_limit_in_band)},
                         {"takeovers", Takeovers(entry.workload, s)}});
    }
    json workload = {{"name", entry.workload.name}};
    if (!entry.workload.family.empty()) workload["family"] = entry.workload.family;
    workload["phases"] = phases;
    workload["results"] = results;
    workloads.push_back(std::move(workload));
  }
  json root = {{"default_algorithm", default_algorithm}, {"workloads", workloads}};
  std::vector<std::string> families = Families(report);
  if (!families.empty()) {
    json by_family = json::array();
    for (const std::string& family : families) {
      json results = json::array();
      for (const AlgorithmTotals& t : Totals(report, [&](const WorkloadReport& entry) {
             return entry.workload.family == family;
           })) {
        results.push_back({{"algorithm", t.algorithm},
                           {"meeting_bar", t.meeting_bar},
                           {"mean_regret", Round(t.regret / t.runs)}});
      }
      by_family.push_back({{"name", family},
                           {"workloads", CountFamily(report, family)},
                           {"results", results}});
    }
    root["families"] = by_family;
  }
  return root.dump(2) + "\n";
}

namespace {

// How soon the others took over the capacity of each client a step idled (Score::takeovers).
void PrintTakeovers(const Workload& workload, const Score& score, std::ostream& out) {
  for (const Takeover& t : score.takeovers) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "    %s idle from %.3f s: the others reach %.2f of X* after %s round trips\n",
                  workload.clients[static_cast<size_t>(t.client)].name.c_str(), t.idle_s,
                  kTakeoverFraction, FormatOptional("%.1f", t.rtts).c_str());
    out << line;
  }
}

// What each client of a workload with partitions got in each phase: goodput, and the response
// time its callers saw (waiting for a permit included).
void PrintClients(const Workload& workload, const AlgorithmRun& run, std::ostream& out) {
  for (const PhaseStats& phase : run.simulation.phases) {
    const double seconds = phase.end_s - phase.start_s;
    for (size_t c = 0; c < workload.clients.size(); ++c) {
      const LatencyHistogram& response = phase.response_by_client[c];
      char line[200];
      std::snprintf(line, sizeof line,
                    "    %6.1f-%-6.1f s  %-12s %-10s X %9.1f/s  response p50 %8.2f p99 %8.2f ms\n",
                    phase.start_s, phase.end_s, workload.clients[c].name.c_str(),
                    workload.partitions[static_cast<size_t>(workload.clients[c].partition)]
                        .name.c_str(),
                    seconds > 0 ? static_cast<double>(phase.successes_by_client[c]) / seconds : 0.0,
                    response.count() > 0 ? response.QuantileMs(0.5) : 0.0,
                    response.count() > 0 ? response.QuantileMs(0.99) : 0.0);
      out << line;
    }
  }
}

}  // namespace

void PrintTable(const BenchReport& report, std::ostream& out) {
  for (const WorkloadReport& entry : report.workloads) {
    out << entry.workload.name;
    if (!entry.workload.family.empty()) out << "  (family " << entry.workload.family << ")";
    out << "\n";
    for (const PhaseOracle& phase : entry.oracle) {
      char line[160];
      std::snprintf(line, sizeof line,
                    "  oracle %6.1f-%-6.1f s  L* %-4d X* %9.1f/s  p50* %8.2f ms  p99* %8.2f ms\n",
                    phase.start_s, phase.end_s, phase.limit, phase.throughput, phase.p50_ms,
                    phase.p99_ms);
      out << line;
    }
    out << "  algorithm      X ratio  p99 ratio  recovery  service  fairness  regret"
           "      X/s   p99 ms  mean L  misses\n";
    for (const AlgorithmRun& run : entry.runs) {
      const Score& s = run.score;
      std::string missed;
      for (const std::string& name : MissesOfBar(s)) missed += (missed.empty() ? "" : ",") + name;
      char line[300];
      std::snprintf(line, sizeof line, "  %-13s %8s %10s %9s %8s %9s %7s %8s %8s %7s  %s\n",
                    run.algorithm.c_str(), Format("%.3f", s.throughput_ratio).c_str(),
                    Format("%.2f", s.p99_ratio).c_str(),
                    FormatOptional("%.1f", s.recovery_rtts).c_str(),
                    Format("%.3f", s.service_in_band).c_str(),
                    FormatOptional("%.3f", s.fairness).c_str(), Format("%.3f", s.regret).c_str(),
                    Format("%.1f", s.throughput).c_str(), Format("%.1f", s.p99_ms).c_str(),
                    Format("%.1f", s.mean_limit).c_str(), missed.empty() ? "-" : missed.c_str());
      out << line;
      if (!entry.workload.partitions.empty()) {
        PrintClients(entry.workload, run, out);
        PrintTakeovers(entry.workload, run.score, out);
      }
    }
    out << "\n";
  }
  auto print_totals = [&out](const std::vector<AlgorithmTotals>& totals) {
    for (const AlgorithmTotals& t : totals) {
      char line[120];
      std::snprintf(line, sizeof line, "  %-13s %6.3f  %4d / %d\n", t.algorithm.c_str(),
                    t.regret / t.runs, t.meeting_bar, t.runs);
      out << line;
    }
  };
  for (const std::string& family : Families(report)) {
    out << "family " << family << ", " << CountFamily(report, family)
        << " workloads: mean regret, workloads meeting the bar\n";
    print_totals(Totals(report, [&](const WorkloadReport& entry) {
      return entry.workload.family == family;
    }));
  }
  out << "all " << report.workloads.size()
      << " workloads: mean regret (lower is better), workloads meeting the bar\n";
  print_totals(Totals(report, [](const WorkloadReport&) { return true; }));
}

}  // namespace blobtune::workbench
