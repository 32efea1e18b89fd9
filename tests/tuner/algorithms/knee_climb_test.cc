// The knee algorithm's throughput climb (KneeLimit::Options::climb), against the
// deterministic closed loops of closed_loop.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string_view>
#include <vector>

#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/algorithms/fixed.h"
#include "blobtune/tuner/algorithms/knee.h"
#include "closed_loop.h"

namespace blobtune::tuner {
namespace {

using namespace std::chrono_literals;
using testing::ClosedLoop;

// Group commit: 10 ms per batch plus 0.1 ms per access. Goodput L / (10 ms + L * 0.1 ms):
// 99/s at 1, 1,379/s at 16, 6,667/s at 200, 8,000/s at 400. A step of 25% more limit gains
// 1.25 (10 + 0.1 L) / (10 + 0.125 L) - 1, at least 1.5% (the climb's minimum gain) up to
// L = 1,253.
ClosedLoop GroupCommitLoop() { return ClosedLoop::GroupCommit(10ms, 100us); }

double Goodput(const ClosedLoop& loop, int limit) {
  return limit / std::chrono::duration<double>(loop.LatencyAt(limit)).count();
}

using Climb = KneeLimit::Options::Climb;

TEST(KneeClimbTest, NeverClimbingTheLimitStaysAtTheKnee) {
  KneeLimit knee = KneeLimit::Create({.max_limit = 400, .climb = Climb::kNever}).value();
  ClosedLoop loop = GroupCommitLoop();
  for (int i = 0; i < 30; ++i) {
    loop.Run(knee, 100);
    EXPECT_NE(knee.estimates().state, "climbing");
  }
  // W0 = 10.1 ms (measured at limit 1); slow start stops at 16 (11.6 ms > 1.1 W0), where
  // B = 1,379/s * 10.1 ms = 13.9 and the target B + 0.5 sqrt(B) = 15.8.
  EXPECT_GE(knee.limit(), 12);
  EXPECT_LE(knee.limit(), 20);
}

TEST(KneeClimbTest, ClimbsWhileGoodputConfirmsEachStep) {
  // By default: the loop's completions come in batches (a round's all end at once).
  KneeLimit knee = KneeLimit::Create({.max_limit = 400}).value();
  EXPECT_EQ(knee.options().climb, Climb::kWhenBatched);
  ClosedLoop loop = GroupCommitLoop();
  // Slow start ends at 16 (see above); the climb starts from there.
  for (int i = 0;
       i < 200 && (knee.estimates().state == "startup" || knee.estimates().state == "growing");
       ++i) {
    loop.Run(knee, 1);
  }
  ASSERT_EQ(knee.estimates().state, "tracking");
  ASSERT_LE(knee.limit(), 20);
  bool saw_climbing = false;
  bool saw_half_step = false;
  int previous = knee.limit();
  for (int i = 0; i < 4000; ++i) {
    const bool was_climbing = knee.estimates().state == "climbing";
    loop.Run(knee, 1);
    const bool climbing = knee.estimates().state == "climbing";
    saw_climbing = saw_climbing || climbing;
    // A trial moves the limit by a quarter of it (rounded), or by half after a step that gained
    // 10% (16 -> 20 gains 21% here, and steps of half keep gaining 10% up to 267); the control
    // law by a tenth.
    EXPECT_LE(knee.limit(), previous + std::max(1, (previous + 1) / 2) + previous / 10 + 1);
    if (was_climbing && climbing && previous >= 16) {
      saw_half_step = saw_half_step || knee.limit() - previous >= previous * 2 / 5;
    }
    previous = knee.limit();
  }
  EXPECT_TRUE(saw_climbing);
  EXPECT_TRUE(saw_half_step);
  // Each step of 25% pays at least 1.5% up to 1,253: the limit climbs from 16 to the ceiling
  // (400; the last step, 364 -> 400, pays 1.98%) and holds near it between trials.
  for (int i = 0; i < 100; ++i) {
    loop.Run(knee, 10);
    if (knee.estimates().state == "climbing") continue;
    EXPECT_GE(knee.limit(), 320);
    EXPECT_GE(Goodput(loop, knee.limit()), 0.95 * Goodput(loop, 400));
  }
}

TEST(KneeClimbTest, ForgetsTheClimbWhenCompletionsStopComingInBatches) {
  KneeLimit knee = KneeLimit::Create({.max_limit = 400}).value();
  ClosedLoop loop = GroupCommitLoop();
  loop.Run(knee, 3000);
  ASSERT_GE(knee.limit(), 200);
  // The same goodput curve, but completions spread over each round: no batch to be seen, so
  // the limit goes back to the knee's own target (16, see above), halving at most per window
  // (a round of 364 accesses, 46 ms, holds two windows of at least 2 W0 = 20 ms).
  loop.set_batched(false);
  int previous = knee.limit();
  for (int i = 0; i < 300; ++i) {
    loop.Run(knee, 1);
    EXPECT_GE(knee.limit(), (previous + 3) / 4);
    previous = knee.limit();
  }
  EXPECT_LE(knee.limit(), 20);
  EXPECT_NE(knee.estimates().state, "climbing");
}

TEST(KneeClimbTest, SpreadCompletionsDoNotClimbByDefault) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);  // Knee at 10 accesses; completions spread evenly.
  for (int i = 0; i < 60; ++i) {
    loop.Run(knee, 100);
    EXPECT_NE(knee.estimates().state, "climbing");
  }
  EXPECT_GE(knee.limit(), 11);
  EXPECT_LE(knee.limit(), 13);
}

