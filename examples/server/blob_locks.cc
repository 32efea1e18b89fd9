#include "blob_locks.h"

#include <algorithm>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace blobtune::server {

namespace asio = boost::asio;

// A coroutine waiting for a key: it sleeps on a timer that never expires until Release hands
// it the key (sets `granted`) and cancels the timer.
struct BlobLocks::Waiter {
  explicit Waiter(const asio::any_io_executor& executor)
      : wake(executor, asio::steady_timer::time_point::max()) {}
  asio::steady_timer wake;
  bool granted = false;
};

asio::awaitable<BlobLocks::Held> BlobLocks::Lock(std::string key) {
  auto [entry, fresh] = waiters_.try_emplace(key);
  if (fresh) co_return Held(this, std::move(key));

  Waiter waiter(co_await asio::this_coro::executor);
  entry->second.push_back(&waiter);
  // If the coroutine is destroyed while it waits (its io_context goes away), it leaves the
  // queue; if it had been handed the key, it hands it on.
  struct Leave {
    BlobLocks& locks;
    const std::string& key;
    Waiter& waiter;
    bool claimed = false;
    ~Leave() {
      if (claimed) return;
      if (waiter.granted) {
        locks.Release(key);
        return;
      }
      auto it = locks.waiters_.find(key);
      if (it != locks.waiters_.end()) std::erase(it->second, &waiter);
    }
  } leave{*this, key, waiter};
  while (!waiter.granted) {
    boost::system::error_code ec;
    co_await waiter.wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  leave.claimed = true;
  co_return Held(this, std::move(key));
}

void BlobLocks::Release(const std::string& key) {
  auto it = waiters_.find(key);
  if (it == waiters_.end()) return;
  if (it->second.empty()) {
    waiters_.erase(it);
    return;
  }
  Waiter* next = it->second.front();
  it->second.pop_front();
  next->granted = true;
  next->wake.cancel();
}

}  // namespace blobtune::server
