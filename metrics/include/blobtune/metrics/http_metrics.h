// HttpMetrics: the Prometheus series of a program's HTTP server: every answer counted by method
// and status code, and how long each request took, from its first byte in to the last byte of
// its answer out (time spent waiting for a limiter's permit included).
//
//   metrics::HttpMetrics* http = registry.AddHttpServer().value();
//   const TimePoint first_byte = Clock::Steady().Now();   // when the request began to arrive
//   ... read the request, answer it, write the answer ...
//   http->Record("GET", 200, Clock::Steady().Now() - first_byte);
//
// Count every answer, the ones refused before routing (400, 413, 431, 503 for too many
// connections) included; an answer given without a request read has method "other".
// Methods: GET, HEAD, PUT, POST, DELETE, OPTIONS and PATCH are their own label values; any other
// is "other". Codes: 100 to 599; anything else is not counted.
//
// Locking: Record() is relaxed atomic adds (no lock, no allocation).
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

namespace blobtune::metrics {

inline constexpr size_t kHttpMethodCount = 8;  // Seven methods and "other".

// The `method` label value of method index `i` < kHttpMethodCount: "GET", ..., "other".
std::string_view HttpMethodName(size_t i) noexcept;

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
};

class HttpMetrics {
 public:
  HttpMetrics();
  HttpMetrics(const HttpMetrics&) = delete;
  HttpMetrics& operator=(const HttpMetrics&) = delete;
  ~HttpMetrics();

  // One answer to a `method` request with status `code`, `duration` after its first byte.
  void Record(std::string_view method, int code, Duration duration) noexcept;

  HttpSnapshot Snapshot() const;

 private:
  static constexpr int kFirstCode = 100;
  static constexpr int kCodeCount = 500;  // 100..599.

  // answers_[method * kCodeCount + code - kFirstCode]; each only ever incremented.
  const std::unique_ptr<std::atomic<uint64_t>[]> answers_;
  std::array<std::unique_ptr<AtomicHistogram>, kHttpMethodCount> durations_;
};

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_HTTP_METRICS_H_
