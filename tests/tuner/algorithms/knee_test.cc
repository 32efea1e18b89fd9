#include "blobtune/tuner/algorithms/knee.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <queue>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "blobtune/tuner/algorithm_registry.h"
#include "closed_loop.h"
#include "sample_maker.h"

namespace blobtune::tuner {
namespace {

using namespace std::chrono_literals;
using testing::ClosedLoop;
using testing::Drop;
using testing::Success;

// ---- Config ----

TEST(KneeLimitConfigTest, DefaultsAreValid) {
  const KneeLimit::Options defaults;
  EXPECT_EQ(defaults.initial_limit, 1);
  EXPECT_EQ(defaults.min_limit, 1);
  EXPECT_EQ(defaults.max_limit, 1000);
  EXPECT_EQ(defaults.headroom, 0.5);
  EXPECT_EQ(defaults.headroom_per_cv, 3);
  EXPECT_EQ(defaults.headroom_per_gap_deviation, 1.9);
  EXPECT_EQ(defaults.max_headroom, 3);
  EXPECT_TRUE(defaults.Validate().ok());
  const KneeLimit knee = KneeLimit::Create(defaults).value();
  EXPECT_EQ(knee.name(), "knee");
  EXPECT_EQ(knee.limit(), 1);
  EXPECT_EQ(knee.estimates().state, "startup");
}

void ExpectInvalid(const KneeLimit::Options& options, std::string_view field) {
  const Status status = options.Validate();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << field;
  EXPECT_NE(status.message().find(field), std::string_view::npos) << status;
  EXPECT_FALSE(KneeLimit::Create(options).ok());
}

TEST(KneeLimitConfigTest, RejectsBadFields) {
  ExpectInvalid({.min_limit = 0}, "min_limit");
  ExpectInvalid({.initial_limit = 2000}, "initial_limit");
  ExpectInvalid({.max_limit = 1000001}, "max_limit");
  ExpectInvalid({.headroom = -1}, "headroom");
  ExpectInvalid({.headroom = std::numeric_limits<double>::quiet_NaN()}, "headroom");
  ExpectInvalid({.headroom_per_cv = -1}, "headroom_per_cv");
  ExpectInvalid({.headroom_per_gap_deviation = 101}, "headroom_per_gap_deviation");
  ExpectInvalid({.headroom = 2, .max_headroom = 1}, "max_headroom");
  ExpectInvalid({.smoothing = 0}, "smoothing");
  ExpectInvalid({.window_rtts = 0}, "window_rtts");
  ExpectInvalid({.min_window_samples = 0}, "min_window_samples");
  ExpectInvalid({.max_window_time = 0ms}, "max_window_time");
  ExpectInvalid({.max_decrease = 1}, "max_decrease");
  ExpectInvalid({.max_decrease = 0}, "max_decrease");
  ExpectInvalid({.growth_factor = 0.5}, "growth_factor");
  ExpectInvalid({.growth_tolerance = -0.1}, "growth_tolerance");
}

TEST(KneeLimitConfigTest, RegistryBuildsItWithParameters) {
  StatusOr<std::unique_ptr<LimitAlgorithm>> knee =
      MakeAlgorithm(ParseAlgorithmSpec("knee:headroom=2,max_limit=64").value());
  ASSERT_TRUE(knee.ok()) << knee.status();
  EXPECT_EQ((*knee)->name(), "knee");
  EXPECT_FALSE(MakeAlgorithm(ParseAlgorithmSpec("knee:max_decrease=2").value()).ok());
}

// ---- Dynamics, against a deterministic closed loop ----

TEST(KneeLimitTest, RampsUpFastFromOneWhileLatencyIsFlat) {
  KneeLimit knee = KneeLimit::Create({.max_limit = 1000}).value();
  ClosedLoop loop(10ms, 10us);  // Knee at 1000 accesses: far away.
  loop.Run(knee, 50);           // The first window: half a second at limit 1 (kFirstWindowMaxTime).
  EXPECT_EQ(knee.limit(), 2);
  loop.Run(knee, 40);
  // Doubling per window of a few round trips, not +1 per round trip.
  EXPECT_GE(knee.limit(), 256);
  EXPECT_EQ(knee.estimates().state, "growing");
}

TEST(KneeLimitTest, SettlesJustAboveTheKneeAndHolds) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);  // B = 1000/s * 10 ms = 10 accesses.
  loop.Run(knee, 200);
  // Latency does not vary within a window (cv 0): B + headroom * sqrt(B) = 11.6.
  EXPECT_GE(knee.limit(), 11);
  EXPECT_LE(knee.limit(), 13);
  const int settled = knee.limit();
  for (int i = 0; i < 5; ++i) {
    loop.Run(knee, 40);
    EXPECT_EQ(knee.limit(), settled);  // No oscillation on a steady plant.
  }
  EXPECT_EQ(knee.estimates().state, "tracking");
  ASSERT_TRUE(knee.knee().has_value());
  EXPECT_NEAR(*knee.knee(), 10, 1);
  EXPECT_EQ(knee.estimates().baseline_latency, 10ms);
}

