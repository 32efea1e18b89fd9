// AsyncAcquire: wait for a Limiter permit without blocking a thread, with Boost.Asio.
//
// Built with asio::async_compose, so one implementation serves every completion token:
// callbacks, asio::use_future and asio::use_awaitable. The completion signature is
// void(StatusOr<Permit>), with the same outcomes as Limiter::Acquire: a permit, or
// DEADLINE_EXCEEDED, CANCELLED (stop token or Limiter::CancelWaiters()) or RESOURCE_EXHAUSTED
// (queue full).
//
//   asio::awaitable<void> Deliver(Limiter& limiter) {
//     auto ex = co_await asio::this_coro::executor;
//     StatusOr<Permit> permit = co_await AsyncAcquire(limiter, ex, std::chrono::milliseconds(50),
//                                                     asio::use_awaitable);
//     if (!permit.ok()) co_return;   // permit.status() says why
//     ...; permit->Success();
//   }
//
// Waiting never blocks a thread: the operation sits in the limiter's queue and a timer on a
// strand of `executor` bounds the wait; a grant, cancellation or stop from any thread wakes it
// by posting to that strand. The handler runs on its associated executor, never inside
// AsyncAcquire itself. If the operation is destroyed without completing (its io_context went
// away), it leaves the queue and gives back any slot it was granted.
//
// Thread-safety: start operations from any thread; the limiter must outlive them.
#ifndef BLOBTUNE_TUNER_ASYNC_ACQUIRE_H_
#define BLOBTUNE_TUNER_ASYNC_ACQUIRE_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/async_result.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/system/error_code.hpp>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "blobtune/base/clock.h"
#include "blobtune/base/status_or.h"
#include "blobtune/tuner/limiter.h"

namespace blobtune::tuner {
namespace internal {

// The queue node of one waiting async acquire, shared by the operation and the callbacks that
// wake it. Waiter fields are guarded by the limiter's queue mutex; the timer is only touched on
// the strand.
template <typename Executor>
class AsyncWaitState final : public Waiter,
                             public std::enable_shared_from_this<AsyncWaitState<Executor>> {
 public:
  AsyncWaitState(Limiter& limiter, const Executor& executor)
      : limiter_(limiter), strand_(boost::asio::make_strand(executor)), timer_(strand_) {}
  AsyncWaitState(const AsyncWaitState&) = delete;
  AsyncWaitState& operator=(const AsyncWaitState&) = delete;
  ~AsyncWaitState() { Limiter::AsyncAccess::Abandon(limiter_, *this); }

  // Runs with the limiter's queue mutex held: only posts, never touches the timer here. The work
  // guard keeps the io_context's run() from returning (and the context from being destroyed by
  // its owner) while this thread is still inside post().
  void Notify() override {
    auto work = boost::asio::prefer(strand_.get_inner_executor(),
                                    boost::asio::execution::outstanding_work.tracked);
    boost::asio::post(strand_, [weak = this->weak_from_this()] {
      if (auto self = weak.lock()) self->timer_.cancel();
    });
  }

  // From now on, a stop request cancels the wait (at once if it was already requested).
  void WatchStop(std::stop_token stop) { on_stop_.emplace(std::move(stop), CancelOnStop{this}); }

  boost::asio::strand<Executor>& strand() noexcept { return strand_; }
  boost::asio::steady_timer& timer() noexcept { return timer_; }

 private:
  struct CancelOnStop {
    AsyncWaitState* state;
    void operator()() const noexcept { Limiter::AsyncAccess::Cancel(state->limiter_, *state); }
  };

  Limiter& limiter_;
  boost::asio::strand<Executor> strand_;
  boost::asio::steady_timer timer_;
  // Last: destroyed first, so a stop callback running on another thread finishes before the
  // rest of the state goes away.
  std::optional<std::stop_callback<CancelOnStop>> on_stop_;
};

// The composed operation behind AsyncAcquire: try at once, else queue on the strand and sleep
// on the timer until granted, failed or past the deadline. Moved along with its handler by
// async_compose; one step runs at a time.
template <typename Executor>
class AsyncAcquireOp {
 public:
  AsyncAcquireOp(Limiter& limiter, PartitionId partition, const Executor& executor,
                 TimePoint deadline, std::stop_token stop)
      : limiter_(&limiter),
        partition_(partition),
        executor_(executor),
        deadline_(deadline),
        stop_(std::move(stop)) {}

