#include "reader_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace blobtune::store::internal {
namespace {

TEST(ReaderGateTest, CloseWaitsForOpenReadsAndBlocksNewOnes) {
  ReaderGate gate;
  std::atomic<int> inside{0};
  std::atomic<bool> violated{false};
  std::atomic<bool> closed{false};
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        ReaderGate::ReadLock lock(gate);
        inside.fetch_add(1);
        if (closed.load()) violated.store(true);
        inside.fetch_sub(1);
      }
    });
  }
  for (int round = 0; round < 2000; ++round) {
    gate.Close();
    closed.store(true);
    if (inside.load() != 0) violated.store(true);
    closed.store(false);
    gate.Open();
  }
  stop.store(true);
  for (auto& r : readers) r.join();
  EXPECT_FALSE(violated.load());
}

}  // namespace
}  // namespace blobtune::store::internal
