#include "blobtune/metrics/per_thread_counters.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <latch>
#include <thread>
#include <vector>

#include "blobtune/metrics/internal/thread_slot.h"

namespace blobtune::metrics {
namespace {

TEST(PerThreadCountersTest, StartsAtZeroAndAddsEachCounterApart) {
  PerThreadCounters c(3);
  EXPECT_EQ(c.Read(), (std::vector<uint64_t>{0, 0, 0}));
  c.Add(1);
  c.Add(0, 5, 2, 40);
  c.Add(1, 2);
  EXPECT_EQ(c.Read(), (std::vector<uint64_t>{5, 3, 40}));
}

TEST(PerThreadCountersTest, SumsTheAddsOfEveryThreadWhileReadsRun) {
  PerThreadCounters c(2);
  constexpr int kThreads = 4;
  constexpr uint64_t kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&c] {
      for (uint64_t i = 0; i < kPerThread; ++i) c.Add(0, 1, 1, i);
    });
  }
  // A read while threads add never sees a total go down.
  std::vector<uint64_t> last(2, 0);
  for (int i = 0; i < 200; ++i) {
    const std::vector<uint64_t> now = c.Read();
    EXPECT_GE(now[0], last[0]);
    EXPECT_GE(now[1], last[1]);
    last = now;
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.Read(), (std::vector<uint64_t>{kThreads * kPerThread,
                                             kThreads * (kPerThread * (kPerThread - 1) / 2)}));
}

TEST(PerThreadCountersTest, KeepsTheCountsOfThreadsThatExitedAndReusesTheirSlots) {
  PerThreadCounters c(1);
  for (int round = 0; round < 50; ++round) {
    std::thread([&c] {
      for (int i = 0; i < 100; ++i) c.Add(0);
    }).join();
  }
  EXPECT_EQ(c.Read()[0], 50u * 100);
}

TEST(PerThreadCountersTest, ThreadsBeyondTheSlotsShareExactCells) {
  PerThreadCounters c(1);
  // More threads alive at once than there are slots: the last ones get the shared slot.
  constexpr int kThreads = static_cast<int>(internal::kThreadSlots) + 8;
  std::latch all_added(kThreads);
  std::vector<std::thread> threads;
  std::vector<uint32_t> slots(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      slots[t] = internal::ThreadSlot();
      for (int i = 0; i < 10; ++i) c.Add(0);
      all_added.arrive_and_wait();  // Nobody exits (and frees a slot) before all have one.
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.Read()[0], uint64_t{kThreads} * 10);
  int shared = 0;
  for (uint32_t slot : slots) shared += slot == internal::kSharedSlot;
  // The test's own thread and others (gtest's) may hold slots too.
  EXPECT_GE(shared, 8);
}

TEST(ThreadSlotTest, IsStableWithinAThreadAndDistinctBetweenLiveThreads) {
  const uint32_t mine = internal::ThreadSlot();
  EXPECT_EQ(internal::ThreadSlot(), mine);
  EXPECT_LT(mine, internal::kThreadSlots);
  uint32_t other = mine;
  std::thread([&other] { other = internal::ThreadSlot(); }).join();
  EXPECT_NE(other, mine);
}

}  // namespace
}  // namespace blobtune::metrics
