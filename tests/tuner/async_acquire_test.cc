#include "blobtune/tuner/async_acquire.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <future>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "common/fake_clock.h"
#include "scripted_algorithm.h"

namespace blobtune::tuner {
namespace {

namespace asio = boost::asio;
using std::chrono::hours;
using std::chrono::milliseconds;
using testing::Script;
using testing::ScriptedAlgorithm;

class AsyncAcquireTest : public ::testing::Test {
 protected:
  std::unique_ptr<Limiter> MakeLimiter(int limit, size_t max_queue = 16) {
    auto limiter = Limiter::Create({.algorithm = std::make_unique<ScriptedAlgorithm>(limit, script_),
                                    .clock = &clock_,
                                    .max_queue = max_queue});
    EXPECT_TRUE(limiter.ok()) << limiter.status();
    return std::move(limiter).value();
  }

  // Starts an acquire whose result lands in `out`, and runs the io_context until the operation
  // is queued (or already done).
  void StartAcquire(Limiter& limiter, TimePoint deadline, std::optional<StatusOr<Permit>>& out,
                    std::stop_token stop = {}) {
    AsyncAcquire(limiter, PartitionId{}, io_.get_executor(), deadline, std::move(stop),
                 [&out](StatusOr<Permit> result) { out.emplace(std::move(result)); });
    io_.poll();
    io_.restart();
  }

  void RunUntilDone() {
    io_.run();
    io_.restart();
  }

  FakeClock clock_;
  std::shared_ptr<Script> script_ = std::make_shared<Script>();
  asio::io_context io_;
};

TEST_F(AsyncAcquireTest, AFreeSlotCompletesWithoutWaitingButNeverInline) {
  auto limiter = MakeLimiter(1);
  std::optional<StatusOr<Permit>> result;
  AsyncAcquire(*limiter, io_.get_executor(), hours(1),
               [&result](StatusOr<Permit> r) { result.emplace(std::move(r)); });
  EXPECT_FALSE(result.has_value()) << "the handler ran inside the initiating call";
  RunUntilDone();
  ASSERT_TRUE(result && result->ok());
  EXPECT_EQ(limiter->inflight(), 1);
}

TEST_F(AsyncAcquireTest, AWaiterIsGrantedWhenAPermitIsReleased) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  std::optional<StatusOr<Permit>> result;
  StartAcquire(*limiter, clock_.Now() + hours(1), result);
  EXPECT_EQ(limiter->queue_length(), 1u);
  EXPECT_FALSE(result.has_value());
  held->Success();
  RunUntilDone();
  ASSERT_TRUE(result && result->ok()) << (result ? result->status().ToString() : "no result");
  EXPECT_EQ(limiter->inflight(), 1);
}

TEST_F(AsyncAcquireTest, AWaiterTimesOutOnTheFakeClock) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  std::optional<StatusOr<Permit>> result;
  StartAcquire(*limiter, clock_.Now() + milliseconds(20), result);
  clock_.Advance(milliseconds(20));
  RunUntilDone();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status().code(), StatusCode::kDeadlineExceeded) << result->status();
  EXPECT_EQ(limiter->queue_length(), 0u);
}

TEST_F(AsyncAcquireTest, APastDeadlineWithNoSlotFailsWithoutQueueing) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  std::optional<StatusOr<Permit>> result;
  StartAcquire(*limiter, clock_.Now(), result);
  RunUntilDone();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status().code(), StatusCode::kDeadlineExceeded);
}

TEST_F(AsyncAcquireTest, AfterATimeoutTheWaitIsShortened) {
  auto limiter = Limiter::Create({.algorithm = std::make_unique<ScriptedAlgorithm>(1, script_),
                                  .clock = &clock_,
                                  .overload_wait = milliseconds(10),
                                  .overload_window = milliseconds(100)})
                     .value();
  std::optional<Permit> held = limiter->TryAcquire();
  std::optional<StatusOr<Permit>> patient, first, late;
  StartAcquire(*limiter, clock_.Now() + hours(1), patient);
  StartAcquire(*limiter, clock_.Now() + milliseconds(50), first);
  clock_.Advance(milliseconds(50));
  while (!first) io_.run_one();
  EXPECT_EQ(first->status().code(), StatusCode::kDeadlineExceeded) << first->status();
  StartAcquire(*limiter, clock_.Now() + hours(1), late);
  clock_.Advance(milliseconds(10));
  while (!late) io_.run_one();
  EXPECT_EQ(late->status().code(), StatusCode::kDeadlineExceeded) << late->status();
  EXPECT_FALSE(patient.has_value());
  held->Success();
  while (!patient) io_.run_one();
  EXPECT_TRUE(patient->ok()) << patient->status();
  // Both timeouts reach the algorithm with the next sample, the shortened one too.
  std::vector<Sample> samples = script_->Samples();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].expired, 2u);
}

TEST_F(AsyncAcquireTest, AStopRequestCancelsTheWait) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  std::stop_source stop;
  std::optional<StatusOr<Permit>> result;
  StartAcquire(*limiter, clock_.Now() + hours(1), result, stop.get_token());
  ASSERT_EQ(limiter->queue_length(), 1u);
  stop.request_stop();
  RunUntilDone();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status().code(), StatusCode::kCancelled);
  EXPECT_EQ(limiter->queue_length(), 0u);
}

