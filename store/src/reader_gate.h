// ReaderGate: the seats for this process's LMDB reads, each keeping a reset read transaction for
// the next read on it, and the gate that the writer thread closes to remap LMDB's map
// (mdb_env_set_mapsize may run only while no read transaction of the process is open).
//
//   ReaderGate::Seat seat = gate.Enter();   // any thread; seat.txn: a reset txn, or null
//   ...renew seat.txn (or begin one), read, reset...
//   gate.Leave(seat.index, reset_txn);      // keeps the transaction on the seat
//   gate.Close(); env.SetMapSize(n); gate.Open();   // the writer thread only
//
// Each seat is one atomic word on its own cache line: the reset transaction it keeps (or none),
// or kBusy while a read sits there. A read takes a free seat with one compare-exchange, then
// checks the gate's `closing_` flag; it leaves with a plain store: one locked instruction per
// read, and no cache line written by all readers. Threads start at different home seats, so
// readers on different threads rarely meet. Why it pays: renewing a reset transaction skips the
// reader-table lock that mdb_txn_begin takes under MDB_NOTLS.
// Only the first `keeping` seats keep a transaction (each kept one holds an LMDB reader slot, and
// other processes, e.g. mdb_copy, need some too) and threads start among them; the seats above
// serve bursts, their reads beginning and aborting a transaction of their own.
//
// Close (Dekker-style, seq_cst): the writer sets `closing_`, then waits until no seat is busy; a
// read takes its seat, then reads `closing_`. One of them always sees the other: either the read
// backs off (leaves, waits for Open) or the writer waits for it. Writer-preferring: once Close
// has started no read gets in, so a steady stream of reads cannot starve a growth. A leaving read
// wakes a waiting writer when it sees `closing_`; the writer also looks again every
// kWriterRecheck, since without a fence the leaving read may not see the flag yet.
// Memory ordering: taking a seat is acquire and leaving it is release, so what one read did to
// the transaction happens-before the next read (or the writer) that takes the seat.
//
// Thread-safety: Enter/Leave from any thread; Close/Open from one thread at a time (the writer);
// TakeAll only when no read runs (close).
#ifndef BLOBTUNE_STORE_SRC_READER_GATE_H_
#define BLOBTUNE_STORE_SRC_READER_GATE_H_

#include <atomic>
#include <cassert>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "blobtune/base/mutex.h"

struct MDB_txn;

namespace blobtune::store::internal {

class ReaderGate {
 public:
  // A taken seat: its index for Leave and the reset transaction it kept (null: none yet).
  struct Seat {
    static constexpr size_t kNone = SIZE_MAX;
    size_t index = kNone;  // kNone: every seat is busy.
    MDB_txn* txn = nullptr;
    bool taken() const noexcept { return index != kNone; }
  };

  // `seats`: the most reads at once, e.g. LMDB's reader table size; `keeping`: how many of them
  // keep a transaction between reads. REQUIRES: 1 <= keeping <= seats.
  ReaderGate(size_t seats, size_t keeping)
      : seats_(new SeatWord[seats]), count_(seats), keeping_(keeping) {
    assert(keeping >= 1 && keeping <= seats);
  }
  ReaderGate(const ReaderGate&) = delete;
  ReaderGate& operator=(const ReaderGate&) = delete;

  // Whether the seat at `index` keeps a transaction (Leave may pass one).
  bool Keeps(size_t index) const noexcept { return index < keeping_; }

  // Takes a free seat, waiting while the writer has the gate closed; a Seat that is not taken()
  // when every seat is busy.
  Seat Enter() {
    const size_t home = Home() % keeping_;
    for (;;) {
      Seat seat = TakeFreeSeat(home);
      if (!seat.taken() || !closing_.load(std::memory_order_seq_cst)) return seat;
      Leave(seat.index, seat.txn);  // Back off so the writer can proceed, then wait for it.
      MutexLock lock(mu_);
      while (closing_.load(std::memory_order_relaxed)) cv_.Wait(lock);
    }
  }

