#include "bench_flags.h"

#include <boost/program_options.hpp>
#include <cctype>
#include <iostream>

#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/version.h"
#include "common/rados_available.h"

namespace blobtune::delivery {
namespace {

namespace po = boost::program_options;

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

bool IsFixedLimit(const std::string& c) {
  return !c.empty() && c.size() <= 6 && c.find_first_not_of("0123456789") == std::string::npos &&
         std::stoul(c) >= 1 && std::stoul(c) <= 100000;
}

}  // namespace

std::vector<SizePoint> SweepPoints() {
  return {{1000, 10 << 10}, {100, 100 << 10}, {10, 1 << 20}, {1, 10 << 20}};
}

std::optional<size_t> ParseSize(std::string text) {
  size_t multiplier = 1;
  if (!text.empty()) {
    char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
    if (unit == 'K') multiplier = 1024;
    if (unit == 'M') multiplier = 1024 * 1024;
    if (multiplier != 1) text.pop_back();
  }
  if (text.empty() || text.size() > 12 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoull(text) * multiplier;
}

std::string SizeLabel(size_t bytes) {
  if (bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + "m";
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + "k";
  return std::to_string(bytes);
}

int ParseFlags(int argc, char** argv, BenchConfig* config) {
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
      "messages per delivery, 1 to 100000")("size", po::value(&size)->default_value(size),
                                            "message size in bytes, 1 to 64M; accepts K and M "
                                            "suffixes")(
      "sweep-sizes", po::bool_switch(&config->sweep_sizes),
      "instead of --messages and --size, run 1000 x 10K, 100 x 100K, 10 x 1M and 1 x 10M (the "
      "same bytes) and print one table; with --plot, a chart of the ratio to legacy against "
      "message size")(
      "max-upload", po::value(&max_upload)->default_value(max_upload),
      "the mail server's largest message upload body; larger gets 413 (K and M suffixes)")(
      "max-sync", po::value(&max_sync)->default_value(max_sync),
      "the mail server's largest metadata sync body (about 4.6 KB per message); larger gets "
      "413")("rounds", po::value(&config->rounds)->default_value(config->rounds),
             "measured rounds per configuration, after one warm-up round")(
      "time-scale", po::value(&config->time_scale)->default_value(config->time_scale),
      "multiplies every simulated cost (1 = the original system's timings)")(
      "faults", po::value(&config->faults)->default_value(config->faults),
      "probability that the server answers a request with an error, a reset or a stall")(
      "seed", po::value(&config->seed)->default_value(config->seed),
      "seed of message contents and server randomness")(
      "metrics", po::value(&config->metrics),
      "serve live Prometheus metrics of the limiters and stores at ADDR (e.g. 127.0.0.1:9464 or "
      ":9464; port 0 picks one) while the benchmark runs; afterwards the program keeps serving "
      "until interrupted (Ctrl-C)")(
      "plot", po::value(&config->plot),
      "write an SVG to this file: limit, inflight and throughput over time (last round of each "
      "blob-path configuration), or with --sweep-sizes the ratio to legacy by message size")(
      "durable", po::bool_switch(&config->durable),
      "sync every store commit to disk (default: no sync, as the original client's cheap local "
      "writes)")(
      "store", po::value(&config->store)->default_value(config->store),
      "lmdb (a fresh LMDB store per run) or rados (a Ceph pool, --rados-conf and --rados-pool; "
      "its namespaces incoming, payload and documents are emptied before and after each run)")(
      "rados-conf", po::value(&config->rados_conf), "--store rados: the cluster's ceph.conf")(
      "rados-pool", po::value(&config->rados_pool), "--store rados: the pool (it must exist)")("json", po::bool_switch(&config->json), "print the results as JSON");
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
    if (c != "auto" && !IsFixedLimit(c)) {
      return bad("--concurrency takes numbers from 1 to 100000 and 'auto', not '" + c + "'");
    }
  }
  if (config->mode != "legacy" && config->concurrency.empty()) return bad("--concurrency is empty");
  std::optional<size_t> bytes = ParseSize(size);
  if (!bytes || *bytes == 0 || *bytes > (size_t{64} << 20)) {
    return bad("--size must be 1 byte to 64M, e.g. 100K, not '" + size + "'");
  }
  config->size = *bytes;
  if (config->sweep_sizes && (!vm["messages"].defaulted() || !vm["size"].defaulted())) {
    return bad("--sweep-sizes sets the messages and sizes itself: drop --messages and --size");
  }
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
  if (config->store == "rados") {
    if (!examples::kRadosAvailable) {
      return bad("--store rados: this build has no RADOS store (build it with librados-dev and "
                 "libradospp-dev installed)");
    }
    if (config->rados_conf.empty() || config->rados_pool.empty()) {
      return bad("--store rados needs --rados-conf and --rados-pool");
    }
  } else if (config->store != "lmdb") {
    return bad("--store must be lmdb or rados, not '" + config->store + "'");
  }
  if (!config->algorithm.empty()) {
    Status made = tuner::MakeAlgorithmFromText(config->algorithm).status();
    if (!made.ok()) return bad("--algorithm: " + std::string(made.message()));
  }
  return -1;
}

}  // namespace blobtune::delivery
