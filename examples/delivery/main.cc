// blobtune-delivery: the mail-delivery benchmark that started blobtune, on real parts.
//
// A mail server on loopback (HTTP/1.1, one slow authentication thread) holds N incoming
// messages; the client delivers them into a real LMDB blob store, either by the legacy batched
// path or by the blob path, whose get, put and delete steps each pass through one limiter of a
// fixed concurrency or auto-tuned by blobtune. It prints the seed benchmark's table: time per
// delivery over several rounds, and the ratio to the legacy path; with --sweep-sizes, the same
// at four message sizes of the same total bytes.
//
//   build/bin/blobtune-delivery --concurrency 1,2,10,auto --time-scale 0.1
#include <utility>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "bench_flags.h"
#include "bench_report.h"
#include "bench_rounds.h"
#include "blobtune/metrics/exporter.h"
#include "mail_server.h"
#include "progress_line.h"
#include "sweep_plot.h"
#include "trace_plot.h"

namespace {

namespace fs = std::filesystem;
using namespace blobtune;
using namespace blobtune::delivery;

volatile std::sig_atomic_t g_interrupted = 0;

// Writes the --plot file: the traces of one point, or the ratios of a sweep.
Status WritePlot(const BenchConfig& config, const std::vector<Row>& rows) {
  if (!config.sweep_sizes) {
    std::vector<TracedRun> traced;
    for (const Row& row : rows) {
      if (row.mode == "blobs") traced.push_back({"concurrency " + row.concurrency, row.last_trace});
    }
    return WriteTracePlot(traced, config.plot);
  }
  std::vector<SweepSeries> series;
  for (const std::string& concurrency : config.concurrency) {
    SweepSeries line{.label = "concurrency " + concurrency};
    for (const Row& row : rows) {
      std::optional<double> ratio = RatioToLegacy(rows, row);
      if (row.mode == "blobs" && row.concurrency == concurrency && ratio) {
        line.ratios.emplace_back(row.point.size, *ratio);
      }
    }
    series.push_back(std::move(line));
  }
  return WriteSweepPlot(series, config.plot);
}

// Every point's configurations, each point against its own server; the first failure.
Status RunPoints(const BenchConfig& config, const std::vector<SizePoint>& points,
                 BenchParts parts, std::vector<Row>* rows) {
  for (const SizePoint& point : points) {
    if (g_interrupted) break;
    MailServerOptions server_options;
    server_options.messages = point.messages;
    server_options.message_size = point.size;
    server_options.seed = config.seed;
    server_options.time_scale = config.time_scale;
    server_options.fault_rate = config.faults;
    server_options.max_upload_bytes = config.max_upload;
    server_options.max_sync_bytes = config.max_sync;
    auto server = MailServer::Start(server_options);
    if (!server.ok()) return server.status();
    parts.server = server->get();
    Status s = RunConfigurations(config, point, parts, rows);
    if (!s.ok()) return s;
  }
  return Status();
}

}  // namespace

int main(int argc, char** argv) {
  BenchConfig config;
  if (int code = ParseFlags(argc, argv, &config); code >= 0) return code;
  std::signal(SIGINT, [](int) { g_interrupted = 1; });
  std::signal(SIGTERM, [](int) { g_interrupted = 1; });

  // Declared before every limiter and store it observes, so it outlives them.
  std::unique_ptr<metrics::Exporter> exporter;
  if (!config.metrics.empty()) {
    auto started = metrics::Exporter::Start(config.metrics);
    if (!started.ok()) {
      std::cerr << "blobtune-delivery: --metrics: " << started.status() << "\n";
      return 2;
    }
    exporter = *std::move(started);
    std::cerr << "blobtune-delivery: metrics at http://" << exporter->address() << exporter->path()
              << "\n";
  }
  char dir_template[] = "/tmp/blobtune-delivery-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    std::perror("blobtune-delivery: mkdtemp");
    return 1;
  }
  const std::vector<SizePoint> points =
      config.sweep_sizes ? SweepPoints() : std::vector<SizePoint>{{config.messages, config.size}};
  RoundsProgress rounds_progress(static_cast<int>(points.size()) * ConfigurationsPerPoint(config) *
                                 (config.rounds + 1));
  BenchParts parts{.exporter = exporter.get(),
                   // One series for the store of every run (each run opens a fresh one).
                   .store_observer = metrics::StoreObserverOf(exporter.get(), "delivery"),
                   .data_dir = fs::path(dir_template),
                   .interrupted = &g_interrupted,
                   .progress = &rounds_progress};
  std::vector<Row> rows;
  Status run;
  {
    // Rounds done, the configuration running and, for the blob path, its limit, on stderr
    // when that is a terminal.
    ProgressLine progress(isatty(STDERR_FILENO) != 0, [&] { return rounds_progress.Text(); });
    if (!config.json) {  // The table grows a row as each configuration finishes.
      PrintTableHeader();
      std::fflush(stdout);
      parts.on_row = [&](const std::vector<Row>& done) {
        progress.Above([&] { PrintTableRow(done, done.back()); });
      };
    }
    run = RunPoints(config, points, parts, &rows);
  }
  fs::remove_all(parts.data_dir);
  if (!run.ok()) std::cerr << "blobtune-delivery: " << run << "\n";
  const int exit_code = run.ok() ? 0 : 1;
  if (rows.empty()) return exit_code != 0 ? exit_code : 130;
  if (config.json) {
    PrintJson(rows);
  } else {
    PrintTableFooter(config);
  }
  if (!config.plot.empty()) {
    Status written = WritePlot(config, rows);
    if (!written.ok()) {
      std::cerr << "blobtune-delivery: " << written << "\n";
      return 1;
    }
    if (!config.json) std::printf("plot: %s\n", fs::absolute(config.plot).c_str());
  }
  if (g_interrupted) return 130;
  if (exporter != nullptr) {  // Let a scraper see the final values.
    std::fflush(stdout);
    std::cerr << "blobtune-delivery: done; serving metrics at http://" << exporter->address()
              << exporter->path() << " until interrupted (Ctrl-C)\n";
    while (!g_interrupted) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return exit_code;
}
