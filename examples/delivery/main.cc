// blobtune-delivery: the mail-delivery benchmark that started blobtune, on real parts.
//
// A mail server on loopback (HTTP/1.1, one slow authentication thread) holds N incoming
// messages; the client delivers them into a real LMDB blob store, either by the legacy batched
// path or by the blob path, whose get, put and delete steps each pass through one limiter of a
// fixed concurrency or auto-tuned by blobtune. It prints the seed benchmark's table: time per
// delivery over several rounds, and the ratio to the legacy path.
//
//   build/bin/blobtune-delivery --concurrency 1,2,10,auto --time-scale 0.1
#include <utility>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "blobtune/metrics/exporter.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/limiter.h"
#include "blobtune/tuner/version.h"
#include "delivery_run.h"
#include "mail_server.h"
#include "trace_plot.h"

namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace blobtune;

volatile std::sig_atomic_t g_interrupted = 0;

struct Config {
  std::string mode = "both";
  std::vector<std::string> concurrency;  // "1", "2", ..., or "auto"
  std::string algorithm;                 // Registry spec for auto; empty: the default.
  size_t messages = 100;
  size_t size = 100 * 1024;
  int rounds = 4;
  double time_scale = 0.1;
  double faults = 0;
  uint64_t seed = 1;
  bool durable = false;
  bool json = false;
  std::string plot;  // SVG file for the limit/inflight/throughput traces; empty: none.
  std::string metrics;  // Prometheus endpoint address; empty: none.
  size_t max_upload = delivery::MailServerOptions().max_upload_bytes;
  size_t max_sync = delivery::MailServerOptions().max_sync_bytes;
};

struct Row {
  std::string mode;
  std::string concurrency;  // "-" for legacy
  std::vector<double> seconds;
  std::optional<int> settled_limit;
  std::vector<delivery::TracePoint> last_trace;  // Of the last measured round (blob path).
};

