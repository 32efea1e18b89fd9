// BlobLocks: one write at a time per blob, among the coroutines of blobtune-server's event-loop
// thread. A conditional write (If-Match) reads the blob's ETag, compares, then writes; holding
// the blob's lock from before the read until the write is durable, with every other write of
// that blob taking the same lock, makes the three one step for every request this server
// answers. (Servers that share a RADOS pool do not see each other's locks.)
//
//   BlobLocks::Held lock = co_await locks.Lock("photos/cat-1");
//   ... Stat, compare, write; the next writer of photos/cat-1 waits ...
//   // `lock` released when destroyed; the longest waiter gets the blob next.
//
// Thread-safety: everything, Held's destructor included, on the one event-loop thread.
#ifndef BLOBTUNE_EXAMPLES_SERVER_BLOB_LOCKS_H_
#define BLOBTUNE_EXAMPLES_SERVER_BLOB_LOCKS_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <deque>
#include <string>
#include <unordered_map>

#include "wakeup.h"

namespace blobtune::server {

class BlobLocks {
 public:
  // A held lock; move-only, released by its destructor.
  class Held {
   public:
    Held(Held&& other) noexcept
        : locks_(std::exchange(other.locks_, nullptr)), key_(std::move(other.key_)) {}
    Held& operator=(Held&&) = delete;
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    ~Held() {
      if (locks_ != nullptr) locks_->Release(key_);
    }

   private:
    friend class BlobLocks;
    Held(BlobLocks* locks, std::string key) : locks_(locks), key_(std::move(key)) {}
    BlobLocks* locks_;
    std::string key_;
  };

  BlobLocks() = default;
  BlobLocks(const BlobLocks&) = delete;
  BlobLocks& operator=(const BlobLocks&) = delete;
  // REQUIRES: no lock is held and nobody waits.
  ~BlobLocks() = default;

  // The lock of `key`, at once if it is free, otherwise after those who asked before.
  boost::asio::awaitable<Held> Lock(std::string key);

  // Keys locked now (for tests).
  size_t locked() const noexcept { return waiters_.size(); }

 private:
  // Hands `key` to its longest waiter, or frees it.
  void Release(const std::string& key);

  // Per locked key, who waits for it, in order.
  std::unordered_map<std::string, std::deque<Wakeup*>> waiters_;
};

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_BLOB_LOCKS_H_
