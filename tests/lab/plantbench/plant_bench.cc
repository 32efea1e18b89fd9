#include "plant_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <numeric>
#include <random>

#include "bar.h"
#include "real_plant.h"
#include "recovery.h"
#include "score.h"

namespace blobtune::plantbench {
namespace {

// The median; the mean of the two middle values for an even count. REQUIRES: non-empty.
double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

std::string FixedSpec(int limit) { return "fixed:limit=" + std::to_string(limit); }

// One plant's points: points[r][i] is repetition r's point of specs[i]; the first
// limits.size() specs are the sweep, the rest the algorithms.
struct PlantPoints {
  std::unique_ptr<RealPlant> plant;
  std::vector<int> limits;
  std::vector<std::string> specs;
  std::vector<std::vector<PointResult>> points;
};

AlgorithmResult Summarize(const PlantPoints& p, size_t spec, size_t oracle_index) {
  const size_t sweep = p.limits.size();
  const size_t repetitions = p.points.size();
  AlgorithmResult result;
  result.algorithm = p.specs[spec];
  std::vector<double> p99_ratios, regrets, mean_limits, refused, hold_times;
  for (size_t r = 0; r < repetitions; ++r) {
    const std::vector<PointResult>& rep = p.points[r];
    double best = 0.0;
    for (size_t k = 0; k < sweep; ++k) best = std::max(best, rep[k].goodput);
    const PointResult& point = rep[spec];
    const double throughput_ratio = best > 0.0 ? point.goodput / best : 0.0;
    const double oracle_p99 = rep[oracle_index].p99_ms;
    const double p99_ratio = oracle_p99 > 0.0 ? point.p99_ms / oracle_p99 : 1.0;
    double regret = std::max(0.0, 1.0 - throughput_ratio);
    if (p99_ratio > 0.0) {
      regret += workbench::kRegretLatencyWeight * std::max(0.0, std::log2(p99_ratio));
    }
    result.throughput_ratio_by_repetition.push_back(throughput_ratio);
    p99_ratios.push_back(p99_ratio);
    regrets.push_back(regret);
    mean_limits.push_back(point.mean_limit);
    // Never holding counts as the longest time of all (infinity), so that the median says so.
    hold_times.push_back(
        workbench::TimeToHoldGoodput(point.series, kHoldGoodputShare * best, kHoldSeconds)
            .value_or(std::numeric_limits<double>::infinity()));
    refused.push_back(point.attempts > 0
                          ? static_cast<double>(point.refused) / static_cast<double>(point.attempts)
                          : 0.0);
  }
  result.throughput_ratio = Median(result.throughput_ratio_by_repetition);
  result.p99_ratio = Median(p99_ratios);
  result.regret = Median(regrets);
  result.mean_limit = Median(mean_limits);
  result.refused_fraction = Median(refused);
  if (const double hold = Median(hold_times); std::isfinite(hold)) result.time_to_hold_s = hold;

  // No steps and one client: recovery, service in band and fairness are met trivially.
  workbench::Score score;
  score.throughput_ratio = result.throughput_ratio;
  score.p99_ratio = result.p99_ratio;
  score.regret = result.regret;
  score.recovery_rtts = 0.0;
  score.service_in_band = 1.0;
  score.fairness = std::nullopt;
  score.mean_limit = result.mean_limit;
  result.misses = workbench::MissesOfBar(score);

  // The plot shows the repetition with the median throughput ratio (the lower one of two).
  std::vector<size_t> order(repetitions);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return result.throughput_ratio_by_repetition[a] < result.throughput_ratio_by_repetition[b];
  });
  result.series = p.points[order[(repetitions - 1) / 2]][spec].series;
  return result;
}

PlantReport Summarize(const PlantPoints& p) {
  PlantReport report;
  report.name = std::string(p.plant->name());
  double peak = 0.0;
  for (size_t k = 0; k < p.limits.size(); ++k) {
    SweepEntry entry;
    entry.limit = p.limits[k];
    std::vector<double> p99s;
    for (const std::vector<PointResult>& rep : p.points) {
      entry.throughput_by_repetition.push_back(rep[k].goodput);
      p99s.push_back(rep[k].p99_ms);
    }
    entry.throughput = Median(entry.throughput_by_repetition);
    entry.p99_ms = Median(p99s);
    peak = std::max(peak, entry.throughput);
    report.sweep.push_back(std::move(entry));
  }
  size_t oracle = 0;
  while (oracle + 1 < report.sweep.size() &&
         report.sweep[oracle].throughput < workbench::OracleOptions{}.knee_fraction * peak) {
    ++oracle;
  }
  report.oracle_limit = report.sweep[oracle].limit;
  report.oracle_throughput = report.sweep[oracle].throughput;
  report.oracle_p99_ms = report.sweep[oracle].p99_ms;
  for (size_t i = p.limits.size(); i < p.specs.size(); ++i) {
    report.results.push_back(Summarize(p, i, oracle));
  }
  return report;
}

