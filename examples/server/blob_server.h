// BlobServer: an HTTP/1.1 blob server (Boost.Beast, keep-alive) over a BlobStore whose reads and
// writes each pass through their own adaptive tuner::Limiter. The embeddable core of
// blobtune-server; main.cc adds flags and signals.
//
//   server::ServerOptions options;
//   options.data_dir = "/tmp/blobs";
//   StatusOr<std::unique_ptr<server::BlobServer>> server = server::BlobServer::Start(options);
//   if (!server.ok()) return server.status();
//   std::cout << "listening on port " << (*server)->port() << "\n";
//   ...
//   (*server)->Shutdown();   // e.g. from a SIGTERM handler's thread
//   (*server)->Wait();       // in-flight requests answered, commits durable
//
// Endpoints (request_target.h): PUT/GET/HEAD/DELETE /blobs/{ns}/{id}, GET /blobs/{ns}?prefix=
// &limit=&after= (a cut listing answers Link: <...>; rel="next"), GET /metrics (Prometheus
// text), GET /status, GET /healthz; HEAD wherever GET (GET's header, no body). GET and HEAD of
// a blob, and a PUT's answer, carry its ETag; If-Match and If-None-Match are honoured
// (preconditions.h). Answers: 200, 201 (a PUT that created its blob; one that replaced a blob
// gets 200), 204 (DELETE), 304, 400 (bad id, query or request, a bare LF), 404 (no such blob,
// path or namespace), 405 (a method the path does not take), 412, 413 (body over the maximum,
// refused from its Content-Length before it is read), 501 (a method no path takes), 503 +
// Retry-After (no permit within the wait deadline, limiter queue full, too many connections,
// shutting down), 507 (the store's disk or map is full; no Retry-After). Every error body is one
// line, a plain sentence saying what was wrong, without a canonical code name.
//
// Threads: one event-loop thread runs every connection; reads run on a small pool; writes go to
// the store's writer thread (group commit) and are acknowledged once durable.
//
// Thread-safety: port(), Shutdown() and Wait() may be called from any thread; the destructor
// shuts down and waits.
#ifndef BLOBTUNE_EXAMPLES_SERVER_BLOB_SERVER_H_
#define BLOBTUNE_EXAMPLES_SERVER_BLOB_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "blobtune/metrics/limiter_metrics.h"
#include "blobtune/base/status_or.h"
#include "server_options.h"

namespace blobtune::server {

class BlobServer {
 public:
  // Opens the store, builds the limiters, binds and starts serving. INVALID_ARGUMENT for bad
  // options or algorithm spec, UNAVAILABLE if the address cannot be bound, or the store's error.
  static StatusOr<std::unique_ptr<BlobServer>> Start(const ServerOptions& options);

  BlobServer(const BlobServer&) = delete;
  BlobServer& operator=(const BlobServer&) = delete;
  // Shutdown() and Wait().
  ~BlobServer();

  uint16_t port() const noexcept;

  // Starts a graceful shutdown and returns at once: stop accepting, close idle connections,
  // let in-flight requests finish (answered with Connection: close) for up to shutdown_grace.
  // Idempotent.
  void Shutdown();
  // Blocks until the shutdown has finished: no connection left, every acknowledged write
  // committed. REQUIRES: Shutdown() was called or will be, from another thread.
  void Wait();

  // The Prometheus text exposition that GET /metrics serves.
  std::string MetricsText() const;

  // The series of the read and write limiters (named "read" and "write"), with their gauges:
  // the limit, permits in flight, and permits by outcome. For tools that watch a server in the
  // same process (blobtune-plantbench samples the limits over time). Any thread.
  std::vector<metrics::LimiterSnapshot> LimiterSnapshots() const;

 private:
  class Impl;
  explicit BlobServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_BLOB_SERVER_H_
