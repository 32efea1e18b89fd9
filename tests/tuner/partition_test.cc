// Partitions of one limiter: options, borrowing, and who gets a freed permit.
#include "blobtune/tuner/partition.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "blobtune/tuner/async_acquire.h"
#include "blobtune/tuner/limiter.h"
#include "scripted_algorithm.h"

namespace blobtune::tuner {
namespace {

using std::chrono::hours;
using testing::Script;
using testing::ScriptedAlgorithm;

// Counts grants and failures by partition.
class PartitionObserver final : public LimiterObserver {
 public:
  void OnGranted(PartitionId p, Duration) override { ++granted[p.index]; }
  void OnAcquireFailed(PartitionId p, AcquireFailure) override { ++failed[p.index]; }
  void OnReleased(PartitionId p, PermitOutcome, const Sample*) override { ++released[p.index]; }
  std::map<uint32_t, int> granted, failed, released;
};

// A limiter with partitions whose limit the test sets, and queued async acquirers whose grants
// are recorded in order. Single-threaded: the io_context runs on the test's thread.
class PartitionTest : public ::testing::Test {
 protected:
  // The limiter lives in the fixture, so that permits and queued acquirers go first. It keeps
  // the steady clock: nothing here waits for time to pass (every deadline is an hour away), and a
  // fake clock would make each queued acquirer's timer poll it every millisecond.
  Limiter* MakeLimiter(int limit, std::vector<PartitionOptions> partitions) {
    auto limiter = Limiter::Create({.algorithm = std::make_unique<ScriptedAlgorithm>(limit, script_),
                                    .observer = &observer_,
                                    .max_queue = 100000,
                                    .partitions = std::move(partitions)});
    EXPECT_TRUE(limiter.ok()) << limiter.status();
    limiter_ = std::move(limiter).value();
    return limiter_.get();
  }

  // Queues an acquirer of `partition`; once granted, its permit joins `held_` and its partition
  // joins `order_`.
  void Queue(Limiter& limiter, PartitionId partition) {
    AsyncAcquire(limiter, partition, io_.get_executor(), hours(1),
                 [this, partition](StatusOr<Permit> permit) {
                   ASSERT_TRUE(permit.ok()) << permit.status();
                   order_.push_back(partition.index);
                   held_.push_back(std::move(*permit));
                 });
    Run();
  }

  void Run() {
    io_.poll();
    io_.restart();
  }

  // Releases the permit held longest and lets its successor be granted.
  void ReleaseOldest() {
    held_.pop_front();
    Run();
  }

