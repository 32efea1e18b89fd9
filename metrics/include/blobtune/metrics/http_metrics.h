// HttpMetrics: the Prometheus series of a program's HTTP server: every answer counted by method
// and status code, and how long each request took, from its first byte in to the last byte of
// its answer out (time spent waiting for a limiter's permit included).
//
//   metrics::HttpMetrics* http = registry.AddHttpServer().value();
//   const TimePoint first_byte = Clock::Steady().Now();   // when the request began to arrive
//   ... read the request, answer it, write the answer ...
//   http->Record("GET", 200, Clock::Steady().Now() - first_byte);
//
//   http->RecordTimeout(metrics::HttpTimeout::kHeader);          // a header that stopped coming
//   http->RecordConnectionEnd(metrics::ConnectionEnd::kHeaderTimeout);   // once per connection
//
// Count every answer, the ones refused before routing (400, 413, 431, 503 for too many
// connections) included; an answer given without a request read has method "other".
// Methods: GET, HEAD, PUT, POST, DELETE, OPTIONS and PATCH are their own label values; any other
// is "other". Codes: 100 to 599; anything else is not counted.
// Connections: every connection accepted is counted once when it ends, by how it ended
// (ConnectionEnd), the ones refused over the cap included; every read or write deadline that
// passed is counted by kind (HttpTimeout). Every reason and kind is in the snapshot from the
// start, at 0.
//
// Gates: how many requests wait at each of the server's request gates now (SetParked).
//
// Locking: Record() is relaxed atomic adds, SetParked() a relaxed store; RecordConnectionEnd() and RecordTimeout() add to
// per-thread counters (per_thread_counters.h). No lock, no allocation.
//
// Thread-safety: all methods may be called from any number of threads at once.
#ifndef BLOBTUNE_METRICS_HTTP_METRICS_H_
#define BLOBTUNE_METRICS_HTTP_METRICS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "blobtune/base/clock.h"
#include "blobtune/metrics/histogram.h"
#include "blobtune/metrics/per_thread_counters.h"

namespace blobtune::metrics {

inline constexpr size_t kHttpMethodCount = 8;  // Seven methods and "other".

// The `method` label value of method index `i` < kHttpMethodCount: "GET", ..., "other".
std::string_view HttpMethodName(size_t i) noexcept;

// How a connection ended (the `reason` label of blobtune_http_connections_closed_total).
enum class ConnectionEnd {
  kClientClosed,      // The client closed (or reset) it, between requests or within one.
  kClientAskedClose,  // Answered, and closed as the request asked (Connection: close, HTTP/1.0).
  kBodyNotRead,       // Answered without reading the request's body (413, a refused PUT, a GET
                      // with a body), and closed, since the body would pass for a request.
  kIdleTimeout,       // No request began within the header timeout.
  kHeaderTimeout,     // A request's header was not whole within the header timeout (408).
  kBodyTimeout,       // A request's body was not whole within the body timeout (408).
  kWriteTimeout,      // An answer was not written within the write timeout.
  kFramingError,      // Refused by its framing (RFC 9112 section 6): Transfer-Encoding with
                      // Content-Length, a coding other than chunked, no Host, a PUT without
                      // length, a malformed chunk.
  kMalformed,         // A header that is no HTTP/1.1 header: bad syntax, a bare LF, a fold,
                      // over the header limit (400, 431).
  kRefusedOverCap,    // Over the connection cap: answered 503 (or closed at once) unread.
  kShutdown,          // Closed by a graceful shutdown (idle, or after its last answer).
  kError,             // Any other socket error.
};
inline constexpr size_t kConnectionEndCount = 12;

// "client_closed", "client_asked_close", "body_not_read", "idle_timeout", "header_timeout",
// "body_timeout", "write_timeout", "framing_error", "malformed", "refused_over_cap", "shutdown",
// "error".
std::string_view ConnectionEndName(ConnectionEnd end) noexcept;

// Which deadline passed (the `kind` label of blobtune_http_timeouts_total).
enum class HttpTimeout {
  kIdle,    // Waiting for a request to begin.
  kHeader,  // Receiving a request's header.
  kBody,    // Receiving a request's body.
  kWrite,   // Sending an answer.
};
inline constexpr size_t kHttpTimeoutCount = 4;

// "idle", "header", "body", "write".
std::string_view HttpTimeoutName(HttpTimeout timeout) noexcept;

// The request gate a request waits at (request_gate.h in the server): the `limiter` label of
// blobtune_http_requests_parked, the limiter whose accesses it lets through.
enum class HttpGate {
  kRead,
  kWrite,
};
inline constexpr size_t kHttpGateCount = 2;

// "read", "write".
std::string_view HttpGateName(HttpGate gate) noexcept;

// The HTTP series at one moment.
struct HttpSnapshot {
  struct Answers {
    size_t method = 0;  // Index, see HttpMethodName.
    int code = 0;
    uint64_t count = 0;
  };
  std::vector<Answers> answers;  // Only the (method, code) pairs seen, by method then code.
  // Request durations by method index, nanoseconds; methods never seen have count 0.
  std::array<HistogramSnapshot, kHttpMethodCount> durations;
  // Connections ended, by ConnectionEnd; timeouts by HttpTimeout. Every entry, 0 included.
  std::array<uint64_t, kConnectionEndCount> connections_closed{};
  std::array<uint64_t, kHttpTimeoutCount> timeouts{};
  // Requests parked at each gate now, by HttpGate.
  std::array<uint64_t, kHttpGateCount> parked{};
};

class HttpMetrics {
 public:
  HttpMetrics();
  HttpMetrics(const HttpMetrics&) = delete;
  HttpMetrics& operator=(const HttpMetrics&) = delete;
  ~HttpMetrics();

  // One answer to a `method` request with status `code`, `duration` after its first byte.
  void Record(std::string_view method, int code, Duration duration) noexcept;
  // A connection ended, as `end` says. Once per connection.
  void RecordConnectionEnd(ConnectionEnd end) noexcept;
  // A deadline of kind `timeout` passed.
  void RecordTimeout(HttpTimeout timeout) noexcept;
  // `count` requests are parked at `gate` now.
  void SetParked(HttpGate gate, size_t count) noexcept;

  HttpSnapshot Snapshot() const;

 private:
  static constexpr int kFirstCode = 100;
  static constexpr int kCodeCount = 500;  // 100..599.

  // answers_[method * kCodeCount + code - kFirstCode]; each only ever incremented.
  const std::unique_ptr<std::atomic<uint64_t>[]> answers_;
  std::array<std::unique_ptr<AtomicHistogram>, kHttpMethodCount> durations_;
  // Connection ends (kConnectionEndCount cells), then timeouts (kHttpTimeoutCount cells).
  PerThreadCounters connections_;
  std::array<std::atomic<uint64_t>, kHttpGateCount> parked_{};
};

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_HTTP_METRICS_H_