TEST(KneeClimbTest, FlatGoodputKeepsTheKneeAndTrialsGrowRare) {
  KneeLimit knee = KneeLimit::Create({.climb = Climb::kAlways}).value();
  ClosedLoop loop(10ms, 1ms);  // Knee at 10 accesses; goodput flat at 1,000/s past it.
  loop.Run(knee, 200);
  const int settled = knee.limit();
  EXPECT_GE(settled, 11);
  EXPECT_LE(settled, 13);
  // Count trials (rounds that start above the settled limit after one that did not) and the
  // rounds between them.
  std::vector<int> trial_starts;
  bool above = false;
  for (int round = 0; round < 6000; ++round) {
    loop.Run(knee, 1);
    const bool now_above = knee.limit() > settled;
    if (now_above && !above) trial_starts.push_back(round);
    above = now_above;
    EXPECT_GE(knee.limit(), settled);  // No trial goes down: nothing was climbed.
  }
  EXPECT_EQ(knee.limit(), settled);
  // A trial that does not pay doubles the wait for the next (16, 32, ... 512 windows): the
  // gaps between trials grow, then stay (give or take a round).
  ASSERT_GE(trial_starts.size(), 4u);
  EXPECT_LE(trial_starts.size(), 10u);
  for (size_t i = 2; i < trial_starts.size(); ++i) {
    EXPECT_GE(trial_starts[i] - trial_starts[i - 1], trial_starts[i - 1] - trial_starts[i - 2] - 1)
        << "trial " << i;
  }
  EXPECT_GE(trial_starts[3] - trial_starts[2], 2 * (trial_starts[1] - trial_starts[0]));
}

TEST(KneeClimbTest, AClimbPastTheLatencyCapTurnsShared) {
  // W0 = 10.1 ms; the latency cap of 9 W0 (91 ms) is reached at a limit of 809. Goodput alone
  // would carry the climb on to 1,253 (135 ms): each step up to there gains 1.5% or more. The
  // step that passes the cap turns the climb shared, as it would with other limiters on the
  // resource (a limiter cannot tell its own accesses from theirs when they step together), and
  // the shared climb settles where c = W0 / (0.004 W): at 163 (26 ms), below the cap.
  KneeLimit knee = KneeLimit::Create({.max_limit = 2000}).value();
  ClosedLoop loop = GroupCommitLoop();
  loop.Run(knee, 3000);
  const Duration cap = 9 * loop.LatencyAt(1);
  for (int i = 0; i < 300; ++i) {
    EXPECT_LE(loop.LatencyAt(loop.Run(knee, 10)), cap);
    // No more trials.
    EXPECT_NE(knee.estimates().state, "climbing");
    EXPECT_GE(knee.limit(), 140);
    EXPECT_LE(knee.limit(), 190);
  }
}

TEST(KneeClimbTest, LimitersSharingABatchStopClimbingAndShareEvenly) {
  // Three limiters in front of one group-commit writer, joining in different rounds. A step of
  // one takes the others' share, so its goodput rises with every step, and without the shared
  // climb all three go to max_limit (latency 308 ms). Latency past the cap (9 W0 = 91 ms)
  // turns each climb shared, whoever's step took it there, and the shared climb settles at an
  // even split well below the cap, whichever limiter climbed furthest before.
  const std::vector<std::vector<int>> join_orders = {{0, 1, 2}, {0, 3, 6}, {0, 5, 10}, {0, 10, 20}};
  for (const std::vector<int>& joins_at : join_orders) {
    SCOPED_TRACE(::testing::Message() << "joins at rounds " << joins_at[0] << ", " << joins_at[1]
                                      << ", " << joins_at[2]);
    std::vector<KneeLimit> knees(3, KneeLimit::Create({.max_limit = 1000}).value());
    std::vector<LimitAlgorithm*> algorithms;
    for (KneeLimit& knee : knees) algorithms.push_back(&knee);
    ClosedLoop loop = GroupCommitLoop();
    loop.RunShared(algorithms, 3000, joins_at);
    const Duration cap = 9 * loop.LatencyAt(1);
    for (int i = 0; i < 100; ++i) {
      const int max_total = loop.RunShared(algorithms, 10);
      EXPECT_LE(loop.LatencyAt(max_total), cap);
      int lowest = knees[0].limit();
      int highest = knees[0].limit();
      for (const KneeLimit& knee : knees) {
        EXPECT_NE(knee.estimates().state, "climbing");
        // Above the knee's own target (about 5 each).
        EXPECT_GE(knee.limit(), 50);
        lowest = std::min(lowest, knee.limit());
        highest = std::max(highest, knee.limit());
      }
      // Within 15% of each other.
      EXPECT_LE(highest, 1.15 * lowest);
    }
  }
}