TEST(KneeLimitTest, BacksOffInProportionWithABoundedFactor) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);
  loop.Run(knee, 200);
  const int before = knee.limit();
  // The resource becomes 8x slower: the knee drops to about 1.25 accesses.
  loop.set_service(8ms);
  int lowest = before;
  int previous = before;
  for (int round = 0; round < 60; ++round) {
    loop.Run(knee, 1);
    // One window never cuts more than max_decrease (0.5) at once.
    EXPECT_GE(knee.limit(), (previous + 1) / 2);
    previous = knee.limit();
    lowest = std::min(lowest, knee.limit());
  }
  EXPECT_LT(knee.limit(), before);
  EXPECT_GE(lowest, 1);
  EXPECT_LE(knee.limit(), 4);  // B = 1.25: target 2.4.
}

TEST(KneeLimitTest, FastErrorsDoNotShrinkIt) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);
  loop.Run(knee, 200);
  const int settled = knee.limit();
  // Now every other access also fails in 0.1 ms (an error unrelated to load).
  Duration now = loop.now();
  for (int round = 0; round < 200; ++round) {
    const int limit = knee.limit();
    const Duration latency = loop.LatencyAt(limit);
    for (int i = 0; i < limit; ++i) {
      const Duration end = now + latency * (i + 1) / limit;
      knee.Update(Drop(end - 100us, 100us, limit));
      knee.Update(Success(end - latency, latency, limit));
    }
    now += latency;
  }
  EXPECT_GE(knee.limit(), settled - 1);
  EXPECT_EQ(knee.estimates().baseline_latency, 10ms);
}

// Every access holds its permit for `setup` before it reaches the resource (as a write permit
// taken while the request body arrives), then a resource that serves one access per `service`
// with a no-load latency of `w0`. Little's law over the whole time a permit is held gives the
// goodput; the samples' latency excludes the setup.
double RunWithSetup(KneeLimit& knee, Duration setup, bool report_setup, int rounds) {
  constexpr Duration kW0 = 2ms;
  constexpr Duration kService = 1ms;
  const double capacity = 1 / std::chrono::duration<double>(kService).count();
  Duration now = 1s;
  double goodput = 0;
  for (int round = 0; round < rounds; ++round) {
    const int limit = knee.limit();
    const double held_s = std::chrono::duration<double>(setup + kW0).count();
    goodput = std::min(limit / held_s, capacity);
    const Duration gap =
        std::chrono::duration_cast<Duration>(std::chrono::duration<double>(1 / goodput));
    const Duration latency = std::max(kW0, gap * limit - setup);
    for (int i = 0; i < limit; ++i) {
      Sample sample = Success(now + gap * (i + 1) - latency, latency, limit);
      if (report_setup) sample.setup = setup;
      knee.Update(sample);
    }
    now += gap * limit;
  }
  return goodput / capacity;
}

TEST(KneeLimitTest, CoversThePermitsHeldBeforeTheAccessStarts) {
  // 20 ms of setup + 2 ms at the resource: 22 permits keep it busy at 1,000/s.
  KneeLimit knee = KneeLimit::Create({}).value();
  const double utilisation = RunWithSetup(knee, 20ms, /*report_setup=*/true, 400);
  EXPECT_GE(utilisation, 0.97);
  EXPECT_GE(knee.limit(), 22);
  EXPECT_LE(knee.limit(), 26);  // B = 2, h = 0.5, d = 20: target 22.7.
  // Without the setup in its samples, knee sees a resource that is never busy (X * W = 0.1 of
  // a limit of 1) and the limit, not the resource, caps the goodput.
  KneeLimit blind = KneeLimit::Create({}).value();
  EXPECT_LT(RunWithSetup(blind, 20ms, /*report_setup=*/false, 400), 0.1);
}

// Callers that shed: Poisson arrivals at `rate` per second from `from` to `to`, each holding a
// permit for a fixed `hold` (a pure delay: the demand's concurrency is Poisson, mean
// rate * hold); an arrival that finds no free permit is refused and lost. Returns the refused
// fraction of the arrivals after `measure_from`. Accesses still running at `to` are dropped
// from the record (the next call starts with none in flight).
double RunSheddingCallers(KneeLimit& knee, double rate, Duration hold, bool report_refused,
                          Duration from, Duration to, Duration measure_from) {
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> gap_s(rate);
  auto ends_later = [](const Sample& a, const Sample& b) { return a.end() > b.end(); };
  std::priority_queue<Sample, std::vector<Sample>, decltype(ends_later)> running(ends_later);
  uint32_t refused_since_sample = 0;
  double arrivals = 0, refusals = 0;
  Duration now = from;
  while (now < to) {
    now += std::chrono::duration_cast<Duration>(std::chrono::duration<double>(gap_s(rng)));
    while (!running.empty() && running.top().end() <= TimePoint(now)) {
      Sample sample = running.top();
      running.pop();
      if (report_refused) sample.refused = std::exchange(refused_since_sample, 0);
      knee.Update(sample);
    }
    const bool counted = now >= measure_from;
    arrivals += counted;
    if (static_cast<int>(running.size()) >= knee.limit()) {
      ++refused_since_sample;
      refusals += counted;
      continue;
    }
    running.push(Success(now, hold, static_cast<int>(running.size()) + 1));
  }
  return refusals / arrivals;
}