// "100K", "1M", "4096" -> bytes.
std::optional<size_t> ParseSize(std::string text) {
  size_t multiplier = 1;
  if (!text.empty()) {
    char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
    if (unit == 'K') multiplier = 1024;
    if (unit == 'M') multiplier = 1024 * 1024;
    if (multiplier != 1) text.pop_back();
  }
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoull(text) * multiplier;
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Exit code 2 with a message for bad flags; 0 after --help; -1 to go on.
int ParseFlags(int argc, char** argv, Config* config) {
  std::string concurrency = "1,2,10,auto";
  std::string size = "100K";
  std::string max_upload = "65M";
  std::string max_sync = "64M";
  po::options_description flags(
      "blobtune-delivery: the mail-delivery benchmark, legacy path vs blob path with a fixed or\n"
      "auto-tuned number of concurrent blob accesses, on a loopback server and a real LMDB "
      "store.\n\n"
      "Memory: the server holds every message and the client a delivery's worth of them; a run\n"
      "needs up to about 10 x messages x size, plus 30 KB per message, plus 15 MB (measured\n"
      "peaks: 600 MB for 1 x 64M, 310 MB for 10000 x 1K, 70 MB for 100 x 100K).\n\nOptions");
  flags.add_options()("help,h", "this text")("version", "print the version and exit")(
      "mode", po::value(&config->mode)->default_value(config->mode), "legacy | blobs | both")(
      "concurrency", po::value(&concurrency)->default_value(concurrency),
      "comma-separated fixed limits and/or 'auto', e.g. 1,2,10,auto")(
      "algorithm", po::value(&config->algorithm),
      "limit algorithm for 'auto' as a registry spec (e.g. gradient2, aimd:backoff_ratio=0.8); "
      "default: the library's default")(
      "messages", po::value(&config->messages)->default_value(config->messages),
      "messages per delivery")("size", po::value(&size)->default_value(size),
                               "message size in bytes, 1 to 64M; accepts K and M suffixes")(
      "max-upload", po::value(&max_upload)->default_value(max_upload),
      "the mail server's largest message upload body; larger gets 413 (K and M suffixes)")(
      "max-sync", po::value(&max_sync)->default_value(max_sync),
      "the mail server's largest metadata sync body (about 4.6 KB per message); larger gets 413")(
      "rounds", po::value(&config->rounds)->default_value(config->rounds),
      "measured rounds per configuration, after one warm-up round")(
      "time-scale", po::value(&config->time_scale)->default_value(config->time_scale),
      "multiplies every simulated cost (1 = the original system's timings)")(
      "faults", po::value(&config->faults)->default_value(config->faults),
      "probability that the server answers a request with an error, a reset or a stall")(
      "seed", po::value(&config->seed)->default_value(config->seed), "seed of message contents "
                                                                    "and server randomness")(
      "metrics", po::value(&config->metrics),
      "serve live Prometheus metrics of the limiters and stores at ADDR (e.g. 127.0.0.1:9464 or "
      ":9464; port 0 picks one) while the benchmark runs; afterwards the program keeps serving "
      "until interrupted (Ctrl-C)")("plot", po::value(&config->plot),
      "write an SVG of limit, inflight and throughput over time (last round of each blob-path "
      "configuration) to this file")("durable", po::bool_switch(&config->durable),
      "sync every store commit to disk (default: no sync, as the original client's cheap local "
      "writes)")("json", po::bool_switch(&config->json), "print the results as JSON");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, flags), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "blobtune-delivery: " << e.what() << "\n(see --help)\n";
    return 2;
  }
  if (vm.count("help")) {
    std::cout << flags << "\n";
    return 0;
  }
  if (vm.count("version")) {
    std::cout << "blobtune-delivery " << blobtune::kVersion << "\n";
    return 0;
  }
  auto bad = [](const std::string& what) {
    std::cerr << "blobtune-delivery: " << what << " (see --help)\n";
    return 2;
  };
  if (config->mode != "legacy" && config->mode != "blobs" && config->mode != "both") {
    return bad("--mode must be legacy, blobs or both, not '" + config->mode + "'");
  }
  config->concurrency = SplitList(concurrency);
  for (const std::string& c : config->concurrency) {
    if (c != "auto" && (c.find_first_not_of("0123456789") != std::string::npos ||
                        std::stoul(c) < 1 || std::stoul(c) > 100000)) {
      return bad("--concurrency takes numbers from 1 to 100000 and 'auto', not '" + c + "'");
    }
  }
  if (config->mode != "legacy" && config->concurrency.empty()) return bad("--concurrency is empty");
  std::optional<size_t> bytes = ParseSize(size);
  if (!bytes || *bytes == 0 || *bytes > (size_t{64} << 20)) {
    return bad("--size must be 1 byte to 64M, e.g. 100K, not '" + size + "'");
  }
  config->size = *bytes;
  std::optional<size_t> upload_limit = ParseSize(max_upload);
  std::optional<size_t> sync_limit = ParseSize(max_sync);
  if (!upload_limit || *upload_limit == 0) return bad("--max-upload must be a size, e.g. 65M");
  if (!sync_limit || *sync_limit == 0) return bad("--max-sync must be a size, e.g. 64M");
  config->max_upload = *upload_limit;
  config->max_sync = *sync_limit;
  if (config->messages == 0 || config->messages > 100000) return bad("--messages must be 1..100000");
  if (config->rounds < 1 || config->rounds > 1000) return bad("--rounds must be 1..1000");
  if (!(config->time_scale > 0) || config->time_scale > 100) {
    return bad("--time-scale must be in (0, 100]");
  }
  if (!(config->faults >= 0) || config->faults >= 1) return bad("--faults must be in [0, 1)");
  if (!config->algorithm.empty()) {
    StatusOr<tuner::AlgorithmSpec> spec = tuner::ParseAlgorithmSpec(config->algorithm);
    Status made = spec.ok() ? tuner::MakeAlgorithm(*spec).status() : spec.status();
    if (!made.ok()) return bad("--algorithm: " + std::string(made.message()));
  }
  return -1;
}

StatusOr<std::unique_ptr<tuner::LimitAlgorithm>> MakeLimitAlgorithm(const Config& config,
                                                                    const std::string& c) {
  if (c != "auto") return tuner::MakeAlgorithm({.name = "fixed", .params = {{"limit", std::stod(c)}}});
  if (config.algorithm.empty()) return tuner::MakeDefaultAlgorithm();
  StatusOr<tuner::AlgorithmSpec> spec = tuner::ParseAlgorithmSpec(config.algorithm);
  if (!spec.ok()) return spec.status();
  return tuner::MakeAlgorithm(*spec);
}

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

