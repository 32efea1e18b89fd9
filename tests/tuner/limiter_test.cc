#include "blobtune/tuner/limiter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <vector>

#include "blobtune/tuner/algorithm_registry.h"
#include "common/fake_clock.h"
#include "scripted_algorithm.h"

namespace blobtune::tuner {
namespace {

using std::chrono::milliseconds;
using testing::Script;
using testing::ScriptedAlgorithm;

// Counts every observer callback.
class CountingObserver final : public LimiterObserver {
 public:
  void OnGranted(PartitionId, Duration) override { granted++; }
  void OnAcquireFailed(PartitionId, AcquireFailure why) override { failed[static_cast<int>(why)]++; }
  void OnReleased(PartitionId, PermitOutcome outcome, const Sample*) override {
    released[static_cast<int>(outcome)]++;
  }
  void OnLimitChanged(int, int new_limit, const AlgorithmEstimates&) override {
    limit_changes++;
    last_limit = new_limit;
  }
  int failures(AcquireFailure why) const { return failed[static_cast<int>(why)]; }
  int releases(PermitOutcome outcome) const { return released[static_cast<int>(outcome)]; }

  std::atomic<int> granted{0};
  std::atomic<int> failed[4] = {};
  std::atomic<int> released[3] = {};
  std::atomic<int> limit_changes{0};
  std::atomic<int> last_limit{0};
};

class LimiterTest : public ::testing::Test {
 protected:
  std::unique_ptr<Limiter> MakeLimiter(int limit, LimiterOptions options = {}) {
    options.algorithm = std::make_unique<ScriptedAlgorithm>(limit, script_);
    options.clock = &clock_;
    options.observer = &observer_;
    StatusOr<std::unique_ptr<Limiter>> limiter = Limiter::Create(std::move(options));
    EXPECT_TRUE(limiter.ok()) << limiter.status();
    return std::move(limiter).value();
  }

  // Waits (yielding, never sleeping) until `n` acquirers are queued.
  static void AwaitQueueLength(const Limiter& limiter, size_t n) {
    while (limiter.queue_length() != n) std::this_thread::yield();
  }

  FakeClock clock_;
  CountingObserver observer_;
  std::shared_ptr<Script> script_ = std::make_shared<Script>();
};

TEST_F(LimiterTest, TryAcquireAdmitsUpToTheLimitThenRejects) {
  auto limiter = MakeLimiter(2);
  std::optional<Permit> a = limiter->TryAcquire();
  std::optional<Permit> b = limiter->TryAcquire();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->inflight_at_grant(), 1);
  EXPECT_EQ(b->inflight_at_grant(), 2);
  EXPECT_EQ(limiter->inflight(), 2);
  EXPECT_FALSE(limiter->TryAcquire());
  EXPECT_EQ(observer_.failures(AcquireFailure::kRejected), 1);

  a->Success();
  EXPECT_FALSE(a->valid());
  EXPECT_EQ(limiter->inflight(), 1);
  EXPECT_TRUE(limiter->TryAcquire());  // Released at once at the end of the statement.
  EXPECT_EQ(limiter->inflight(), 1);
}

TEST_F(LimiterTest, SuccessFeedsASampleMeasuredOnTheInjectedClock) {
  auto limiter = MakeLimiter(4);
  TimePoint start = clock_.Now();
  std::optional<Permit> first = limiter->TryAcquire();
  std::optional<Permit> second = limiter->TryAcquire();
  clock_.Advance(milliseconds(7));
  second->Success(4096);
  std::vector<Sample> samples = script_->Samples();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].start, start);
  EXPECT_EQ(samples[0].latency, milliseconds(7));
  EXPECT_EQ(samples[0].inflight, 2);
  EXPECT_EQ(samples[0].bytes, 4096u);
  EXPECT_EQ(samples[0].weight, 1u);
  EXPECT_FALSE(samples[0].dropped);
}