TEST(KneeLimitTest, RefusesLittleWhereCallersShed) {
  // 850/s for 10 ms: 8.5 in flight on average, Poisson. By Erlang's loss formula a limit of 14
  // refuses 2.5% of the arrivals, 13 4.2%, and the closed loop's knee (x * W0 = 7.3, plus 0.5
  // sqrt of it: 9 or 10) 14-20%.
  KneeLimit knee = KneeLimit::Create({}).value();
  EXPECT_LE(RunSheddingCallers(knee, 850, 10ms, /*report_refused=*/true, 0s, 30s, 10s), 0.05);
  EXPECT_GE(knee.limit(), 13);
  EXPECT_LE(knee.limit(), 17);
  // Demand falls to 400/s (4 in flight on average): the limit follows it down to where it
  // still refuses less than 3% (Erlang: 3.0% at 8, 1.5% at 9), not to the closed loop's knee.
  EXPECT_LE(RunSheddingCallers(knee, 400, 10ms, /*report_refused=*/true, 30s, 60s, 45s), 0.05);
  EXPECT_GE(knee.limit(), 8);
  EXPECT_LE(knee.limit(), 11);
  // Without the refusals in its samples, knee sees idle permits and keeps the closed loop's knee.
  KneeLimit blind = KneeLimit::Create({}).value();
  EXPECT_GT(RunSheddingCallers(blind, 850, 10ms, /*report_refused=*/false, 0s, 30s, 10s), 0.10);
}

TEST(KneeLimitTest, StaysWithinMinAndMax) {
  KneeLimit capped = KneeLimit::Create({.max_limit = 8}).value();
  ClosedLoop flat(10ms, 1us);
  flat.Run(capped, 100);
  EXPECT_EQ(capped.limit(), 8);

  KneeLimit floored = KneeLimit::Create({.initial_limit = 3, .min_limit = 3}).value();
  ClosedLoop slow(10ms, 50ms);  // Knee below one access.
  for (int i = 0; i < 50; ++i) {
    floored.Update(Success(i * 100ms, 10s, 3));  // Absurd latencies too.
    EXPECT_GE(floored.limit(), 3);
  }
  slow.Run(floored, 100);
  EXPECT_GE(floored.limit(), 3);

  KneeLimit one = KneeLimit::Create({}).value();
  for (int i = 0; i < 100; ++i) {
    one.Update(Drop(i * 1s, 1s, 1));  // Nothing but timeouts.
    EXPECT_GE(one.limit(), 1);
  }
}

TEST(KneeLimitTest, OneLuckySampleDoesNotCollapseTheBaseline) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);
  loop.Run(knee, 200);
  const int settled = knee.limit();
  // One access that took 10 us (a cache hit), among the usual ones.
  const Duration now = loop.now();
  knee.Update(Success(now, 10us, settled));
  loop.Run(knee, 100);
  EXPECT_EQ(knee.estimates().baseline_latency, 10ms);
  EXPECT_EQ(knee.limit(), settled);
}

// Settles the loop (W0 10 ms, 1 ms per access past the knee: B = 10) and returns the limit.
int Settle(KneeLimit& knee, ClosedLoop& loop) {
  loop.Run(knee, 200);
  EXPECT_EQ(knee.estimates().state, "tracking");
  EXPECT_EQ(knee.estimates().baseline_latency, 10ms);
  return knee.limit();
}

// Runs the loop one round at a time until a probe starts (at most `rounds`); returns the limit
// of the probe (0 if none started) and the lowest limit seen before it.
std::pair<int, int> RunUntilProbing(KneeLimit& knee, ClosedLoop& loop, int rounds) {
  int lowest = knee.limit();
  for (int round = 0; round < rounds; ++round) {
    loop.Run(knee, 1);
    lowest = std::min(lowest, knee.limit());
    if (knee.estimates().state == "probing") return {knee.limit(), lowest};
  }
  return {0, lowest};
}

// Runs the loop until the probe's window closes (or, for a re-check, its last probe's).
void FinishProbe(KneeLimit& knee, ClosedLoop& loop) {
  for (int round = 0; round < 40 && knee.estimates().state == "probing"; ++round) {
    loop.Run(knee, 1);
  }
}

