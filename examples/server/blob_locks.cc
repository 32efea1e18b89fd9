#include "blob_locks.h"

#include <algorithm>
#include <boost/asio/this_coro.hpp>

namespace blobtune::server {

namespace asio = boost::asio;

asio::awaitable<BlobLocks::Held> BlobLocks::Lock(std::string key) {
  auto [entry, fresh] = waiters_.try_emplace(key);
  if (fresh) co_return Held(this, std::move(key));

  Wakeup waiter(co_await asio::this_coro::executor);
  entry->second.push_back(&waiter);
  // If the coroutine is destroyed while it waits (its io_context goes away), it leaves the
  // queue; if it had been handed the key, it hands it on.
  struct Leave {
    BlobLocks& locks;
    const std::string& key;
    Wakeup& waiter;
    bool claimed = false;
    ~Leave() {
      if (claimed) return;
      if (waiter.granted()) {
        locks.Release(key);
        return;
      }
      auto it = locks.waiters_.find(key);
      if (it != locks.waiters_.end()) std::erase(it->second, &waiter);
    }
  } leave{*this, key, waiter};
  co_await waiter.Wait();
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
  Wakeup* next = it->second.front();
  it->second.pop_front();
  next->Grant();  // Release hands it the key.
}

}  // namespace blobtune::server