TEST_F(LimiterTest, RestartTimingMeasuresTheLatencyFromThen) {
  auto limiter = MakeLimiter(4);
  std::optional<Permit> permit = limiter->TryAcquire();
  clock_.Advance(milliseconds(5));  // E.g. the payload arriving: not the access.
  const TimePoint access = clock_.Now();
  permit->RestartTiming();
  clock_.Advance(milliseconds(7));
  permit->Success();
  std::vector<Sample> samples = script_->Samples();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].start, access);
  EXPECT_EQ(samples[0].latency, milliseconds(7));
  EXPECT_EQ(samples[0].setup, milliseconds(5));
}

TEST_F(LimiterTest, RefusedCountsTheFailedTryAcquiresSinceThePreviousSample) {
  LimiterOptions options;
  options.max_queue = 0;
  auto limiter = MakeLimiter(1, std::move(options));
  std::optional<Permit> first = limiter->TryAcquire();
  ASSERT_TRUE(first);
  EXPECT_FALSE(limiter->TryAcquire());
  EXPECT_FALSE(limiter->TryAcquire());
  // A failed wait is no refusal: where callers queue, a freed permit never sits idle.
  EXPECT_FALSE(limiter->Acquire(milliseconds(5)).ok());
  clock_.Advance(milliseconds(1));
  first->Success();
  std::optional<Permit> second = limiter->TryAcquire();
  ASSERT_TRUE(second);
  second->Success();
  std::vector<Sample> samples = script_->Samples();
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].refused, 2u);
  EXPECT_EQ(samples[1].refused, 0u);
  // Nor an expiry: without a queue the wait failed at once (RESOURCE_EXHAUSTED).
  EXPECT_EQ(samples[0].expired, 0u);
}

TEST_F(LimiterTest, ExpiredCountsTheAcquiresThatTimedOutSinceThePreviousSample) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  // One waited in the queue until its deadline, one came with its deadline already past;
  // neither a refused TryAcquire() nor a cancelled wait counts.
  std::thread waiter([&] { EXPECT_FALSE(limiter->Acquire(clock_.Now() + milliseconds(50)).ok()); });
  AwaitQueueLength(*limiter, 1);
  clock_.Advance(milliseconds(50));
  waiter.join();
  EXPECT_FALSE(limiter->Acquire(clock_.Now()).ok());
  EXPECT_FALSE(limiter->TryAcquire());
  std::stop_source stop;
  stop.request_stop();
  EXPECT_EQ(limiter->Acquire(milliseconds(5), stop.get_token()).status().code(),
            StatusCode::kCancelled);
  held->Success();
  std::optional<Permit> next = limiter->TryAcquire();
  ASSERT_TRUE(next);
  next->Success();
  std::vector<Sample> samples = script_->Samples();
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].expired, 2u);
  EXPECT_EQ(samples[0].refused, 1u);
  EXPECT_EQ(samples[1].expired, 0u);
}

TEST_F(LimiterTest, DroppedIsSampledAndIgnoredIsNot) {
  auto limiter = MakeLimiter(4);
  std::optional<Permit> dropped = limiter->TryAcquire();
  std::optional<Permit> ignored = limiter->TryAcquire();
  std::optional<Permit> abandoned = limiter->TryAcquire();
  clock_.Advance(milliseconds(3));
  dropped->Dropped();
  ignored->Ignore();
  abandoned.reset();  // The destructor releases without a sample.
  std::vector<Sample> samples = script_->Samples();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_TRUE(samples[0].dropped);
  EXPECT_EQ(samples[0].latency, milliseconds(3));
  EXPECT_EQ(limiter->inflight(), 0);
  EXPECT_EQ(observer_.releases(PermitOutcome::kDropped), 1);
  EXPECT_EQ(observer_.releases(PermitOutcome::kIgnored), 2);
}

TEST_F(LimiterTest, AMovedPermitReleasesExactlyOnce) {
  auto limiter = MakeLimiter(2);
  Permit a = *limiter->TryAcquire();
  Permit b = std::move(a);
  EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): checking the moved-from state.
  EXPECT_EQ(limiter->inflight(), 1);
  Permit c = *limiter->TryAcquire();
  c = std::move(b);  // c's own slot is released, b's moves in.
  EXPECT_EQ(limiter->inflight(), 1);
  c.Success();
  c.Success();  // A second outcome on a released permit is a no-op.
  EXPECT_EQ(limiter->inflight(), 0);
  EXPECT_EQ(script_->Samples().size(), 1u);
}

