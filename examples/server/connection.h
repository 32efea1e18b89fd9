// Connections of blobtune-server: the keep-alive loop that reads a request (header first, then
// a PUT's body only if it fits), has the BlobHandler answer it and writes the answer, under
// timeouts; and the ConnectionHub that counts live connections for the cap and closes them for
// a graceful shutdown.
//
//   ConnectionHub hub(options, handler, &draining);
//   auto serve = hub.full() ? RefuseConnection(std::move(socket), hub)   // 503, closed
//                           : ServeConnection(std::move(socket), hub);
//   asio::co_spawn(io, std::move(serve), asio::detached);
//   ...
//   hub.StartDraining();   // idle connections close now, busy ones after their answer
//
// Admission: a store access, once its header is read and routed, passes the request gate of its
// limiter (reads or writes, request_gate.h) and leaves it once its answer is made: past the
// gate's capacity it parks with its body unread, which costs nothing, where refusing it would
// cost more than serving it. Its wait deadline counts from the gate. A PUT waits for its write permit (until the wait deadline) as soon as its header
// is routed, before its body is read; refused, it is answered 503 with its body unread: a
// client that sent "Expect: 100-continue" never sends it (the connection closes), one already
// on its way with a Content-Length is dropped (the connection goes on). Under
// overload the excess thus costs a header parse instead of a body transfer. The permit bounds
// the concurrency of the whole write, body transfer included; the latency the write limiter's
// algorithm sees starts when the body is in. A client that sends its body slowly holds a
// permit for up to body_timeout.
//
// Metrics: every answer written, refusals included, is counted by method and status code with
// its duration from the request's first byte to the answer's last; every connection once, when
// it ends, by how it ended (metrics::ConnectionEnd: the client closed, a timeout, a refusal, a
// shutdown, an error); every deadline that passed by kind (metrics::HttpTimeout).
//
// Framing: a request is framed the one way framing.h sets out: its header bytes are checked for
// bare LFs and folds as they arrive, the parsed header by RFC 9112 section 6, before it is
// routed; an ambiguous one is refused and its connection closed, so that nothing after it is
// taken for a request. A method no route takes is 501, one its path does not take 405.
//
// Timeouts: waiting for a request, its whole header must arrive within header_timeout (so a
// slowloris client that trickles header bytes is cut off), its body within body_timeout: a
// request begun and not whole by then is answered 408 and its connection closed; a connection
// idle for header_timeout closes without an answer. The answer must be written within
// write_timeout. While the handler works there is no socket timeout: the wait deadline and the
// store bound it.
//
// Thread-safety: everything here runs on the server's single event-loop thread.
#ifndef BLOBTUNE_EXAMPLES_SERVER_CONNECTION_H_
#define BLOBTUNE_EXAMPLES_SERVER_CONNECTION_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <cstddef>
#include <functional>
#include <list>

#include "blob_handler.h"
#include "blobtune/metrics/http_metrics.h"
#include "request_gate.h"
#include "request_target.h"
#include "server_options.h"

namespace blobtune::server {

class ConnectionHub {
 public:
  // One live connection: its stream, and whether it is between requests (idle).
  struct Entry {
    boost::beast::tcp_stream* stream = nullptr;
    bool idle = true;
  };
  using Handle = std::list<Entry>::iterator;

  // `draining` is shared with whoever else must know (the /healthz handler); set here only.
  // Every answer written is counted in `http`. `reads_at_once` and `writes_at_once` are the
  // capacities of the request gates of reads and writes (request_gate.h).
  ConnectionHub(const ServerOptions& options, BlobHandler& handler, metrics::HttpMetrics& http,
                std::atomic<bool>* draining, std::function<size_t()> reads_at_once,
                std::function<size_t()> writes_at_once)
      : options_(options),
        handler_(handler),
        http_(http),
        draining_(draining),
        reads_gate_(std::move(reads_at_once),
                    [&http](size_t n) { http.SetParked(metrics::HttpGate::kRead, n); }),
        writes_gate_(std::move(writes_at_once),
                     [&http](size_t n) { http.SetParked(metrics::HttpGate::kWrite, n); }) {}
  ConnectionHub(const ConnectionHub&) = delete;
  ConnectionHub& operator=(const ConnectionHub&) = delete;
  ~ConnectionHub() = default;

  bool full() const noexcept { return live_.size() >= options_.max_connections; }
  size_t size() const noexcept { return live_.size(); }
  bool draining() const noexcept { return draining_->load(std::memory_order_relaxed); }

  Handle Add(boost::beast::tcp_stream* stream) { return live_.insert(live_.end(), Entry{stream}); }
  void Remove(Handle handle);

  // From now on connections close after their current answer; idle ones close now.
  // `on_empty` runs (once) when the last connection is gone, at once if there is none.
  void StartDraining(std::function<void()> on_empty);
  // Closes every connection, busy or not (the grace period is over).
  void CloseAll();

  // Refusals in progress (RefuseConnection), bounded like the connections they stand for.
  size_t& refusing() noexcept { return refusing_; }

  const ServerOptions& options() const noexcept { return options_; }
  BlobHandler& handler() noexcept { return handler_; }
  metrics::HttpMetrics& http() noexcept { return http_; }
  // The gate a request of this kind passes before it is handled: reads' or writes', or none
  // (nullptr) for what is no store access.
  RequestGate* GateOf(RouteKind kind) noexcept;

 private:
  const ServerOptions& options_;
  BlobHandler& handler_;
  metrics::HttpMetrics& http_;
  std::list<Entry> live_;
  std::atomic<bool>* draining_;
  std::function<void()> on_empty_;
  size_t refusing_ = 0;
  RequestGate reads_gate_;
  RequestGate writes_gate_;
};

// Serves requests on `socket` until the client closes, a timeout, an error, a response that
// closes the connection, or draining.
boost::asio::awaitable<void> ServeConnection(boost::asio::ip::tcp::socket socket,
                                             ConnectionHub& hub);

// Over the connection cap: answers 503 with Retry-After, then reads and drops what the client
// sends for up to a second (closing with unread data would reset the connection and could lose
// the answer), and closes. Past max_connections refusals at once, closes at once instead.
boost::asio::awaitable<void> RefuseConnection(boost::asio::ip::tcp::socket socket,
                                              ConnectionHub& hub);

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_CONNECTION_H_
