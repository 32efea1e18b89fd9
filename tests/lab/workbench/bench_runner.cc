#include "bench_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "blobtune/tuner/algorithm_registry.h"
#include "limiter_admission.h"
#include "oracle_cache.h"

namespace blobtune::workbench {
namespace {

// Time series buckets: about 400 per run, none shorter than 50 ms.
double BucketSeconds(const Workload& w) { return std::max(0.05, w.duration_s / 400.0); }

// The oracle's L* for the phase running `seconds` into the run.
int OracleLimitAt(const std::vector<PhaseOracle>& oracle, double seconds) {
  int limit = oracle.front().limit;
  for (const PhaseOracle& phase : oracle) {
    if (phase.start_s <= seconds) limit = phase.limit;
  }
  return limit;
}

// The oracle's schedule: the static limit L* of each phase, switched at the phase's start
// (a clairvoyant static limit, as a reference for what the bar asks of an algorithm).
class OracleSchedule final : public Admission {
 public:
  OracleSchedule(const std::vector<PhaseOracle>& oracle, const Clock& clock)
      : oracle_(oracle), clock_(clock), epoch_(clock.Now()) {}

  std::optional<int> TryAdmit() override {
    if (inflight_ >= limit()) return std::nullopt;
    ++inflight_;
    return 0;
  }
  void Refuse() override {}
  void Expire() override {}
  void RestartTiming(int /*ticket*/) override {}
  void Finish(int /*ticket*/, AccessOutcome /*outcome*/, uint64_t /*bytes*/) override {
    --inflight_;
  }
  int limit() const override {
    return OracleLimitAt(oracle_, std::chrono::duration<double>(clock_.Now() - epoch_).count());
  }
  int inflight() const override { return inflight_; }

 private:
  const std::vector<PhaseOracle>& oracle_;
  const Clock& clock_;
  const TimePoint epoch_;
  int inflight_ = 0;
};

// The same schedule as a limit algorithm, for clients that share one limiter through partitions
// (whose oracle sweeps the shared limit): the limiter splits each phase's L* among them. The
// limit follows the schedule at every sample, so it switches at the first sample of a phase.
class ScheduledLimit final : public tuner::LimitAlgorithm {
 public:
  ScheduledLimit(const std::vector<PhaseOracle>& oracle, TimePoint epoch, int max_limit)
      : oracle_(oracle), epoch_(epoch), max_limit_(max_limit), limit_(oracle.front().limit) {}

  std::string_view name() const noexcept override { return kOracleSchedule; }
  int limit() const noexcept override { return limit_; }
  int min_limit() const noexcept override { return 1; }
  int max_limit() const noexcept override { return max_limit_; }
  int Update(const tuner::Sample& sample) override {
    limit_ = OracleLimitAt(oracle_, std::chrono::duration<double>(sample.start - epoch_).count());
    return limit_;
  }
  std::unique_ptr<tuner::LimitAlgorithm> Clone() const override {
    return std::make_unique<ScheduledLimit>(*this);
  }

