// ReaderGate: lets the writer thread remap LMDB's map (mdb_env_set_mapsize) only while no read
// transaction of this process is open, without making readers take a lock.
//
//   { ReaderGate::ReadLock read(gate); ...read txn... }      // any thread, any number
//   gate.Close(); env.SetMapSize(n); gate.Open();            // the writer thread only
//
// Protocol (Dekker-style, all seq_cst): a reader increments `active_`, then checks `closing_`;
// the writer sets `closing_`, then waits for `active_` to drain to 0. One of them always sees
// the other: either the reader backs off (decrements, waits for Open) or the writer waits for
// the reader. Writer-preferring: once Close() has started no new read gets in, so a steady
// stream of readers cannot starve a growth.
// Cost on the read path: two atomic read-modify-writes on one cache line, no lock.
//
// Thread-safety: ReadLock from any thread; Close/Open from one thread at a time (the writer).
#ifndef BLOBTUNE_STORE_SRC_READER_GATE_H_
#define BLOBTUNE_STORE_SRC_READER_GATE_H_

#include <atomic>
#include <cstdint>

#include "blobtune/tuner/mutex.h"

namespace blobtune::store::internal {

class ReaderGate {
 public:
  ReaderGate() = default;
  ReaderGate(const ReaderGate&) = delete;
  ReaderGate& operator=(const ReaderGate&) = delete;

  class ReadLock {
   public:
    explicit ReadLock(ReaderGate& gate) : gate_(gate) { gate_.EnterRead(); }
    ~ReadLock() { gate_.ExitRead(); }
    ReadLock(const ReadLock&) = delete;
    ReadLock& operator=(const ReadLock&) = delete;

   private:
    ReaderGate& gate_;
  };

  // Blocks new readers and waits until no reader is inside.
  void Close() {
    closing_.store(true, std::memory_order_seq_cst);
    MutexLock lock(mu_);
    while (active_.load(std::memory_order_seq_cst) != 0) cv_.Wait(lock);
  }

  // Lets readers in again.
  void Open() {
    {
      MutexLock lock(mu_);
      closing_.store(false, std::memory_order_seq_cst);
    }
    cv_.NotifyAll();
  }

 private:
  void EnterRead() {
    for (;;) {
      active_.fetch_add(1, std::memory_order_seq_cst);
      if (!closing_.load(std::memory_order_seq_cst)) return;
      ExitRead();  // Back off so the writer can proceed, then wait for it.
      MutexLock lock(mu_);
      while (closing_.load(std::memory_order_seq_cst)) cv_.Wait(lock);
    }
  }

  void ExitRead() {
    if (active_.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        closing_.load(std::memory_order_seq_cst)) {
      // The lock orders this notification after the writer's check-then-wait.
      MutexLock lock(mu_);
      cv_.NotifyAll();
    }
  }

  // Memory ordering: seq_cst on both so that the store-then-load pairs of reader and writer
  // cannot both miss each other (release/acquire alone would allow it).
  std::atomic<int64_t> active_{0};
  std::atomic<bool> closing_{false};
  Mutex mu_;  // Only for sleeping: the writer waiting for readers, readers waiting for Open().
  CondVar cv_;
};

}  // namespace blobtune::store::internal

#endif  // BLOBTUNE_STORE_SRC_READER_GATE_H_
