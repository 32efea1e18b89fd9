#include "blobtune/metrics/store_metrics.h"

#include <utility>

namespace blobtune::metrics {
namespace {

uint64_t Nanos(Duration d) noexcept { return d.count() > 0 ? static_cast<uint64_t>(d.count()) : 0; }

bool HasBytes(store::StoreOp op) noexcept {
  return op == store::StoreOp::kPut || op == store::StoreOp::kGet || op == store::StoreOp::kView;
}

}  // namespace

StoreMetrics::StoreMetrics(std::string name)
    : name_(std::move(name)),
      commit_latency_(LatencyBucketsNanos()),
      batch_size_(BatchSizeBuckets()) {}

StoreMetrics::~StoreMetrics() = default;

Attachment StoreMetrics::Attach(const store::BlobStore& store) {
  MutexLock lock(mu_);
  store_ = &store;
  return Attachment(this, &StoreMetrics::Detach, ++generation_);
}

void StoreMetrics::Detach(void* self, uint64_t generation) noexcept {
  auto* metrics = static_cast<StoreMetrics*>(self);
  MutexLock lock(metrics->mu_);
  if (metrics->generation_ == generation) metrics->store_ = nullptr;
}

void StoreMetrics::OnOpen(const std::string_view* namespaces, size_t count) {
  MutexLock lock(mu_);
  auto table = std::make_unique<NamespaceTable>();
  table->reserve(count);
  for (size_t i = 0; i < count; ++i) {
    NamespaceSeries* found = nullptr;
    for (const auto& s : series_) {
      if (s->name == namespaces[i]) found = s.get();
    }
    if (found == nullptr) {
      series_.push_back(std::make_unique<NamespaceSeries>(std::string(namespaces[i])));
      found = series_.back().get();
    }
    table->push_back(found);
  }
  table_.store(table.get(), std::memory_order_release);
  tables_.push_back(std::move(table));  // Kept: a reader may still hold an older table.
}

StoreMetrics::NamespaceSeries* StoreMetrics::SeriesFor(size_t namespace_index) noexcept {
  const NamespaceTable* table = table_.load(std::memory_order_acquire);
  if (table == nullptr || namespace_index >= table->size()) return &unknown_namespace_;
  return (*table)[namespace_index];
}

void StoreMetrics::OnOperation(store::StoreOp op, size_t namespace_index, uint64_t bytes) {
  const auto i = static_cast<size_t>(op);
  if (i >= kStoreOpCount) return;
  NamespaceSeries* series = SeriesFor(namespace_index);
  series->operations[i].fetch_add(1, std::memory_order_relaxed);
  if (bytes != 0 && HasBytes(op)) series->bytes[i].fetch_add(bytes, std::memory_order_relaxed);
}

void StoreMetrics::OnError(store::StoreOp op, StatusCode code) {
  const auto i = static_cast<size_t>(op);
  const auto c = static_cast<size_t>(code);
  if (i >= kStoreOpCount || c >= kStatusCodeCount) return;
  errors_[i][c].fetch_add(1, std::memory_order_relaxed);
}

void StoreMetrics::OnCommit(const store::CommitEvent& event) {
  if (event.ok) {
    commits_ok_.fetch_add(1, std::memory_order_relaxed);
    committed_bytes_.fetch_add(event.bytes, std::memory_order_relaxed);
  } else {
    commits_failed_.fetch_add(1, std::memory_order_relaxed);
  }
  if (event.attempts > 1) {
    commit_retries_.fetch_add(static_cast<uint64_t>(event.attempts - 1), std::memory_order_relaxed);
  }
  commit_latency_.Observe(Nanos(event.latency));
  batch_size_.Observe(event.operations);
}

void StoreMetrics::OnMapUsage(uint64_t map_size_bytes, uint64_t used_bytes) {
  map_size_bytes_.store(map_size_bytes, std::memory_order_relaxed);
  map_used_bytes_.store(used_bytes, std::memory_order_relaxed);
  map_usage_seen_.store(true, std::memory_order_relaxed);
}

void StoreMetrics::OnMapGrown(uint64_t /*old_bytes*/, uint64_t new_bytes, Duration wait) {
  map_growths_.fetch_add(1, std::memory_order_relaxed);
  map_growth_wait_nanos_.fetch_add(Nanos(wait), std::memory_order_relaxed);
  map_size_bytes_.store(new_bytes, std::memory_order_relaxed);
}

StoreSnapshot StoreMetrics::Snapshot() const {
  StoreSnapshot s;
  s.name = name_;
  auto copy_series = [&s](const NamespaceSeries& series) {
    NamespaceSnapshot n;
    n.name = series.name;
    for (size_t i = 0; i < kStoreOpCount; ++i) {
      n.operations[i] = series.operations[i].load(std::memory_order_relaxed);
      n.bytes[i] = series.bytes[i].load(std::memory_order_relaxed);
    }
    s.namespaces.push_back(std::move(n));
  };
  for (size_t op = 0; op < kStoreOpCount; ++op) {
    for (size_t c = 0; c < kStatusCodeCount; ++c) {
      s.errors[op][c] = errors_[op][c].load(std::memory_order_relaxed);
    }
  }
  s.commits_ok = commits_ok_.load(std::memory_order_relaxed);
  s.commits_failed = commits_failed_.load(std::memory_order_relaxed);
  s.commit_retries = commit_retries_.load(std::memory_order_relaxed);
  s.committed_bytes = committed_bytes_.load(std::memory_order_relaxed);
  s.commit_latency = commit_latency_.Snapshot();
  s.batch_size = batch_size_.Snapshot();
  s.map_growths = map_growths_.load(std::memory_order_relaxed);
  s.map_growth_wait_nanos = map_growth_wait_nanos_.load(std::memory_order_relaxed);
  if (map_usage_seen_.load(std::memory_order_relaxed)) {
    s.map_size_bytes = map_size_bytes_.load(std::memory_order_relaxed);
    s.map_used_bytes = map_used_bytes_.load(std::memory_order_relaxed);
  }

  MutexLock lock(mu_);
  for (const auto& series : series_) copy_series(*series);
  bool unknown_used = false;
  for (size_t i = 0; i < kStoreOpCount; ++i) {
    unknown_used |= unknown_namespace_.operations[i].load(std::memory_order_relaxed) != 0;
  }
  if (unknown_used) {
    // Two series with one label set would make the exposition invalid: a store namespace that
    // happens to be called "unknown" absorbs the fallback's counts.
    NamespaceSnapshot* same = nullptr;
    for (auto& n : s.namespaces) {
      if (n.name == unknown_namespace_.name) same = &n;
    }
    if (same == nullptr) {
      copy_series(unknown_namespace_);
    } else {
      for (size_t i = 0; i < kStoreOpCount; ++i) {
        same->operations[i] += unknown_namespace_.operations[i].load(std::memory_order_relaxed);
        same->bytes[i] += unknown_namespace_.bytes[i].load(std::memory_order_relaxed);
      }
    }
  }
  if (store_ != nullptr) {
    const store::StoreStats stats = store_->Stats();
    s.map_size_bytes = stats.map_size_bytes;
    s.map_used_bytes = stats.used_bytes;
    s.map_max_bytes = stats.max_map_size_bytes;
    s.queued_writes = stats.queued_writes;
  }
  return s;
}

}  // namespace blobtune::metrics