 private:
  const std::vector<PhaseOracle>& oracle_;
  const TimePoint epoch_;
  const int max_limit_;
  int limit_;
};

StatusOr<AlgorithmRun> RunAlgorithm(const Workload& workload,
                                    const std::vector<PhaseOracle>& oracle,
                                    const std::string& spec, const BenchOptions& options) {
  SimulationOptions sim;
  sim.phase_bounds = PhaseBounds(workload);
  sim.bucket_s = options.keep_series ? BucketSeconds(workload) : 0.0;
  sim.record_completions = true;
  std::shared_ptr<tuner::Limiter> shared;  // With partitions: the clients' one limiter.
  sim.make_admission = [&](size_t client, Clock& clock) -> StatusOr<std::unique_ptr<Admission>> {
    const bool partitioned = !workload.partitions.empty();
    if (spec == kOracleSchedule && !partitioned) {
      return std::unique_ptr<Admission>(std::make_unique<OracleSchedule>(oracle, clock));
    }
    if (partitioned && shared != nullptr) {
      return std::unique_ptr<Admission>(LimiterAdmission::ForPartition(
          shared, tuner::PartitionId{static_cast<uint32_t>(workload.clients[client].partition)}));
    }
    StatusOr<std::unique_ptr<tuner::LimitAlgorithm>> algorithm =
        spec == kOracleSchedule
            ? StatusOr<std::unique_ptr<tuner::LimitAlgorithm>>(
                  std::make_unique<ScheduledLimit>(oracle, clock.Now(), workload.max_limit))
            : options.make_algorithm(spec, {workload.max_limit, workload.initial_limit});
    if (!algorithm.ok()) return algorithm.status();
    tuner::LimiterObserver* observer = nullptr;
    if (options.observe_limiter) {
      std::string name = workload.name + "/" + spec;
      if (workload.clients.size() > 1 && !partitioned) name += "/client" + std::to_string(client);
      observer = options.observe_limiter(name);
    }
    if (partitioned) {
      StatusOr<std::shared_ptr<tuner::Limiter>> limiter = LimiterAdmission::CreateShared(
          *std::move(algorithm), clock, observer, workload.partitions);
      if (!limiter.ok()) return limiter.status();
      shared = *std::move(limiter);
      return std::unique_ptr<Admission>(LimiterAdmission::ForPartition(
          shared, tuner::PartitionId{static_cast<uint32_t>(workload.clients[client].partition)}));
    }
    StatusOr<std::unique_ptr<LimiterAdmission>> admission =
        LimiterAdmission::Create(*std::move(algorithm), clock, observer);
    if (!admission.ok()) return admission.status();
    return std::unique_ptr<Admission>(*std::move(admission));
  };
  StatusOr<SimulationResult> result = Simulate(workload, sim);
  if (!result.ok()) return result.status().WithContext(workload.name + " with " + spec);
  AlgorithmRun run;
  run.algorithm = spec;
  run.simulation = *std::move(result);
  return run;
}

// Runs `tasks` on up to `threads` threads; each task writes only its own slot.
void RunParallel(size_t tasks, int threads, const std::function<void(size_t)>& task) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < tasks; i = next++) task(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads && static_cast<size_t>(t) < tasks; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

StatusOr<std::unique_ptr<tuner::LimitAlgorithm>> MakeRegistryAlgorithm(const std::string& spec,
                                                                       const LimitBounds& bounds) {
  StatusOr<tuner::AlgorithmSpec> parsed = tuner::ParseAlgorithmSpec(spec);
  if (!parsed.ok()) return parsed.status();
  const std::vector<tuner::AlgorithmOption> options = tuner::AlgorithmOptions(parsed->name);
  auto set_default = [&](std::string_view param, int value) {
    auto takes = [&](const tuner::AlgorithmOption& o) { return o.name == param; };
    if (value > 0 && !parsed->params.contains(param) &&
        std::any_of(options.begin(), options.end(), takes)) {
      parsed->params[std::string(param)] = value;
    }
  };
  set_default("max_limit", bounds.max_limit);
  set_default("initial_limit", std::min(bounds.initial_limit, bounds.max_limit));
  return tuner::MakeAlgorithm(*parsed);
}

StatusOr<BenchReport> RunBench(const BenchOptions& options) {
  if (options.algorithms.empty()) return Status::InvalidArgument("no algorithm to run");
  BenchReport report;
  for (const std::string& file : options.workload_files) {
    StatusOr<Workload> workload = LoadWorkload(file);
    if (!workload.ok()) return workload.status();
    if (options.seed) workload->seed = *options.seed;
    WorkloadReport& entry = report.workloads.emplace_back();
    entry.file = file;
    entry.workload = *std::move(workload);
  }
  for (const Workload& workload : options.workloads) {
    WorkloadReport& entry = report.workloads.emplace_back();
    entry.workload = workload;
    if (options.seed) entry.workload.seed = *options.seed;
  }
  for (size_t index = 0; index < report.workloads.size(); ++index) {
    WorkloadReport& entry = report.workloads[index];
    const Workload& w = entry.workload;
    auto start = std::chrono::steady_clock::now();
    OracleOptions oracle_options = options.oracle;
    oracle_options.threads = options.threads;
    std::optional<std::vector<PhaseOracle>> cached;
    OracleCache cache(options.oracle_cache_dir);
    if (!options.oracle_cache_dir.empty()) cached = cache.Find(w, oracle_options);
    if (cached) {
      entry.oracle = *std::move(cached);
    } else {
      StatusOr<std::vector<PhaseOracle>> oracle = ComputeOracle(w, oracle_options);
      if (!oracle.ok()) return oracle.status().WithContext(w.name + ": oracle");
      entry.oracle = *std::move(oracle);
      if (!options.oracle_cache_dir.empty()) {
        if (Status s = cache.Store(w, oracle_options, entry.oracle); !s.ok()) return s;
      }
    }
    double oracle_s = SecondsSince(start);

    start = std::chrono::steady_clock::now();
    std::vector<StatusOr<AlgorithmRun>> runs(options.algorithms.size(),
                                             Status::Internal("not run"));
    RunParallel(runs.size(), options.threads, [&](size_t i) {
      runs[i] = RunAlgorithm(w, entry.oracle, options.algorithms[i], options);
    });
    for (StatusOr<AlgorithmRun>& run : runs) {
      if (!run.ok()) return run.status();
      run->score = ScoreRun(w, entry.oracle, run->simulation);
      run->simulation.completions = {};  // Only the score needs them.
      if (!options.keep_series) run->simulation.series.clear();
      entry.runs.push_back(*std::move(run));
    }
    if (options.progress) {
      char line[200];
      std::snprintf(line, sizeof line, "[%zu/%zu] %-28s oracle %5.2f s, %zu algorithms %5.2f s",
                    index + 1, report.workloads.size(), w.name.c_str(), oracle_s, runs.size(),
                    SecondsSince(start));
      options.progress(line);
    }
  }
  return report;
}

}  // namespace blobtune::workbench
