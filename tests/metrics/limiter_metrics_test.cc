#include "blobtune/metrics/limiter_metrics.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "blobtune/metrics/registry.h"
#include "blobtune/tuner/limiter.h"
#include "common/fake_clock.h"
#include "test_support.h"

namespace blobtune::metrics {
namespace {

using std::chrono::milliseconds;
using testing::SteeredAlgorithm;

uint64_t Permits(const LimiterSnapshot& s, PermitEnd end) {
  return s.permits[static_cast<size_t>(end)];
}

class LimiterMetricsTest : public ::testing::Test {
 protected:
  // A limiter observed by metrics_, with limit target_ (initially `limit`).
  std::unique_ptr<tuner::Limiter> MakeLimiter(int limit, size_t max_queue = 16) {
    target_->store(limit);
    tuner::LimiterOptions options;
    options.algorithm = std::make_unique<SteeredAlgorithm>(target_);
    options.clock = &clock_;
    options.observer = &metrics_;
    options.max_queue = max_queue;
    return tuner::Limiter::Create(std::move(options)).value();
  }

  FakeClock clock_;
  std::shared_ptr<std::atomic<int>> target_ = std::make_shared<std::atomic<int>>(1);
  LimiterMetrics metrics_{"put"};
};

TEST_F(LimiterMetricsTest, CountsEachReleaseByOutcome) {
  auto limiter = MakeLimiter(4);
  {
    auto a = limiter->TryAcquire();
    auto b = limiter->TryAcquire();
    auto c = limiter->TryAcquire();
    ASSERT_TRUE(a && b && c);
    clock_.Advance(milliseconds(3));
    a->Success(100);
    b->Dropped();
    // c is destroyed unreported: ignored.
  }
  const LimiterSnapshot s = metrics_.Snapshot();
  EXPECT_EQ(s.name, "put");
  EXPECT_EQ(Permits(s, PermitEnd::kSuccess), 1u);
  EXPECT_EQ(Permits(s, PermitEnd::kDropped), 1u);
  EXPECT_EQ(Permits(s, PermitEnd::kIgnored), 1u);
  EXPECT_EQ(Permits(s, PermitEnd::kRejected), 0u);
  // The 3 ms latency lands in the (2.5 ms, 5 ms] bucket of the success histogram.
  ASSERT_EQ(s.success_latency.count, 1u);
  EXPECT_EQ(s.success_latency.sum, 3'000'000u);
  EXPECT_EQ(s.dropped_latency.count, 1u);
  EXPECT_EQ(s.queue_wait.count, 3u);  // Three immediate grants.
  EXPECT_EQ(s.queue_wait.counts[0], 3u);
}

TEST_F(LimiterMetricsTest, CountsFailedAcquiresByReason) {
  auto limiter = MakeLimiter(1, /*max_queue=*/1);
  auto held = limiter->TryAcquire();
  ASSERT_TRUE(held);
  EXPECT_FALSE(limiter->TryAcquire());  // Rejected.
  // A deadline already passed: no free slot, so DEADLINE_EXCEEDED.
  EXPECT_EQ(limiter->Acquire(clock_.Now()).status().code(), StatusCode::kDeadlineExceeded);

  // One waiter fills the queue (max_queue 1); the next acquirer finds it full.
  std::stop_source stop;
  std::thread waiter([&] {
    EXPECT_EQ(
        limiter->Acquire(clock_.Now() + std::chrono::hours(1), stop.get_token()).status().code(),
        StatusCode::kCancelled);
  });
  while (limiter->queue_length() == 0) std::this_thread::yield();
  EXPECT_EQ(limiter->Acquire(clock_.Now() + std::chrono::hours(1)).status().code(),
            StatusCode::kResourceExhausted);
  stop.request_stop();
  waiter.join();

  const LimiterSnapshot s = metrics_.Snapshot();
  EXPECT_EQ(Permits(s, PermitEnd::kRejected), 1u);
  EXPECT_EQ(Permits(s, PermitEnd::kTimeout), 1u);
  EXPECT_EQ(Permits(s, PermitEnd::kQueueFull), 1u);
  EXPECT_EQ(Permits(s, PermitEnd::kCancelled), 1u);
}

TEST_F(LimiterMetricsTest, QueueWaitIsTheTimeAGrantedWaiterSpentQueued) {
  auto limiter = MakeLimiter(1);
  auto held = limiter->TryAcquire();
  ASSERT_TRUE(held);
  std::optional<StatusOr<tuner::Permit>> got;
  std::thread waiter([&] { got.emplace(limiter->Acquire(clock_.Now() + std::chrono::hours(1))); });
  while (limiter->queue_length() == 0) std::this_thread::yield();
  clock_.Advance(milliseconds(7));
  held->Success();
  waiter.join();
  ASSERT_TRUE(got && got->ok());
  const LimiterSnapshot s = metrics_.Snapshot();
  EXPECT_EQ(s.queue_wait.count, 2u);
  EXPECT_EQ(s.queue_wait.sum, 7'000'000u);
}

TEST_F(LimiterMetricsTest, CountsLimitIncreasesAndDecreases) {
  auto limiter = MakeLimiter(2);
  target_->store(5);
  limiter->TryAcquire()->Success();  // 2 -> 5
  target_->store(3);
  limiter->TryAcquire()->Success();  // 5 -> 3
  limiter->TryAcquire()->Success();  // 3 -> 3: no change
  const LimiterSnapshot s = metrics_.Snapshot();
  EXPECT_EQ(s.limit_increases, 1u);
  EXPECT_EQ(s.limit_decreases, 1u);
}

TEST_F(LimiterMetricsTest, GaugesComeFromTheLimiterForAsLongAsItExists) {
  EXPECT_FALSE(metrics_.Snapshot().gauges.has_value());
  {
    auto limiter = MakeLimiter(3);
    auto held = limiter->TryAcquire();
    const LimiterSnapshot s = metrics_.Snapshot();
    ASSERT_TRUE(s.gauges.has_value());
    EXPECT_EQ(s.gauges->limit, 3);
    EXPECT_EQ(s.gauges->inflight, 1);
    EXPECT_EQ(s.gauges->queue_length, 0u);
    EXPECT_EQ(s.gauges->min_limit, 1);
    EXPECT_EQ(s.gauges->max_limit, 64);
    EXPECT_EQ(s.gauges->algorithm, "steered");
    EXPECT_EQ(s.gauges->state, "steady");
    ASSERT_TRUE(s.gauges->baseline_latency_seconds.has_value());
    EXPECT_DOUBLE_EQ(*s.gauges->baseline_latency_seconds, 0.002);
    EXPECT_DOUBLE_EQ(s.gauges->max_throughput.value_or(0), 1234.5);
    EXPECT_FALSE(s.gauges->recent_latency_seconds.has_value());
  }
  EXPECT_FALSE(metrics_.Snapshot().gauges.has_value());
}

TEST_F(LimiterMetricsTest, TheNewestLimiterIsShownAndAnOlderOnesEndLeavesIt) {
  auto first = MakeLimiter(2);
  auto second = MakeLimiter(9);
  ASSERT_TRUE(metrics_.Snapshot().gauges.has_value());
  EXPECT_EQ(metrics_.Snapshot().gauges->limit, 9);
  first.reset();
  ASSERT_TRUE(metrics_.Snapshot().gauges.has_value());
  EXPECT_EQ(metrics_.Snapshot().gauges->limit, 9);
  second.reset();
  EXPECT_FALSE(metrics_.Snapshot().gauges.has_value());
}

TEST_F(LimiterMetricsTest, CountsEveryPermitOfManyThreadsWhileScraping) {
  auto limiter = MakeLimiter(8);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        StatusOr<tuner::Permit> p = limiter->Acquire(clock_.Now() + std::chrono::hours(1));
        ASSERT_TRUE(p.ok()) << p.status();
        p->Success();
      }
      done.fetch_add(1);
    });
  }
  while (done.load() < kThreads) (void)metrics_.Snapshot();  // Scrapes race with the callbacks.
  for (auto& t : threads) t.join();
  const LimiterSnapshot s = metrics_.Snapshot();
  EXPECT_EQ(Permits(s, PermitEnd::kSuccess), uint64_t{kThreads} * kPerThread);
  EXPECT_EQ(s.queue_wait.count, uint64_t{kThreads} * kPerThread);
  // Only sampled permits are timed (each weighs the permits it stands for), so the latency
  // count estimates completions rather than matching them exactly.
  EXPECT_GT(s.success_latency.count, 0u);
}

