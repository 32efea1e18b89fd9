#include "plant_report.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "report.h"

namespace blobtune::plantbench {
namespace {

using json = nlohmann::ordered_json;  // Keys in the documented order.

double Round(double value) { return workbench::RoundForReport(value); }

json Rounded(const std::vector<double>& values) {
  json list = json::array();
  for (double v : values) list.push_back(Round(v));
  return list;
}

json TwinJson(const TwinComparison& twin) {
  json out = {{"file", twin.file}};
  if (!twin.error.empty()) {
    out["error"] = twin.error;
    return out;
  }
  json sweep = json::array();
  for (const TwinPoint& p : twin.sweep) {
    sweep.push_back({{"limit", p.limit},
                     {"real", Round(p.real)},
                     {"twin", Round(p.twin)},
                     {"difference", Round(p.difference)}});
  }
  out["sweep"] = sweep;
  out["max_difference"] = Round(twin.max_difference);
  return out;
}

std::string Format(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string Join(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : ", ") + w;
  return text;
}

void PrintTwin(const TwinComparison& twin, std::ostream& out) {
  if (!twin.error.empty()) {
    out << "  twin: " << twin.error << "\n";
    return;
  }
  out << "  twin (" << twin.file << "):\n";
  out << "    limit      real/s      twin/s  twin/real-1\n";
  for (const TwinPoint& p : twin.sweep) {
    char row[128];
    std::snprintf(row, sizeof row, "    %5d  %10.1f  %10.1f  %+11.1f%%\n", p.limit, p.real, p.twin,
                  100.0 * p.difference);
    out << row;
  }
  out << "    largest |difference|: " << Format("%.1f%%", 100.0 * twin.max_difference) << "\n";
}

}  // namespace

std::string ReportJson(const PlantBenchReport& report, const std::string& default_algorithm) {
  json plants = json::array();
  for (const PlantReport& plant : report.plants) {
    json sweep = json::array();
    for (const SweepEntry& entry : plant.sweep) {
      sweep.push_back({{"limit", entry.limit},
                       {"throughput", Round(entry.throughput)},
                       {"p99_ms", Round(entry.p99_ms)},
                       {"throughput_by_repetition", Rounded(entry.throughput_by_repetition)}});
    }
    json results = json::array();
    for (const AlgorithmResult& r : plant.results) {
      results.push_back(
          {{"algorithm", r.algorithm},
           {"throughput_ratio", Round(r.throughput_ratio)},
           {"p99_ratio", Round(r.p99_ratio)},
           {"regret", Round(r.regret)},
           {"mean_limit", Round(r.mean_limit)},
           {"refused_fraction", Round(r.refused_fraction)},
           {"time_to_hold_s", r.time_to_hold_s ? json(Round(*r.time_to_hold_s)) : json(nullptr)},
           {"meets_bar", r.misses.empty()},
           {"misses", r.misses},
           {"throughput_ratio_by_repetition", Rounded(r.throughput_ratio_by_repetition)}});
    }
    json entry = {{"name", plant.name},
                  {"oracle",
                   {{"limit", plant.oracle_limit},
                    {"throughput", Round(plant.oracle_throughput)},
                    {"p99_ms", Round(plant.oracle_p99_ms)}}},
                  {"sweep", sweep},
                  {"results", results}};
    if (plant.twin) entry["twin"] = TwinJson(*plant.twin);
    plants.push_back(std::move(entry));
  }
  json root = {{"default_algorithm", default_algorithm},
               {"repetitions", report.repetitions},
               {"seconds", Round(report.measure_s)},
               {"warmup_seconds", Round(report.warmup_s)},
               {"plants", plants}};
  return root.dump(2) + "\n";
}

void PrintTables(const PlantBenchReport& report, std::ostream& out) {
  for (const PlantReport& plant : report.plants) {
    out << plant.name << ": L* = " << plant.oracle_limit << " (X* "
        << Format("%.1f", plant.oracle_throughput) << "/s, p99* "
        << Format("%.3g", plant.oracle_p99_ms) << " ms); medians of " << report.repetitions << " x "
        << Format("%g", report.measure_s) << " s\n";
    out << "  limit     goodput/s     p99 ms\n";
    for (const SweepEntry& e : plant.sweep) {
      char row[128];
      std::snprintf(row, sizeof row, "  %5d %s %11.1f %10.3g\n", e.limit,
                    e.limit == plant.oracle_limit ? "*" : " ", e.throughput, e.p99_ms);
      out << row;
    }
    if (!plant.results.empty()) {
      out << "  algorithm              thr ratio  p99 ratio   regret  mean limit  refused  to 0.95  bar\n";
      for (const AlgorithmResult& r : plant.results) {
        char row[256];
        std::snprintf(row, sizeof row, "  %-22s %9.3f %10.3f %8.3f %11.1f %7.1f%%  %7s  ",
                      r.algorithm.c_str(), r.throughput_ratio, r.p99_ratio, r.regret, r.mean_limit,
                      100.0 * r.refused_fraction,
                      r.time_to_hold_s ? Format("%.2f s", *r.time_to_hold_s).c_str() : "never");
        out << row << (r.misses.empty() ? "ok" : "misses " + Join(r.misses)) << "\n";
      }
    }
    if (plant.twin) PrintTwin(*plant.twin, out);
    out << "\n";
  }
}

}  // namespace blobtune::plantbench
