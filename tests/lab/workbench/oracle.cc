#include "oracle.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <sstream>
#include <thread>

#include "admission.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "limiter_admission.h"
#include "simulator.h"

namespace blobtune::workbench {
namespace {

// The limits to try: every one up to 16, then about 12% apart, up to `cap`.
std::vector<int> Candidates(int cap) {
  std::vector<int> limits;
  for (int l = 1; l <= cap; l = std::max(l + 1, static_cast<int>(std::ceil(l * 1.12)))) {
    limits.push_back(l);
  }
  if (limits.back() != cap) limits.push_back(cap);
  return limits;
}

// The most permits any client of `w` can ever use, bounded by max_limit; at least 1, so a phase
// where no closed-loop client runs (concurrency 0) measures one idle point: X* = 0.
int SweepCap(const Workload& w) {
  int cap = 1;
  for (const ClientSpec& client : w.clients) {
    if (client.load == ClientSpec::Load::kOpen) return w.max_limit;
    cap = std::max(cap, client.concurrency);
  }
  return std::min(cap, w.max_limit);
}

// Identifies a phase's parameters, so equal phases share a sweep.
std::string ParameterKey(const Workload& w) {
  std::ostringstream key;
  key.precision(17);
  for (const StageSpec& s : w.stages) {
    key << s.servers << ',' << s.scale << ',' << s.per_mib_ms << ',' << s.per_request_ms << ';';
  }
  for (const ClientSpec& c : w.clients) {
    key << c.rate_per_s << ',' << c.size_scale << ',' << c.failures.error_fraction << ','
        << c.failures.hang_fraction << ',' << c.concurrency << ';';
  }
  return key.str();
}

}  // namespace

StatusOr<SweepPoint> MeasureStaticLimit(const Workload& phase_workload, int limit,
                                        const OracleOptions& options) {
  SimulationOptions sim;
  sim.phase_bounds = {options.warmup_s, options.warmup_s + options.measure_s};
  sim.apply_steps = false;
  sim.backlog_instead_of_fixed_work = true;
  sim.stop_after_successes = options.max_successes;
  sim.record_completions = true;
  std::shared_ptr<tuner::Limiter> shared;  // With partitions: one fixed limit for every client.
  sim.make_admission = [&](size_t client, Clock& clock) -> StatusOr<std::unique_ptr<Admission>> {
    if (phase_workload.partitions.empty()) {
      return std::unique_ptr<Admission>(std::make_unique<StaticCap>(limit));
    }
    if (shared == nullptr) {
      StatusOr<std::shared_ptr<tuner::Limiter>> made = LimiterAdmission::CreateShared(
          tuner::MakeAlgorithmFromText("fixed:limit=" + std::to_string(limit)).value(), clock,
          nullptr, phase_workload.partitions);
      if (!made.ok()) return made.status();
      shared = *std::move(made);
    }
    return std::unique_ptr<Admission>(LimiterAdmission::ForPartition(
        shared, tuner::PartitionId{static_cast<uint32_t>(phase_workload.clients[client].partition)}));
  };
  StatusOr<SimulationResult> result = Simulate(phase_workload, sim);
  if (!result.ok()) return result.status();
  const PhaseStats& stats = result->phases.front();
  SweepPoint point;
  point.limit = limit;
  point.throughput = stats.throughput();
  point.p50_ms = stats.latency.QuantileMs(0.50);
  point.p99_ms = stats.latency.QuantileMs(0.99);
  double seconds = stats.end_s - stats.start_s;
  for (uint64_t n : stats.successes_by_client) {
    point.client_throughput.push_back(seconds > 0.0 ? static_cast<double>(n) / seconds : 0.0);
  }
  point.window_noise = NoiseOfWindows(result->completions, stats.start_s, stats.end_s,
                                      kServiceWindowRtts * point.p50_ms / 1000.0);
  return point;
}

namespace {

// The smallest limit of `points` with at least `fraction` of their peak goodput.
const SweepPoint& Knee(const std::vector<SweepPoint>& points, double fraction) {
  double peak = 0.0;
  for (const SweepPoint& p : points) peak = std::max(peak, p.throughput);
  for (const SweepPoint& p : points) {
    if (p.throughput >= fraction * peak) return p;
  }
  return points.front();
}

// Sweeps one phase: batches of `threads` limits at a time, stopping once the limits tried are
// well past the knee (twice the current L* plus 8) or at the cap. The cap itself is always
// measured: where the limiter's waiting path costs more than the resource, goodput jumps at the
// demand, where no access waits for its permit, however flat the curve was below it.
StatusOr<PhaseOracle> SweepPhase(const Workload& phase_workload, const OracleOptions& options) {
  std::vector<int> limits = Candidates(SweepCap(phase_workload));
  std::vector<SweepPoint> points;
  size_t batch = static_cast<size_t>(std::max(1, options.threads));
  for (size_t first = 0; first < limits.size(); first += batch) {
    size_t count = std::min(batch, limits.size() - first);
    std::vector<StatusOr<SweepPoint>> measured(count, Status::Internal("not measured"));
    std::vector<std::thread> threads;
    for (size_t i = 1; i < count; ++i) {
      threads.emplace_back([&, i] {
        measured[i] = MeasureStaticLimit(phase_workload, limits[first + i], options);
      });
    }
    measured[0] = MeasureStaticLimit(phase_workload, limits[first], options);
    for (std::thread& t : threads) t.join();
    for (StatusOr<SweepPoint>& point : measured) {
      if (!point.ok()) return point.status();
      points.push_back(*std::move(point));
    }
    if (points.back().limit >= 2 * Knee(points, options.knee_fraction).limit + 8) break;
  }
  if (points.back().limit != limits.back()) {
    StatusOr<SweepPoint> at_cap = MeasureStaticLimit(phase_workload, limits.back(), options);
    if (!at_cap.ok()) return at_cap.status();
    points.push_back(*std::move(at_cap));
  }
  const SweepPoint& knee = Knee(points, options.knee_fraction);
  PhaseOracle oracle;
  oracle.limit = knee.limit;
  oracle.throughput = knee.throughput;
  oracle.p50_ms = knee.p50_ms;
  oracle.p99_ms = knee.p99_ms;
  oracle.client_throughput = knee.client_throughput;
  oracle.window_noise = knee.window_noise;
  oracle.sweep = std::move(points);
  return oracle;
}

}  // namespace

Workload PhaseWorkload(const Workload& workload, size_t phase) {
  std::vector<double> bounds = PhaseBounds(workload);
  Workload w = workload;
  w.steps.clear();
  for (const StepSpec& step : workload.steps) {
    if (step.at_s > bounds[phase]) break;
    for (const ParamChange& change : step.changes) ApplyChange(change, w.stages, w.clients);
  }
  return w;
}

StatusOr<std::vector<PhaseOracle>> ComputeOracle(const Workload& workload,
                                                 const OracleOptions& options) {
  std::vector<double> bounds = PhaseBounds(workload);
  std::vector<PhaseOracle> phases;
  std::map<std::string, PhaseOracle> by_parameters;
  for (size_t p = 0; p + 1 < bounds.size(); ++p) {
    Workload phase_workload = PhaseWorkload(workload, p);
    std::string key = ParameterKey(phase_workload);
    auto it = by_parameters.find(key);
    if (it == by_parameters.end()) {
      StatusOr<PhaseOracle> swept = SweepPhase(phase_workload, options);
      if (!swept.ok()) return swept.status();
      it = by_parameters.emplace(key, *std::move(swept)).first;
    }
    PhaseOracle oracle = it->second;
    oracle.start_s = bounds[p];
    oracle.end_s = bounds[p + 1];
    phases.push_back(std::move(oracle));
  }
  return phases;
}

}  // namespace blobtune::workbench