TEST_F(LimiterTest, AlgorithmUpdatesMoveTheLimitAndAreObserved) {
  script_->next_limit = [](int limit, const Sample& s) {
    return s.dropped ? limit / 2 : limit + 1;
  };
  auto limiter = MakeLimiter(10);
  limiter->TryAcquire()->Success();
  EXPECT_EQ(limiter->limit(), 11);
  limiter->TryAcquire()->Dropped();
  EXPECT_EQ(limiter->limit(), 5);
  EXPECT_EQ(observer_.limit_changes, 2);
  EXPECT_EQ(observer_.last_limit, 5);
}

TEST(LimiterBoundsTest, AreTheAlgorithmsBounds) {
  LimiterOptions options;
  options.algorithm = MakeAlgorithmFromText("aimd:min_limit=2,initial_limit=4,max_limit=30").value();
  std::unique_ptr<Limiter> limiter = Limiter::Create(std::move(options)).value();
  EXPECT_EQ(limiter->min_limit(), 2);
  EXPECT_EQ(limiter->max_limit(), 30);
}

// Records which limiter it was told of, and whether that one was still whole when told.
class LifecycleObserver final : public LimiterObserver {
 public:
  void OnLimiterCreated(const Limiter& limiter) override {
    created = &limiter;
    limit_when_created = limiter.limit();
  }
  void OnLimiterDestroyed(const Limiter& limiter) override {
    destroyed = &limiter;
    limit_when_destroyed = limiter.limit();
  }
  const Limiter* created = nullptr;
  const Limiter* destroyed = nullptr;
  int limit_when_created = 0;
  int limit_when_destroyed = 0;
};

TEST(LimiterObserverTest, HearsOfTheLimitersCreationAndDestruction) {
  LifecycleObserver observer;
  LimiterOptions options;
  options.algorithm = MakeAlgorithmFromText("fixed:limit=6").value();
  options.observer = &observer;
  std::unique_ptr<Limiter> limiter = Limiter::Create(std::move(options)).value();
  const Limiter* address = limiter.get();
  EXPECT_EQ(observer.created, address);
  EXPECT_EQ(observer.limit_when_created, 6);
  EXPECT_EQ(observer.destroyed, nullptr);
  limiter.reset();
  EXPECT_EQ(observer.destroyed, address);
  EXPECT_EQ(observer.limit_when_destroyed, 6);
}

TEST_F(LimiterTest, AComputedLimitIsClampedToAtLeastOne) {
  script_->next_limit = [](int, const Sample&) { return -3; };
  auto limiter = MakeLimiter(3);
  limiter->TryAcquire()->Dropped();
  EXPECT_EQ(limiter->limit(), 1);
  EXPECT_TRUE(limiter->TryAcquire());
}

TEST_F(LimiterTest, AcquireWithAFreeSlotSucceedsEvenPastTheDeadline) {
  auto limiter = MakeLimiter(1);
  StatusOr<Permit> p = limiter->Acquire(clock_.Now() - milliseconds(1));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(limiter->inflight(), 1);
}

TEST_F(LimiterTest, AcquirePastTheDeadlineWithNoSlotFailsAtOnce) {
  auto limiter = MakeLimiter(1);
  Permit held = *limiter->TryAcquire();
  StatusOr<Permit> p = limiter->Acquire(clock_.Now());
  EXPECT_EQ(p.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(p.status().message().find("limit 1, 1 in flight"), std::string_view::npos)
      << p.status();
  EXPECT_EQ(limiter->queue_length(), 0u);
  EXPECT_EQ(observer_.failures(AcquireFailure::kTimeout), 1);
}

TEST_F(LimiterTest, AWaiterGetsTheSlotThatAReleaseFrees) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  std::thread waiter([&] {
    StatusOr<Permit> p = limiter->Acquire(clock_.Now() + std::chrono::hours(1));
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->inflight_at_grant(), 1);
  });
  AwaitQueueLength(*limiter, 1);
  EXPECT_FALSE(limiter->TryAcquire()) << "a newcomer must not overtake a queued waiter";
  held->Success();
  waiter.join();
  EXPECT_EQ(limiter->inflight(), 0);
  EXPECT_EQ(limiter->queue_length(), 0u);
}

