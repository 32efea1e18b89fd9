// The core of a blob server on your own Asio event loop: a store, a limiter for reads and one
// for writes, an AsyncBlobStore that makes every access wait for a permit, and the metrics
// registry they all report to. It answers one PUT and one GET the way request handlers would,
// then prints what GET /metrics answers (blobtune-server, examples/server/, is the whole server).
//
//   build/bin/blobtune-doc-asio-server    (its store: ./blobtune-asio-server)
//
// Compile every file of the program that includes Asio the way blobtune::store's users are
// compiled: linking blobtune::store passes on BOOST_ASIO_DISABLE_THREAD_KEYWORD_EXTENSION.

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "blobtune/metrics/registry.h"
#include "blobtune/store/async_blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/tuner/limiter.h"

namespace asio = boost::asio;
using namespace blobtune;

// A request handler, a coroutine on the event loop: wait at most 100 ms for a permit, counted
// from when the request arrived; an overloaded store answers 503 instead of queueing without end.
// (GCC 12: pass no string temporary into a co_await; name the arguments first.)
asio::awaitable<int> HandlePut(store::AsyncBlobStore& blobs, std::string id,
                               std::vector<std::byte> body, TimePoint arrived) {
  std::string ns = "default";
  Status s = co_await blobs.AsyncPut(std::move(ns), std::move(id), std::move(body),
                                     arrived + std::chrono::milliseconds(100),
                                     asio::use_awaitable);
  if (s.ok()) co_return 201;                                     // durable: the commit is on disk
  if (IsOverload(s)) co_return 503;                              // + Retry-After
  if (s.code() == StatusCode::kResourceExhausted) co_return 507;  // disk (or map) full
  co_return s.code() == StatusCode::kInvalidArgument ? 400 : 500;
}

asio::awaitable<int> HandleGet(store::AsyncBlobStore& blobs, std::string id, TimePoint arrived) {
  std::string ns = "default";
  StatusOr<std::vector<std::byte>> blob = co_await blobs.AsyncGet(
      std::move(ns), std::move(id), arrived + std::chrono::milliseconds(100), asio::use_awaitable);
  if (blob.ok()) co_return 200;                                  // ... and the bytes
  co_return blob.status().code() == StatusCode::kNotFound ? 404 : 503;
}

int main() {
  // Declared in the order they are built, so destroyed the other way round: the event loop
  // first (it holds handlers that use everything else), then the AsyncBlobStore, the limiters,
  // the store, and last the registry that all of them report to.
  metrics::MetricsRegistry registry;
  metrics::HttpMetrics* http = registry.AddHttpServer().value();  // answers, request durations
  registry.AddProcessMetrics();                                    // process_cpu_seconds_total, ...

  store::LmdbStoreOptions store_options;
  store_options.directory = "blobtune-asio-server";  // in the working directory
  store_options.observer = registry.AddStore("blobs").value();
  std::unique_ptr<store::BlobStore> store = store::OpenLmdbBlobStore(store_options).value();
  metrics::Attachment store_link = registry.FindStore("blobs")->Attach(*store);  // map gauges

  auto make_limiter = [&](std::string name) {         // reads and writes tune apart
    tuner::LimiterOptions options;                    // the default algorithm
    options.observer = registry.AddLimiter(std::move(name)).value();  // exported whole
    options.queue_order = tuner::QueueOrder::kAdaptive;  // fresh requests first under overload
    options.max_queue = 256;                          // more waiters: fail at once
    options.overload_wait = std::chrono::milliseconds(10);  // once waits time out: shed fast
    return tuner::Limiter::Create(std::move(options)).value();
  };
  std::unique_ptr<tuner::Limiter> reads = make_limiter("read");
  std::unique_ptr<tuner::Limiter> writes = make_limiter("write");

  asio::thread_pool read_pool(2);                   // LMDB reads never block the event loop
  std::unique_ptr<store::AsyncBlobStore> blobs;     // destroyed after the event loop below
  asio::io_context io;                              // your server's event loop
  blobs = std::make_unique<store::AsyncBlobStore>(*store, io.get_executor(),
                                                  read_pool.get_executor(), reads.get(),
                                                  writes.get());

  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        // Each request counts with its method, its answer's code and its time from its first
        // byte in to the answer's last byte out (here the handler's time).
        TimePoint arrived = Clock::Steady().Now();
        std::string id = "hello";
        std::vector<std::byte> body(5, std::byte{'x'});
        const int put = co_await HandlePut(*blobs, std::move(id), std::move(body), arrived);
        http->Record("PUT", put, Clock::Steady().Now() - arrived);
        arrived = Clock::Steady().Now();
        id = "missing";
        const int get = co_await HandleGet(*blobs, std::move(id), arrived);
        http->Record("GET", get, Clock::Steady().Now() - arrived);
      },
      asio::detached);
  io.run();          // Returns once nothing is left to do (a server stops accepting first).
  read_pool.join();  // No read may still be running when the store goes.

  // GET /metrics: the registry's text, on the server's own port; no second HTTP server needed.
  std::cout << registry.TextExposition();
}