TEST(KneeLimitTest, FollowsALongerRoundTripWithAShallowProbe) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);
  const int settled = Settle(knee, loop);
  // The round trip becomes 10x longer: latency 100 ms at the same limit, goodput / 10. Our
  // queue cannot do that; the limit holds for the two windows that show it (not cut to 2 by
  // the stale goodput), then a shallow probe halves it for one window.
  loop.set_w0(100ms);
  const auto [probe_limit, lowest] = RunUntilProbing(knee, loop, 20);
  EXPECT_EQ(probe_limit, (settled + 1) / 2);
  EXPECT_EQ(lowest, (settled + 1) / 2);
  // At half the limit the latency is still 100 ms: none of it was our queue, so 100 ms is
  // the new baseline, and slow start doubles the limit from where it was.
  FinishProbe(knee, loop);
  EXPECT_EQ(knee.estimates().baseline_latency, 100ms);
  EXPECT_EQ(knee.estimates().state, "growing");
  EXPECT_EQ(knee.limit(), settled);
  // The knee moved to 100 accesses: B + 0.5 sqrt(B) = 105, reached in a few windows.
  loop.Run(knee, 20);
  EXPECT_GE(knee.limit(), 95);
  loop.Run(knee, 100);
  EXPECT_GE(knee.limit(), 95);
  EXPECT_LE(knee.limit(), 115);
}

TEST(KneeLimitTest, KeepsTheBaselineWhenTheResourceLosesCapacity) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);
  const int settled = Settle(knee, loop);
  // The resource becomes 5x slower per access: at the settled limit (12) latency 60 ms (5x),
  // goodput 200/s (a fifth). The shallow probe at half the limit sees 30 ms: half the latency,
  // so it was our queue; the baseline holds and the limit is cut to the target from the new
  // goodput, B = 200/s * 10 ms = 2: 2 + 0.5 sqrt(2) = 2.7, but by at most half per window.
  loop.set_service(5ms);
  EXPECT_EQ(RunUntilProbing(knee, loop, 20).first, (settled + 1) / 2);
  FinishProbe(knee, loop);
  EXPECT_EQ(knee.estimates().baseline_latency, 10ms);
  EXPECT_EQ(knee.estimates().state, "tracking");
  EXPECT_EQ(knee.limit(), (settled + 1) / 2);
  loop.Run(knee, 100);
  EXPECT_EQ(knee.limit(), 3);
  EXPECT_EQ(knee.estimates().baseline_latency, 10ms);
}

TEST(KneeLimitTest, ProbesAtMinLimitWhenLatencyIsImpossibleForOurQueue) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);
  Settle(knee, loop);
  // Completions keep coming every 1 ms (the goodput holds: no sudden slowdown), but each took
  // 400 ms: more than limit (12 or 13) * W0 * 2.5 = 300 or 325 ms, which no queue of our own can
  // explain. After three such windows the limit is pinned to min_limit for one window of accesses
  // granted inside it, whose latency becomes the baseline.
  Duration now = loop.now();
  bool probed = false;
  for (int i = 0; i < 200 && !probed; ++i) {
    now += 1ms;
    knee.Update(Success(now - 400ms, 400ms, knee.limit()));
    probed = knee.estimates().state == "probing";
  }
  ASSERT_TRUE(probed);
  EXPECT_EQ(knee.limit(), 1);
  for (int i = 0; i < 40 && knee.estimates().state == "probing"; ++i) {
    knee.Update(Success(now, 400ms, 1));
    now += 400ms;
  }
  EXPECT_EQ(knee.estimates().baseline_latency, 400ms);
  EXPECT_EQ(knee.estimates().state, "growing");
}

// Settles the loop (with the given jitter), makes its round trip 10x longer and settles it
// again: a probe raised the baseline to about 100 ms. Returns the limit then.
int RaiseBaselineTenfold(KneeLimit& knee, ClosedLoop& loop, double jitter = 0) {
  loop.set_jitter(jitter);
  loop.Run(knee, 200);
  EXPECT_EQ(knee.estimates().state, "tracking");
  loop.set_w0(100ms);
  loop.Run(knee, 200);
  EXPECT_EQ(knee.estimates().state, "tracking");
  const double baseline_ms =
      std::chrono::duration<double, std::milli>(*knee.estimates().baseline_latency).count();
  EXPECT_NEAR(baseline_ms, 100, 100 * jitter / 3);
  return knee.limit();
}

// Runs the loop until a re-check ends; expects it to have found `baseline` and slow start to
// resume from `limit`.
void ExpectRecheckFound(KneeLimit& knee, ClosedLoop& loop, Duration baseline, int limit) {
  FinishProbe(knee, loop);
  EXPECT_EQ(knee.estimates().baseline_latency, baseline);
  EXPECT_EQ(knee.estimates().state, "growing");
  EXPECT_EQ(knee.limit(), limit);
}