// A resource of 4 ms at no load and 1 ms per access in flight (1,000/s: a knee at 4), with
// latency that varies (cv 0.3), measured by knee alone, after which other clients come to keep
// `others` accesses in flight on it, one more every 10 rounds (gradually: no sudden slowdown).
// Then 600 rounds with `expired` callers giving up per round; returns the limits of the last
// 100.
std::vector<int> LimitsBesideOthers(KneeLimit& knee, int others, uint32_t expired,
                                    bool* saw_climbing) {
  ClosedLoop loop(4ms, 1ms);
  loop.set_jitter(0.3);
  loop.Run(knee, 300);
  for (int n = 1; n <= others; ++n) {
    loop.set_others(n);
    loop.Run(knee, 10);
  }
  loop.set_expired_per_round(expired);
  std::vector<int> limits;
  *saw_climbing = false;
  for (int i = 0; i < 600; ++i) {
    loop.Run(knee, 1);
    if (i >= 500) limits.push_back(knee.limit());
    *saw_climbing = *saw_climbing || knee.estimates().state == "climbing";
  }
  return limits;
}

TEST(KneeClimbTest, ClimbsWhereCallersGiveUpWhileOthersQueue) {
  // Beside ten others, knee's target is about 2 (W0 = 4 ms, W = 12 ms: B = 0.67, h = 1.4), and
  // its goodput 2 / 12 ms = 167/s. Callers that give up (a third of the arrivals) allow a
  // trial, since 12 ms > 2 * W0 (others queue: our own two cannot take that long), and 3 serves
  // 3 / 13 ms = 231/s: the trial keeps it. A trial starts only while latency exceeds
  // limit * W0, which it cannot at 4 (14 ms < 16 ms): the climb ends at 3 or 4. (At 3 here: the
  // loop's alternating jitter reads 13 ms as 11.7 over rounds of three, below 3 * W0.)
  bool saw_climbing = false;
  KneeLimit without = KneeLimit::Create({}).value();
  for (int limit : LimitsBesideOthers(without, 10, 0, &saw_climbing)) EXPECT_EQ(limit, 2);
  EXPECT_FALSE(saw_climbing);
  KneeLimit with = KneeLimit::Create({}).value();
  for (int limit : LimitsBesideOthers(with, 10, 1, &saw_climbing)) {
    EXPECT_GE(limit, 3);
    EXPECT_LE(limit, 4);
  }
  EXPECT_TRUE(saw_climbing);
  // Climb::kNever turns it off.
  KneeLimit never = KneeLimit::Create({.climb = Climb::kNever}).value();
  for (int limit : LimitsBesideOthers(never, 10, 1, &saw_climbing)) EXPECT_EQ(limit, 2);
  EXPECT_FALSE(saw_climbing);
}

TEST(KneeClimbTest, CallersThatGiveUpOnAResourceOfOurOwnStartNoTrial) {
  // Alone on the resource, latency never exceeds limit * W0 (each of our accesses is served
  // within W0): however many callers give up, a higher limit would only queue.
  bool saw_climbing = false;
  KneeLimit without = KneeLimit::Create({}).value();
  const std::vector<int> limits = LimitsBesideOthers(without, 0, 0, &saw_climbing);
  KneeLimit with = KneeLimit::Create({}).value();
  EXPECT_EQ(LimitsBesideOthers(with, 0, 5, &saw_climbing), limits);
  EXPECT_FALSE(saw_climbing);
  EXPECT_GE(limits.back(), 5);
  EXPECT_LE(limits.back(), 8);
}

TEST(KneeClimbTest, RegistryTakesTheOptionAsZeroOneOrTwo) {
  StatusOr<std::unique_ptr<LimitAlgorithm>> always =
      MakeAlgorithm(ParseAlgorithmSpec("knee:climb=2").value());
  ASSERT_TRUE(always.ok()) << always.status();
  EXPECT_EQ(dynamic_cast<KneeLimit&>(**always).options().climb, Climb::kAlways);
  StatusOr<std::unique_ptr<LimitAlgorithm>> never =
      MakeAlgorithm(ParseAlgorithmSpec("knee:climb=0").value());
  ASSERT_TRUE(never.ok()) << never.status();
  EXPECT_EQ(dynamic_cast<KneeLimit&>(**never).options().climb, Climb::kNever);
  for (std::string_view bad_spec : {"knee:climb=3", "knee:climb=0.5", "knee:climb=-1"}) {
    StatusOr<std::unique_ptr<LimitAlgorithm>> bad =
        MakeAlgorithm(ParseAlgorithmSpec(bad_spec).value());
    ASSERT_FALSE(bad.ok()) << bad_spec;
    EXPECT_NE(bad.status().message().find("climb"), std::string_view::npos) << bad.status();
  }
}

}  // namespace
}  // namespace blobtune::tuner
