#include "bench_flags.h"

#include <string>

#include "blobtune/tuner/algorithm_registry.h"
#include "common/command_line.h"
#include "common/rados_available.h"

namespace blobtune::delivery {
namespace {

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
  using examples::Range;
  cli.Add({
      {"mode", &config->mode, "arg", "legacy | blobs | both"},
      {"concurrency", &concurrency, "arg",
       "comma-separated fixed limits and/or 'auto', e.g. 1,2,10,auto"},
      {"algorithm", &config->algorithm, "arg",
       "limit algorithm for 'auto' as a registry spec (e.g. gradient2, aimd:backoff_ratio=0.8); "
       "default: the library's default"},
      {"messages", &config->messages, "arg", "messages per delivery", Range::Closed(1, 100000)},
      {"size", &size, "arg", "message size, bytes with optional K/M/G suffix",
       Range::Closed(1, 64 << 20)},
      {"sweep-sizes", &config->sweep_sizes, "",
       "instead of --messages and --size, run 1000 x 10K, 100 x 100K, 10 x 1M and 1 x 10M (the "
       "same bytes) and print one table; with --plot, a chart of the ratio to legacy against "
       "message size"},
      {"max-upload", &max_upload, "arg",
       "the mail server's largest message upload body (K/M/G suffixes); larger gets 413",
       Range::Above(0)},
      {"max-sync", &max_sync, "arg",
       "the mail server's largest metadata sync body (about 4.6 KB per message, K/M/G "
       "suffixes); larger gets 413",
       Range::Above(0)},
      {"rounds", &config->rounds, "arg",
       "measured rounds per configuration, after one warm-up round", Range::Closed(1, 1000)},
      {"time-scale", &config->time_scale, "arg",
       "multiplies every simulated cost (1 = the original system's timings)",
       Range::LeftOpen(0, 100)},
      {"faults", &config->faults, "arg",
       "probability that the server answers a request with an error, a reset or a stall",
       Range::RightOpen(0, 1)},
      {"seed", &config->seed, "arg", "seed of message contents and server randomness"},
      {"metrics", &config->metrics, "arg",
       "serve live Prometheus metrics of the limiters and stores at ADDR (e.g. 127.0.0.1:9464 or "
       ":9464; port 0 picks one) while the benchmark runs; afterwards the program keeps serving "
       "until interrupted (Ctrl-C)"},
      {"plot", &config->plot, "arg",
       "write an SVG to this file: limit, inflight and throughput over time (last round of each "
       "blob-path configuration), or with --sweep-sizes the ratio to legacy by message size"},
      {"durable", &config->durable, "",
       "sync every store commit to disk (default: no sync, as the original client's cheap local "
       "writes)"},
      {"store", &config->store, "arg",
       "lmdb (a fresh LMDB store per run) or rados (a Ceph pool, --rados-conf and --rados-pool; "
       "its namespaces incoming, payload and documents are emptied before and after each run)"},
      {"rados-conf", &config->rados_conf, "arg", "--store rados: the cluster's ceph.conf"},
      {"rados-pool", &config->rados_pool, "arg", "--store rados: the pool (it must exist)"},
      {"reader-rate", &config->reader_rate, "R",
       "a person reading mail during the blob path: R opens per second (of unscaled time) of a "
       "random delivered message, each a read under a permit; the table then gives the reads' "
       "times (0: nobody reads)",
       Range::Closed(0, 1000)},
      {"reader-partition", &config->reader_partition, "",
       "with --reader-rate, the reads wait in a partition of their own (share 0.25, priority 1) "
       "instead of in the delivery's queue"},
      {"json", &config->json, "", "print the results as JSON"},
  });
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
  config->size = size.bytes;
  if (config->sweep_sizes && (cli.Given("messages") || cli.Given("size"))) {
    return cli.UsageError(
        "--sweep-sizes sets the messages and sizes itself: drop --messages and --size");
  }
  config->max_upload = max_upload.bytes;
  config->max_sync = max_sync.bytes;
  if (config->reader_partition && !(config->reader_rate > 0)) {
    return cli.UsageError("--reader-partition: needs --reader-rate");
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