std::string SizeLabel(size_t bytes) {
  if (bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + "m";
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + "k";
  return std::to_string(bytes);
}

void PrintTable(const Config& config, const std::vector<Row>& rows) {
  std::optional<double> legacy_mean;
  for (const Row& row : rows) {
    if (row.mode == "legacy") legacy_mean = Summarize(row.seconds).mean;
  }
  std::string suffix = std::to_string(config.messages) + "_" + SizeLabel(config.size);
  std::printf("%-30s %9s %9s %9s %9s %9s %8s  %s\n", "Name (time in s)", "Min", "Max", "Mean",
              "StdDev", "Median", "Ratio", "Limit");
  for (const Row& row : rows) {
    Stats s = Summarize(row.seconds);
    std::string name = row.mode == "legacy" ? "test_legacy_" + suffix
                                            : "test_blobs_" + suffix + "_c" + row.concurrency;
    std::string ratio = legacy_mean ? std::to_string(s.mean / *legacy_mean).substr(0, 4) : "-";
    std::string limit = row.settled_limit ? "settled at " + std::to_string(*row.settled_limit)
                        : row.mode == "blobs" ? "fixed " + row.concurrency
                                              : "";
    std::printf("%-30s %9.4f %9.4f %9.4f %9.4f %9.4f %8s  %s\n", name.c_str(), s.min, s.max, s.mean,
                s.stddev, s.median, ratio.c_str(), limit.c_str());
  }
  std::printf("(%d rounds each after one warm-up; time scale %g: multiply by %g for the original "
              "system's seconds)\n",
              config.rounds, config.time_scale, 1.0 / config.time_scale);
}

void PrintJson(const std::vector<Row>& rows) {
  std::optional<double> legacy_mean;
  for (const Row& row : rows) {
    if (row.mode == "legacy") legacy_mean = Summarize(row.seconds).mean;
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const Row& row : rows) {
    Stats s = Summarize(row.seconds);
    runs.push_back({{"mode", row.mode},
                    {"concurrency", row.mode == "legacy" ? nlohmann::json(nullptr)
                                                         : nlohmann::json(row.concurrency)},
                    {"mean_s", s.mean},
                    {"median_s", s.median},
                    {"min_s", s.min},
                    {"max_s", s.max},
                    {"stddev_s", s.stddev},
                    {"ratio_to_legacy", legacy_mean ? nlohmann::json(s.mean / *legacy_mean)
                                                    : nlohmann::json(nullptr)},
                    {"settled_limit", row.settled_limit ? nlohmann::json(*row.settled_limit)
                                                        : nlohmann::json(nullptr)}});
  }
  std::cout << nlohmann::json{{"runs", runs}}.dump(2) << "\n";
}

// One delivery in a fresh store; checks that nothing was lost.
StatusOr<delivery::RunResult> RunOnce(const Config& config, const std::string& mode,
                                      delivery::MailServer& server, tuner::Limiter* limiter,
                                      const fs::path& dir, metrics::Exporter* exporter,
                                      store::StoreObserver* store_observer) {
  server.Reset();
  fs::remove_all(dir);
  store::StoreOptions options;
  options.directory = dir.string();
  options.namespaces = {delivery::kIncoming, delivery::kPayload, delivery::kDocuments};
  options.durability = config.durable ? store::Durability::kDurable : store::Durability::kNoSync;
  options.max_blob_size_bytes = std::max<size_t>(config.size, 1 << 20);
  // This process is all delivery: keeping freed heap resident spares LMDB's dirty pages the
  // slow first touch of fresh memory (docs/LMDB.md).
  options.keep_heap_resident = true;
  options.observer = store_observer;
  auto store = store::BlobStore::Open(options);
  if (!store.ok()) return store.status();
  metrics::Attachment store_link = metrics::AttachTo(exporter, "delivery", **store);
  delivery::DeliveryOptions run_options{.messages = config.messages,
                                        .message_size = config.size,
                                        .seed = config.seed,
                                        .time_scale = config.time_scale};
  delivery::RunResult result =
      mode == "legacy" ? delivery::RunLegacyPath(run_options, server.port(), **store)
                       : delivery::RunBlobPath(run_options, server.port(), **store, *limiter);
  if (!result.status.ok()) return result.status;
  Status verified = delivery::VerifyDelivered(run_options, **store);
  if (!verified.ok()) return verified;
  delivery::MailServerReport report = server.Report();
  if (report.remaining != 0) {
    return Status::Internal(std::to_string(report.remaining) + " messages not deleted upstream");
  }
  for (const auto& [id, deletes] : report.applied_deletes) {
    if (deletes != 1) return Status::Internal(id + " deleted upstream " + std::to_string(deletes) + " times");
  }
  store_link.Reset();
  store->reset();
  fs::remove_all(dir);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
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
  // One series for the store of every run (each run opens a fresh one).
  store::StoreObserver* store_observer = metrics::StoreObserverOf(exporter.get(), "delivery");

  delivery::MailServerOptions server_options;
  server_options.messages = config.messages;
  server_options.message_size = config.size;
  server_options.seed = config.seed;
  server_options.time_scale = config.time_scale;
  server_options.fault_rate = config.faults;
  server_options.max_upload_bytes = config.max_upload;
  server_options.max_sync_bytes = config.max_sync;
  auto server = delivery::MailServer::Start(server_options);
  if (!server.ok()) {
    std::cerr << "blobtune-delivery: " << server.status() << "\n";
    return 1;
  }
  char dir_template[] = "/tmp/blobtune-delivery-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    std::perror("blobtune-delivery: mkdtemp");
    return 1;
  }
  fs::path data_dir(dir_template);
  const bool progress = isatty(STDERR_FILENO) && !config.json;

  std::vector<std::pair<std::string, std::string>> plan;  // (mode, concurrency)
  if (config.mode != "blobs") plan.emplace_back("legacy", "-");
  if (config.mode != "legacy") {
    for (const std::string& c : config.concurrency) plan.emplace_back("blobs", c);
  }
  std::vector<Row> rows;
  int exit_code = 0;
  for (const auto& [mode, concurrency] : plan) {
    Row row{mode, concurrency, {}, std::nullopt};
    // One limiter per configuration, kept across its rounds as an application keeps it: the
    // warm-up round is where an auto-tuned limiter first learns.
    std::unique_ptr<tuner::Limiter> limiter;
    metrics::Attachment limiter_link;
    const std::string limiter_name = "blobs_c" + concurrency;
    if (mode == "blobs") {
      auto algorithm = MakeLimitAlgorithm(config, concurrency);
      auto created =
          algorithm.ok()
              ? tuner::Limiter::Create(
                    {.algorithm = *std::move(algorithm),
                     .observer = metrics::LimiterObserverOf(exporter.get(), limiter_name),
                     // Every message starts at once and waits for its permit, as in the
                     // original client: the queue holds them all.
                     .max_queue = std::max<size_t>(1024, config.messages)})
              : StatusOr<std::unique_ptr<tuner::Limiter>>(algorithm.status());
      if (!created.ok()) {
        std::cerr << "blobtune-delivery: " << created.status() << "\n";
        return 1;
      }
      limiter = *std::move(created);
      limiter_link = metrics::AttachTo(exporter.get(), limiter_name, *limiter);
    }
    for (int round = 0; round <= config.rounds && !g_interrupted; ++round) {
      if (progress) {
        std::fprintf(stderr, "\r%-8s concurrency %-5s %s %d/%d ...   ", mode.c_str(),
                     concurrency.c_str(), round == 0 ? "warm-up" : "round", round, config.rounds);
      }
      auto result = RunOnce(config, mode, **server, limiter.get(), data_dir / "run", exporter.get(),
                            store_observer);
      if (!result.ok()) {
        std::cerr << "\nblobtune-delivery: " << mode << " concurrency " << concurrency << ": "
                  << result.status() << "\n";
        exit_code = 1;
        break;
      }
      if (round > 0) {
        row.seconds.push_back(result->seconds);
        row.last_trace = std::move(result->trace);
      }
      if (mode == "blobs" && concurrency == "auto") row.settled_limit = result->final_limit;
    }
    if (!row.seconds.empty()) rows.push_back(std::move(row));
    if (exit_code != 0 || g_interrupted) break;
  }
  if (progress) std::fprintf(stderr, "\r%60s\r", "");
  fs::remove_all(data_dir);
  if (rows.empty()) return exit_code != 0 ? exit_code : 130;
  if (config.json) {
    PrintJson(rows);
  } else {
    PrintTable(config, rows);
  }
  if (!config.plot.empty()) {
    std::vector<delivery::TracedRun> traced;
    for (const Row& row : rows) {
      if (row.mode == "blobs") traced.push_back({"concurrency " + row.concurrency, row.last_trace});
    }
    Status written = delivery::WriteTracePlot(traced, config.plot);
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