TEST_F(LimiterTest, AWaiterTimesOutWhenTheFakeClockPassesItsDeadline) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  TimePoint deadline = clock_.Now() + milliseconds(50);
  std::thread waiter([&] {
    StatusOr<Permit> p = limiter->Acquire(deadline);
    EXPECT_EQ(p.status().code(), StatusCode::kDeadlineExceeded) << p.status();
  });
  AwaitQueueLength(*limiter, 1);
  clock_.Advance(milliseconds(49));
  EXPECT_EQ(limiter->queue_length(), 1u);
  clock_.Advance(milliseconds(1));
  waiter.join();
  EXPECT_EQ(limiter->queue_length(), 0u);
  EXPECT_EQ(limiter->inflight(), 1);
  EXPECT_EQ(observer_.failures(AcquireFailure::kTimeout), 1);
}

TEST_F(LimiterTest, AStopTokenCancelsAWaiter) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  std::stop_source stop;
  std::thread waiter([&] {
    StatusOr<Permit> p = limiter->Acquire(std::chrono::hours(1), stop.get_token());
    EXPECT_EQ(p.status().code(), StatusCode::kCancelled) << p.status();
  });
  AwaitQueueLength(*limiter, 1);
  stop.request_stop();
  waiter.join();
  EXPECT_EQ(limiter->queue_length(), 0u);
  EXPECT_EQ(observer_.failures(AcquireFailure::kCancelled), 1);
}

TEST_F(LimiterTest, AnAlreadyStoppedTokenFailsWithoutQueueing) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  std::stop_source stop;
  stop.request_stop();
  StatusOr<Permit> p = limiter->Acquire(std::chrono::hours(1), stop.get_token());
  EXPECT_EQ(p.status().code(), StatusCode::kCancelled);
  // A free slot is still taken: cancellation only ends waiting.
  held.reset();
  EXPECT_TRUE(limiter->Acquire(std::chrono::hours(1), stop.get_token()).ok());
}

TEST_F(LimiterTest, CancelWaitersFailsEveryWaiter) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  std::vector<std::thread> waiters;
  std::atomic<int> cancelled{0};
  for (int i = 0; i < 3; ++i) {
    waiters.emplace_back([&] {
      if (limiter->Acquire(std::chrono::hours(1)).status().code() == StatusCode::kCancelled) {
        cancelled++;
      }
    });
  }
  AwaitQueueLength(*limiter, 3);
  limiter->CancelWaiters();
  for (auto& t : waiters) t.join();
  EXPECT_EQ(cancelled, 3);
  EXPECT_EQ(limiter->inflight(), 1);
}

