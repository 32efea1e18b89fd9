// blobtune-tuner-bench: what admission costs. Acquire+release of the Limiter with an adaptive
// algorithm attached, next to the floor for any counting limiter (a plain atomic-counter
// semaphore) and std::counting_semaphore, in one run, on 1 and 2 threads.
//
//   build/bin/blobtune-tuner-bench --benchmark_repetitions=5
//   build/bin/blobtune-tuner-bench --benchmark_format=json   # ratios still go to stderr
//
// One limiter observed by metrics/ is measured three more times in the same run: observed
// only; observed while the status page is live at its default rates (the sampler reading the
// registry every second, a viewer rendering the page every 2 s); and at a hundred times that
// (both every 10 ms), so that what the page costs the permit path is the difference of ratios of
// one run. The page's threads run only during their own benchmarks (setup and teardown hooks),
// and the three share one limiter object, so they differ in nothing else.
//
// Repetitions of all benchmarks run interleaved in random order (tests/bench/interleave.h), so
// that the machine's drift hits a benchmark and its floor alike; quote the medians.
//
// After the run it prints, per thread count, each benchmark's time / AtomicSemaphore time
// (medians when repetitions are asked for), so the comparison is always within one run, and a
// summary of the atomic semaphore, the bare gradient limiter and the same limiter observed by
// metrics/ at 1 and 2 threads with their ratios (bare / semaphore, observed / bare, observed /
// semaphore), and what partitions add to the bare limiter (partitioned - bare, in ns).
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <semaphore>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "blobtune/metrics/limiter_metrics.h"
#include "blobtune/metrics/registry.h"
#include "blobtune/metrics/status_page.h"
#include "blobtune/metrics/status_sampler.h"

#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/limiter.h"
#include "command_line.h"

namespace {

using blobtune::tuner::Limiter;
using blobtune::tuner::Permit;

// Large enough that no thread count here ever waits: these measure uncontended admission.
constexpr int kLimit = 1000;

// The floor: a counter compared with a limit, one CAS to take, one fetch_sub to give back.
class AtomicSemaphore {
 public:
  explicit AtomicSemaphore(int limit) : limit_(limit) {}
  bool TryAcquire() {
    int held = held_.load(std::memory_order_relaxed);
    do {
      if (held >= limit_) return false;
    } while (!held_.compare_exchange_weak(held, held + 1, std::memory_order_acquire,
                                          std::memory_order_relaxed));
    return true;
  }
  void Release() { held_.fetch_sub(1, std::memory_order_release); }

