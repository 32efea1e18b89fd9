#include "blobtune/metrics/registry.h"

#include <utility>

#include "exposition.h"

namespace blobtune::metrics {
namespace {

template <typename T>
T* Find(const std::vector<std::unique_ptr<T>>& list, std::string_view name) {
  for (const auto& m : list) {
    if (m->name() == name) return m.get();
  }
  return nullptr;
}

template <typename T>
StatusOr<T*> Add(std::vector<std::unique_ptr<T>>& list, std::string name, std::string_view what) {
  if (name.empty()) return Status::InvalidArgument(std::string(what) + " name is empty");
  if (Find(list, name) != nullptr) {
    return Status::AlreadyExists(std::string(what) + " '" + name + "' is registered already");
  }
  list.push_back(std::make_unique<T>(std::move(name)));
  return list.back().get();
}

}  // namespace

MetricsRegistry::MetricsRegistry() = default;
MetricsRegistry::~MetricsRegistry() = default;

StatusOr<LimiterMetrics*> MetricsRegistry::AddLimiter(std::string name) {
  MutexLock lock(mu_);
  return Add(limiters_, std::move(name), "limiter");
}

StatusOr<StoreMetrics*> MetricsRegistry::AddStore(std::string name) {
  MutexLock lock(mu_);
  return Add(stores_, std::move(name), "store");
}

StatusOr<HttpMetrics*> MetricsRegistry::AddHttpServer() {
  MutexLock lock(mu_);
  if (http_ != nullptr) return Status::AlreadyExists("the HTTP server is registered already");
  http_ = std::make_unique<HttpMetrics>();
  return http_.get();
}

const HttpMetrics* MetricsRegistry::http_server() const {
  MutexLock lock(mu_);
  return http_.get();
}

LimiterMetrics* MetricsRegistry::FindLimiter(std::string_view name) const {
  MutexLock lock(mu_);
  return Find(limiters_, name);
}

StoreMetrics* MetricsRegistry::FindStore(std::string_view name) const {
  MutexLock lock(mu_);
  return Find(stores_, name);
}

std::vector<LimiterSnapshot> MetricsRegistry::LimiterSnapshots() const {
  MutexLock lock(mu_);
  std::vector<LimiterSnapshot> out;
  out.reserve(limiters_.size());
  for (const auto& m : limiters_) out.push_back(m->Snapshot());
  return out;
}

std::vector<StoreSnapshot> MetricsRegistry::StoreSnapshots() const {
  MutexLock lock(mu_);
  std::vector<StoreSnapshot> out;
  out.reserve(stores_.size());
  for (const auto& m : stores_) out.push_back(m->Snapshot());
  return out;
}

std::string MetricsRegistry::TextExposition() const {
  return internal::ToText(internal::ToMetricFamilies(*this, {}));
}

}  // namespace blobtune::metrics
