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

constexpr std::string_view kConnectionEnds[kConnectionEndCount] = {
    "client_closed", "client_asked_close", "body_not_read", "idle_timeout",
    "header_timeout", "body_timeout",       "write_timeout", "framing_error",
    "malformed",     "refused_over_cap",    "shutdown",      "error"};
constexpr std::string_view kTimeouts[kHttpTimeoutCount] = {"idle", "header", "body", "write"};

}  // namespace

std::string_view ConnectionEndName(ConnectionEnd end) noexcept {
  const auto i = static_cast<size_t>(end);
  return i < kConnectionEndCount ? kConnectionEnds[i] : "error";
}

std::string_view HttpGateName(HttpGate gate) noexcept {
  return gate == HttpGate::kRead ? "read" : "write";
}

std::string_view HttpTimeoutName(HttpTimeout timeout) noexcept {
  const auto i = static_cast<size_t>(timeout);
  return i < kHttpTimeoutCount ? kTimeouts[i] : "write";
}

std::string_view HttpMethodName(size_t i) noexcept {
  return i < kHttpMethodCount ? kMethods[i] : kMethods[kHttpMethodCount - 1];
}

HttpMetrics::HttpMetrics()
    : answers_(std::make_unique<std::atomic<uint64_t>[]>(kHttpMethodCount * kCodeCount)),
      connections_(kConnectionEndCount + kHttpTimeoutCount) {
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

void HttpMetrics::RecordConnectionEnd(ConnectionEnd end) noexcept {
  const auto i = static_cast<size_t>(end);
  if (i < kConnectionEndCount) connections_.Add(i);
}

void HttpMetrics::RecordTimeout(HttpTimeout timeout) noexcept {
  const auto i = static_cast<size_t>(timeout);
  if (i < kHttpTimeoutCount) connections_.Add(kConnectionEndCount + i);
}

void HttpMetrics::SetParked(HttpGate gate, size_t count) noexcept {
  const auto i = static_cast<size_t>(gate);
  if (i < kHttpGateCount) parked_[i].store(count, std::memory_order_relaxed);
}

HttpSnapshot HttpMetrics::Snapshot() const {
  HttpSnapshot s;
  for (size_t i = 0; i < kHttpGateCount; ++i) {
    s.parked[i] = parked_[i].load(std::memory_order_relaxed);
  }
  const std::vector<uint64_t> connections = connections_.Read();
  for (size_t i = 0; i < kConnectionEndCount; ++i) s.connections_closed[i] = connections[i];
  for (size_t i = 0; i < kHttpTimeoutCount; ++i) {
    s.timeouts[i] = connections[kConnectionEndCount + i];
  }
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