 private:
  const int limit_;
  alignas(64) std::atomic<int> held_{0};
};

void BM_AtomicSemaphoreAcquireRelease(benchmark::State& state) {
  static AtomicSemaphore semaphore(kLimit);
  for (auto _ : state) {
    bool ok = semaphore.TryAcquire();
    benchmark::DoNotOptimize(ok);
    semaphore.Release();
  }
}

void BM_CountingSemaphoreAcquireRelease(benchmark::State& state) {
  static std::counting_semaphore<kLimit> semaphore(kLimit);
  for (auto _ : state) {
    bool ok = semaphore.try_acquire();
    benchmark::DoNotOptimize(ok);
    semaphore.release();
  }
}

// The limiter as a server would run it: an adaptive algorithm attached, each permit reporting
// success, the steady clock. One limiter per algorithm, shared by the benchmark's threads.
Limiter& SharedLimiter(const std::string& algorithm) {
  static std::map<std::string, std::unique_ptr<Limiter>> limiters;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<Limiter>& limiter = limiters[algorithm];
  if (limiter == nullptr) {
    auto made = blobtune::tuner::MakeAlgorithmFromText(algorithm);
    if (!made.ok()) {
      std::fprintf(stderr, "blobtune-tuner-bench: %s\n", made.status().ToString().c_str());
      std::exit(2);
    }
    limiter = Limiter::Create({.algorithm = std::move(made).value()}).value();
  }
  return *limiter;
}

void BM_LimiterAcquireRelease(benchmark::State& state, const std::string& algorithm) {
  Limiter& limiter = SharedLimiter(algorithm);
  for (auto _ : state) {
    std::optional<Permit> permit = limiter.TryAcquire();
    benchmark::DoNotOptimize(permit);
    permit->Success();
  }
  if (state.thread_index() == 0) {
    state.counters["limit"] = limiter.limit();
    state.counters["stride"] = limiter.sample_stride();
  }
}

// The same gradient limiter with two partitions, a reader (share 0.2, priority 1) and a sync
// (share 0.8): each thread acquires for its own partition, so a permit also counts in its
// partition's in-flight counter.
void BM_PartitionedLimiterAcquireRelease(benchmark::State& state) {
  static Limiter& limiter = *[] {
    blobtune::tuner::LimiterOptions options;
    options.algorithm =
        blobtune::tuner::MakeAlgorithmFromText("gradient:initial_limit=1000,max_limit=1000")
            .value();
    options.partitions = {{.name = "reader", .share = 0.2, .priority = 1},
                          {.name = "sync", .share = 0.8}};
    return Limiter::Create(std::move(options)).value().release();
  }();
  const blobtune::tuner::PartitionId partition{static_cast<uint32_t>(state.thread_index() % 2)};
  for (auto _ : state) {
    std::optional<Permit> permit = limiter.TryAcquire(partition);
    benchmark::DoNotOptimize(permit);
    permit->Success();
  }
}

// The gradient limiter as metrics/ observes it, one object for every observed benchmark, so
// that they differ only in what runs beside them: StartPage runs the status page's sampler (at
// `sample_every`) and a viewer (rendering the page every `view_every`) until StopPage.
// Thread-safety: StartPage and StopPage from one thread at a time (the benchmark's setup and
// teardown); limiter() from any.
class ObservedLimiter {
 public:
  ObservedLimiter() {
    blobtune::tuner::LimiterOptions options;
    options.algorithm =
        blobtune::tuner::MakeAlgorithmFromText("gradient:initial_limit=1000,max_limit=1000")
            .value();
    options.observer = registry_.AddLimiter("bench").value();
    limiter_ = Limiter::Create(std::move(options)).value();
  }
  Limiter& limiter() { return *limiter_; }

  void StartPage(std::chrono::milliseconds sample_every, std::chrono::milliseconds view_every) {
    sampler_ = std::make_unique<blobtune::metrics::StatusSampler>(registry_, page_, sample_every);
    viewer_ = std::jthread([this, view_every](std::stop_token stop) {
      std::mutex mu;
      std::condition_variable_any wake;
      std::unique_lock lock(mu);
      do {
        std::string html = page_.Html();
        benchmark::DoNotOptimize(html);
      } while (!wake.wait_for(lock, stop, view_every, [&] { return stop.stop_requested(); }));
    });
  }
  void StopPage() {
    viewer_ = std::jthread();  // Requests stop and joins the viewer.
    sampler_.reset();
  }

