// The settings of one blobtune-delivery invocation and the command line that sets them.
//
//   BenchConfig config;
//   if (int code = ParseFlags(argc, argv, &config); code >= 0) return code;
//
// Thread-safety: ParseFlags writes to stdout/stderr; call it once, from main.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_BENCH_FLAGS_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_BENCH_FLAGS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mail_server.h"

namespace blobtune::delivery {

struct BenchConfig {
  std::string mode = "both";             // legacy | blobs | both
  std::vector<std::string> concurrency;  // "1", "2", ..., or "auto"
  std::string algorithm;                 // Registry spec for auto; empty: the default.
  size_t messages = 100;
  size_t size = 100 * 1024;
  bool sweep_sizes = false;  // Run SweepPoints() instead of (messages, size).
  int rounds = 4;
  double time_scale = 0.1;
  double faults = 0;
  uint64_t seed = 1;
  bool durable = false;
  // Where the blob path's store lives: "lmdb" (a fresh directory per run) or "rados" (the pool
  // `rados_pool` of the cluster in `rados_conf`, emptied before and after each run).
  std::string store = "lmdb";
  std::string rados_conf;
  std::string rados_pool;
  bool json = false;
  std::string plot;     // SVG file; empty: none.
  std::string metrics;  // Prometheus endpoint address; empty: none.
  // A person reading mail during the blob path (DeliveryOptions::reader_rate), opens per
  // second; 0: nobody reads. With reader_partition the limiter gives the reads a partition of
  // their own ("reader": share 0.25, priority 1; the delivery's "delivery": share 0.75).
  double reader_rate = 0;
  bool reader_partition = false;
  size_t max_upload = MailServerOptions().max_upload_bytes;
  size_t max_sync = MailServerOptions().max_sync_bytes;
};

// One (messages, size) point of a delivery.
struct SizePoint {
  size_t messages = 0;
  size_t size = 0;
};

// --sweep-sizes: 1000 x 10K, 100 x 100K, 10 x 1M, 1 x 10M (the same 10,000 KiB in all).
std::vector<SizePoint> SweepPoints();

// Parses the command line into `config`. Returns 2 after a message for bad flags, 0 after
// --help or --version, and -1 to go on.
int ParseFlags(int argc, char** argv, BenchConfig* config);

// 102400 -> "100k", 1048576 -> "1m", 1000 -> "1000".
std::string SizeLabel(size_t bytes);

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_BENCH_FLAGS_H_
