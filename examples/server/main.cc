// blobtune-server: an HTTP/1.1 blob server on an LMDB store (or a Ceph pool) whose reads and
// writes pass through self-tuning concurrency limiters (see blob_server.h for the endpoints and
// answers).
//
//   build/bin/blobtune-server --data-dir /tmp/blobs --listen 127.0.0.1:8080
//   build/bin/blobtune-server --store rados --rados-conf /etc/ceph/ceph.conf --rados-pool blobs
//   curl -X PUT --data-binary @photo.jpg http://127.0.0.1:8080/blobs/default/photo.jpg
//   curl http://127.0.0.1:8080/blobs/default/photo.jpg > copy.jpg
//   curl http://127.0.0.1:8080/metrics
//   open http://127.0.0.1:8080/status in a browser: live charts of the limiters and the store
//
// SIGTERM or SIGINT: stop accepting, finish the requests in flight and their commits, exit 0.
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <charconv>
#include <csignal>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "blob_server.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "common/command_line.h"
#include "common/resolve_host.h"

namespace {

using namespace blobtune;

// "HOST:PORT", "[IPV6]:PORT", ":PORT" or "PORT" (host 127.0.0.1).
bool ParseListen(const std::string& text, std::string* host, uint16_t* port) {
  std::string port_text = text;
  *host = "127.0.0.1";
  if (const size_t colon = text.rfind(':'); colon != std::string::npos) {
    std::string h = text.substr(0, colon);
    if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
    if (!h.empty()) *host = h;
    port_text = text.substr(colon + 1);
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      value > 65535) {
    return false;
  }
  *port = static_cast<uint16_t>(value);
  return true;
}

// Exit code 2 with a message for bad flags, 0 after --help, -1 to go on.
int ParseFlags(int argc, char** argv, server::ServerOptions* options) {
  std::string listen = "127.0.0.1:8080";
  std::string namespaces = "default";
  examples::ByteSize max_blob{size_t{4} << 20};
  examples::ByteSize map_size{size_t{64} << 20};
  std::string queue_order = "adaptive";
  std::string durability = "durable";
  std::string store = "lmdb";
  int64_t wait_ms = options->wait_deadline.count();
  int64_t shed_ms = options->shed_wait.count();
  int64_t header_ms = options->header_timeout.count();
  int64_t body_ms = options->body_timeout.count();
  int64_t grace_ms = options->shutdown_grace.count();
  int64_t state_ms = options->state_save_interval.count();
  std::vector<std::string> partitions;
  std::vector<std::string> namespace_partitions;
  examples::CommandLine cli(
      "blobtune-server",
      "blobtune-server: an HTTP/1.1 blob server whose store accesses pass through self-tuning\n"
      "concurrency limiters (reads and writes apart).\n\n"
      "  PUT|GET|HEAD|DELETE /blobs/{namespace}/{id}\n"
      "      GET and HEAD answer ETag (the stored CRC32C) and X-Blob-Crc32c, a PUT's\n"
      "      answer the ETag of the blob it stored;\n"
      "      If-None-Match: ETAG|* on GET/HEAD gives 304 while the blob is unchanged;\n"
      "      If-Match: ETAG|* on PUT/DELETE gives 412 unless the blob has that ETag;\n"
      "      If-None-Match: * on PUT gives 412 if the blob exists\n"
      "  GET|HEAD /blobs/{namespace}?prefix=P&limit=N&after=ID\n"
      "      ids (and sizes) starting with P (default all), at most N (1..1000, default 100),\n"
      "      after ID (default from the first); a cut listing answers\n"
      "      Link: </blobs/{namespace}?...&after=LAST>; rel=\"next\" for the rest\n"
      "  GET|HEAD /metrics (Prometheus)   GET|HEAD /status (live charts)   GET|HEAD /healthz\n"
      "  Errors: one line saying what was wrong, e.g. 404 \"blob 'x' in namespace 'default'\n"
      "      does not exist\"; an unknown method is 501, a line ending in a bare LF 400\n"
      "  With --partition, a request names its partition with the header\n"
      "      Blobtune-Partition: NAME (else its namespace's, else the first partition's)\n\n"
      "SIGTERM/SIGINT: stop accepting, finish requests in flight, exit 0.\n");
  using examples::Range;
  cli.Add({
      {"listen", &listen, "ADDR",
       "HOST:PORT, [IPV6]:PORT, :PORT or PORT (host 127.0.0.1); HOST is an address or a name "
       "(resolved at startup, IPv4 first); port 0 picks a free port"},
      {"store", &store, "arg",
       "lmdb (a directory on this machine, --data-dir) or rados (a Ceph pool, --rados-conf and "
       "--rados-pool)"},
      {"data-dir", &options->data_dir, "arg",
       "the LMDB store's directory (required with --store lmdb; created when missing), where the "
       "limiters' learned state is kept too; with --store rados, only that state (optional; an "
       "existing directory, one per server)"},
      {"rados-conf", &options->rados_conf, "arg", "--store rados: the cluster's ceph.conf"},
      {"rados-pool", &options->rados_pool, "arg",
       "--store rados: the pool holding the blobs (it must exist)"},
      {"namespaces", &namespaces, "arg", "comma-separated namespaces served"},
      {"max-blob-size", &max_blob, "arg",
       "largest PUT body, bytes with optional K/M/G suffix; larger gets 413 unread",
       Range::Above(0)},
      {"initial-map-size", &map_size, "arg",
       "--store lmdb: the LMDB map size at open (it grows as the data does), bytes with optional "
       "K/M/G suffix",
       Range::Above(0)},
      {"max-connections", &options->max_connections, "arg",
       "connections served at once; more get 503 and are closed", Range::Above(0)},
      {"algorithm", &options->algorithm, "arg",
       "limit algorithm of both limiters as a registry spec, e.g. marginal, gradient2, "
       "fixed:limit=8 (default: blobtune's default, marginal, for both)"},
      {"wait-deadline-ms", &wait_ms, "arg",
       "how long a request waits for a store permit before 503 + Retry-After", Range::AtLeast(0)},
      {"shed-wait-ms", &shed_ms, "arg",
       "once a request has waited out its wait deadline, how long new requests may wait until a "
       "whole wait deadline passes without that (>= the wait deadline: off)",
       Range::AtLeast(0)},
      {"max-queue", &options->max_queue, "arg",
       "requests that may wait for a permit at once, per limiter; more get 503 at once"},
      {"queue-order", &queue_order, "arg",
       "adaptive (oldest first, newest first while overloaded), fifo or lifo"},
      {"header-timeout-ms", &header_ms, "arg",
       "a waiting connection must deliver a whole request header within this", Range::Above(0)},
      {"body-timeout-ms", &body_ms, "arg",
       "a request body must arrive within this after its header", Range::Above(0)},
      {"read-threads", &options->read_threads, "arg", "threads running blob reads",
       Range::Closed(1, server::ServerOptions::kMaxReadThreads)},
      {"durability", &durability, "arg", "durable (fsync every commit), nometasync or nosync"},
      {"shutdown-grace-ms", &grace_ms, "arg",
       "on SIGTERM, how long requests in flight may take before their connections are cut",
       Range::AtLeast(0)},
      {"state-save-interval-ms", &state_ms, "arg",
       "how often the limiters' learned state is saved in --data-dir (and at shutdown), for a "
       "restart to begin at the limits it had; 0: neither saved nor read",
       Range::AtLeast(0)},
      {"partition", &partitions, "NAME=SHARE[:PRIORITY]",
       "a partition of both limiters (repeat the flag for more): its guaranteed share of the "
       "limit (0..1, all adding up to at most 1) and priority (higher first, default 0)"},
      {"namespace-partition", &namespace_partitions, "NS=NAME",
       "requests to namespace NS that name no partition take partition NAME (repeatable)"},
  });
  if (int code = cli.Parse(argc, argv); code >= 0) return code;
  if (store == "lmdb") {
    options->store = server::StoreBackend::kLmdb;
    if (options->data_dir.empty()) return cli.UsageError("--data-dir: required with --store lmdb");
  } else if (store == "rados") {
    options->store = server::StoreBackend::kRados;
    if (!server::RadosAvailable()) {
      return cli.UsageError("--store rados: this build has no RADOS store (build it with librados-dev and "
                 "libradospp-dev installed)");
    }
    if (options->rados_conf.empty() || options->rados_pool.empty()) {
      return cli.UsageError("--store rados needs --rados-conf and --rados-pool");
    }
  } else {
    return cli.BadValue("--store", "must be lmdb or rados", store);
  }
  if (!ParseListen(listen, &options->address, &options->port)) {
    return cli.BadValue("--listen", "must be HOST:PORT, :PORT or PORT", listen);
  }
  // A host name (localhost) is resolved here, once: one that names nothing is a bad flag.
  StatusOr<boost::asio::ip::address> address = examples::ResolveHost(options->address);
  if (!address.ok()) return cli.UsageError("--listen: " + std::string(address.status().message()));
  options->address = address->to_string();
  options->namespaces = examples::SplitList(namespaces);
  options->max_blob_size_bytes = max_blob.bytes;
  options->initial_map_size_bytes = map_size.bytes;
  if (queue_order == "adaptive") {
    options->queue_order = tuner::QueueOrder::kAdaptive;
  } else if (queue_order == "lifo") {
    options->queue_order = tuner::QueueOrder::kLifo;
  } else if (queue_order == "fifo") {
    options->queue_order = tuner::QueueOrder::kFifo;
  } else {
    return cli.BadValue("--queue-order", "must be adaptive, fifo or lifo", queue_order);
  }
  if (durability == "durable") {
    options->durability = store::Durability::kDurable;
  } else if (durability == "nometasync") {
    options->durability = store::Durability::kNoMetaSync;
  } else if (durability == "nosync") {
    options->durability = store::Durability::kNoSync;
  } else {
    return cli.BadValue("--durability", "must be durable, nometasync or nosync", durability);
  }
  options->wait_deadline = std::chrono::milliseconds(wait_ms);
  options->shed_wait = std::chrono::milliseconds(shed_ms);
  options->header_timeout = std::chrono::milliseconds(header_ms);
  options->body_timeout = std::chrono::milliseconds(body_ms);
  options->shutdown_grace = std::chrono::milliseconds(grace_ms);
  options->state_save_interval = std::chrono::milliseconds(state_ms);
  options->log = [](std::string_view line) { std::cerr << "blobtune-server: " << line << "\n"; };
  for (const std::string& text : partitions) {
    StatusOr<tuner::PartitionOptions> partition = server::ParsePartitionSpec(text);
    if (!partition.ok()) {
      return cli.UsageError("--partition: " + std::string(partition.status().message()));
    }
    options->partitions.push_back(*std::move(partition));
  }
  for (const std::string& text : namespace_partitions) {
    const size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
      return cli.BadValue("--namespace-partition", "must be NS=NAME", text);
    }
    options->namespace_partitions.emplace_back(text.substr(0, equals), text.substr(equals + 1));
  }
  if (!options->algorithm.empty()) {
    Status made = tuner::MakeAlgorithmFromText(options->algorithm).status();
    if (!made.ok()) return cli.UsageError("--algorithm: " + std::string(made.message()));
  }
  // ServerOptions::Validate() speaks of its fields; the user typed flags. (The table's ranges
  // are the ones it checks, so only what they cannot say is left to it.)
  if (Status valid = options->Validate(); !valid.ok()) {
    return cli.ValidationError(valid.message(),
                               {{"namespaces", "--namespaces", namespaces},
                                {"namespace_partitions", "--namespace-partition", ""}});
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  server::ServerOptions options;
  if (int code = ParseFlags(argc, argv, &options); code >= 0) return code;

  // Signals are caught from here on (a signal that comes before the wait below is kept for it),
  // so a SIGTERM right after the "listening" line still shuts down cleanly.
  boost::asio::io_context signals_io;
  boost::asio::signal_set signals(signals_io, SIGINT, SIGTERM);

  StatusOr<std::unique_ptr<server::BlobServer>> started = server::BlobServer::Start(options);
  if (!started.ok()) {
    std::cerr << "blobtune-server: " << started.status().ToString() << "\n";
    return 1;
  }
  server::BlobServer& blob_server = **started;
  // Tests and scripts read the port from this line.
  std::cout << "blobtune-server listening on " << options.address << ":" << blob_server.port()
            << " (data "
            << (options.store == server::StoreBackend::kRados ? "rados pool " + options.rados_pool
                                                              : options.data_dir)
            << ", algorithm "
            << (options.algorithm.empty() ? std::string(tuner::MakeDefaultAlgorithm()->name())
                                          : options.algorithm)
            << ")"
            << std::endl;

  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    std::cout << "blobtune-server: signal " << signal
              << ", finishing requests in flight" << std::endl;
    blob_server.Shutdown();
  });
  signals_io.run();
  blob_server.Wait();
  started->reset();  // Closes the store: every acknowledged write is committed.
  std::cout << "blobtune-server: stopped" << std::endl;
  return 0;
}
