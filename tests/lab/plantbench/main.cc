// blobtune-plantbench: runs limit algorithms in real time against real resources of blobtune
// (the store, the server, the delivery's mail server), next to a sweep of fixed limits in the
// same invocation (the oracle), and reports each algorithm's ratios against the best fixed limit.
//
//   build/bin/blobtune-plantbench                                  (every plant and algorithm)
//   build/bin/blobtune-plantbench --plant lmdb_put_1k --algorithm marginal aimd --json
//   build/bin/blobtune-plantbench --twin --plant wait_then_put_100k
//
// docs/PLANTS.md describes the plants, the measures and the JSON.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/base/version.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "common/command_line.h"
#include "plant_bench.h"
#include "plant_plot.h"
#include "plant_report.h"
#include "real_plant.h"

namespace {

namespace fs = std::filesystem;
namespace pb = blobtune::plantbench;

constexpr std::string_view kProgram = "blobtune-plantbench";

constexpr const char* kAbout = R"(usage: blobtune-plantbench [options]

Runs limit algorithms in real time against real resources of blobtune, next to a sweep of fixed
limits (1, 2, 4, ... up to the plant's callers) measured in the same run, and reports each
algorithm's goodput and p99 against the best fixed limit: medians over repetitions that each run
every point once, in a shuffled order. Plants:
  lmdb_put_64k        durable 64 KiB puts, AsyncBlobStore with group commit, 128 callers
  lmdb_put_1k         the same with 1 KiB blobs
  wait_then_put_100k  permit, 2 ms network wait, durable 100 KiB put under it, 64 callers
  cached_get_10k      AsyncGet of cached 10 KiB blobs on 2 read threads, 64 callers
  server_mixed_16k    blobtune-server in-process, loopback HTTP, 16 KiB, half PUTs, 64 conns
  delivery_auth       the delivery's mail server (one auth thread) + client work, 32 callers
  encrypt_put_64k     AES-256-GCM of each 64 KiB blob on a pool of 2 threads, then a durable
                      put, 128 callers
  locked_write_64k    64 KiB writes under one spin-then-yield lock on 8 workers, 64 callers
  rados_put_64k       64 KiB puts to a RADOS store on a throwaway one-OSD Ceph cluster that the
                      plant starts (builds with librados only), 128 callers
)";

constexpr const char* kEpilogue = R"(A progress line per point goes to stderr. Every plant with every algorithm and 3 repetitions at
the defaults takes about 20 minutes on 2 cores. Ctrl-C stops after the point that runs.
Exit status: 0 on success, 1 if a point fails, 2 on bad flags, 130 when interrupted.
)";

struct Flags {
  pb::BenchOptions bench;
  bool json = false;
  std::string plot_dir;
};

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

// Parses the command line into `flags`; returns an exit code to stop with, or -1 to go on.
int ParseFlags(int argc, char** argv, Flags& flags) {
  using blobtune::examples::ListItems;
  using blobtune::examples::Range;
  pb::BenchOptions& bench = flags.bench;
  blobtune::examples::CommandLine cli(std::string(kProgram), kAbout, kEpilogue);
  cli.Add({
      {"plant", &bench.plants, "NAME...", "plants to run (default: all, in the order above)",
       ListItems::kManyPerFlag},
      {"algorithm", &bench.algorithms, "SPEC...",
       "registry specs (\"marginal\", \"aimd:backoff_ratio=0.8\"); default: every registered "
       "algorithm but \"fixed\" (the sweep is the oracle)",
       ListItems::kManyPerFlag},
      {"repetitions", &bench.repetitions, "N", "repetitions of every point", Range::Closed(1, 100)},
      {"seconds", &bench.measure_s, "S", "measured seconds per point", Range::Closed(0.01, 3600)},
      {"warmup", &bench.warmup_s, "S", "seconds run before measuring each point",
       Range::Closed(0, 3600)},
      {"seed", &bench.seed, "N", "seeds the order of the points and the plants' random choices"},
      {"json", &flags.json, "", "print the report as JSON instead of tables"},
      {"plot", &flags.plot_dir, "DIR",
       "write one SVG per plant into DIR (limit and goodput over time)"},
      {"twin", &bench.twin, "",
       "run only the sweeps (plus any --algorithm given) and compare each with its simulated "
       "twin, <workloads>/plant_<name>.json"},
      {"workloads", &bench.twin_dir, "DIR",
       "where the twins live (default: the source tree's tests/workloads)"},
  });
  if (int code = cli.Parse(argc, argv); code >= 0) return code;
  for (const std::string& name : bench.plants) {
    if (auto plant = pb::MakePlant(name); !plant.ok()) {
      return cli.UsageError("--plant: " + std::string(plant.status().message()));
    }
  }
  if (bench.plants.empty()) bench.plants = pb::PlantNames();
  if (!cli.Given("algorithm") && !bench.twin) {
    for (std::string_view name : blobtune::tuner::AlgorithmNames()) {
      if (name != "fixed") bench.algorithms.emplace_back(name);
    }
  }
  for (const std::string& spec : bench.algorithms) {  // Fail before any point runs.
    if (blobtune::Status s = pb::CheckAlgorithmSpec(spec); !s.ok()) {
      return cli.UsageError("--algorithm: " + spec + ": " + s.ToString());
    }
  }
  if (bench.twin_dir.empty()) bench.twin_dir = BLOBTUNE_WORKLOADS_DIR;
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (int code = ParseFlags(argc, argv, flags); code >= 0) return code;
  if (!flags.plot_dir.empty()) {
    std::error_code error;
    fs::create_directories(flags.plot_dir, error);
    if (error) {
      return blobtune::examples::UsageError(kProgram,
                                            "--plot: " + flags.plot_dir + ": " + error.message());
    }
  }

  // Ctrl-C ends the point that runs early and stops there: every temp directory is removed.
  std::signal(SIGINT, [](int) { g_interrupted.store(true, std::memory_order_relaxed); });
  std::signal(SIGTERM, [](int) { g_interrupted.store(true, std::memory_order_relaxed); });
  flags.bench.interrupted = &g_interrupted;
  flags.bench.progress = [](std::string_view line) { std::cerr << line << std::endl; };

  auto start = std::chrono::steady_clock::now();
  blobtune::StatusOr<pb::PlantBenchReport> report = pb::RunPlantBench(flags.bench);
  if (!report.ok()) {
    std::cerr << "blobtune-plantbench: " << report.status() << "\n";
    if (report.status().code() == blobtune::StatusCode::kCancelled) return 130;
    return 1;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (!flags.plot_dir.empty()) {
    for (const pb::PlantReport& plant : report->plants) {
      std::string file = (fs::path(flags.plot_dir) / (plant.name + ".svg")).string();
      if (blobtune::Status s = pb::WritePlantPlot(*report, plant, file); !s.ok()) {
        std::cerr << "blobtune-plantbench: " << s << "\n";
        return 1;
      }
    }
  }
  if (flags.json) {
    std::cout << pb::ReportJson(*report,
                                std::string(blobtune::tuner::MakeDefaultAlgorithm()->name()));
  } else {
    pb::PrintTables(*report, std::cout);
    std::cout << "(" << report->plants.size() << " plants in " << std::fixed << std::setprecision(1)
              << seconds << " s)\n";
  }
  std::cerr << "blobtune-plantbench: done in " << std::fixed << std::setprecision(1) << seconds
            << " s\n";
  return 0;
}