 private:
  blobtune::metrics::MetricsRegistry registry_;
  blobtune::metrics::StatusPage page_;
  std::unique_ptr<Limiter> limiter_;
  std::unique_ptr<blobtune::metrics::StatusSampler> sampler_;
  std::jthread viewer_;  // Last: stopped and joined first.
};

ObservedLimiter& Observed() {
  static ObservedLimiter observed;
  return observed;
}

// Benchmark setup and teardown hooks (plain functions): the page at the exporter's sampling
// interval (1 s) with a browser refreshing every 2 s, and at a hundred times those rates.
void StartPageAtDefaultRates(const benchmark::State&) {
  Observed().StartPage(std::chrono::milliseconds(1000), std::chrono::milliseconds(2000));
}
void StartPageHundredfold(const benchmark::State&) {
  Observed().StartPage(std::chrono::milliseconds(10), std::chrono::milliseconds(10));
}
void StopPage(const benchmark::State&) { Observed().StopPage(); }

void BM_ObservedLimiterAcquireRelease(benchmark::State& state) {
  Limiter& limiter = Observed().limiter();
  for (auto _ : state) {
    std::optional<Permit> permit = limiter.TryAcquire();
    benchmark::DoNotOptimize(permit);
    permit->Success();
  }
}

BENCHMARK(BM_AtomicSemaphoreAcquireRelease)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_CountingSemaphoreAcquireRelease)->Threads(1)->Threads(2)->UseRealTime();
// Envoy's gradient controller aggregates samples per interval; gradient2 (Netflix) replays a
// sample of weight w as w samples, so its cost grows with the completion rate.
BENCHMARK_CAPTURE(BM_LimiterAcquireRelease, gradient,
                  std::string("gradient:initial_limit=1000,max_limit=1000"))
    ->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK_CAPTURE(BM_LimiterAcquireRelease, gradient2,
                  std::string("gradient2:initial_limit=1000,max_limit=1000"))
    ->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_PartitionedLimiterAcquireRelease)
    ->Name("BM_PartitionedLimiterAcquireRelease/gradient_partitioned")
    ->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_ObservedLimiterAcquireRelease)
    ->Name("BM_ObservedLimiterAcquireRelease/gradient_observed")
    ->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_ObservedLimiterAcquireRelease)
    ->Name("BM_ObservedLimiterAcquireRelease/gradient_observed_status_page")
    ->Setup(StartPageAtDefaultRates)->Teardown(StopPage)
    ->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_ObservedLimiterAcquireRelease)
    ->Name("BM_ObservedLimiterAcquireRelease/gradient_observed_status_page_x100")
    ->Setup(StartPageHundredfold)->Teardown(StopPage)
    ->Threads(1)->Threads(2)->UseRealTime();

