// MetricsRegistry: what one process exports: its limiters and stores, each by name, its HTTP
// server and its own process figures if it asks for them, and blobtune's build information;
// and their exposition in the Prometheus text format. The Exporter serves one over HTTP; a
// program with its own prometheus-cpp Exposer registers it as a Collectable (collectable.h); a
// program with its own HTTP server answers GET /metrics with TextExposition().
//
//   metrics::MetricsRegistry registry;
//   metrics::LimiterMetrics* put = registry.AddLimiter("put").value();
//   ... limiter built with options.observer = put ...
//   std::string text = registry.TextExposition();   // what GET /metrics returns
//
// Names: each limiter and each store name is the value of the `limiter` or `store` label, so it
// must be unique among the registry's limiters (or stores) and not empty.
//
// Always exported: blobtune_build_info{version="..."} 1.
//
// Thread-safety: all methods may be called from any number of threads at once. The objects
// Add* returns live as long as the registry, which must outlive the limiters and stores they
// observe.
#ifndef BLOBTUNE_METRICS_REGISTRY_H_
#define BLOBTUNE_METRICS_REGISTRY_H_

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/base/mutex.h"
#include "blobtune/base/status_or.h"
#include "blobtune/base/thread_annotations.h"
#include "blobtune/metrics/http_metrics.h"
#include "blobtune/metrics/limiter_metrics.h"
#include "blobtune/metrics/store_metrics.h"

namespace blobtune::metrics {

class MetricsRegistry {
 public:
  MetricsRegistry();
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;
  ~MetricsRegistry();

  // A new limiter's series, to pass as LimiterOptions::observer. INVALID_ARGUMENT for an empty
  // name, ALREADY_EXISTS for a name the registry has already.
  StatusOr<LimiterMetrics*> AddLimiter(std::string name);
  // A new store's series, to pass as the store options' `observer`. Errors as AddLimiter.
  StatusOr<StoreMetrics*> AddStore(std::string name);

  // The series of the program's HTTP server (http_metrics.h). ALREADY_EXISTS on a second call.
  StatusOr<HttpMetrics*> AddHttpServer();
  // From now on the exposition includes the process's own figures, named as Prometheus'
  // conventions name them: process_cpu_seconds_total, process_resident_memory_bytes,
  // process_virtual_memory_bytes, process_open_fds, process_max_fds and
  // process_start_time_seconds (read from /proc at each scrape). Off until called: a program
  // that exports them already must not export them twice. Calling it again changes nothing.
  void AddProcessMetrics() noexcept { process_metrics_.store(true, std::memory_order_relaxed); }

  // The series registered under `name`, or nullptr.
  LimiterMetrics* FindLimiter(std::string_view name) const;
  StoreMetrics* FindStore(std::string_view name) const;

  std::vector<LimiterSnapshot> LimiterSnapshots() const;
  std::vector<StoreSnapshot> StoreSnapshots() const;
  // The HTTP server's series, or nullptr before AddHttpServer().
  const HttpMetrics* http_server() const;
  // Whether AddProcessMetrics() was called.
  bool process_metrics() const noexcept {
    return process_metrics_.load(std::memory_order_relaxed);
  }

  // Every series in the Prometheus text exposition format, version 0.0.4: the same families and
  // values as the registry's Collectable, without constant labels.
  std::string TextExposition() const;

 private:
  mutable Mutex mu_;
  std::vector<std::unique_ptr<LimiterMetrics>> limiters_ BLOBTUNE_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<StoreMetrics>> stores_ BLOBTUNE_GUARDED_BY(mu_);
  std::unique_ptr<HttpMetrics> http_ BLOBTUNE_GUARDED_BY(mu_);
  std::atomic<bool> process_metrics_{false};
};

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_REGISTRY_H_
