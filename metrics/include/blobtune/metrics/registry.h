// MetricsRegistry: the set of limiters and stores one process exports, each by name, and their
// exposition in the Prometheus text format. The Exporter serves one over HTTP; tests and tools
// can use one without any server.
//
//   metrics::MetricsRegistry registry;
//   metrics::LimiterMetrics* put = registry.AddLimiter("put").value();
//   ... limiter built with options.observer = put ...
//   std::string text = registry.TextExposition();   // what GET /metrics returns
//
// Names: each limiter and each store name is the value of the `limiter` or `store` label, so it
// must be unique among the registry's limiters (or stores) and not empty.
//
// Thread-safety: all methods may be called from any number of threads at once. The objects
// Add* returns live as long as the registry, which must outlive the limiters and stores they
// observe.
#ifndef BLOBTUNE_METRICS_REGISTRY_H_
#define BLOBTUNE_METRICS_REGISTRY_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/metrics/limiter_metrics.h"
#include "blobtune/metrics/store_metrics.h"
#include "blobtune/tuner/mutex.h"
#include "blobtune/tuner/status_or.h"
#include "blobtune/tuner/thread_annotations.h"

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
  // A new store's series, to pass as StoreOptions::observer. Errors as AddLimiter.
  StatusOr<StoreMetrics*> AddStore(std::string name);

  // The series registered under `name`, or nullptr.
  LimiterMetrics* FindLimiter(std::string_view name) const;
  StoreMetrics* FindStore(std::string_view name) const;

  std::vector<LimiterSnapshot> LimiterSnapshots() const;
  std::vector<StoreSnapshot> StoreSnapshots() const;

  // Every series in the Prometheus text exposition format, version 0.0.4.
  std::string TextExposition() const;

 private:
  mutable Mutex mu_;
  std::vector<std::unique_ptr<LimiterMetrics>> limiters_ GUARDED_BY(mu_);
  std::vector<std::unique_ptr<StoreMetrics>> stores_ GUARDED_BY(mu_);
};

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_REGISTRY_H_
