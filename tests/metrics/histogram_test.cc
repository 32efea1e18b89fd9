#include "blobtune/metrics/histogram.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace blobtune::metrics {
namespace {

TEST(AtomicHistogramTest, CountsAValueInTheFirstBucketWhoseBoundIsAtLeastIt) {
  AtomicHistogram h({10, 20, 30});
  h.Observe(0);
  h.Observe(10);  // le=10 includes 10.
  h.Observe(11);
  h.Observe(30);
  h.Observe(31);  // +Inf.
  const HistogramSnapshot s = h.Snapshot();
  EXPECT_EQ(s.upper_bounds, (std::vector<uint64_t>{10, 20, 30}));
  EXPECT_EQ(s.counts, (std::vector<uint64_t>{2, 1, 1, 1}));
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.sum, 0u + 10 + 11 + 30 + 31);
}

TEST(AtomicHistogramTest, AWeightedObservationCountsAsThatManyEvents) {
  AtomicHistogram h({100});
  h.Observe(50, 8);
  const HistogramSnapshot s = h.Snapshot();
  EXPECT_EQ(s.counts, (std::vector<uint64_t>{8, 0}));
  EXPECT_EQ(s.count, 8u);
  EXPECT_EQ(s.sum, 400u);
}

TEST(AtomicHistogramTest, UnsortedOrDuplicateBoundsAreSortedAndDeduplicated) {
  AtomicHistogram h({30, 10, 10, 20});
  EXPECT_EQ(h.upper_bounds(), (std::vector<uint64_t>{10, 20, 30}));
}

TEST(AtomicHistogramTest, ConcurrentObservationsAreAllCounted) {
  AtomicHistogram h(LatencyBucketsNanos());
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&h, t] {
      for (int i = 0; i < kPerThread; ++i) h.Observe(static_cast<uint64_t>(i * (t + 1)) * 1000);
    });
  }
  // A scrape while observations run never sees the count go down.
  uint64_t last = 0;
  for (int i = 0; i < 100; ++i) {
    const uint64_t count = h.Snapshot().count;
    EXPECT_GE(count, last);
    last = count;
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(h.Snapshot().count, uint64_t{kThreads} * kPerThread);
}

TEST(AtomicHistogramTest, DefaultBucketsAreIncreasing) {
  for (const auto& bounds : {LatencyBucketsNanos(), BatchSizeBuckets()}) {
    ASSERT_FALSE(bounds.empty());
    for (size_t i = 1; i < bounds.size(); ++i) EXPECT_LT(bounds[i - 1], bounds[i]);
  }
  EXPECT_EQ(LatencyBucketsNanos().front(), 25'000u);
  EXPECT_EQ(LatencyBucketsNanos().back(), 10'000'000'000u);
  EXPECT_EQ(BatchSizeBuckets().front(), 1u);
}

}  // namespace
}  // namespace blobtune::metrics
