// ServerOptions: everything blobtune-server's BlobServer needs, with defaults for one process
// serving blobs of a few KiB to a few MiB on loopback.
//
//   server::ServerOptions options;
//   options.data_dir = "/var/lib/blobs";
//   options.algorithm = "aimd";            // registry spec for both limiters; "" = default
//   auto server = server::BlobServer::Start(options);
//
// Thread-safety: a plain value; Start copies it.
#ifndef BLOBTUNE_EXAMPLES_SERVER_SERVER_OPTIONS_H_
#define BLOBTUNE_EXAMPLES_SERVER_SERVER_OPTIONS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/tuner/limiter.h"
#include "blobtune/tuner/partition.h"
#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"

namespace blobtune::server {

// Where the server keeps its blobs.
enum class StoreBackend {
  kLmdb,   // An LMDB store in a directory of this machine (ServerOptions::data_dir).
  kRados,  // A pool of a Ceph cluster (rados_conf, rados_pool): several servers may share it.
};

struct ServerOptions {
  // Listen address and port; port 0 picks a free one (BlobServer::port() says which).
  // Default: 127.0.0.1:0 (loopback only: the server has no authentication).
  std::string address = "127.0.0.1";
  uint16_t port = 0;
  // The store's backend. Default: kLmdb.
  StoreBackend store = StoreBackend::kLmdb;
  // kLmdb: the store's directory, created when missing. REQUIRES for kLmdb: not empty.
  std::string data_dir;
  // kRados: the cluster's ceph.conf and the pool that holds the blobs (it must exist; each
  // namespace is a RADOS namespace in it). REQUIRES for kRados: both not empty, and a build with
  // librados (RadosAvailable()).
  std::string rados_conf;
  std::string rados_pool;
  // The namespaces the server serves. Default: {"default"}.
  std::vector<std::string> namespaces = {"default"};
  // Largest PUT body, in bytes; a larger one gets 413 before its body is read. Default: 4 MiB.
  // Memory bound: bodies are read only past the writes' request gate (request_gate.h), so
  // about 2 * write limit * max_blob_size_bytes of request bodies at once.
  size_t max_blob_size_bytes = size_t{4} << 20;
  // kLmdb: the LMDB map size at open, in bytes (store::LmdbStoreOptions::initial_map_size_bytes);
  // the map grows from there as the data does. Default: 64 MiB.
  size_t initial_map_size_bytes = size_t{64} << 20;
  // Connections served at once; one more is answered 503 and closed. An idle or parked
  // connection costs a socket and a few KiB (bodies are bounded by the request gate instead),
  // so this is high: clients that open many connections are served at capacity rather than
  // refused and reconnecting. The server raises its open-file limit to fit where it can.
  // Default: 4096.
  size_t max_connections = 4096;

  // A connection waiting for a request must deliver the whole header within this, counted from
  // the end of the previous response (idle keep-alive and slowloris clients alike). Default: 10 s.
  std::chrono::milliseconds header_timeout{10'000};
  // A request body must arrive within this after its header. Default: 30 s.
  std::chrono::milliseconds body_timeout{30'000};
  // A response must be written within this. Default: 30 s.
  std::chrono::milliseconds write_timeout{30'000};

  // How long a request may wait for a store permit, counted from when it passes its request
  // gate (request_gate.h; at once, but for overload) after its header is in; past it: 503 with
  // Retry-After. Default: 100 ms.
  std::chrono::milliseconds wait_deadline{100};
  // While a request has waited out its whole wait_deadline within the last wait_deadline
  // (overload), a request that has to queue waits at most this long before its 503 (see
  // tuner::LimiterOptions::overload_wait): the excess is refused promptly while bursts still
  // wait up to wait_deadline. A value >= wait_deadline turns this off. Default: 10 ms.
  std::chrono::milliseconds shed_wait{10};
  // The Retry-After value of a 503, in seconds. Default: 1.
  int retry_after_seconds = 1;
  // The limit algorithm of both limiters as a registry spec ("marginal", "fixed:limit=8",
  // "gradient2", ...). "" for blobtune's default (tuner::MakeDefaultAlgorithm()). Default: "".
  std::string algorithm;
  // Requests that may wait for a permit at once, per limiter; more get 503 at once. Default: 256.
  size_t max_queue = 256;
  // Which waiter a freed permit goes to. Adaptive: the oldest while waits are met, so that a
  // steady demand above the limit waits its turn; the newest under overload, so that fresh
  // requests are served within the deadline and stale ones time out, instead of every request
  // waiting almost the whole deadline (plain LIFO starves the oldest waiters of any queue that
  // never empties). Default: adaptive.
  tuner::QueueOrder queue_order = tuner::QueueOrder::kAdaptive;
  // Threads that run blob reads (LMDB read transactions). Default: 2. REQUIRES: 1 to
  // kMaxReadThreads.
  static constexpr int kMaxReadThreads = 256;
  int read_threads = 2;
  // When a PUT's commit reaches the disk. Default: kDurable (acknowledged PUTs survive a crash).
  store::Durability durability = store::Durability::kDurable;
  // After a shutdown starts, in-flight requests have this long to finish before their
  // connections are closed. Default: 30 s.
  std::chrono::milliseconds shutdown_grace{30'000};
  // Partitions of both limiters (tuner/partition.h): callers that share the store with
  // guaranteed shares and priorities. A request names its partition with the Blobtune-Partition
  // header; without one it takes its namespace's (namespace_partitions), else the first.
  // Default: none (one partition for everyone).
  std::vector<tuner::PartitionOptions> partitions;
  // (namespace, partition name) pairs: the partition of requests to that namespace that name
  // none. Default: none.
  std::vector<std::pair<std::string, std::string>> namespace_partitions;
  // How often what the limiters' algorithms have learned is saved in data_dir
  // (limiter_state_file.h), besides at shutdown; a server that starts finds it there and
  // begins at the limits it had. Zero: neither saved nor read. Nothing is kept without a
  // data_dir. Default: 60 s.
  std::chrono::milliseconds state_save_interval{60'000};
  // Where lines worth an operator's attention go (where a limiter's start came from, a save
  // that failed). Default: nowhere.
  std::function<void(std::string_view)> log;

  // OK, or INVALID_ARGUMENT naming the field that is wrong.
  Status Validate() const;
};

// Whether this build can serve from a Ceph pool (it found librados).
bool RadosAvailable() noexcept;

// "NAME=SHARE[:PRIORITY]" (reader=0.2:1), as blobtune-server's --partition takes it.
// INVALID_ARGUMENT saying what is wrong.
StatusOr<tuner::PartitionOptions> ParsePartitionSpec(std::string_view text);

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_SERVER_OPTIONS_H_