  // Gives the seat back, keeping `txn` on it for the next read. REQUIRES: `index` came from
  // Enter and has not been left yet; `txn` is a reset read transaction, or null (always null
  // where !Keeps(index)).
  void Leave(size_t index, MDB_txn* txn) {
    const uintptr_t kept = reinterpret_cast<uintptr_t>(txn);
    assert((kept & kBusy) == 0 && (kept == 0 || Keeps(index)));
    seats_[index].word.store(kept, std::memory_order_release);
    if (closing_.load(std::memory_order_relaxed)) {
      MutexLock lock(mu_);  // Orders this notification after the writer's check.
      cv_.NotifyAll();
    }
  }

  // Blocks new reads and waits until no seat is busy.
  void Close() {
    closing_.store(true, std::memory_order_seq_cst);
    for (size_t index = 0; index < count_; ++index) {
      const std::atomic<uintptr_t>& word = seats_[index].word;
      if ((word.load(std::memory_order_seq_cst) & kBusy) == 0) continue;
      MutexLock lock(mu_);
      while (word.load(std::memory_order_acquire) & kBusy) cv_.WaitFor(lock, kWriterRecheck);
    }
  }

  // Lets reads in again.
  void Open() {
    {
      MutexLock lock(mu_);
      closing_.store(false, std::memory_order_seq_cst);
    }
    cv_.NotifyAll();
  }

  // Removes and returns the transactions kept on the seats. REQUIRES: no read runs.
  std::vector<MDB_txn*> TakeAll() {
    std::vector<MDB_txn*> out;
    for (size_t index = 0; index < count_; ++index) {
      const uintptr_t state = seats_[index].word.exchange(0, std::memory_order_acquire);
      assert((state & kBusy) == 0);
      if (MDB_txn* txn = reinterpret_cast<MDB_txn*>(state)) out.push_back(txn);
    }
    return out;
  }

 private:
  static constexpr uintptr_t kBusy = 1;
  // How often a writer waiting for a busy seat looks again if no leaving read woke it.
  static constexpr std::chrono::microseconds kWriterRecheck{100};

  struct alignas(64) SeatWord {
    std::atomic<uintptr_t> word{0};
  };

  // Where the calling thread starts looking: threads are numbered in order of first use.
  static size_t Home() noexcept {
    static std::atomic<size_t> next{0};
    thread_local const size_t home = next.fetch_add(1, std::memory_order_relaxed);
    return home;
  }

  // The first free seat from `home` on, marked busy; not taken() if every seat is busy.
  // seq_cst: the taking compare-exchange must come before the read of `closing_` (Dekker).
  Seat TakeFreeSeat(size_t home) {
    for (size_t k = 0; k < count_; ++k) {
      const size_t index = home + k < count_ ? home + k : home + k - count_;
      std::atomic<uintptr_t>& word = seats_[index].word;
      uintptr_t state = word.load(std::memory_order_relaxed);
      while ((state & kBusy) == 0) {  // Free: holds a reset transaction or nothing.
        if (word.compare_exchange_weak(state, kBusy, std::memory_order_seq_cst,
                                       std::memory_order_relaxed)) {
          return Seat{.index = index, .txn = reinterpret_cast<MDB_txn*>(state)};
        }
      }
    }
    return Seat{};
  }

  const std::unique_ptr<SeatWord[]> seats_;
  const size_t count_;
  const size_t keeping_;
  std::atomic<bool> closing_{false};  // Changed by the writer; Open changes it under mu_.
  Mutex mu_;  // Only for sleeping: the writer waiting for a seat, reads waiting for Open.
  CondVar cv_;
};

}  // namespace blobtune::store::internal

#endif  // BLOBTUNE_STORE_SRC_READER_GATE_H_
