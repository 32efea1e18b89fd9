// Wakeup: a coroutine of the server's event-loop thread asleep until another hands it what it
// waits for (a blob's lock, a place past the request gate). It sleeps on a timer that never
// expires; Grant() marks it granted and cancels the timer.
//
//   Wakeup wake(co_await asio::this_coro::executor);
//   waiters.push_back(&wake);           // the granter pops it and calls wake.Grant()
//   co_await wake.Wait();               // returns once granted
//
// A coroutine destroyed while it waits (its io_context goes) must take its Wakeup out of
// wherever it queued it, and give back what was granted if granted() (see its users).
//
// Thread-safety: the one event-loop thread only.
#ifndef BLOBTUNE_EXAMPLES_SERVER_WAKEUP_H_
#define BLOBTUNE_EXAMPLES_SERVER_WAKEUP_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

namespace blobtune::server {

class Wakeup {
 public:
  explicit Wakeup(const boost::asio::any_io_executor& executor)
      : timer_(executor, boost::asio::steady_timer::time_point::max()) {}
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;
  ~Wakeup() = default;

  // Returns once Grant() was called (at once if it was already).
  boost::asio::awaitable<void> Wait();
  void Grant() {
    granted_ = true;
    timer_.cancel();
  }
  bool granted() const noexcept { return granted_; }

 private:
  boost::asio::steady_timer timer_;
  bool granted_ = false;
};

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_WAKEUP_H_
