// BlobHandler: answers one routed request of blobtune-server: blob puts, gets and deletes through
// the AsyncBlobStore (limiter-gated), heads and listings through the read limiter on the read
// pool, /metrics from the registry, /status from the status page, /healthz from the draining flag.
// Conditional requests (If-Match, If-None-Match) are evaluated against the blob's ETag
// (preconditions.h); every write of a blob holds its lock (blob_locks.h), so that a conditional
// write's check and write are one step.
//
//   BlobHandler handler(blobs, registry, page, reads.get_executor(), options, &draining);
//   Response r = co_await handler.Handle(route, conditions, deadline, keep_alive);  // not PUT
//   StatusOr<tuner::Permit> permit = co_await handler.AcquireWritePermit(deadline);
//   ... receive the body ...
//   Response r = co_await handler.Put(route, conditions, *std::move(permit), std::move(body),
//                                     keep_alive);
//
// Shedding: a request that would only queue for a permit to be refused later is refused at once
// (load_shedder.h), before its body is read.
//
// Thread-safety: every method runs on the server's event-loop thread (its coroutines resume
// there); its only mutable state, the blob locks and the shedders, is touched there alone.
#ifndef BLOBTUNE_EXAMPLES_SERVER_BLOB_HANDLER_H_
#define BLOBTUNE_EXAMPLES_SERVER_BLOB_HANDLER_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "blobtune/metrics/registry.h"
#include "blobtune/metrics/status_page.h"
#include "blobtune/store/async_blob_store.h"
#include "blobtune/base/clock.h"
#include "blobtune/tuner/limiter.h"
#include "blobtune/base/status_or.h"
#include "blob_locks.h"
#include "http_response.h"
#include "load_shedder.h"
#include "preconditions.h"
#include "request_target.h"
#include "server_options.h"

namespace blobtune::server {

// The request header that names a request's partition (ServerOptions::partitions).
inline constexpr std::string_view kPartitionHeader = "Blobtune-Partition";

class BlobHandler {
 public:
  // None is owned; all must outlive the handler. `reads` runs heads and listings.
  BlobHandler(store::AsyncBlobStore& blobs, const metrics::MetricsRegistry& registry,
              const metrics::StatusPage& status_page, boost::asio::any_io_executor reads,
              const ServerOptions& options, const std::atomic<bool>* draining);
  BlobHandler(const BlobHandler&) = delete;
  BlobHandler& operator=(const BlobHandler&) = delete;
  ~BlobHandler() = default;

  // Whether `ns` is one of the server's namespaces.
  bool KnowsNamespace(std::string_view ns) const;

  // The answer to `route` (not kMethodNotAllowed, not kPutBlob: see Put) under `conditions`.
  // `deadline` bounds the wait for a store permit.
  boost::asio::awaitable<Response> Handle(Route route, Preconditions conditions,
                                          TimePoint deadline, bool keep_alive);

  // A PUT comes in two steps, so that a blob the store cannot take now is refused before it is
  // received: a write permit, waited for until `deadline` (its failure is the Status to answer
  // with), then, once the body is in, Put() stores `body` under it and answers 201 or 200 with
  // the stored blob's ETag (the one a GET will give).
  boost::asio::awaitable<StatusOr<tuner::Permit>> AcquireWritePermit(
      TimePoint deadline, tuner::PartitionId partition = {});
  // The partition of a request to namespace `ns` whose Blobtune-Partition header is `named`
  // ("" when absent): the named one, else the namespace's, else the first. INVALID_ARGUMENT
  // (400) for a name the server has no partition of.
  StatusOr<tuner::PartitionId> PartitionOf(std::string_view named, std::string_view ns) const;
  boost::asio::awaitable<Response> Put(Route route, Preconditions conditions, tuner::Permit permit,
                                       std::vector<std::byte> body, bool keep_alive);

 private:
  // Handle() once the request is admitted.
  boost::asio::awaitable<Response> Answer(Route route, Preconditions conditions,
                                          TimePoint deadline, bool keep_alive);
  boost::asio::awaitable<Response> Get(const Route& route, const Preconditions& conditions,
                                       TimePoint deadline, bool keep_alive);
  boost::asio::awaitable<Response> Head(const Route& route, const Preconditions& conditions,
                                        TimePoint deadline, bool keep_alive);
  boost::asio::awaitable<Response> Delete(const Route& route, const Preconditions& conditions,
                                          TimePoint deadline, bool keep_alive);
  boost::asio::awaitable<Response> List(const Route& route, TimePoint deadline, bool keep_alive);
  // A write's precondition, under the blob's lock: the 412 to answer, or nothing to go on.
  boost::asio::awaitable<std::optional<Response>> CheckWrite(const Route& route,
                                                             const Preconditions& conditions,
                                                             bool keep_alive);

  store::AsyncBlobStore& blobs_;
  const metrics::MetricsRegistry& registry_;
  const metrics::StatusPage& status_page_;
  boost::asio::any_io_executor reads_;
  const ServerOptions& options_;
  const std::atomic<bool>* draining_;
  BlobLocks locks_;
  LoadShedder write_shedder_;
  LoadShedder read_shedder_;
};

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_BLOB_HANDLER_H_
