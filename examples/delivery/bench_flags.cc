#include "bench_flags.h"

#include <string>

#include "blobtune/tuner/algorithm_registry.h"
#include "common/command_line.h"
#include "common/rados_available.h"

namespace blobtune::delivery {
namespace {

namespace po = examples::po;

bool IsFixedLimit(const std::string& c) {
  return !c.empty() && c.size() <= 6 && c.find_first_not_of("0123456789") == std::string::npos &&
         std::stoul(c) >= 1 && std::stoul(c) <= 100000;
}

}  // namespace

std::vector<SizePoint> SweepPoints() {
  return {{1000, 10 << 10}, {100, 100 << 10}, {10, 1 << 20}, {1, 10 << 20}};
}

std::string SizeLabel(size_t bytes) {
  if (bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + "m";
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + "k";
  return std::to_string(bytes);
}

int ParseFlags(int argc, char** argv, BenchConfig* config) {
  std::string concurrency = "1,2,10,auto";
  examples::ByteSize size{config->size};
  examples::ByteSize max_upload{config->max_upload};
  examples::ByteSize max_sync{config->max_sync};
  examples::CommandLine cli(
      "blobtune-delivery",
      "blobtune-delivery: the mail-delivery benchmark, legacy path vs blob path with a fixed or\n"
      "auto-tuned number of concurrent blob accesses, on a loopback server and a real LMDB "
      "store.\n\n"
      "Memory: the server holds every message and the client a delivery's worth of them; a run\n"
      "needs up to about 10 x messages x size, plus 30 KB per message, plus 15 MB (measured\n"
      "peaks: 600 MB for 1 x 64M, 310 MB for 10000 x 1K, 70 MB for 100 x 100K).\n");
  cli.Add()(
      "mode", cli.Value(&config->mode), "legacy | blobs | both")(
      "concurrency", cli.Value(&concurrency),
      "comma-separated fixed limits and/or 'auto', e.g. 1,2,10,auto")(
      "algorithm", po::value(&config->algorithm),
      "limit algorithm for 'auto' as a registry spec (e.g. gradient2, aimd:backoff_ratio=0.8); "
      "default: the library's default")(
      "messages", cli.Value(&config->messages), "messages per delivery, 1 to 100000")(
      "size", cli.Value(&size), "message size, bytes with optional K/M/G suffix, 1 to 64M")(
      "sweep-sizes", po::bool_switch(&config->sweep_sizes),
      "instead of --messages and --size, run 1000 x 10K, 100 x 100K, 10 x 1M and 1 x 10M (the "
      "same bytes) and print one table; with --plot, a chart of the ratio to legacy against "
      "message size")(
      "max-upload", cli.Value(&max_upload),
      "the mail server's largest message upload body (K/M/G suffixes); larger gets 413")(
      "max-sync", cli.Value(&max_sync),
      "the mail server's largest metadata sync body (about 4.6 KB per message, K/M/G suffixes); "
      "larger gets 413")(
      "rounds", cli.Value(&config->rounds),
      "measured rounds per configuration, after one warm-up round")(
      "time-scale", cli.Value(&config->time_scale),
      "multiplies every simulated cost (1 = the original system's timings)")(
      "faults", cli.Value(&config->faults),
      "probability that the server answers a request with an error, a reset or a stall")(
      "seed", cli.Value(&config->seed),
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
      "store", cli.Value(&config->store),
      "lmdb (a fresh LMDB store per run) or rados (a Ceph pool, --rados-conf and --rados-pool; "
      "its namespaces incoming, payload and documents are emptied before and after each run)")(
      "rados-conf", po::value(&config->rados_conf), "--store rados: the cluster's ceph.conf")(
      "rados-pool", po::value(&config->rados_pool), "--store rados: the pool (it must exist)")(
      "reader-rate", cli.Value(&config->reader_rate, "R"),
      "a person reading mail during the blob path: R opens per second (of unscaled time) of a "
      "random delivered message, each a read under a permit; the table then gives the reads' "
      "times (0: nobody reads)")(
      "reader-partition", po::bool_switch(&config->reader_partition),
      "with --reader-rate, the reads wait in a partition of their own (share 0.25, priority 1) "
      "instead of in the delivery's queue")(
      "json", po::bool_switch(&config->json), "print the results as JSON");
  if (int code = cli.Parse(argc, argv); code >= 0) return code;
  if (config->mode != "legacy" && config->mode != "blobs" && config->mode != "both") {
    return cli.BadValue("--mode", "must be legacy, blobs or both", config->mode);
  }
  config->concurrency = examples::SplitList(concurrency);
  for (const std::string& c : config->concurrency) {
    if (c != "auto" && !IsFixedLimit(c)) {
      return cli.BadValue("--concurrency", "takes numbers from 1 to 100000 and 'auto'", c);
    }
  }
  if (config->mode != "legacy" && config->concurrency.empty()) {
    return cli.UsageError("--concurrency: is empty");
  }
  if (size.bytes == 0 || size.bytes > (size_t{64} << 20)) {
    return cli.BadValue("--size", "must be 1 byte to 64M", size);
  }
  config->size = size.bytes;
  if (config->sweep_sizes && (cli.Given("messages") || cli.Given("size"))) {
    return cli.UsageError(
        "--sweep-sizes sets the messages and sizes itself: drop --messages and --size");
  }
  if (max_upload.bytes == 0) return cli.BadValue("--max-upload", "must be > 0", max_upload);
  if (max_sync.bytes == 0) return cli.BadValue("--max-sync", "must be > 0", max_sync);
  config->max_upload = max_upload.bytes;
  config->max_sync = max_sync.bytes;
  if (config->messages == 0 || config->messages > 100000) {
    return cli.BadValue("--messages", "must be 1..100000", config->messages);
  }
  if (config->rounds < 1 || config->rounds > 1000) {
    return cli.BadValue("--rounds", "must be 1..1000", config->rounds);
  }
  if (!(config->reader_rate >= 0) || config->reader_rate > 1000) {
    return cli.BadValue("--reader-rate", "must be 0..1000 opens per second", config->reader_rate);
  }
  if (config->reader_partition && !(config->reader_rate > 0)) {
    return cli.UsageError("--reader-partition: needs --reader-rate");
  }
  if (!(config->time_scale > 0) || config->time_scale > 100) {
    return cli.BadValue("--time-scale", "must be in (0, 100]", config->time_scale);
  }
  if (!(config->faults >= 0) || config->faults >= 1) {
    return cli.BadValue("--faults", "must be in [0, 1)", config->faults);
  }
  if (config->store == "rados") {
    if (!examples::kRadosAvailable) {
      return cli.UsageError("--store rados: this build has no RADOS store (build it with librados-dev and "
                 "libradospp-dev installed)");
    }
    if (config->rados_conf.empty() || config->rados_pool.empty()) {
      return cli.UsageError("--store rados needs --rados-conf and --rados-pool");
    }
  } else if (config->store != "lmdb") {
    return cli.BadValue("--store", "must be lmdb or rados", config->store);
  }
  if (!config->algorithm.empty()) {
    Status made = tuner::MakeAlgorithmFromText(config->algorithm).status();
    if (!made.ok()) return cli.UsageError("--algorithm: " + std::string(made.message()));
  }
  return -1;
}

}  // namespace blobtune::delivery