TEST(KneeLimitTest, RechecksARaisedBaselineAndLowersIt) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);
  const int raised = RaiseBaselineTenfold(knee, loop);  // 106.
  // The round trip recovers. At the raised limit the queue now hides it: latency is
  // limit * 1 ms, about the 100 ms of the baseline, at the same goodput, and the limit does
  // not move. Nothing but a probe can tell; the baseline is 10x the lowest ever measured
  // (> 1.5x), so every 1024 windows (doubling while confirmed) a shallow probe halves the
  // limit. The first one, at 53, sees 53 ms, below 0.8 x 100 ms: our queue. The re-check
  // halves again while latency keeps falling by more than a fifth: 27 sees 27 ms (< 42.4),
  // 14 sees 14 ms (< 21.6), 7 sees the 10 ms round trip (< 11.2), 4 sees 10 ms too (not
  // < 8): the baseline is 10 ms, and slow start resumes from 4.
  loop.set_w0(10ms);
  ASSERT_EQ(RunUntilProbing(knee, loop, 4000).first, (raised + 1) / 2);
  ExpectRecheckFound(knee, loop, 10ms, 4);
  // Slow start: 4 and 8 show no queue, 16 does; then the target, 10 + 0.5 sqrt(10) = 11.6.
  loop.Run(knee, 100);
  EXPECT_EQ(knee.estimates().baseline_latency, 10ms);
  EXPECT_GE(knee.limit(), 11);
  EXPECT_LE(knee.limit(), 13);
}

TEST(KneeLimitTest, ARecheckProbeMeasuresThirtyTwoAccesses) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);
  RaiseBaselineTenfold(knee, loop);
  loop.set_w0(10ms);
  ASSERT_GT(RunUntilProbing(knee, loop, 4000).first, 0);
  const Duration raised = *knee.estimates().baseline_latency;
  // The probe's accesses take 10 ms, one ending every 15 ms. A window lasts at least two
  // baselines (about 200 ms, 14 accesses here), and a re-check's probe window waits for 32
  // accesses: a short one would close while its slow accesses are still in flight.
  Duration now = loop.now();
  for (int i = 0; i < 31; ++i) {
    now += 15ms;
    knee.Update(Success(now - 10ms, 10ms, knee.limit()));
  }
  EXPECT_EQ(knee.estimates().state, "probing");
  EXPECT_EQ(knee.estimates().baseline_latency, raised);
  now += 15ms;
  knee.Update(Success(now - 10ms, 10ms, knee.limit()));
  EXPECT_EQ(knee.estimates().baseline_latency, 10ms);
}

TEST(KneeLimitTest, RechecksARaisedBaselineAtOnceWhenABlockLowersIt) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);
  const int raised = RaiseBaselineTenfold(knee, loop);  // 106.
  // The round trip recovers and the resource serves in 0.8 ms: at the raised limit latency is
  // raised * 0.8 ms = 84.8 ms. The first block of 64 accesses (a few of which may predate the
  // change) lowers the baseline by more than 5%: latency fell with no move of ours, so the
  // re-check runs at once, not 1024 windows later. Its probe at ceil(raised / 2) = 53 sees
  // 53 * 0.8 = 42.4 ms, below 0.8 x the baseline: our queue, so it halves again. 27 sees
  // 21.6 ms (< 33.9), 14 sees 11.2 ms (< 17.3), 7 sees the 10 ms round trip: not below
  // 0.8 x 11.2 = 9 ms, so the baseline is 11.2 ms and slow start resumes from 7.
  loop.set_w0(10ms);
  loop.set_service(800us);
  ASSERT_EQ(RunUntilProbing(knee, loop, 10).first, (raised + 1) / 2);
  EXPECT_GE(knee.estimates().baseline_latency, std::chrono::microseconds(raised * 800));
  EXPECT_LT(knee.estimates().baseline_latency, 95ms);
  ExpectRecheckFound(knee, loop, 11200us, 7);
}

TEST(KneeLimitTest, RechecksARaisedBaselineAtOnceWhenLatencyTurnsRegular) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);
  const int raised = RaiseBaselineTenfold(knee, loop, /*jitter=*/0.3);  // 113.
  // The round trip recovers and the raised limit's queue hides it: latency is still about
  // limit * 1 ms at the same goodput. But the round trip's spread (cv 0.3) is gone: waiting
  // behind many accesses of ours is regular (here cv 0). The first window of at least 16
  // accesses whose cv is below 0.45 x the usual one (0.3 here, above the 0.15 that makes a
  // drop in spread mean anything) re-checks the baseline at once, not 1024 windows later.
  // A window lasts at least two baselines (about 200 ms, two rounds). The re-check halves
  // the limit while latency keeps falling by more than a fifth (57 ms at 57, 29, 15, then the
  // 10 ms round trip at 8 and at 4): the baseline is 10 ms again.
  loop.set_w0(10ms);
  loop.set_jitter(0);
  const auto [probe_limit, lowest] = RunUntilProbing(knee, loop, 4);
  EXPECT_EQ(probe_limit, (raised + 1) / 2);
  EXPECT_EQ(lowest, probe_limit);  // Nothing moved the limit before the probe.
  ExpectRecheckFound(knee, loop, 10ms, 4);
}

TEST(KneeLimitTest, DoesNotRecheckARaisedBaselineWhileLatencyKeepsItsSpread) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);
  const int raised = RaiseBaselineTenfold(knee, loop, /*jitter=*/0.3);
  // Nothing changes: windows keep the cv of 0.3 (no re-check before the 1024-window backstop).
  const auto [probe_limit, lowest] = RunUntilProbing(knee, loop, 400);
  EXPECT_EQ(probe_limit, 0);
  EXPECT_GE(lowest, raised - 2);
}

