// StoreObserver: how a BlobStore reports what it does, without depending on a metrics library.
//
// metrics/ implements it with prometheus-cpp (counters by op and namespace, a commit latency
// histogram, gauges for the map); tests implement it with atomics. Callbacks run on the thread
// that caused the event: reads on the reader's thread, everything about commits on the store's
// writer thread. They must be cheap and must not block or call back into the store: atomics
// are fine, a mutex is not (a slow observer stalls every commit).
//
//   class Counting : public blobtune::store::StoreObserver {
//     void OnCommit(const CommitEvent& e) override { commits_.fetch_add(1); }
//     std::atomic<int> commits_{0};
//   };
//
// Thread-safety: implementations must be safe to call from any number of threads at once.
#ifndef BLOBTUNE_STORE_STORE_OBSERVER_H_
#define BLOBTUNE_STORE_STORE_OBSERVER_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"

namespace blobtune::store {

// What an operation was; the label value of per-operation metrics.
enum class StoreOp { kPut, kErase, kGet, kView, kStat, kExists, kList };

// "put", "erase", "get", "view", "stat", "exists", "list".
std::string_view StoreOpName(StoreOp op) noexcept;

// One group commit that reached the disk (or failed to).
struct CommitEvent {
  Duration latency{};          // From the start of the write transaction to the end of its sync.
  size_t operations = 0;       // Puts and erases in the transaction.
  size_t bytes = 0;            // Record bytes written (headers included).
  int attempts = 1;            // > 1 when the map grew and the batch was retried.
  bool ok = true;
};

class StoreObserver {
 public:
  StoreObserver() = default;
  StoreObserver(const StoreObserver&) = delete;
  StoreObserver& operator=(const StoreObserver&) = delete;
  virtual ~StoreObserver() = default;

  // The store opened with these namespaces, in the order of its options' `namespaces`; the
  // `namespace_index` of later callbacks indexes this list (the views stay valid while the store
  // is open), so an exporter can pre-create its per-namespace series here.
  virtual void OnOpen(const std::string_view* namespaces, size_t count) {
    (void)namespaces;
    (void)count;
  }
  // An operation succeeded; `bytes` is the blob's size (0 for erase, exists and list).
  virtual void OnOperation(StoreOp op, size_t namespace_index, uint64_t bytes) {
    (void)op;
    (void)namespace_index;
    (void)bytes;
  }
  // An operation failed. NOT_FOUND from get, stat or erase counts here too.
  virtual void OnError(StoreOp op, StatusCode code) {
    (void)op;
    (void)code;
  }
  // A write transaction committed (or failed to); runs on the writer thread.
  virtual void OnCommit(const CommitEvent& event) { (void)event; }
  // After each commit and each growth: the map size and how much of it is in use, in bytes.
  virtual void OnMapUsage(uint64_t map_size_bytes, uint64_t used_bytes) {
    (void)map_size_bytes;
    (void)used_bytes;
  }
  // The map grew from `old_bytes` to `new_bytes`; `wait` is how long the writer waited for
  // open reads to finish before it could remap.
  virtual void OnMapGrown(uint64_t old_bytes, uint64_t new_bytes, Duration wait) {
    (void)old_bytes;
    (void)new_bytes;
    (void)wait;
  }
};

}  // namespace blobtune::store

#endif  // BLOBTUNE_STORE_STORE_OBSERVER_H_
