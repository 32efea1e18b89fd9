#include "blobtune/metrics/http_metrics.h"

namespace blobtune::metrics {
namespace {

constexpr std::string_view kMethods[kHttpMethodCount] = {"GET",    "HEAD",    "PUT",   "POST",
                                                         "DELETE", "OPTIONS", "PATCH", "other"};

size_t MethodIndex(std::string_view method) noexcept {
  for (size_t i = 0; i + 1 < kHttpMethodCount; ++i) {
    if (kMethods[i] == method) return i;
  }
  return kHttpMethodCount - 1;
}

}  // namespace

std::string_view HttpMethodName(size_t i) noexcept {
  return i < kHttpMethodCount ? kMethods[i] : kMethods[kHttpMethodCount - 1];
}

HttpMetrics::HttpMetrics()
    : answers_(std::make_unique<std::atomic<uint64_t>[]>(kHttpMethodCount * kCodeCount)) {
  for (auto& h : durations_) h = std::make_unique<AtomicHistogram>(LatencyBucketsNanos());
}

HttpMetrics::~HttpMetrics() = default;

void HttpMetrics::Record(std::string_view method, int code, Duration duration) noexcept {
  if (code < kFirstCode || code >= kFirstCode + kCodeCount) return;
  const size_t m = MethodIndex(method);
  answers_[m * kCodeCount + static_cast<size_t>(code - kFirstCode)].fetch_add(
      1, std::memory_order_relaxed);
  durations_[m]->Observe(duration.count() > 0 ? static_cast<uint64_t>(duration.count()) : 0);
}

HttpSnapshot HttpMetrics::Snapshot() const {
  HttpSnapshot s;
  for (size_t m = 0; m < kHttpMethodCount; ++m) {
    for (int c = 0; c < kCodeCount; ++c) {
      const uint64_t n =
          answers_[m * kCodeCount + static_cast<size_t>(c)].load(std::memory_order_relaxed);
      if (n > 0) s.answers.push_back({.method = m, .code = kFirstCode + c, .count = n});
    }
    s.durations[m] = durations_[m]->Snapshot();
  }
  return s;
}

}  // namespace blobtune::metrics