TEST_F(LimiterTest, AFullQueueIsResourceExhausted) {
  auto limiter = MakeLimiter(1, {.max_queue = 1});
  std::optional<Permit> held = limiter->TryAcquire();
  std::thread waiter([&] { EXPECT_TRUE(limiter->Acquire(std::chrono::hours(1)).ok()); });
  AwaitQueueLength(*limiter, 1);
  StatusOr<Permit> p = limiter->Acquire(std::chrono::hours(1));
  EXPECT_EQ(p.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(p.status().message().find("max_queue 1"), std::string_view::npos) << p.status();
  held.reset();
  waiter.join();
}

TEST_F(LimiterTest, WithoutAQueueAcquireDoesNotWait) {
  auto limiter = MakeLimiter(1, {.max_queue = 0});
  std::optional<Permit> held = limiter->TryAcquire();
  EXPECT_EQ(limiter->Acquire(std::chrono::hours(1)).status().code(),
            StatusCode::kResourceExhausted);
}

// A blocking acquirer on its own thread, queued before the constructor returns.
class QueuedAcquirer {
 public:
  QueuedAcquirer(Limiter& limiter, Duration timeout) {
    const size_t before = limiter.queue_length();
    thread_ =
        std::thread([this, &limiter, timeout] { result_ = limiter.Acquire(timeout).status(); });
    while (limiter.queue_length() != before + 1) std::this_thread::yield();
  }
  ~QueuedAcquirer() {
    if (thread_.joinable()) thread_.join();
  }
  // Waits for the acquirer's outcome.
  Status Result() {
    if (thread_.joinable()) thread_.join();
    return *result_;
  }

 private:
  std::optional<Status> result_;
  std::thread thread_;
};

TEST_F(LimiterTest, AfterATimeoutNewWaitersWaitAtMostTheOverloadWait) {
  auto limiter =
      MakeLimiter(1, {.overload_wait = milliseconds(10), .overload_window = milliseconds(100)});
  std::optional<Permit> held = limiter->TryAcquire();
  QueuedAcquirer patient(*limiter, std::chrono::hours(1));  // Before any timeout: its deadline.
  QueuedAcquirer first(*limiter, milliseconds(50));
  clock_.Advance(milliseconds(50));
  EXPECT_EQ(first.Result().code(), StatusCode::kDeadlineExceeded);  // Overloaded from t = 50.
  QueuedAcquirer late(*limiter, std::chrono::hours(1));
  clock_.Advance(milliseconds(9));
  EXPECT_EQ(limiter->queue_length(), 2u);
  clock_.Advance(milliseconds(1));
  EXPECT_EQ(late.Result().code(), StatusCode::kDeadlineExceeded);  // 10 ms, not an hour.
  EXPECT_EQ(limiter->queue_length(), 1u);  // The patient waiter keeps its own deadline.
  held.reset();
  EXPECT_TRUE(patient.Result().ok());
  EXPECT_EQ(observer_.failures(AcquireFailure::kTimeout), 2);
}

TEST_F(LimiterTest, AWindowWithoutTimeoutsEndsTheOverload) {
  auto limiter =
      MakeLimiter(1, {.overload_wait = milliseconds(10), .overload_window = milliseconds(100)});
  std::optional<Permit> held = limiter->TryAcquire();
  {
    QueuedAcquirer first(*limiter, milliseconds(50));
    clock_.Advance(milliseconds(50));
    EXPECT_EQ(first.Result().code(), StatusCode::kDeadlineExceeded);  // The last timeout: t = 50.
  }
  clock_.Advance(milliseconds(99));
  QueuedAcquirer shed(*limiter, std::chrono::hours(1));  // t = 149: still within the window.
  clock_.Advance(milliseconds(10));
  EXPECT_EQ(shed.Result().code(), StatusCode::kDeadlineExceeded);  // Cut short at t = 159.
  // That wait was cut, not waited out: the window ran from t = 50 and is over.
  QueuedAcquirer calm(*limiter, std::chrono::hours(1));  // t = 159.
  clock_.Advance(milliseconds(20));
  EXPECT_EQ(limiter->queue_length(), 1u);  // Not cut to 10 ms.
  held.reset();
  EXPECT_TRUE(calm.Result().ok());
}

TEST_F(LimiterTest, AWaitThatRunsOutItsOwnShortDeadlineKeepsTheOverload) {
  auto limiter =
      MakeLimiter(1, {.overload_wait = milliseconds(10), .overload_window = milliseconds(100)});
  std::optional<Permit> held = limiter->TryAcquire();
  {
    QueuedAcquirer first(*limiter, milliseconds(50));
    clock_.Advance(milliseconds(50));
    EXPECT_EQ(first.Result().code(), StatusCode::kDeadlineExceeded);  // t = 50.
  }
  clock_.Advance(milliseconds(95));
  {
    QueuedAcquirer brief(*limiter, milliseconds(5));  // t = 145: its own 5 ms, not cut.
    clock_.Advance(milliseconds(5));
    EXPECT_EQ(brief.Result().code(), StatusCode::kDeadlineExceeded);  // A timeout at t = 150.
  }
  clock_.Advance(milliseconds(50));
  QueuedAcquirer late(*limiter, std::chrono::hours(1));  // t = 200: within 100 ms of t = 150.
  clock_.Advance(milliseconds(10));
  EXPECT_EQ(late.Result().code(), StatusCode::kDeadlineExceeded);  // Cut to 10 ms.
}

TEST_F(LimiterTest, ACancelledWaiterIsNoSignOfOverload) {
  auto limiter =
      MakeLimiter(1, {.overload_wait = milliseconds(10), .overload_window = milliseconds(100)});
  std::optional<Permit> held = limiter->TryAcquire();
  {
    QueuedAcquirer cancelled(*limiter, std::chrono::hours(1));
    limiter->CancelWaiters();
    EXPECT_EQ(cancelled.Result().code(), StatusCode::kCancelled);
  }
  EXPECT_EQ(limiter->Acquire(clock_.Now()).status().code(), StatusCode::kDeadlineExceeded);
  QueuedAcquirer next(*limiter, std::chrono::hours(1));  // Neither failure above was a wait.
  clock_.Advance(milliseconds(20));
  EXPECT_EQ(limiter->queue_length(), 1u);
  held.reset();
  EXPECT_TRUE(next.Result().ok());
}

// Queues `n` blocking acquirers one after another and returns the order in which they are
// granted as the limiter's single permit is passed on.
std::vector<int> GrantOrder(Limiter& limiter, int n) {
  std::optional<Permit> held = limiter.TryAcquire();
  std::mutex mu;
  std::vector<int> order;
  std::vector<std::thread> waiters;
  for (int i = 0; i < n; ++i) {
    waiters.emplace_back([&, i] {
      StatusOr<Permit> p = limiter.Acquire(std::chrono::hours(1));
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(i);
    });  // The permit is released when the thread's StatusOr dies, after recording.
    while (limiter.queue_length() != static_cast<size_t>(i + 1)) std::this_thread::yield();
  }
  held.reset();
  for (auto& t : waiters) t.join();
  return order;
}

TEST_F(LimiterTest, FifoGrantsInArrivalOrder) {
  auto limiter = MakeLimiter(1);
  EXPECT_EQ(GrantOrder(*limiter, 4), (std::vector<int>{0, 1, 2, 3}));
}

TEST_F(LimiterTest, LifoGrantsTheNewestFirst) {
  auto limiter = MakeLimiter(1, {.queue_order = QueueOrder::kLifo});
  EXPECT_EQ(GrantOrder(*limiter, 4), (std::vector<int>{3, 2, 1, 0}));
}

TEST_F(LimiterTest, AdaptiveGrantsInArrivalOrderUntilAWaitRunsOut) {
  auto limiter = MakeLimiter(1, {.queue_order = QueueOrder::kAdaptive,
                                 .overload_window = milliseconds(100)});
  EXPECT_EQ(GrantOrder(*limiter, 4), (std::vector<int>{0, 1, 2, 3}));
  std::optional<Permit> held = limiter->TryAcquire();
  {
    QueuedAcquirer first(*limiter, milliseconds(50));
    clock_.Advance(milliseconds(50));
    EXPECT_EQ(first.Result().code(), StatusCode::kDeadlineExceeded);  // Overloaded from t = 50.
  }
  held.reset();
  EXPECT_EQ(GrantOrder(*limiter, 4), (std::vector<int>{3, 2, 1, 0}));  // Newest first.
  clock_.Advance(milliseconds(100));
  EXPECT_EQ(GrantOrder(*limiter, 4), (std::vector<int>{0, 1, 2, 3}));  // A calm window later.
}

TEST_F(LimiterTest, WaitersWakeWhenTheLimitGrows) {
  // The first sample raises the limit from 1 to 3: the released slot goes to one waiter and the
  // two new slots to the others. Without a wake-up on limit increase two would stay queued.
  script_->next_limit = [](int, const Sample&) { return 3; };
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  std::vector<std::thread> waiters;
  std::vector<std::optional<Permit>> granted(3);
  for (int i = 0; i < 3; ++i) {
    waiters.emplace_back([&, i] {
      StatusOr<Permit> p = limiter->Acquire(std::chrono::hours(1));
      if (p.ok()) granted[i] = *std::move(p);
    });
  }
  AwaitQueueLength(*limiter, 3);
  held->Success();
  for (auto& t : waiters) t.join();
  for (const auto& p : granted) EXPECT_TRUE(p && p->valid());
  EXPECT_EQ(limiter->inflight(), 3);
}

TEST_F(LimiterTest, AtHighRatesOnlyOnePermitInStrideIsTimed) {
  auto limiter = MakeLimiter(8, {.full_sampling_rate = 1000.0});
  auto complete = [&](int n, Duration each) {
    for (int i = 0; i < n; ++i) {
      Permit p = *limiter->TryAcquire();
      clock_.Advance(each);
      p.Success();
    }
  };
  // 1 million completions per second of fake time, 1000x the full-sampling rate: after one
  // 10 ms rate window, the stride is the largest power of two <= 1000.
  complete(10001, std::chrono::microseconds(1));
  EXPECT_EQ(limiter->sample_stride(), 512u);
  size_t before = script_->Samples().size();
  complete(10000, std::chrono::microseconds(1));
  std::vector<Sample> samples = script_->Samples();
  size_t timed = samples.size() - before;
  EXPECT_GE(timed, 10000u / 512);
  EXPECT_LE(timed, 10000u / 512 + 2);
  // Weighted, the timed samples account for the completions they stand for.
  uint64_t weighted = 0;
  for (size_t i = before; i < samples.size(); ++i) weighted += samples[i].weight;
  EXPECT_NEAR(static_cast<double>(weighted), 10000.0, 512.0);

  // When the rate falls, a permit granted 20 ms (by the coarse clock) after the last sample is
  // timed whatever the stride (one grant in 4 looks at the clock), so the limiter notices
  // within a few dozen completions instead of 512 grants later, and times every permit again.
  complete(40, milliseconds(30));
  EXPECT_EQ(limiter->sample_stride(), 1u);
  EXPECT_EQ(script_->Samples().back().weight, 1u);
}

TEST(LimiterOptionsTest, RejectsABadSamplingRate) {
  LimiterOptions options;
  options.full_sampling_rate = 0;
  EXPECT_EQ(options.Validate().code(), StatusCode::kInvalidArgument);
  options.full_sampling_rate = std::numeric_limits<double>::infinity();
  StatusOr<std::unique_ptr<Limiter>> limiter = Limiter::Create(std::move(options));
  EXPECT_EQ(limiter.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(limiter.status().message().find("full_sampling_rate"), std::string_view::npos);
}

TEST_F(LimiterTest, RefusalsForLoadAreOverloadAndCancellationIsNot) {
  auto limiter = MakeLimiter(1, {.max_queue = 0});
  std::optional<Permit> held = limiter->TryAcquire();
  EXPECT_TRUE(IsOverload(limiter->Acquire(std::chrono::hours(1)).status()));  // Queue full.
  EXPECT_TRUE(IsOverload(limiter->Acquire(clock_.Now()).status()));  // Past its deadline.
  std::optional<Permit> none = limiter->TryAcquire();
  EXPECT_FALSE(none.has_value());
  std::stop_source stop;
  stop.request_stop();
  EXPECT_FALSE(IsOverload(limiter->Acquire(std::chrono::hours(1), stop.get_token()).status()));
}

TEST(LimiterOptionsTest, RejectsANegativeOverloadWait) {
  StatusOr<std::unique_ptr<Limiter>> limiter = Limiter::Create({.overload_wait = milliseconds(-1)});
  ASSERT_EQ(limiter.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(limiter.status().message().find("overload_wait"), std::string_view::npos)
      << limiter.status();
}

TEST(LimiterOptionsTest, WithoutAnAlgorithmTheDefaultIsUsed) {
  StatusOr<std::unique_ptr<Limiter>> limiter = Limiter::Create({});
  ASSERT_TRUE(limiter.ok()) << limiter.status();
  EXPECT_EQ((*limiter)->algorithm_name(), MakeDefaultAlgorithm()->name());
  EXPECT_EQ((*limiter)->limit(), MakeDefaultAlgorithm()->limit());
}

TEST(LimiterOptionsTest, RejectsAnAlgorithmWhoseLimitIsOutOfRange) {
  LimiterOptions options;
  options.algorithm = std::make_unique<ScriptedAlgorithm>(0, std::make_shared<Script>());
  EXPECT_EQ(Limiter::Create(std::move(options)).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace blobtune::tuner