TEST(KneeLimitTest, RefinesAFreshBaselineDuringSlowStart) {
  KneeLimit knee = KneeLimit::Create({}).value();
  // Eight lucky accesses of 63 ms at limit 1 set the first baseline (the first window closes
  // after half a second, at the eighth: 504 ms); then the resource shows its usual 69 ms
  // (within growth_tolerance of 63 ms: no queue) while slow start doubles the limit. Those
  // windows measure the baseline too: it becomes the mean of every access so far, not the
  // first eight alone.
  Duration now = 1s;
  for (int i = 0; i < 8; ++i) {
    knee.Update(Success(now, 63ms, 1));
    now += 63ms;
  }
  ASSERT_EQ(knee.estimates().baseline_latency, 63ms);
  const Duration usual = 69ms;
  int windows_grown = 0;
  for (int round = 0; round < 8; ++round) {
    const int limit = knee.limit();
    for (int i = 0; i < limit; ++i)
      knee.Update(Success(now + usual * i / limit - usual, usual, limit));
    now += usual;
    if (knee.limit() > limit) ++windows_grown;
  }
  EXPECT_GE(windows_grown, 2);
  // Pooled: (8 * 63 + n * 69) / (8 + n) for the n accesses of the windows that grew.
  const double baseline_ms =
      std::chrono::duration<double, std::milli>(*knee.estimates().baseline_latency).count();
  EXPECT_GT(baseline_ms, 65);
  EXPECT_LT(baseline_ms, 69);
}

TEST(KneeLimitTest, AllowsForTheErrorOfAFreshBaselineInSlowStart) {
  KneeLimit knee = KneeLimit::Create({}).value();
  // Eight accesses at limit 1 that alternate 50 and 76 ms (mean 63 ms, cv 13 / 63 = 0.206)
  // set the first baseline: the first window closes after half a second, at the eighth.
  Duration now = 1s;
  for (int i = 0; i < 8; ++i) {
    const Duration latency = i % 2 == 0 ? 50ms : 76ms;
    knee.Update(Success(now, latency, 1));
    now += latency;
  }
  ASSERT_EQ(knee.estimates().baseline_latency, 63ms);
  ASSERT_EQ(knee.limit(), 2);
  // The resource's usual latency is 72 ms: 14% above the baseline, beyond growth_tolerance
  // (69.3 ms), but the baseline is uncertain by one standard error of 63 ms * 0.206 / sqrt(n),
  // where n = 16 (the first window both starts the fresh pool and, growing, joins it): 3.25 ms.
  // 72 <= 69.3 + 3.25, so the window of eight accesses at limit 2 shows no queue. Slow start
  // goes on, and pools it: (16 * 63 + 8 * 72) / 24 = 66 ms.
  const Duration usual = 72ms;
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 2; ++i) knee.Update(Success(now + usual * i / 2 - usual, usual, 2));
    now += usual;
  }
  EXPECT_EQ(knee.estimates().state, "growing");
  EXPECT_EQ(knee.limit(), 4);
  EXPECT_EQ(knee.estimates().baseline_latency, 66ms);
}

TEST(KneeLimitTest, TakesTheFirstBaselineFromNinetySixAccesses) {
  KneeLimit knee = KneeLimit::Create({}).value();
  // At limit 1, back to back: 48 accesses of 3 ms, then 48 of 5 ms (384 ms in all). The first
  // eight alone would make the baseline 3 ms; the first window waits for 96 accesses.
  Duration now = 1s;
  for (int i = 0; i < 96; ++i) {
    const Duration latency = i < 48 ? 3ms : 5ms;
    knee.Update(Success(now, latency, 1));
    now += latency;
    if (i < 95) {
      ASSERT_FALSE(knee.estimates().baseline_latency.has_value()) << i;
      ASSERT_EQ(knee.limit(), 1);
    }
  }
  // (48 * 3 + 48 * 5) / 96 = 4 ms. The limit bound (96 / 384 ms * 4 ms = 1 in flight) and
  // latency showed no queue: slow start doubles it.
  EXPECT_EQ(knee.estimates().baseline_latency, 4ms);
  EXPECT_EQ(knee.limit(), 2);
  EXPECT_EQ(knee.estimates().state, "growing");
}

TEST(KneeLimitTest, EndsTheFirstWindowAfterHalfASecond) {
  KneeLimit knee = KneeLimit::Create({}).value();
  // Accesses of 10 ms, back to back: the 50th ends 500 ms after the first began.
  Duration now = 1s;
  for (int i = 0; i < 49; ++i) {
    knee.Update(Success(now, 10ms, 1));
    now += 10ms;
  }
  EXPECT_FALSE(knee.estimates().baseline_latency.has_value());
  EXPECT_EQ(knee.limit(), 1);
  knee.Update(Success(now, 10ms, 1));
  EXPECT_EQ(knee.estimates().baseline_latency, 10ms);
  EXPECT_EQ(knee.limit(), 2);
}