// Forwards to the reporter the user asked for and keeps each benchmark's time per iteration
// (the median aggregate when there are repetitions) for the ratio summary.
class RatioReporter : public benchmark::BenchmarkReporter {
 public:
  explicit RatioReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner)
      : inner_(std::move(inner)) {}
  bool ReportContext(const Context& context) override {
    inner_->SetOutputStream(&GetOutputStream());
    inner_->SetErrorStream(&GetErrorStream());
    return inner_->ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      bool single = run.run_type == Run::RT_Iteration && run.repetitions <= 1;
      if (median || single) {
        times_[run.run_name.str()] = {run.GetAdjustedRealTime(), run.GetAdjustedCPUTime()};
      }
    }
    inner_->ReportRuns(runs);
  }
  void Finalize() override { inner_->Finalize(); }

  // The three that matter most side by side: the floor, the bare limiter and the same limiter
  // observed by metrics/, per thread count, and their ratios (the cost of the limiter over
  // the floor, and of observing it over not).
  void PrintSummary() const {
    constexpr std::string_view kSemaphore = "BM_AtomicSemaphoreAcquireRelease";
    constexpr std::string_view kBare = "BM_LimiterAcquireRelease/gradient/";
    constexpr std::string_view kObserved = "BM_ObservedLimiterAcquireRelease/gradient_observed/";
    constexpr std::string_view kPartitioned =
        "BM_PartitionedLimiterAcquireRelease/gradient_partitioned/";
    std::fprintf(stderr, "\nsummary (same run; ns per acquire+release, real / cpu):\n");
    std::fprintf(stderr, "  %-28s %-22s %-22s\n", "", "threads:1", "threads:2");
    auto row = [&](const char* label, auto value) {
      std::fprintf(stderr, "  %-28s", label);
      for (const char* threads : {"threads:1", "threads:2"}) {
        const Times t = value(threads);
        const bool known = t.difference || (t.real > 0 && t.cpu > 0);
        std::fprintf(stderr, " %-22s", known ? Format(t).c_str() : "-");
      }
      std::fprintf(stderr, "\n");
    };
    auto ratio = [&](std::string_view a, std::string_view b) {
      return [this, a, b](const char* threads) {
        const Times x = Find(a, threads);
        const Times y = Find(b, threads);
        if (y.real <= 0 || y.cpu <= 0) return Times{};
        return Times{x.real / y.real, x.cpu / y.cpu, /*ratio=*/true};
      };
    };
    auto time = [&](std::string_view a) {
      return [this, a](const char* threads) { return Find(a, threads); };
    };
    auto difference = [&](std::string_view a, std::string_view b) {
      return [this, a, b](const char* threads) {
        const Times x = Find(a, threads);
        const Times y = Find(b, threads);
        if (x.real <= 0 || y.real <= 0) return Times{};
        return Times{x.real - y.real, x.cpu - y.cpu, /*ratio=*/false, /*difference=*/true};
      };
    };
    row("atomic semaphore", time(kSemaphore));
    row("limiter, bare", time(kBare));
    row("limiter, observed", time(kObserved));
    row("limiter, partitioned", time(kPartitioned));
    row("bare / semaphore", ratio(kBare, kSemaphore));
    row("observed / bare", ratio(kObserved, kBare));
    row("observed / semaphore", ratio(kObserved, kSemaphore));
    row("partitioned - bare (ns)", difference(kPartitioned, kBare));
  }

  // Real time is what a caller waits; CPU time is robust to other processes on a shared
  // machine. Both, as ratios to the floor measured in this run.
  void PrintRatios() const {
    std::fprintf(stderr, "\nratio to the atomic-counter semaphore (same run; real / cpu):\n");
    for (const char* threads : {"threads:1", "threads:2"}) {
      Times floor = Find("BM_AtomicSemaphoreAcquireRelease", threads);
      if (floor.real <= 0 || floor.cpu <= 0) continue;
      std::fprintf(stderr, "  %s: AtomicSemaphore %.1f / %.1f ns\n", threads, floor.real,
                   floor.cpu);
      for (const char* other : {"BM_CountingSemaphoreAcquireRelease",
                                "BM_LimiterAcquireRelease/gradient/",
                                "BM_LimiterAcquireRelease/gradient2/",
                                "BM_PartitionedLimiterAcquireRelease/gradient_partitioned/",
                                "BM_ObservedLimiterAcquireRelease/gradient_observed/",
                                "BM_ObservedLimiterAcquireRelease/gradient_observed_status_page/",
                                "BM_ObservedLimiterAcquireRelease/gradient_observed_status_page_x100/"}) {
        Times t = Find(other, threads);
        std::fprintf(stderr, "    %-64s %6.1f / %6.1f ns  %.2fx / %.2fx\n", other, t.real, t.cpu,
                     t.real / floor.real, t.cpu / floor.cpu);
      }
    }
  }

 private:
  struct Times {
    double real = 0;
    double cpu = 0;
    bool ratio = false;       // A ratio of two times rather than a time.
    bool difference = false;  // A difference of two times (may be negative).
  };

  static std::string Format(const Times& t) {
    char text[64];
    if (t.ratio) {
      std::snprintf(text, sizeof text, "%.2fx / %.2fx", t.real, t.cpu);
    } else {
      std::snprintf(text, sizeof text, "%.1f / %.1f", t.real, t.cpu);
    }
    return text;
  }

  Times Find(std::string_view benchmark, std::string_view threads) const {
    for (const auto& [name, times] : times_) {
      if (name.starts_with(benchmark) && name.find(threads) != std::string::npos) return times;
    }
    return {};
  }

  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  std::map<std::string, Times> times_;
};

}  // namespace

int main(int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) json |= std::string_view(argv[i]) == "--benchmark_format=json";
  if (int code = bench::Initialize("blobtune-tuner-bench", argc, argv); code >= 0) return code;
  std::unique_ptr<benchmark::BenchmarkReporter> inner;
  if (json) {
    inner = std::make_unique<benchmark::JSONReporter>();
  } else {
    inner = std::make_unique<benchmark::ConsoleReporter>();
  }
  RatioReporter reporter(std::move(inner));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  reporter.PrintSummary();
  benchmark::Shutdown();
  return 0;
}