  template <typename Self>
  void operator()(Self& self, boost::system::error_code /*timer*/ = {}) {
    switch (step_) {
      case Step::kStart:
        return Start(self);
      case Step::kQueue:
        if (std::optional<TimePoint> wait_until =
                Limiter::AsyncAccess::Enqueue(*limiter_, *state_, deadline_)) {
          deadline_ = *wait_until;  // Sooner than asked while overloaded.
        } else {
          return Fail(self, AcquireFailure::kQueueFull);
        }
        state_->WatchStop(stop_);
        step_ = Step::kWait;
        [[fallthrough]];
      case Step::kWait:
        return Wait(self);
      case Step::kDone:
        state_.reset();
        return self.complete(std::move(*result_));
    }
  }

 private:
  enum class Step { kStart, kQueue, kWait, kDone };

  template <typename Self>
  void Start(Self& self) {
    if (partition_.index >= limiter_->partition_count()) {
      return Finish(self, Status::InvalidArgument("no partition " +
                                                  std::to_string(partition_.index)));
    }
    if (std::optional<Permit> permit = Limiter::AsyncAccess::TryAcquire(*limiter_, partition_)) {
      return Finish(self, std::move(*permit));
    }
    if (stop_.stop_requested()) return Fail(self, AcquireFailure::kCancelled);
    if (limiter_->clock().Now() >= deadline_) return Fail(self, AcquireFailure::kTimeout);
    state_ = std::make_shared<AsyncWaitState<Executor>>(*limiter_, executor_);
    state_->partition = partition_.index;
    step_ = Step::kQueue;
    // Queue and arm the timer on the strand, where every later timer operation runs too.
    boost::asio::post(state_->strand(), std::move(self));
  }

  // On the strand: done if granted, failed or past the deadline; otherwise sleep on the timer
  // until the deadline or a wake-up (a cancel of the timer).
  template <typename Self>
  void Wait(Self& self) {
    if (std::optional<StatusOr<Permit>> result =
            Limiter::AsyncAccess::Poll(*limiter_, *state_, deadline_)) {
      return Finish(self, std::move(*result));
    }
    const Clock& clock = limiter_->clock();
    state_->timer().expires_after(clock.RealWaitFor(deadline_ - clock.Now()));
    state_->timer().async_wait(boost::asio::bind_executor(state_->strand(), std::move(self)));
  }

  // Completes through a post to the handler's executor: never inside the initiating call, and
  // never on our strand unless that is where the handler belongs.
  template <typename Self>
  void Finish(Self& self, StatusOr<Permit> result) {
    result_.emplace(std::move(result));
    step_ = Step::kDone;
    boost::asio::post(std::move(self));
  }

  template <typename Self>
  void Fail(Self& self, AcquireFailure why) {
    Finish(self, Limiter::AsyncAccess::Failure(*limiter_, partition_, why));
  }

  Limiter* limiter_;
  PartitionId partition_;
  Executor executor_;
  TimePoint deadline_;
  std::stop_token stop_;
  Step step_ = Step::kStart;
  std::shared_ptr<AsyncWaitState<Executor>> state_;
  std::optional<StatusOr<Permit>> result_;
};

}  // namespace internal

// Waits for a permit of `partition` until `deadline` (on the limiter's clock; sooner while the
// limiter is overloaded, see LimiterOptions::overload_wait), or until `stop` is triggered.
// Completion signature: void(StatusOr<Permit>); INVALID_ARGUMENT for a partition the limiter
// does not have.
template <typename Executor, typename CompletionToken>
auto AsyncAcquire(Limiter& limiter, PartitionId partition, const Executor& executor,
                  TimePoint deadline, std::stop_token stop, CompletionToken&& token) {
  return boost::asio::async_compose<CompletionToken, void(StatusOr<Permit>)>(
      internal::AsyncAcquireOp<Executor>(limiter, partition, executor, deadline, std::move(stop)),
      token, executor);
}

// The same for the first partition (the whole limiter when it has none), without a stop token.
template <typename Executor, typename CompletionToken>
auto AsyncAcquire(Limiter& limiter, const Executor& executor, TimePoint deadline,
                  CompletionToken&& token) {
  return AsyncAcquire(limiter, PartitionId{}, executor, deadline, std::stop_token(),
                      std::forward<CompletionToken>(token));
}

template <typename Executor, typename CompletionToken>
auto AsyncAcquire(Limiter& limiter, PartitionId partition, const Executor& executor,
                  Duration timeout, CompletionToken&& token) {
  return AsyncAcquire(limiter, partition, executor, limiter.clock().Now() + timeout,
                      std::stop_token(), std::forward<CompletionToken>(token));
}

template <typename Executor, typename CompletionToken>
auto AsyncAcquire(Limiter& limiter, const Executor& executor, Duration timeout,
                  CompletionToken&& token) {
  return AsyncAcquire(limiter, PartitionId{}, executor, limiter.clock().Now() + timeout,
                      std::stop_token(), std::forward<CompletionToken>(token));
}

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_ASYNC_ACQUIRE_H_