std::string ProgressLine(int rep, int repetitions, std::string_view plant, const std::string& spec,
                         const PointResult& point, size_t done, size_t total) {
  char text[256];
  std::snprintf(text, sizeof text, "rep %d/%d %s %s  %.0f/s  p99 %.3g ms  limit %.3g  [%zu/%zu]",
                rep, repetitions, std::string(plant).c_str(), spec.c_str(), point.goodput,
                point.p99_ms, point.mean_limit, done, total);
  return text;
}

}  // namespace

std::vector<int> SweepLimits(int callers) {
  std::vector<int> limits;
  for (int limit = 1; limit <= 256 && limit <= callers; limit *= 2) limits.push_back(limit);
  return limits;
}

StatusOr<PlantBenchReport> RunPlantBench(const BenchOptions& options) {
  if (options.plants.empty()) return Status::InvalidArgument("no plant to run");
  if (options.repetitions < 1) return Status::InvalidArgument("repetitions must be >= 1");
  for (const std::string& spec : options.algorithms) {
    if (Status s = CheckAlgorithmSpec(spec); !s.ok()) return s.WithContext(spec);
  }
  std::vector<PlantPoints> plants;
  size_t total = 0;
  for (const std::string& name : options.plants) {
    StatusOr<std::unique_ptr<RealPlant>> plant = MakePlant(name);
    if (!plant.ok()) return plant.status();
    PlantPoints p;
    p.plant = *std::move(plant);
    p.limits = SweepLimits(p.plant->demand());
    for (int limit : p.limits) p.specs.push_back(FixedSpec(limit));
    p.specs.insert(p.specs.end(), options.algorithms.begin(), options.algorithms.end());
    p.points.assign(options.repetitions, std::vector<PointResult>(p.specs.size()));
    total += p.specs.size() * options.repetitions;
    plants.push_back(std::move(p));
  }

  auto interrupted = [&] {
    return options.interrupted != nullptr && options.interrupted->load(std::memory_order_relaxed);
  };
  std::mt19937_64 rng(options.seed);
  size_t done = 0;
  for (int rep = 0; rep < options.repetitions; ++rep) {
    for (PlantPoints& p : plants) {
      std::vector<size_t> order(p.specs.size());
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      for (size_t i : order) {
        if (interrupted()) return Status::Cancelled("interrupted");
        PointSpec spec{.algorithm = p.specs[i],
                       .warmup_s = options.warmup_s,
                       .measure_s = options.measure_s,
                       .seed = options.seed + static_cast<uint64_t>(rep),
                       .interrupted = options.interrupted};
        StatusOr<PointResult> point = p.plant->RunPoint(spec);
        if (!point.ok()) {
          return point.status().WithContext(std::string(p.plant->name()) + " " + p.specs[i]);
        }
        if (interrupted()) return Status::Cancelled("interrupted");
        p.points[rep][i] = *std::move(point);
        if (options.progress) {
          options.progress(ProgressLine(rep + 1, options.repetitions, p.plant->name(), p.specs[i],
                                        p.points[rep][i], ++done, total));
        }
      }
    }
  }

  PlantBenchReport report;
  report.repetitions = options.repetitions;
  report.warmup_s = options.warmup_s;
  report.measure_s = options.measure_s;
  for (const PlantPoints& p : plants) {
    PlantReport plant = Summarize(p);
    if (options.twin) {
      std::vector<std::pair<int, double>> real;
      for (const SweepEntry& entry : plant.sweep) real.emplace_back(entry.limit, entry.throughput);
      plant.twin = CompareWithTwin(options.twin_dir + "/plant_" + plant.name + ".json", real);
    }
    report.plants.push_back(std::move(plant));
  }
  return report;
}

}  // namespace blobtune::plantbench
