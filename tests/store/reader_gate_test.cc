#include "reader_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace blobtune::store::internal {
namespace {

// Stand-ins for reset read transactions: the gate only keeps and hands back the pointers.
struct alignas(8) FakeTxn {
  int unused = 0;
};
MDB_txn* AsTxn(FakeTxn& fake) { return reinterpret_cast<MDB_txn*>(&fake); }

TEST(ReaderGateTest, ASeatKeepsItsTransactionForTheNextRead) {
  ReaderGate gate(4, 4);
  FakeTxn fake;
  ReaderGate::Seat first = gate.Enter();
  ASSERT_TRUE(first.taken());
  EXPECT_EQ(first.txn, nullptr);
  gate.Leave(first.index, AsTxn(fake));

  ReaderGate::Seat second = gate.Enter();  // Same thread, same home seat.
  ASSERT_TRUE(second.taken());
  EXPECT_EQ(second.index, first.index);
  EXPECT_EQ(second.txn, AsTxn(fake));
  gate.Leave(second.index, nullptr);
  EXPECT_TRUE(gate.TakeAll().empty());
}

TEST(ReaderGateTest, EverySeatBusyIsReportedNotWaitedFor) {
  ReaderGate gate(3, 3);
  std::vector<ReaderGate::Seat> seats;
  for (int k = 0; k < 3; ++k) {
    seats.push_back(gate.Enter());
    ASSERT_TRUE(seats.back().taken());
  }
  EXPECT_FALSE(gate.Enter().taken());
  gate.Leave(seats[1].index, nullptr);
  ReaderGate::Seat again = gate.Enter();
  ASSERT_TRUE(again.taken());
  EXPECT_EQ(again.index, seats[1].index);
}

TEST(ReaderGateTest, ReadsBeyondTheKeepingSeatsTakeTheOthers) {
  ReaderGate gate(4, 2);
  std::vector<ReaderGate::Seat> seats;
  for (int k = 0; k < 4; ++k) {
    seats.push_back(gate.Enter());
    ASSERT_TRUE(seats.back().taken());
  }
  EXPECT_FALSE(gate.Enter().taken());
  int keeping = 0;
  for (const ReaderGate::Seat& seat : seats) keeping += gate.Keeps(seat.index) ? 1 : 0;
  EXPECT_EQ(keeping, 2);
  EXPECT_TRUE(gate.Keeps(seats[0].index));  // A thread starts among the keeping seats.
}

TEST(ReaderGateTest, TakeAllReturnsTheKeptTransactionsOnce) {
  ReaderGate gate(8, 8);
  FakeTxn a;
  FakeTxn b;
  ReaderGate::Seat first = gate.Enter();
  ReaderGate::Seat second = gate.Enter();
  gate.Leave(first.index, AsTxn(a));
  gate.Leave(second.index, AsTxn(b));
  std::vector<MDB_txn*> kept = gate.TakeAll();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_TRUE((kept[0] == AsTxn(a) && kept[1] == AsTxn(b)) ||
              (kept[0] == AsTxn(b) && kept[1] == AsTxn(a)));
  EXPECT_TRUE(gate.TakeAll().empty());
}

TEST(ReaderGateTest, ATransactionLeftOnAClosedSeatComesBackAfterOpen) {
  ReaderGate gate(2, 2);
  FakeTxn fake;
  ReaderGate::Seat seat = gate.Enter();
  ASSERT_TRUE(seat.taken());
  std::atomic<bool> closed{false};
  std::thread writer([&] {
    gate.Close();  // Waits for the seat taken above.
    closed.store(true);
    gate.Open();
  });
  gate.Leave(seat.index, AsTxn(fake));
  writer.join();
  EXPECT_TRUE(closed.load());
  ReaderGate::Seat again = gate.Enter();
  ASSERT_TRUE(again.taken());
  EXPECT_EQ(again.txn, AsTxn(fake));
}

TEST(ReaderGateTest, CloseWaitsForReadsAndBlocksNewOnes) {
  ReaderGate gate(8, 2);
  std::atomic<int> inside{0};
  std::atomic<bool> violated{false};
  std::atomic<bool> closed{false};
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      FakeTxn mine;
      while (!stop.load()) {
        ReaderGate::Seat seat = gate.Enter();
        if (!seat.taken()) {
          violated.store(true);  // 4 readers, 8 seats (2 keeping): one is always free.
          continue;
        }
        inside.fetch_add(1);
        if (closed.load()) violated.store(true);
        inside.fetch_sub(1);
        gate.Leave(seat.index, gate.Keeps(seat.index) ? AsTxn(mine) : nullptr);
      }
    });
  }
  for (int round = 0; round < 2000; ++round) {
    gate.Close();
    closed.store(true);
    if (inside.load() != 0) violated.store(true);
    closed.store(false);
    gate.Open();
  }
  stop.store(true);
  for (auto& r : readers) r.join();
  EXPECT_FALSE(violated.load());
}

}  // namespace
}  // namespace blobtune::store::internal