TEST(KneeLimitTest, EndsTheFirstWindowAtADrop) {
  KneeLimit knee = KneeLimit::Create({}).value();
  // Ten accesses of 5 ms, then one that hangs for 100 ms and is dropped: a hang holds the only
  // permit, so the first window ends there rather than waiting for 96 accesses.
  Duration now = 1s;
  for (int i = 0; i < 10; ++i) {
    knee.Update(Success(now, 5ms, 1));
    now += 5ms;
  }
  EXPECT_FALSE(knee.estimates().baseline_latency.has_value());
  knee.Update(Drop(now, 100ms, 1));
  // The hang counts in no latency: the baseline is the successes' 5 ms.
  EXPECT_EQ(knee.estimates().baseline_latency, 5ms);
  EXPECT_NE(knee.estimates().state, "startup");
}

TEST(KneeLimitTest, DoesNotGrowWhenTheLimitIsNotReached) {
  KneeLimit knee = KneeLimit::Create({.initial_limit = 20}).value();
  // Demand keeps only 2 in flight: the limit must not grow.
  for (int i = 0; i < 500; ++i) {
    knee.Update(Success(i * 5ms, 10ms, 2));
    EXPECT_LE(knee.limit(), 20);
  }
  EXPECT_EQ(knee.estimates().state, "app_limited");
}

TEST(KneeLimitTest, SlowStartsAgainWhenDemandReturnsAfterIdling) {
  KneeLimit knee = KneeLimit::Create({}).value();
  // Idle: one access of 10 ms every 500 ms, for a minute.
  for (int i = 0; i < 120; ++i) knee.Update(Success(i * 500ms, 10ms, 1));
  EXPECT_EQ(knee.limit(), 1);
  EXPECT_EQ(knee.estimates().state, "app_limited");
  // Then a backlog in front of a resource whose knee is at 100 accesses.
  const ClosedLoop busy(10ms, 100us);
  Duration now = 61s;
  for (int round = 0; round < 30; ++round) {
    const int limit = knee.limit();
    for (int i = 0; i < limit; ++i) {
      const Duration end = now + 10ms * (i + 1) / limit;
      knee.Update(Success(end - 10ms, busy.LatencyAt(limit), limit));
    }
    now += busy.LatencyAt(limit);
  }
  // Doubling per window, not +1 per round trip: 30 round trips reach the knee.
  EXPECT_GE(knee.limit(), 64);
}

// The limit knee settles at in front of a loop of B = 100 (10 ms at no load, 0.1 ms per access
// at saturation) whose first window's latencies spread by no_load_spread either way (D0; 1% by
// default) and whose completions at saturation come at gaps of (1 -+ gap_jitter) times their
// mean (Dg = gap_jitter): the servers read as k = x * D0 / Dg = 1 / gap_jitter by default. By
// default a fixed allowance (h = 3, more than 1.9 * Dg) shows the spread fraction f alone.
int SettledLimitWithGapJitter(double gap_jitter,
                              const KneeLimit::Options& options = {.headroom = 3,
                                                                   .headroom_per_cv = 0},
                              Duration no_load_spread = 100us) {
  KneeLimit knee = KneeLimit::Create(options).value();
  Duration start = 0ms;
  for (int i = 0; i < 96; ++i) {  // The first window, before the loop's first round at 1 s.
    const Duration latency = i % 2 == 0 ? 10ms - no_load_spread : 10ms + no_load_spread;
    knee.Update(Success(start, latency, 1));
    start += latency;
  }
  EXPECT_EQ(knee.estimates().baseline_latency, 10ms);
  ClosedLoop loop(10ms, 100us);
  loop.set_gap_jitter(gap_jitter);
  loop.Run(knee, 400);
  EXPECT_EQ(knee.estimates().state, "tracking");
  EXPECT_NEAR(knee.knee().value_or(0), 100, 2);
  return knee.limit();
}

TEST(KneeLimitTest, NarrowsTheAllowanceWhenSeveralServersShareTheLoad) {
  // One server (k = 1.25, c = 1): f = 1, 100 + 3 * sqrt(100) = 130.
  EXPECT_NEAR(SettledLimitWithGapJitter(0.8), 130, 1);
  // Two (c = 1.5): f = 1.5^(-2/3) * 98.5 / 99 = 0.76, 100 + 3 * sqrt(76) = 126.
  EXPECT_NEAR(SettledLimitWithGapJitter(0.5), 126, 1);
  // Four (c = 3.5): f = 0.42, at least 0.5: 100 + 3 * sqrt(50) = 121.
  EXPECT_NEAR(SettledLimitWithGapJitter(0.25), 121, 1);
  // Completions that never vary say nothing: f = 1.
  EXPECT_NEAR(SettledLimitWithGapJitter(0), 130, 1);
}

