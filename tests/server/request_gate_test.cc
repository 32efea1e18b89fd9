// RequestGate: up to its capacity at once, the rest parked and let in first come, first served
// as requests leave or the capacity grows; Open() lets everyone in; a coroutine destroyed while
// parked, or let in and never resumed, leaves the gate as it found it.
#include "request_gate.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <string>
#include <vector>

namespace blobtune::server {
namespace {

namespace asio = boost::asio;

class RequestGateTest : public ::testing::Test {
 protected:
  void Spawn(asio::io_context& io, std::string name) {
    asio::co_spawn(
        io,
        [this, name]() -> asio::awaitable<void> {
          co_await gate_.Enter();
          entered_.push_back(name);
        },
        asio::detached);
  }

  size_t capacity_ = 2;
  std::vector<size_t> parked_heard_;  // What the gate said of its parked requests, in order.
  RequestGate gate_{[this] { return capacity_; },  // Outlives the io_contexts.
                    [this](size_t parked) { parked_heard_.push_back(parked); }};
  std::vector<std::string> entered_;
};

TEST_F(RequestGateTest, ParksPastItsCapacityAndLetsInInArrivalOrder) {
  asio::io_context io;
  for (const char* name : {"a", "b", "c", "d", "e"}) Spawn(io, name);
  io.poll();
  EXPECT_EQ(entered_, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(gate_.inside(), 2u);
  EXPECT_EQ(gate_.parked(), 3u);

  gate_.Leave();
  io.poll();
  EXPECT_EQ(entered_, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(gate_.parked(), 2u);

  // A newcomer queues behind the parked ones even when a place is free when it comes.
  gate_.Leave();
  Spawn(io, "f");
  io.poll();
  EXPECT_EQ(entered_, (std::vector<std::string>{"a", "b", "c", "d"}));

  // A larger capacity lets more in at the next leave.
  capacity_ = 4;
  gate_.Leave();
  io.poll();
  EXPECT_EQ(entered_, (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
  EXPECT_EQ(gate_.inside(), 3u);
  EXPECT_EQ(gate_.parked(), 0u);
  for (int i = 0; i < 3; ++i) gate_.Leave();
  EXPECT_EQ(gate_.inside(), 0u);
  // Parked: c, d and e one by one; c let in, then d; f parked; e and f let in together.
  EXPECT_EQ(parked_heard_, (std::vector<size_t>{1, 2, 3, 2, 1, 2, 0}));
}

TEST_F(RequestGateTest, OpenLetsEveryoneInFromThenOn) {
  asio::io_context io;
  for (const char* name : {"a", "b", "c", "d"}) Spawn(io, name);
  io.poll();
  EXPECT_EQ(gate_.parked(), 2u);
  gate_.Open();
  Spawn(io, "e");
  io.poll();
  EXPECT_EQ(entered_, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(gate_.inside(), 5u);
  for (int i = 0; i < 5; ++i) gate_.Leave();
}

TEST_F(RequestGateTest, ACoroutineDestroyedInTheGateLeavesNothingBehind) {
  {
    asio::io_context io;
    for (const char* name : {"a", "b", "c", "d"}) Spawn(io, name);
    io.poll();
    EXPECT_EQ(gate_.parked(), 2u);
    gate_.Leave();  // Lets "c" in; its coroutine has not resumed when the io_context goes.
    EXPECT_EQ(gate_.inside(), 2u);
    EXPECT_EQ(gate_.parked(), 1u);
  }
  // "c" gave its place back and "d" left the queue; "a" is inside still (never left).
  EXPECT_EQ(gate_.inside(), 1u);
  EXPECT_EQ(gate_.parked(), 0u);
  gate_.Leave();
  EXPECT_EQ(gate_.inside(), 0u);
}

}  // namespace
}  // namespace blobtune::server
