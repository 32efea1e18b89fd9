// Randomized stress of the Limiter: many threads acquire (without waiting, waiting with
// deadlines, waiting with stop tokens), release with every outcome, time out and get cancelled,
// while the limit is fixed or moves under them. Checked throughout: holders never exceed the
// limit; at the end: every permit came back, nobody is left queued, and every attempt was
// accounted for exactly once. Run under TSan in CI.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <random>
#include <stop_token>
#include <thread>
#include <vector>

#include "blobtune/tuner/limiter.h"
#include "common/fake_clock.h"
#include "common/stop_board.h"
#include "scripted_algorithm.h"

namespace blobtune::tuner {
namespace {

using std::chrono::microseconds;
using testing::Script;
using testing::ScriptedAlgorithm;

class TallyObserver final : public LimiterObserver {
 public:
  void OnGranted(PartitionId, Duration) override { granted++; }
  void OnAcquireFailed(PartitionId, AcquireFailure) override { failed++; }
  void OnReleased(PartitionId, PermitOutcome, const Sample*) override { released++; }
  std::atomic<int64_t> granted{0};
  std::atomic<int64_t> failed{0};
  std::atomic<int64_t> released{0};
};

struct StressConfig {
  int threads = 6;
  int iterations = 4000;
  int initial_limit = 4;
  bool moving_limit = false;
  QueueOrder order = QueueOrder::kFifo;
};

void RunStress(const StressConfig& config) {
  FakeClock clock;
  TallyObserver observer;
  auto script = std::make_shared<Script>();
  std::mt19937_64 limit_rng(7);
  std::atomic<int> max_limit_seen{config.initial_limit};
  if (config.moving_limit) {
    // Called under the script's mutex: the limit wanders over [1, 6].
    script->next_limit = [&limit_rng, &max_limit_seen](int, const Sample&) {
      int next = 1 + static_cast<int>(limit_rng() % 6);
      int seen = max_limit_seen.load();
      while (next > seen && !max_limit_seen.compare_exchange_weak(seen, next)) {
      }
      return next;
    };
  }
  auto created = Limiter::Create({.algorithm = std::make_unique<ScriptedAlgorithm>(
                                      config.initial_limit, script),
                                  .clock = &clock,
                                  .observer = &observer,
                                  .max_queue = 4,
                                  .queue_order = config.order});
  ASSERT_TRUE(created.ok()) << created.status();
  Limiter& limiter = **created;

  std::atomic<int> holders{0};
  std::atomic<int> violations{0};
  std::atomic<int64_t> attempts{0};
  std::atomic<bool> done{false};
  StopBoard stops(config.threads);

  auto hold = [&](Permit permit, std::mt19937_64& rng) {
    int now_holding = holders.fetch_add(1) + 1;
    // With a fixed limit no more than `limit` may hold permits; with a moving one, never more
    // than the largest limit ever set.
    if (now_holding > max_limit_seen.load()) violations++;
    if (permit.inflight_at_grant() > max_limit_seen.load()) violations++;
    clock.Advance(microseconds(rng() % 50));
    for (uint64_t spins = rng() % 4; spins > 0; --spins) std::this_thread::yield();
    holders.fetch_sub(1);
    switch (rng() % 3) {
      case 0: permit.Success(rng() % 4096); break;
      case 1: permit.Dropped(); break;
      default: break;  // Ignored by the destructor.
    }
  };

  std::latch start(config.threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < config.threads; ++t) {
    workers.emplace_back([&, t] {
      std::mt19937_64 rng(1000 + t);
      start.arrive_and_wait();
      for (int i = 0; i < config.iterations; ++i) {
        attempts++;
        switch (rng() % 4) {
          case 0: {
            std::optional<Permit> p = limiter.TryAcquire();
            if (p) hold(std::move(*p), rng);
            break;
          }
          case 1: {
            StatusOr<Permit> p = limiter.Acquire(clock.Now() + microseconds(rng() % 200));
            if (p.ok()) hold(*std::move(p), rng);
            break;
          }
          default: {
            StatusOr<Permit> p =
                limiter.Acquire(clock.Now() + microseconds(500), stops.Fresh(t));
            if (p.ok()) hold(*std::move(p), rng);
            break;
          }
        }
        clock.Advance(microseconds(1));
      }
    });
  }
  std::thread canceller([&] {
    std::mt19937_64 rng(99);
    while (!done.load()) {
      if (rng() % 8 == 0) {
        limiter.CancelWaiters();
      } else {
        stops.Stop(rng() % config.threads);
      }
      clock.Advance(microseconds(20));
      std::this_thread::yield();
    }
  });
  for (auto& w : workers) w.join();
  done = true;
  canceller.join();

  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(limiter.inflight(), 0) << "a permit leaked";
  EXPECT_EQ(limiter.queue_length(), 0u) << "a waiter was left queued";
  EXPECT_EQ(observer.granted.load(), observer.released.load());
  // TryAcquire rejections are failures too, so every attempt ends exactly once.
  EXPECT_EQ(observer.granted.load() + observer.failed.load(), attempts.load());
  EXPECT_GT(observer.granted.load(), 0);
  EXPECT_GT(observer.failed.load(), 0);
}

TEST(LimiterStressTest, FixedLimitNeverOverAdmitsAndConservesPermits) {
  RunStress({.moving_limit = false});
}

TEST(LimiterStressTest, MovingLimitConservesPermits) { RunStress({.moving_limit = true}); }

TEST(LimiterStressTest, LifoQueueConservesPermits) {
  RunStress({.moving_limit = true, .order = QueueOrder::kLifo});
}

TEST(LimiterStressTest, LimitOfOneWithManyContenders) {
  RunStress({.threads = 8, .iterations = 2000, .initial_limit = 1});
}

}  // namespace
}  // namespace blobtune::tuner
