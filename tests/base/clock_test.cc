#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "blobtune/base/clock.h"
#include "common/fake_clock.h"

namespace blobtune {
namespace {

using std::chrono::milliseconds;

TEST(SteadyClockTest, NeverGoesBackwards) {
  Clock& clock = Clock::Steady();
  TimePoint previous = clock.Now();
  for (int i = 0; i < 1000; ++i) {
    TimePoint now = clock.Now();
    ASSERT_GE(now, previous);
    previous = now;
  }
  EXPECT_EQ(clock.RealWaitFor(milliseconds(250)), milliseconds(250));
}

TEST(FakeClockTest, MovesOnlyWhenAdvanced) {
  FakeClock clock;
  TimePoint start = clock.Now();
  EXPECT_EQ(clock.Now(), start);
  clock.Advance(milliseconds(5));
  EXPECT_EQ(clock.Now() - start, milliseconds(5));
}

TEST(FakeClockTest, NeverMovesBack) {
  FakeClock clock(TimePoint(std::chrono::seconds(10)));
  clock.Set(TimePoint(std::chrono::seconds(3)));
  EXPECT_EQ(clock.Now(), TimePoint(std::chrono::seconds(10)));
  clock.Advance(milliseconds(-5));
  EXPECT_EQ(clock.Now(), TimePoint(std::chrono::seconds(10)));
  clock.Set(TimePoint(std::chrono::seconds(12)));
  EXPECT_EQ(clock.Now(), TimePoint(std::chrono::seconds(12)));
}

TEST(FakeClockTest, WaitersPollBrieflyInsteadOfWaitingTheFakeDuration) {
  FakeClock clock;
  EXPECT_LE(clock.RealWaitFor(std::chrono::hours(1)), milliseconds(1));
  EXPECT_EQ(clock.RealWaitFor(std::chrono::microseconds(10)), std::chrono::microseconds(10));
}

TEST(FakeClockTest, ConcurrentAdvancesAllCount) {
  FakeClock clock;
  TimePoint start = clock.Now();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&clock] {
      for (int i = 0; i < 1000; ++i) clock.Advance(std::chrono::nanoseconds(1));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(clock.Now() - start, std::chrono::nanoseconds(4000));
}

}  // namespace
}  // namespace blobtune
