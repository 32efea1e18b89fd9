// StoreMetrics: the Prometheus series of one BlobStore, collected through its StoreObserver
// interface (operations, bytes, errors, commits, map usage) and, while attached, by reading the
// store's Stats() at scrape time (map maximum, queued writes).
//
//   metrics::StoreMetrics* m = exporter->AddStore("blobs").value();
//   store::LmdbStoreOptions options;
//   options.observer = m;                           // fixed at open
//   auto store = store::OpenLmdbBlobStore(options).value();
//   metrics::Attachment link = m->Attach(*store);   // optional: Stats() at scrape time
//
// Namespaces: OnOpen maps the store's namespace indexes to per-namespace counters (created once
// per name and kept, so reopening a store continues its counters). An operation reported before
// OnOpen, or with an index it did not list, counts under namespace "unknown".
//
// Locking: OnOperation, OnError, OnCommit, OnMapUsage and OnMapGrown are relaxed atomic adds and
// stores. OnOpen (once per open), Attach, unlinking and scrapes take a mutex.
//
// Thread-safety: all methods may be called from any number of threads at once. The object must
// outlive the store it observes and every Attachment.
#ifndef BLOBTUNE_METRICS_STORE_METRICS_H_
#define BLOBTUNE_METRICS_STORE_METRICS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/base/mutex.h"
#include "blobtune/base/status.h"
#include "blobtune/base/thread_annotations.h"
#include "blobtune/metrics/attachment.h"
#include "blobtune/metrics/histogram.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/store/store_observer.h"

namespace blobtune::metrics {

inline constexpr size_t kStoreOpCount = 7;      // store::StoreOp values.
inline constexpr size_t kStatusCodeCount = 10;  // StatusCode values, kOk included.

// One namespace's operation counters at one moment.
struct NamespaceSnapshot {
  std::string name;
  std::array<uint64_t, kStoreOpCount> operations{};  // Indexed by store::StoreOp.
  std::array<uint64_t, kStoreOpCount> bytes{};       // Blob bytes, for put, get and view.
};

// One store's series at one moment.
struct StoreSnapshot {
  std::string name;
  std::vector<NamespaceSnapshot> namespaces;  // In the order they were first opened.
  // errors[op][code]: failed operations by StatusCode.
  std::array<std::array<uint64_t, kStatusCodeCount>, kStoreOpCount> errors{};
  uint64_t commits_ok = 0;
  uint64_t commits_failed = 0;
  uint64_t commit_retries = 0;       // Attempts beyond the first (map growth).
  uint64_t committed_bytes = 0;      // Record bytes of successful commits.
  HistogramSnapshot commit_latency;  // Nanoseconds.
  HistogramSnapshot batch_size;      // Operations per commit.
  uint64_t map_growths = 0;
  uint64_t map_growth_wait_nanos = 0;
  // From OnMapUsage (or the attached store's Stats()); empty before either has been seen.
  std::optional<uint64_t> map_size_bytes;
  std::optional<uint64_t> map_used_bytes;
  // Only while a store is attached.
  std::optional<uint64_t> map_max_bytes;
  std::optional<uint64_t> queued_writes;
};

class StoreMetrics final : public store::StoreObserver {
 public:
  explicit StoreMetrics(std::string name);
  StoreMetrics(const StoreMetrics&) = delete;
  StoreMetrics& operator=(const StoreMetrics&) = delete;
  ~StoreMetrics() override;

  // The `store` label value.
  const std::string& name() const noexcept { return name_; }

  // Reads `store.Stats()` at each scrape until the returned Attachment is destroyed or reset;
  // replaces any earlier link. REQUIRES: the Attachment is gone before `store` is.
  [[nodiscard]] Attachment Attach(const store::BlobStore& store);

  StoreSnapshot Snapshot() const;

  // store::StoreObserver.
  void OnOpen(const std::string_view* namespaces, size_t count) override;
  void OnOperation(store::StoreOp op, size_t namespace_index, uint64_t bytes) override;
  void OnError(store::StoreOp op, StatusCode code) override;
  void OnCommit(const store::CommitEvent& event) override;
  void OnMapUsage(uint64_t map_size_bytes, uint64_t used_bytes) override;
  void OnMapGrown(uint64_t old_bytes, uint64_t new_bytes, Duration wait) override;

 private:
  struct NamespaceSeries {
    explicit NamespaceSeries(std::string n) : name(std::move(n)) {}
    const std::string name;
    std::array<std::atomic<uint64_t>, kStoreOpCount> operations{};
    std::array<std::atomic<uint64_t>, kStoreOpCount> bytes{};
  };
  using NamespaceTable = std::vector<NamespaceSeries*>;

  static void Detach(void* self, uint64_t generation) noexcept;
  NamespaceSeries* SeriesFor(size_t namespace_index) noexcept;

  const std::string name_;

  // The table of the latest OnOpen, published with release and read with acquire so that a
  // reader sees the table's contents. Tables and series are never freed before *this.
  std::atomic<const NamespaceTable*> table_{nullptr};
  NamespaceSeries unknown_namespace_{"unknown"};

  // Monotonic counters and last-value gauges, relaxed: each is read on its own at scrape time.
  std::array<std::array<std::atomic<uint64_t>, kStatusCodeCount>, kStoreOpCount> errors_{};
  std::atomic<uint64_t> commits_ok_{0};
  std::atomic<uint64_t> commits_failed_{0};
  std::atomic<uint64_t> commit_retries_{0};
  std::atomic<uint64_t> committed_bytes_{0};
  AtomicHistogram commit_latency_;
  AtomicHistogram batch_size_;
  std::atomic<uint64_t> map_growths_{0};
  std::atomic<uint64_t> map_growth_wait_nanos_{0};
  std::atomic<bool> map_usage_seen_{false};
  std::atomic<uint64_t> map_size_bytes_{0};
  std::atomic<uint64_t> map_used_bytes_{0};

  mutable Mutex mu_;
  std::vector<std::unique_ptr<NamespaceSeries>> series_ BLOBTUNE_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<NamespaceTable>> tables_ BLOBTUNE_GUARDED_BY(mu_);
  const store::BlobStore* store_ BLOBTUNE_GUARDED_BY(mu_) = nullptr;
  uint64_t generation_ BLOBTUNE_GUARDED_BY(mu_) = 0;
};

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_STORE_METRICS_H_
