#include "bench_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

namespace blobtune::delivery {
namespace {

struct Stats {
  double min, max, mean, stddev, median;
};

Stats Summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  Stats s{v.front(), v.back(), 0, 0, 0};
  for (double x : v) s.mean += x / static_cast<double>(v.size());
  for (double x : v) s.stddev += (x - s.mean) * (x - s.mean);
  s.stddev = v.size() > 1 ? std::sqrt(s.stddev / static_cast<double>(v.size() - 1)) : 0;
  s.median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  return s;
}

nlohmann::json OrNull(std::optional<double> v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

struct ReadStats {
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

// Nearest-rank quantiles of the reads' times. REQUIRES: not empty.
ReadStats SummarizeReads(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  auto rank = [&](double q) {
    const size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(ms.size())));
    return ms[std::clamp<size_t>(i, 1, ms.size()) - 1];
  };
  return {.p50_ms = rank(0.50), .p99_ms = rank(0.99), .max_ms = ms.back()};
}

}  // namespace

std::optional<double> RatioToLegacy(const std::vector<Row>& rows, const Row& row) {
  for (const Row& legacy : rows) {
    if (legacy.mode == "legacy" && legacy.point.messages == row.point.messages &&
        legacy.point.size == row.point.size) {
      return Summarize(row.seconds).mean / Summarize(legacy.seconds).mean;
    }
  }
  return std::nullopt;
}

void PrintTableHeader() {
  std::printf("%-30s %9s %9s %9s %9s %9s %8s  %s\n", "Name (time in s)", "Min", "Max", "Mean",
              "StdDev", "Median", "Ratio", "Limit");
}

void PrintTableRow(const std::vector<Row>& rows, const Row& row) {
  Stats s = Summarize(row.seconds);
  std::string suffix = std::to_string(row.point.messages) + "_" + SizeLabel(row.point.size);
  std::string name = row.mode == "legacy" ? "test_legacy_" + suffix
                                          : "test_blobs_" + suffix + "_c" + row.concurrency;
  std::optional<double> ratio = RatioToLegacy(rows, row);
  char ratio_text[16] = "-";
  if (ratio) std::snprintf(ratio_text, sizeof(ratio_text), "%.2f", *ratio);
  std::string limit = row.settled_limit ? "settled at " + std::to_string(*row.settled_limit)
                      : row.mode == "blobs" ? "fixed " + row.concurrency
                                            : "";
  std::printf("%-30s %9.4f %9.4f %9.4f %9.4f %9.4f %8s  %s\n", name.c_str(), s.min, s.max,
              s.mean, s.stddev, s.median, ratio_text, limit.c_str());
  if (!row.read_ms.empty()) {
    const ReadStats r = SummarizeReads(row.read_ms);
    std::printf("  reader: %zu opens, p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", row.read_ms.size(),
                r.p50_ms, r.p99_ms, r.max_ms);
  }
}

void PrintTableFooter(const BenchConfig& config) {
  std::printf("(%d rounds each after one warm-up, every message verified; time scale %g: "
              "multiply by %g for the original system's seconds)\n",
              config.rounds, config.time_scale, 1.0 / config.time_scale);
}

void PrintJson(const std::vector<Row>& rows) {
  nlohmann::json runs = nlohmann::json::array();
  for (const Row& row : rows) {
    Stats s = Summarize(row.seconds);
    runs.push_back({{"messages", row.point.messages},
                    {"size_bytes", row.point.size},
                    {"mode", row.mode},
                    {"concurrency", row.mode == "legacy" ? nlohmann::json(nullptr)
                                                         : nlohmann::json(row.concurrency)},
                    {"rounds", row.seconds.size()},
                    // A round counts only once every message was found intact.
                    {"verified", true},
                    {"mean_s", s.mean},
                    {"median_s", s.median},
                    {"min_s", s.min},
                    {"max_s", s.max},
                    {"stddev_s", s.stddev},
                    {"ratio_to_legacy", OrNull(RatioToLegacy(rows, row))},
                    {"settled_limit", row.settled_limit ? nlohmann::json(*row.settled_limit)
                                                        : nlohmann::json(nullptr)}});
    if (!row.read_ms.empty()) {
      const ReadStats r = SummarizeReads(row.read_ms);
      runs.back()["reader"] = {{"opens", row.read_ms.size()},
                               {"p50_ms", r.p50_ms},
                               {"p99_ms", r.p99_ms},
                               {"max_ms", r.max_ms}};
    }
  }
  std::cout << nlohmann::json{{"runs", runs}}.dump(2) << "\n";
}

}  // namespace blobtune::delivery