  // Destroyed in reverse: permits, then pending acquirers, then the limiter they use.
  std::shared_ptr<Script> script_ = std::make_shared<Script>();
  PartitionObserver observer_;
  std::unique_ptr<Limiter> limiter_;
  boost::asio::io_context io_;
  std::deque<Permit> held_;
  std::vector<uint32_t> order_;
};

Status Validate(std::vector<PartitionOptions> partitions) {
  LimiterOptions options;
  options.partitions = std::move(partitions);
  return options.Validate();
}

TEST(PartitionOptionsTest, NamesMustBeGivenAndUnique) {
  EXPECT_EQ(Validate({{.name = "", .share = 0.5}}).code(), StatusCode::kInvalidArgument);
  Status twice = Validate({{.name = "a", .share = 0.2}, {.name = "a", .share = 0.2}});
  EXPECT_EQ(twice.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(twice.message().find("partitions[1].name \"a\" is used twice"), std::string::npos)
      << twice;
}

TEST(PartitionOptionsTest, SharesAreFractionsThatAddUpToAtMostOne) {
  EXPECT_EQ(Validate({{.name = "a", .share = -0.1}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Validate({{.name = "a", .share = 1.5}}).code(), StatusCode::kInvalidArgument);
  Status over = Validate({{.name = "a", .share = 0.7}, {.name = "b", .share = 0.4}});
  EXPECT_EQ(over.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(over.message().find("add up to 1.1"), std::string::npos) << over;
  EXPECT_TRUE(Validate({{.name = "a", .share = 0.7}, {.name = "b", .share = 0.2},
                        {.name = "c", .share = 0.1}})
                  .ok());
  EXPECT_TRUE(Validate({{.name = "a"}, {.name = "b"}}).ok());  // Shares are optional.
}

TEST(PartitionOptionsTest, AtMostMaxPartitions) {
  std::vector<PartitionOptions> many(Limiter::kMaxPartitions + 1);
  for (size_t i = 0; i < many.size(); ++i) many[i].name = "p" + std::to_string(i);
  EXPECT_EQ(Validate(many).code(), StatusCode::kInvalidArgument);
  many.pop_back();
  EXPECT_TRUE(Validate(many).ok());
}

TEST_F(PartitionTest, ALimiterWithoutPartitionsHasOneWithTheWholeLimit) {
  auto limiter = MakeLimiter(3, {});
  EXPECT_EQ(limiter->partition_count(), 1u);
  EXPECT_FALSE(limiter->FindPartition("").has_value());
  std::optional<Permit> p = limiter->TryAcquire();
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->partition(), PartitionId{});
  PartitionStatus status = limiter->partition(PartitionId{});
  EXPECT_EQ(status.inflight, 1);
  EXPECT_EQ(status.guaranteed, 3);
}

TEST_F(PartitionTest, PartitionsAreFoundByNameAndCountTheirPermits) {
  auto limiter = MakeLimiter(10, {{.name = "reader", .share = 0.2, .priority = 1},
                                  {.name = "sync", .share = 0.8}});
  ASSERT_EQ(limiter->partition_count(), 2u);
  const PartitionId reader = limiter->FindPartition("reader").value();
  const PartitionId sync = limiter->FindPartition("sync").value();
  EXPECT_EQ(reader.index, 0u);
  EXPECT_EQ(sync.index, 1u);
  EXPECT_FALSE(limiter->FindPartition("other").has_value());

  std::optional<Permit> r = limiter->TryAcquire(reader);
  std::optional<Permit> s1 = limiter->TryAcquire(sync);
  std::optional<Permit> s2 = limiter->TryAcquire(sync);
  ASSERT_TRUE(r && s1 && s2);
  EXPECT_EQ(s1->partition(), sync);
  EXPECT_EQ(limiter->partition(reader).inflight, 1);
  EXPECT_EQ(limiter->partition(sync).inflight, 2);
  EXPECT_EQ(limiter->partition(reader).guaranteed, 2);
  EXPECT_EQ(limiter->partition(sync).options.name, "sync");
  s1->Success();
  Permit moved = std::move(*s2);
  s2.reset();
  EXPECT_EQ(limiter->partition(sync).inflight, 1);  // The moved permit still counts, once.
  moved.Dropped();
  EXPECT_EQ(limiter->partition(sync).inflight, 0);
  EXPECT_EQ(observer_.granted[sync.index], 2);
  EXPECT_EQ(observer_.released[sync.index], 2);
  EXPECT_EQ(observer_.released[reader.index], 0);
}

TEST_F(PartitionTest, AcquireForAPartitionItDoesNotHaveIsAnInvalidArgument) {
  auto limiter = MakeLimiter(1, {{.name = "a", .share = 1.0}});
  EXPECT_EQ(limiter->Acquire(PartitionId{1}, hours(1)).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(PartitionTest, WithoutSharesThePriorityDecides) {
  auto limiter = MakeLimiter(1, {{.name = "bulk", .priority = 0}, {.name = "urgent", .priority = 3}});
  held_.push_back(limiter->TryAcquire(PartitionId{0}).value());
  for (int i = 0; i < 3; ++i) Queue(*limiter, PartitionId{0});
  Queue(*limiter, PartitionId{1});
  Queue(*limiter, PartitionId{1});
  for (int i = 0; i < 5; ++i) ReleaseOldest();
  EXPECT_EQ(order_, (std::vector<uint32_t>{1, 1, 0, 0, 0}));
}

TEST_F(PartitionTest, ALowPriorityPartitionWithAShareIsNeverStarvedOfIt) {
  auto limiter = MakeLimiter(10, {{.name = "high", .share = 0.7, .priority = 5},
                                  {.name = "low", .share = 0.3, .priority = 0}});
  for (int i = 0; i < 10; ++i) held_.push_back(limiter->TryAcquire(PartitionId{0}).value());
  for (int i = 0; i < 40; ++i) Queue(*limiter, PartitionId{0});
  for (int i = 0; i < 40; ++i) Queue(*limiter, PartitionId{1});
  for (int i = 0; i < 30; ++i) ReleaseOldest();
  // Low gets its 3 permits at once, over the limit; high gets none until it is back under the
  // limit, and then each of low's releases goes back to low.
  EXPECT_EQ(limiter->partition(PartitionId{1}).inflight, 3);
  EXPECT_EQ(limiter->partition(PartitionId{0}).inflight, 7);
}

// Two partitions that always wait split the permits in the ratio of their shares, even with a
// limit of one, which no count of permits in flight can split.
TEST_F(PartitionTest, SaturatingPartitionsSplitThePermitsByTheirShares) {
  auto limiter = MakeLimiter(1, {{.name = "a", .share = 0.7}, {.name = "b", .share = 0.3}});
  held_.push_back(limiter->TryAcquire(PartitionId{0}).value());
  for (int i = 0; i < 100; ++i) {
    Queue(*limiter, PartitionId{0});
    Queue(*limiter, PartitionId{1});
  }
  for (int i = 0; i < 100; ++i) ReleaseOldest();
  int a = 0;
  for (uint32_t p : order_) a += p == 0 ? 1 : 0;
  EXPECT_NEAR(a, 70, 1);
}

TEST_F(PartitionTest, CancelWaitersFailsTheWaitersOfEveryPartition) {
  auto limiter = MakeLimiter(1, {{.name = "a", .share = 0.5}, {.name = "b", .share = 0.5}});
  std::optional<Permit> held = limiter->TryAcquire(PartitionId{0});
  std::vector<std::optional<StatusOr<Permit>>> results(4);
  for (size_t i = 0; i < results.size(); ++i) {
    AsyncAcquire(*limiter, PartitionId{static_cast<uint32_t>(i % 2)}, io_.get_executor(), hours(1),
                 [&results, i](StatusOr<Permit> r) { results[i].emplace(std::move(r)); });
  }
  Run();
  EXPECT_EQ(limiter->queue_length(), 4u);
  limiter->CancelWaiters();
  Run();
  for (const auto& r : results) {
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status().code(), StatusCode::kCancelled);
  }
  EXPECT_EQ(observer_.failed[0], 2);
  EXPECT_EQ(observer_.failed[1], 2);
}

TEST_F(PartitionTest, AFreePermitGoesToWhoeverAsksAndALenderGetsItsShareBackAtOnce) {
  auto limiter = MakeLimiter(4, {{.name = "lender", .share = 0.5}, {.name = "borrower", .share = 0.25}});
  const PartitionId lender{0}, borrower{1};
  std::vector<Permit> borrowed;
  for (int i = 0; i < 4; ++i) borrowed.push_back(limiter->TryAcquire(borrower).value());
  EXPECT_FALSE(limiter->TryAcquire(borrower).has_value());  // Three of its four are borrowed.
  // The lender's two (0.5 x 4) come back at once, over the limit...
  std::optional<Permit> first = limiter->TryAcquire(lender);
  std::optional<Permit> second = limiter->TryAcquire(lender);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(limiter->inflight(), 6);
  EXPECT_FALSE(limiter->TryAcquire(lender).has_value());  // ...but no more than its share.
  EXPECT_EQ(limiter->partition(lender).guaranteed, 2);
  // The borrower gets no new permit until the permits in flight are back under the limit.
  borrowed.pop_back();
  borrowed.pop_back();
  EXPECT_FALSE(limiter->TryAcquire(borrower).has_value());
  borrowed.pop_back();
  EXPECT_TRUE(limiter->TryAcquire(borrower).has_value());
  EXPECT_EQ(observer_.failed[lender.index], 1);
  EXPECT_EQ(observer_.failed[borrower.index], 2);
}

TEST_F(PartitionTest, AQueuedLenderIsGrantedBeyondTheLimitAndTheBorrowerWaitsForRoom) {
  auto limiter = MakeLimiter(4, {{.name = "lender", .share = 0.5}, {.name = "borrower", .share = 0.5}});
  const PartitionId lender{0}, borrower{1};
  for (int i = 0; i < 4; ++i) held_.push_back(limiter->TryAcquire(borrower).value());
  Queue(*limiter, borrower);  // Waits...
  Queue(*limiter, lender);    // ...and the lender, under its share, does not.
  EXPECT_EQ(order_, (std::vector<uint32_t>{lender.index}));
  ReleaseOldest();  // Five in flight, then four: still at the limit.
  EXPECT_EQ(order_, (std::vector<uint32_t>{lender.index}));
  ReleaseOldest();  // Three: room for the borrower.
  EXPECT_EQ(order_, (std::vector<uint32_t>{lender.index, borrower.index}));
}

// Shares below one whole permit (0.2 x 4) guarantee none, but still order the queue.
TEST_F(PartitionTest, APartitionUnderItsShareIsServedBeforeAHigherPriority) {
  auto limiter = MakeLimiter(4, {{.name = "low", .share = 0.2, .priority = 0},
                                 {.name = "high", .share = 0.2, .priority = 9}});
  const PartitionId low{0}, high{1};
  for (int i = 0; i < 4; ++i) held_.push_back(limiter->TryAcquire(high).value());
  Queue(*limiter, high);
  Queue(*limiter, low);
  ReleaseOldest();  // High holds 3, over its 0.8; low holds none, under it.
  EXPECT_EQ(order_, (std::vector<uint32_t>{low.index}));
}

TEST_F(PartitionTest, AmongPartitionsUnderTheirSharesTheHigherPriorityGoesFirst) {
  auto limiter = MakeLimiter(2, {{.name = "sync", .share = 0.4, .priority = 0},
                                 {.name = "reader", .share = 0.4, .priority = 1}});
  const PartitionId sync{0}, reader{1};
  held_.push_back(limiter->TryAcquire(sync).value());
  held_.push_back(limiter->TryAcquire(sync).value());
  Queue(*limiter, sync);
  Queue(*limiter, sync);
  Queue(*limiter, reader);
  ReleaseOldest();  // sync holds 1, over its 0.8; reader none: under.
  ReleaseOldest();  // sync none (under), reader 1 (over): sync.
  EXPECT_EQ(order_, (std::vector<uint32_t>{reader.index, sync.index}));
}

}  // namespace
}  // namespace blobtune::tuner
