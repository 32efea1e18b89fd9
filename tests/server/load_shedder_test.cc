// LoadShedder on a real limiter and a fake clock: it refuses at once only while waits have
// timed out recently and a whole limit's worth of requests already waits.
#include "load_shedder.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <optional>
#include <vector>

#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/async_acquire.h"
#include "common/fake_clock.h"

namespace blobtune::server {
namespace {

using std::chrono::milliseconds;

class LoadShedderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto algorithm = tuner::MakeAlgorithmFromText("fixed:limit=2");
    ASSERT_TRUE(algorithm.ok()) << algorithm.status();
    auto limiter = tuner::Limiter::Create({.algorithm = *std::move(algorithm), .clock = &clock_});
    ASSERT_TRUE(limiter.ok()) << limiter.status();
    limiter_ = *std::move(limiter);
  }

  // Takes every permit, then queues `waiters` acquirers that wait far beyond the test.
  void Saturate(int waiters) {
    while (std::optional<tuner::Permit> permit = limiter_->TryAcquire()) {
      held_.push_back(*std::move(permit));
    }
    for (int i = 0; i < waiters; ++i) {
      tuner::AsyncAcquire(*limiter_, io_.get_executor(), clock_.Now() + std::chrono::hours(1),
                          [](StatusOr<tuner::Permit>) {});
    }
    io_.poll();  // Each queues on its strand.
    ASSERT_EQ(limiter_->queue_length(), static_cast<size_t>(waiters));
  }
  void TearDown() override {
    limiter_->CancelWaiters();
    io_.poll();
    held_.clear();
  }

  FakeClock clock_;
  boost::asio::io_context io_;
  std::unique_ptr<tuner::Limiter> limiter_;
  std::vector<tuner::Permit> held_;
};

TEST_F(LoadShedderTest, AFullQueueWithoutRecentTimeoutsStillQueues) {
  LoadShedder shedder(limiter_.get(), "writes", milliseconds(100));
  Saturate(2);
  EXPECT_TRUE(shedder.Admit(clock_.Now()).ok());
}

// A wait that began `waited` ago with a deadline of 100 ms ended now, with `status`.
void ObserveWait(LoadShedder& shedder, const Status& status, TimePoint now, milliseconds waited) {
  shedder.Observe(status, now - waited, now, now - waited + milliseconds(100));
}

TEST_F(LoadShedderTest, AfterATimeoutAFullQueueIsRefusedAtOnceUntilAWindowPasses) {
  LoadShedder shedder(limiter_.get(), "writes", milliseconds(100));
  Saturate(2);
  ObserveWait(shedder, Status::DeadlineExceeded("no permit"), clock_.Now(), milliseconds(100));
  clock_.Advance(milliseconds(60));
  Status refused = shedder.Admit(clock_.Now());
  EXPECT_EQ(refused.code(), StatusCode::kUnavailable) << refused;
  EXPECT_NE(refused.message().find("2 writes already wait for the 2 writes"), std::string::npos)
      << refused;
  clock_.Advance(milliseconds(41));
  EXPECT_TRUE(shedder.Admit(clock_.Now()).ok());
}

TEST_F(LoadShedderTest, AfterATimeoutAShortQueueStillQueues) {
  LoadShedder shedder(limiter_.get(), "reads", milliseconds(100));
  Saturate(1);
  ObserveWait(shedder, Status::DeadlineExceeded("no permit"), clock_.Now(), milliseconds(100));
  EXPECT_TRUE(shedder.Admit(clock_.Now()).ok());
}

TEST_F(LoadShedderTest, AQueueThatMovesFastAfterAStallStillQueues) {
  // A closed loop of more callers than the limit: a long queue, but each wait is short. A
  // stall of the store made one wait run out; the next grant waited 10 of its 100 ms.
  LoadShedder shedder(limiter_.get(), "writes", milliseconds(100));
  Saturate(2);
  ObserveWait(shedder, Status::DeadlineExceeded("no permit"), clock_.Now(), milliseconds(100));
  clock_.Advance(milliseconds(5));
  ObserveWait(shedder, Status::Ok(), clock_.Now(), milliseconds(10));
  EXPECT_TRUE(shedder.Admit(clock_.Now()).ok());
  ObserveWait(shedder, Status::Ok(), clock_.Now(), milliseconds(60));  // Slow again.
  EXPECT_EQ(shedder.Admit(clock_.Now()).code(), StatusCode::kUnavailable);
}

TEST_F(LoadShedderTest, AWaitCutShortOrOtherFailuresAreNoTimeouts) {
  LoadShedder shedder(limiter_.get(), "writes", milliseconds(100));
  Saturate(2);
  // Cut to 10 ms by the limiter's own shedding: it did not run out its deadline.
  ObserveWait(shedder, Status::DeadlineExceeded("no permit"), clock_.Now(), milliseconds(10));
  ObserveWait(shedder, Status::NotFound("no blob"), clock_.Now(), milliseconds(100));
  ObserveWait(shedder, Status::ResourceExhausted("disk full"), clock_.Now(), milliseconds(100));
  EXPECT_TRUE(shedder.Admit(clock_.Now()).ok());
}

TEST(LoadShedderWithoutLimiterTest, AdmitsEverything) {
  LoadShedder shedder(nullptr, "writes", milliseconds(100));
  shedder.Observe(Status::DeadlineExceeded("no permit"), TimePoint(), TimePoint(), TimePoint());
  EXPECT_TRUE(shedder.Admit(TimePoint()).ok());
}

}  // namespace
}  // namespace blobtune::server