TEST_F(AsyncAcquireTest, CancelWaitersCancelsAsyncWaiters) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  std::optional<StatusOr<Permit>> a, b;
  StartAcquire(*limiter, clock_.Now() + hours(1), a);
  StartAcquire(*limiter, clock_.Now() + hours(1), b);
  limiter->CancelWaiters();
  RunUntilDone();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->status().code(), StatusCode::kCancelled);
  EXPECT_EQ(b->status().code(), StatusCode::kCancelled);
}

TEST_F(AsyncAcquireTest, AFullQueueIsResourceExhausted) {
  auto limiter = MakeLimiter(1, /*max_queue=*/1);
  std::optional<Permit> held = limiter->TryAcquire();
  std::optional<StatusOr<Permit>> first, second;
  StartAcquire(*limiter, clock_.Now() + hours(1), first);
  StartAcquire(*limiter, clock_.Now() + hours(1), second);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status().code(), StatusCode::kResourceExhausted);
  limiter->CancelWaiters();
  RunUntilDone();
}

TEST_F(AsyncAcquireTest, AnAbandonedOperationGivesItsGrantedSlotBack) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  {
    asio::io_context doomed;
    AsyncAcquire(*limiter, doomed.get_executor(), hours(1), [](StatusOr<Permit>) {
      ADD_FAILURE() << "the handler of an abandoned operation ran";
    });
    doomed.poll();
    ASSERT_EQ(limiter->queue_length(), 1u);
    held->Success();  // Granted to the queued operation, which will never run again.
    EXPECT_EQ(limiter->inflight(), 1);
  }  // Destroying the io_context destroys the operation.
  EXPECT_EQ(limiter->inflight(), 0);
  EXPECT_EQ(limiter->queue_length(), 0u);
}

TEST_F(AsyncAcquireTest, AnAbandonedWaitingOperationLeavesTheQueue) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  {
    asio::io_context doomed;
    AsyncAcquire(*limiter, doomed.get_executor(), hours(1), [](StatusOr<Permit>) {});
    doomed.poll();
    ASSERT_EQ(limiter->queue_length(), 1u);
  }
  EXPECT_EQ(limiter->queue_length(), 0u);
  held->Success();
  EXPECT_EQ(limiter->inflight(), 0);
}

TEST_F(AsyncAcquireTest, WorksWithUseFuture) {
  auto limiter = MakeLimiter(1);
  std::optional<Permit> held = limiter->TryAcquire();
  auto work = asio::make_work_guard(io_);
  std::thread runner([this] { io_.run(); });
  std::future<StatusOr<Permit>> future =
      AsyncAcquire(*limiter, io_.get_executor(), hours(1), asio::use_future);
  while (limiter->queue_length() != 1) std::this_thread::yield();
  held->Success();
  StatusOr<Permit> permit = future.get();
  EXPECT_TRUE(permit.ok()) << permit.status();
  work.reset();
  runner.join();
}

TEST_F(AsyncAcquireTest, WorksWithUseAwaitable) {
  auto limiter = MakeLimiter(2);
  int granted = 0;
  auto acquire_twice = [&]() -> asio::awaitable<void> {
    auto ex = co_await asio::this_coro::executor;
    StatusOr<Permit> a = co_await AsyncAcquire(*limiter, ex, hours(1), asio::use_awaitable);
    StatusOr<Permit> b = co_await AsyncAcquire(*limiter, ex, hours(1), asio::use_awaitable);
    granted = a.ok() + b.ok();
    StatusOr<Permit> c = co_await AsyncAcquire(*limiter, ex, clock_.Now(), asio::use_awaitable);
    EXPECT_EQ(c.status().code(), StatusCode::kDeadlineExceeded);
  };
  asio::co_spawn(io_, acquire_twice(), asio::detached);
  RunUntilDone();
  EXPECT_EQ(granted, 2);
  EXPECT_EQ(limiter->inflight(), 0);
}

// Many coroutines on a two-thread pool contend for 3 permits with deadlines and stop requests;
// every permit comes back and nobody stays queued. Meant for TSan.
TEST(AsyncAcquireStressTest, ConservesPermitsOnAThreadPool) {
  FakeClock clock;
  auto limiter = Limiter::Create({.algorithm = std::make_unique<ScriptedAlgorithm>(
                                      3, std::make_shared<Script>()),
                                  .clock = &clock,
                                  .max_queue = 64})
                     .value();
  asio::thread_pool pool(2);
  std::atomic<int> holders{0}, violations{0}, finished{0};
  constexpr int kTasks = 200;
  std::vector<std::stop_source> stops(kTasks);
  for (int i = 0; i < kTasks; ++i) {
    asio::co_spawn(
        pool,
        [&, i]() -> asio::awaitable<void> {
          auto ex = co_await asio::this_coro::executor;
          for (int round = 0; round < 5; ++round) {
            StatusOr<Permit> p =
                co_await AsyncAcquire(*limiter, PartitionId{}, ex, clock.Now() + milliseconds(2),
                                      stops[i].get_token(), asio::use_awaitable);
            if (p.ok()) {
              if (holders.fetch_add(1) + 1 > 3) violations++;
              clock.Advance(std::chrono::microseconds(100));
              holders.fetch_sub(1);
              p->Success();
            }
          }
          finished++;
        },
        asio::detached);
  }
  std::mt19937 rng(5);
  while (finished.load() < kTasks) {
    stops[rng() % kTasks].request_stop();
    clock.Advance(std::chrono::microseconds(50));
    std::this_thread::yield();
  }
  pool.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(limiter->inflight(), 0);
  EXPECT_EQ(limiter->queue_length(), 0u);
}

}  // namespace
}  // namespace blobtune::tuner
