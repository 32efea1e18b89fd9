// BlobLocks: one holder per key at a time, waiters served in the order they asked, other keys
// free; and a coroutine destroyed while it waits (its io_context goes) leaves nothing behind.
#include "blob_locks.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <string>
#include <vector>

namespace blobtune::server {
namespace {

namespace asio = boost::asio;

class BlobLocksTest : public ::testing::Test {
 protected:
  // A writer of `key` that holds its lock until `gate` is cancelled (at once without a gate).
  asio::awaitable<void> Writer(std::string key, std::string name, asio::steady_timer* gate) {
    BlobLocks::Held held = co_await locks_.Lock(std::move(key));
    events_.push_back(name + " in");
    if (gate != nullptr) {
      boost::system::error_code ec;
      co_await gate->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    events_.push_back(name + " out");
  }

  BlobLocks locks_;  // Outlives the io_contexts of the tests, as in the server.
  std::vector<std::string> events_;
};

TEST_F(BlobLocksTest, OneHolderPerKeyAndWaitersInTheOrderTheyAsked) {
  asio::io_context io;
  asio::steady_timer gate(io, asio::steady_timer::time_point::max());
  asio::co_spawn(io, Writer("photos/a", "first", &gate), asio::detached);
  asio::co_spawn(io, Writer("photos/a", "second", nullptr), asio::detached);
  asio::co_spawn(io, Writer("photos/a", "third", nullptr), asio::detached);
  asio::co_spawn(io, Writer("photos/b", "other", nullptr), asio::detached);
  io.poll();  // Everything that can run without the gate.
  EXPECT_EQ(events_, (std::vector<std::string>{"first in", "other in", "other out"}));
  EXPECT_EQ(locks_.locked(), 1u);
  gate.cancel();
  io.poll();
  EXPECT_EQ(events_, (std::vector<std::string>{"first in", "other in", "other out", "first out",
                                               "second in", "second out", "third in",
                                               "third out"}));
  EXPECT_EQ(locks_.locked(), 0u);
}

TEST_F(BlobLocksTest, CoroutinesDestroyedWhileHoldingOrWaitingLeaveNoLockBehind) {
  {
    asio::io_context io;
    asio::steady_timer gate(io, asio::steady_timer::time_point::max());
    asio::co_spawn(io, Writer("photos/a", "holder", &gate), asio::detached);
    asio::co_spawn(io, Writer("photos/a", "waiter", nullptr), asio::detached);
    io.poll();
    EXPECT_EQ(locks_.locked(), 1u);
  }  // The io_context goes with both coroutines suspended.
  EXPECT_EQ(locks_.locked(), 0u);
  EXPECT_EQ(events_, (std::vector<std::string>{"holder in"}));
}

}  // namespace
}  // namespace blobtune::server