TEST(KneeLimitTest, AllowsForTheSpreadOfCompletionsThatLatencyHides) {
  // Latency hardly varies (cv 0: h from it is 0.5), completions at saturation do (Dg = 0.8,
  // one server: f = 1): h = 1.9 * 0.8 = 1.52, 100 + 1.52 * sqrt(100) = 115.
  const KneeLimit::Options options{.headroom = 0.5, .headroom_per_cv = 0};
  EXPECT_NEAR(SettledLimitWithGapJitter(0.8, options), 115, 1);
  // Without the gap term, or with completions that never vary: 100 + 0.5 * sqrt(100) = 105.
  KneeLimit::Options without_gaps = options;
  without_gaps.headroom_per_gap_deviation = 0;
  EXPECT_NEAR(SettledLimitWithGapJitter(0.8, without_gaps), 105, 1);
  EXPECT_NEAR(SettledLimitWithGapJitter(0, options), 105, 1);
  // Gaps that vary more than latency did at no load vary with the arrivals, not the service:
  // D0 = 0.04 ms, x * D0 = 0.4 counts, h = 1.9 * 0.4 = 0.76, 100 + 7.6 = 108.
  EXPECT_NEAR(SettledLimitWithGapJitter(0.8, options, 40us), 108, 1);
  // Capped by max_headroom like the rest of h: 100 + 1 * sqrt(100) = 110.
  KneeLimit::Options capped = options;
  capped.max_headroom = 1;
  EXPECT_NEAR(SettledLimitWithGapJitter(0.8, capped), 110, 1);
}

// Accesses of 0 or 1 MiB over a link of 1 ms plus 2 ms per MiB with room for all of them (no
// queue), one starting every 125 us: by Little's law 8 per ms times their mean latency are in
// flight. Every `big_every`th access is the big one. Samples arrive in the order they end.
void RunSizes(KneeLimit& knee, Duration& next_start, int accesses, int big_every) {
  constexpr Duration kGap = 125us;
  constexpr uint64_t kMiB = 1 << 20;
  struct Access {
    Duration start;
    Duration latency;
    uint64_t bytes;
  };
  std::vector<Access> stream;
  for (int i = 0; i < accesses; ++i) {
    const uint64_t bytes = i % big_every == 0 ? kMiB : 0;
    stream.push_back({next_start, bytes == kMiB ? 3ms : 1ms, bytes});
    next_start += kGap;
  }
  std::vector<Sample> samples;
  for (size_t i = 0; i < stream.size(); ++i) {
    // Itself, and those started before it that have not ended (at most 24: none lasts longer
    // than 3 ms).
    int inflight = 1;
    for (size_t j = i > 32 ? i - 32 : 0; j < i; ++j) {
      if (stream[j].start + stream[j].latency > stream[i].start) ++inflight;
    }
    Sample sample = Success(stream[i].start, stream[i].latency, inflight);
    sample.bytes = stream[i].bytes;
    samples.push_back(sample);
  }
  std::stable_sort(samples.begin(), samples.end(),
                   [](const Sample& a, const Sample& b) { return a.end() < b.end(); });
  for (const Sample& sample : samples) knee.Update(sample);
}

double BaselineMs(const KneeLimit& knee) {
  return std::chrono::duration<double, std::milli>(knee.estimates().baseline_latency.value())
      .count();
}

TEST(KneeLimitTest, TheBaselineFollowsTheSizeOfTheAccesses) {
  KneeLimit knee = KneeLimit::Create({}).value();
  Duration start{};
  // Half of them 1 MiB: W0 = 2 ms at a mean of 0.5 MiB, 16 in flight.
  RunSizes(knee, start, 4000, 2);
  ASSERT_TRUE(knee.estimates().baseline_latency.has_value());
  EXPECT_NEAR(BaselineMs(knee), 2, 0.1);
  ASSERT_TRUE(knee.knee().has_value());
  EXPECT_NEAR(*knee.knee(), 16, 0.8);
  // All of them 1 MiB: latency is 3 ms, with no queue of ours (nothing else changed). W0 for
  // these sizes is 3 ms, and the knee is the 24 in flight; a baseline that ignored the sizes
  // would keep 2 ms (no block can raise it) and put the knee at 8 * 2 = 16.
  RunSizes(knee, start, 4000, 1);
  EXPECT_NEAR(BaselineMs(knee), 3, 0.15);
  EXPECT_NEAR(*knee.knee(), 24, 1.2);
  // And back to half of them.
  RunSizes(knee, start, 4000, 2);
  EXPECT_NEAR(BaselineMs(knee), 2, 0.1);
  EXPECT_NEAR(*knee.knee(), 16, 0.8);
}

TEST(KneeLimitTest, CloneIsIndependent) {
  KneeLimit knee = KneeLimit::Create({}).value();
  ClosedLoop loop(10ms, 1ms);
  loop.Run(knee, 200);
  std::unique_ptr<LimitAlgorithm> copy = knee.Clone();
  EXPECT_EQ(copy->limit(), knee.limit());
  EXPECT_EQ(copy->name(), "knee");
  ClosedLoop slower(10ms, 8ms);
  slower.Run(*copy, 100);
  EXPECT_LT(copy->limit(), knee.limit());
  EXPECT_EQ(knee.estimates().baseline_latency, 10ms);
}

}  // namespace
}  // namespace blobtune::tuner
