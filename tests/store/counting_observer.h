// CountingObserver: a StoreObserver for tests that counts every event in atomics (by operation,
// by error code), so a test can check what a store reported.
// Thread-safety: the store may call it from any number of threads; read the counts once the
// operations have returned.
#ifndef BLOBTUNE_TESTS_STORE_COUNTING_OBSERVER_H_
#define BLOBTUNE_TESTS_STORE_COUNTING_OBSERVER_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "blobtune/store/store_observer.h"

namespace blobtune::store::testing {

class CountingObserver : public StoreObserver {
 public:
  void OnOperation(StoreOp op, size_t, uint64_t bytes) override {
    ops[static_cast<int>(op)].fetch_add(1);
    op_bytes[static_cast<int>(op)].fetch_add(bytes);
  }
  void OnError(StoreOp, StatusCode code) override { errors[static_cast<int>(code)].fetch_add(1); }
  void OnCommit(const CommitEvent& e) override {
    commits.fetch_add(1);
    committed_ops.fetch_add(e.operations);
    max_batch.store(std::max(max_batch.load(), e.operations));
  }
  void OnMapUsage(uint64_t map, uint64_t used) override {
    map_size.store(map);
    used_bytes.store(used);
  }
  void OnMapGrown(uint64_t, uint64_t, Duration) override { growths.fetch_add(1); }
  void OnOpen(const std::string_view*, size_t count) override { namespaces.store(count); }

  std::atomic<uint64_t> ops[8]{};
  std::atomic<uint64_t> op_bytes[8]{};
  std::atomic<uint64_t> errors[16]{};
  std::atomic<uint64_t> commits{0};
  std::atomic<uint64_t> committed_ops{0};
  std::atomic<size_t> max_batch{0};
  std::atomic<uint64_t> map_size{0};
  std::atomic<uint64_t> used_bytes{0};
  std::atomic<uint64_t> growths{0};
  std::atomic<size_t> namespaces{0};
};

}  // namespace blobtune::store::testing

#endif  // BLOBTUNE_TESTS_STORE_COUNTING_OBSERVER_H_
