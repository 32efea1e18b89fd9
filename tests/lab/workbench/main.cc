// blobtune-workbench: scores the tuner's limit algorithms on simulated workloads against the best
// static limit, in virtual time (a 10-minute workload takes well under a second).
//
//   build/bin/blobtune-workbench --suite tests/workloads
//   build/bin/blobtune-workbench --workload tests/workloads/delivery_model.json
//       --algorithm aimd gradient2 --plot plots/ --json > report.json   (one line)
//   build/bin/blobtune-workbench --generate 330 --seed 1 --write gen/   (a generated population)
//
// The workload format is documented in docs/WORKLOADS.md, the metrics in score.h.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench_runner.h"
#include "blobtune/base/version.h"
#include "blobtune/metrics/exporter.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "common/command_line.h"
#include "generator.h"
#include "report.h"
#include "svg_plot.h"

namespace {

namespace fs = std::filesystem;
namespace wb = blobtune::workbench;

constexpr std::string_view kProgram = "blobtune-workbench";

struct Flags {
  std::vector<std::string> workloads;
  std::vector<std::string> algorithms;
  bool json = false;
  std::string plot_dir;
  std::optional<uint64_t> seed;
  int threads = 2;
  std::string metrics;  // Prometheus endpoint address; empty: none.
  std::optional<int> generate;  // Workloads to generate; nothing: none.
  std::string family;           // Only this family; empty: all.
  std::string write_dir;
  std::string oracle_cache_dir;
};

volatile std::sig_atomic_t g_interrupted = 0;

// For the checks after the command line has been read: the message format of its errors.
int UsageError(const std::string& message) {
  return blobtune::examples::UsageError(kProgram, message);
}

// Parses the command line into `flags`; returns an exit code to stop with, or -1 to go on.
int ParseFlags(int argc, char** argv, Flags& flags) {
  using blobtune::examples::ListItems;
  using blobtune::examples::Range;
  blobtune::examples::CommandLine cli(
      std::string(kProgram),
      "usage: blobtune-workbench (--workload FILE... | --suite DIR) [options]\n"
      "       blobtune-workbench --generate N [--seed S] [--family F] [--write DIR] [options]\n\n"
      "Runs limit algorithms through the real blobtune limiter against simulated workloads and\n"
      "compares each with the best static limit of every phase (the oracle).\n",
      "Exit status: 0 on success, 1 if a simulation fails, 2 on bad flags or a bad workload "
      "file.\n");
  std::string suite;
  cli.Add({
      {"workload", &flags.workloads, "FILE...", "workload files (JSON, see docs/WORKLOADS.md)",
       ListItems::kManyPerFlag},
      {"suite", &suite, "DIR", "every *.json file in DIR, in name order"},
      {"generate", &flags.generate, "N",
       "N workloads drawn at random from the families of docs/WORKLOADS.md (round-robin over "
       "them), named <family>-<index>; with --seed S (default 1) the draw, not a replacement of "
       "each workload's seed",
       Range::Closed(1, 100'000)},
      {"family", &flags.family, "F", "draw every generated workload from family F"},
      {"write", &flags.write_dir, "DIR",
       "also save the generated workloads as DIR/<name>.json (to replay one with --workload)"},
      {"algorithm", &flags.algorithms, "SPEC...",
       "algorithms to run, as registry specs (\"aimd\", \"vegas:alpha_factor=4\"); default: "
       "every registered algorithm. \"oracle\" runs the oracle's L* of each phase as a static "
       "limit switched at each step (a reference)",
       ListItems::kManyPerFlag},
      {"json", &flags.json, "", "print the report as JSON instead of a table"},
      {"plot", &flags.plot_dir, "DIR", "write one SVG per workload into DIR"},
      {"seed", &flags.seed, "N",
       "seed every workload with N instead of its own seed (with --generate: seed the draw)"},
      {"threads", &flags.threads, "N", "simulations run at once", Range::Closed(1, 256)},
      {"metrics", &flags.metrics, "ADDR",
       "serve Prometheus metrics of every simulated limiter at ADDR (e.g. 127.0.0.1:9464, "
       ":9464; port 0 picks one), limiter label \"<workload>/<algorithm>\", latencies in "
       "simulated time; after the run the program keeps serving until interrupted (Ctrl-C)"},
      {"oracle-cache", &flags.oracle_cache_dir, "DIR",
       "keep each workload's oracle in DIR and reuse it in later runs (keyed by the workload's "
       "text, its seed and the oracle's settings, not by the simulator's code: use a new DIR "
       "after changing the workbench)"},
  });
  if (int code = cli.Parse(argc, argv); code >= 0) return code;
  if (cli.Given("suite")) {
    std::error_code error;
    std::vector<std::string> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(suite, error)) {
      if (entry.path().extension() == ".json") files.push_back(entry.path().string());
    }
    if (error) return cli.UsageError("--suite: " + suite + ": " + error.message());
    if (files.empty()) return cli.UsageError("--suite: " + suite + ": no *.json workload in it");
    std::sort(files.begin(), files.end());
    flags.workloads.insert(flags.workloads.end(), files.begin(), files.end());
  }
  if (flags.generate) {
    if (!flags.workloads.empty()) {
      return cli.UsageError(
          "--generate runs generated workloads only: drop --workload and --suite");
    }
  } else {
    if (!flags.family.empty()) return cli.UsageError("--family needs --generate");
    if (!flags.write_dir.empty()) return cli.UsageError("--write needs --generate");
    if (flags.workloads.empty()) {
      return cli.UsageError("give --workload FILE..., --suite DIR or --generate N");
    }
  }
  return -1;
}

// Draws the workloads of --generate into `options` (and --write DIR); returns an exit code to
// stop with, or -1 to go on.
int AddGenerated(const Flags& flags, wb::BenchOptions& options) {
  blobtune::StatusOr<std::vector<wb::GeneratedWorkload>> generated =
      wb::GenerateWorkloads(*flags.generate, flags.seed.value_or(1), flags.family);
  if (!generated.ok()) return UsageError(generated.status().ToString());
  if (!flags.write_dir.empty()) {
    std::error_code error;
    fs::create_directories(flags.write_dir, error);
    if (error) return UsageError("--write: " + flags.write_dir + ": " + error.message());
  }
  for (const wb::GeneratedWorkload& g : *generated) {
    blobtune::StatusOr<wb::Workload> workload = wb::ParseWorkload(g.json, g.name);
    if (!workload.ok()) {  // A generator bug: every draw must parse.
      std::cerr << "blobtune-workbench: generated " << workload.status() << "\n";
      return 1;
    }
    options.workloads.push_back(*std::move(workload));
    if (!flags.write_dir.empty()) {
      fs::path file = fs::path(flags.write_dir) / (g.name + ".json");
      std::ofstream out(file);
      out << g.json;
      if (!out.flush()) {
        std::cerr << "blobtune-workbench: cannot write " << file.string() << "\n";
        return 1;
      }
    }
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (int code = ParseFlags(argc, argv, flags); code >= 0) return code;

  wb::BenchOptions options;
  options.workload_files = flags.workloads;
  if (flags.generate) {
    if (int code = AddGenerated(flags, options); code >= 0) return code;
  } else {
    options.seed = flags.seed;
  }
  options.threads = flags.threads;
  options.oracle_cache_dir = flags.oracle_cache_dir;
  options.keep_series = !flags.plot_dir.empty();
  if (flags.algorithms.empty()) {
    for (std::string_view name : blobtune::tuner::AlgorithmNames()) {
      options.algorithms.emplace_back(name);
    }
  } else {
    options.algorithms = flags.algorithms;
  }
  for (const std::string& spec : options.algorithms) {  // Fail before any simulation runs.
    if (spec == wb::kOracleSchedule) continue;
    blobtune::StatusOr<std::unique_ptr<blobtune::tuner::LimitAlgorithm>> algorithm =
        wb::MakeRegistryAlgorithm(spec, wb::LimitBounds{});
    if (!algorithm.ok()) {
      return UsageError("--algorithm: " + spec + ": " + algorithm.status().ToString());
    }
  }
  options.progress = [](std::string_view line) { std::cerr << line << "\n"; };

  std::unique_ptr<blobtune::metrics::Exporter> exporter;  // Outlives every observed limiter.
  if (!flags.metrics.empty()) {
    auto started = blobtune::metrics::Exporter::Start(flags.metrics);
    if (!started.ok()) return UsageError("--metrics: " + started.status().ToString());
    exporter = *std::move(started);
    std::cerr << "blobtune-workbench: metrics at http://" << exporter->address()
              << exporter->path() << "\n";
    options.observe_limiter = [&exporter](const std::string& name) {
      return blobtune::metrics::LimiterObserverOf(exporter.get(), name);
    };
  }

  auto start = std::chrono::steady_clock::now();
  blobtune::StatusOr<wb::BenchReport> report = wb::RunBench(options);
  if (!report.ok()) {
    std::cerr << "blobtune-workbench: " << report.status() << "\n";
    bool bad_input = report.status().code() == blobtune::StatusCode::kInvalidArgument ||
                     report.status().code() == blobtune::StatusCode::kNotFound;
    return bad_input ? 2 : 1;
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (!flags.plot_dir.empty()) {
    std::error_code error;
    fs::create_directories(flags.plot_dir, error);
    for (const wb::WorkloadReport& entry : report->workloads) {
      std::string file = (fs::path(flags.plot_dir) / (entry.workload.name + ".svg")).string();
      if (blobtune::Status s = wb::WriteSvgPlot(entry, file); !s.ok()) {
        std::cerr << "blobtune-workbench: " << s << "\n";
        return 1;
      }
    }
  }
  if (flags.json) {
    std::cout << wb::ReportJson(*report, std::string(blobtune::tuner::MakeDefaultAlgorithm()->name()));
  } else {
    wb::PrintTable(*report, std::cout);
    std::cout << "(" << report->workloads.size() << " workloads x " << options.algorithms.size()
              << " algorithms in " << std::fixed << std::setprecision(1) << seconds << " s)\n";
  }
  if (exporter != nullptr) {
    std::cout.flush();
    // Until now SIGINT/SIGTERM end the program at once; from here they end the serving.
    std::signal(SIGINT, [](int) { g_interrupted = 1; });
    std::signal(SIGTERM, [](int) { g_interrupted = 1; });
    std::cerr << "blobtune-workbench: done; serving metrics at http://" << exporter->address()
              << exporter->path() << " until interrupted (Ctrl-C)\n";
    while (!g_interrupted) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return 0;
}