TEST(PartitionMetricsTest, CountsAndShowsEachPartition) {
  MetricsRegistry registry;
  LimiterMetrics* metrics = registry.AddLimiter("put").value();
  FakeClock clock;
  auto target = std::make_shared<std::atomic<int>>(2);
  tuner::LimiterOptions options;
  options.algorithm = std::make_unique<SteeredAlgorithm>(target);
  options.clock = &clock;
  options.observer = metrics;
  options.partitions = {{.name = "reader", .share = 0.5, .priority = 1}, {.name = "sync", .share = 0.5}};
  auto limiter = tuner::Limiter::Create(std::move(options)).value();
  const tuner::PartitionId reader{0}, sync{1};
  std::optional<tuner::Permit> s1 = limiter->TryAcquire(sync);
  std::optional<tuner::Permit> s2 = limiter->TryAcquire(sync);  // Borrows the reader's share.
  EXPECT_FALSE(limiter->TryAcquire(sync).has_value());          // Rejected.
  std::optional<tuner::Permit> r = limiter->TryAcquire(reader);  // Its share, at once.
  ASSERT_TRUE(s1 && s2 && r);
  clock.Advance(std::chrono::milliseconds(3));
  r->Success();
  s1->Dropped();

  const LimiterSnapshot s = metrics->Snapshot();
  ASSERT_EQ(s.partitions.size(), 2u);
  EXPECT_EQ(s.partitions[0].name, "reader");
  EXPECT_EQ(s.partitions[0].permits[static_cast<size_t>(PermitEnd::kSuccess)], 1u);
  EXPECT_EQ(s.partitions[1].permits[static_cast<size_t>(PermitEnd::kDropped)], 1u);
  EXPECT_EQ(s.partitions[1].permits[static_cast<size_t>(PermitEnd::kRejected)], 1u);
  ASSERT_TRUE(s.partitions[1].status.has_value());
  EXPECT_EQ(s.partitions[1].status->inflight, 1);
  EXPECT_EQ(s.partitions[1].status->guaranteed, 1);
  // Latency per partition: the reader's one success took 3 ms; each grant's wait (none here).
  EXPECT_EQ(s.partitions[0].success_latency.count, 1u);
  EXPECT_EQ(s.partitions[0].success_latency.sum, 3'000'000u);
  EXPECT_EQ(s.partitions[1].success_latency.count, 0u);
  EXPECT_EQ(s.partitions[0].queue_wait.count, 1u);
  EXPECT_EQ(s.partitions[1].queue_wait.count, 2u);

  const std::string text = registry.TextExposition();
  EXPECT_NE(text.find("blobtune_limiter_partition_inflight{limiter=\"put\",partition=\"sync\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("blobtune_limiter_partition_permits_total{limiter=\"put\",partition=\"sync\","
                      "outcome=\"rejected\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("blobtune_limiter_partition_share{limiter=\"put\",partition=\"reader\"} 0.5\n"),
            std::string::npos);
  EXPECT_NE(text.find("blobtune_limiter_partition_priority{limiter=\"put\",partition=\"reader\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("blobtune_limiter_partition_permit_duration_seconds_count{limiter=\"put\","
                      "partition=\"reader\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("blobtune_limiter_partition_queue_wait_seconds_count{limiter=\"put\","
                      "partition=\"sync\"} 2\n"),
            std::string::npos);
  s2.reset();
}

TEST(PartitionMetricsTest, ALimiterWithoutPartitionsHasNoPartitionSeries) {
  MetricsRegistry registry;
  LimiterMetrics* metrics = registry.AddLimiter("put").value();
  auto limiter = tuner::Limiter::Create({.observer = metrics}).value();
  (void)limiter->TryAcquire();
  EXPECT_TRUE(metrics->Snapshot().partitions.empty());
  EXPECT_EQ(registry.TextExposition().find("blobtune_limiter_partition_"), std::string::npos);
}

TEST(PermitEndTest, NamesAreTheOutcomeLabelValues) {
  EXPECT_EQ(PermitEndName(PermitEnd::kSuccess), "success");
  EXPECT_EQ(PermitEndName(PermitEnd::kDropped), "dropped");
  EXPECT_EQ(PermitEndName(PermitEnd::kIgnored), "ignored");
  EXPECT_EQ(PermitEndName(PermitEnd::kRejected), "rejected");
  EXPECT_EQ(PermitEndName(PermitEnd::kTimeout), "timeout");
  EXPECT_EQ(PermitEndName(PermitEnd::kCancelled), "cancelled");
  EXPECT_EQ(PermitEndName(PermitEnd::kQueueFull), "queue_full");
}

}  // namespace
}  // namespace blobtune::metrics
