// WriteBatcher: the store's one writer thread and its queue. Callers on any thread Enqueue
// prepared puts and erases; the writer thread takes everything queued (up to the batch bounds),
// applies it in ONE write transaction, commits with ONE sync and then runs each write's
// completion callback: group commit. Writes that arrive during a commit form the next batch, so
// the batch size follows the number of concurrent writers. After a batch of n, the writer waits
// up to batch_refill_wait for n writes to be queued again (the callers it just released submit
// their next writes a few microseconds apart), so that n writers keep sharing each commit.
//
// Map growth: a put or commit that hits MDB_MAP_FULL kills the transaction. The writer aborts it,
// closes the ReaderGate (waits for open read transactions to end), grows the map (doubling, or
// more for a large batch) up to max_map_size_bytes, reopens the gate and retries the whole batch.
// At the maximum, a batch of several writes is retried one write per transaction, so each write
// that fits still commits and only the ones that do not get RESOURCE_EXHAUSTED.
//
// A full disk: a commit that fails because the file system holding the store is full
// (disk_full.h) is retried the same way, one write per transaction, and each write that still
// does not fit gets RESOURCE_EXHAUSTED saying so. Such a write was not applied: LMDB makes a
// commit visible by writing its meta page, the last step, after the data pages were written and
// synced, and on a full disk those fail first. Nothing is kept from the failure: the next batch
// commits as soon as deletes or freed disk space make room.
//
// Also the entry point for the future async front: BlobStore::SubmitWrite prepares a WriteOp and
// calls Enqueue with the caller's callback.
//
// Thread-safety: Enqueue from any thread. Everything LMDB-related runs on the writer thread only;
// a write transaction never leaves it.
#ifndef BLOBTUNE_STORE_SRC_WRITE_BATCHER_H_
#define BLOBTUNE_STORE_SRC_WRITE_BATCHER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "blob_format.h"
#include "blobtune/base/clock.h"
#include "blobtune/base/mutex.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/store/store_observer.h"
#include "lmdb_env.h"
#include "reader_gate.h"

namespace blobtune::store::internal {

// A validated write, ready for the writer thread: namespace resolved, header (with the CRC32C of
// the bytes) computed on the caller's thread so that checksumming runs in parallel.
struct PreparedWrite {
  WriteOp::Kind kind = WriteOp::Kind::kPut;
  size_t ns_index = 0;
  MDB_dbi dbi = 0;
  std::string id;
  std::vector<std::byte> owned;        // Backing store of `payload` for owning ops.
  std::span<const std::byte> payload;  // Owned, or borrowed from a caller who waits.
  EncodedHeader header{};
  WriteCallback done;
  // Where the put's outcome goes before `done` runs with ok (may be null), and the outcome the
  // last transaction attempt saw.
  PutOutcome* outcome_out = nullptr;
  PutOutcome outcome = PutOutcome::kCreated;

  size_t RecordBytes() const {
    return kind == WriteOp::Kind::kPut ? kHeaderSize + payload.size() : 0;
  }
};

class WriteBatcher {
 public:
  // Takes from `options` the directory (for messages and the free space of its disk), the
  // namespaces, the batch bounds, the queue bound and the largest map. `env`, `gate`, `options`,
  // `clock` and `observer` (may be null) must outlive the batcher.
  WriteBatcher(LmdbEnv& env, ReaderGate& gate, const LmdbStoreOptions& options, Clock& clock,
               StoreObserver* observer);
  WriteBatcher(const WriteBatcher&) = delete;
  WriteBatcher& operator=(const WriteBatcher&) = delete;
  ~WriteBatcher();

  // Queues `write`; its `done` runs on the writer thread after its commit. On error `done` is not
  // called: RESOURCE_EXHAUSTED when the queue is full, CANCELLED when stopping.
  Status Enqueue(PreparedWrite write) BLOBTUNE_EXCLUDES(mu_);

  // Commits what is queued, then stops the thread. Later Enqueue calls fail. Idempotent.
  void Stop() BLOBTUNE_EXCLUDES(mu_);

  uint64_t queued() const BLOBTUNE_EXCLUDES(mu_);
  // Memory ordering: relaxed; these are statistics written by the writer thread.
  uint64_t commits() const { return commits_.load(std::memory_order_relaxed); }
  uint64_t growths() const { return growths_.load(std::memory_order_relaxed); }
  uint64_t map_size() const { return map_size_.load(std::memory_order_relaxed); }
  uint64_t used_bytes() const { return used_bytes_.load(std::memory_order_relaxed); }

 private:
  enum class Outcome { kCommitted, kMapFull, kDiskFull, kWriteFailed, kTxnFailed };

  void Run();
  // Waits for work; false when stopping with nothing left.
  bool CollectBatch(std::vector<PreparedWrite>* batch) BLOBTUNE_EXCLUDES(mu_);
  void TakeQueued(std::vector<PreparedWrite>* batch, size_t* bytes) BLOBTUNE_REQUIRES(mu_);
  void Process(std::span<PreparedWrite> batch, std::span<Status> results);
  Outcome TryCommit(std::span<PreparedWrite> batch, std::span<Status> results, Status* failure,
                    size_t* record_bytes);
  bool Grow(size_t needed_bytes, Status* why_not);
  // The RESOURCE_EXHAUSTED of a write that found no room: on the disk (`lmdb_error` is what the
  // commit reported) or in a map at its maximum size (`why_not` from Grow).
  Status NoRoomOnDisk(const PreparedWrite& w, const Status& lmdb_error) const;
  Status NoRoomInMap(const PreparedWrite& w, const Status& why_not) const;
  // "no room for blob 'x' in namespace 'n' (N record bytes)", or "no room to erase ...".
  std::string NoRoomFor(const PreparedWrite& w) const;
  void AdoptForeignMapSize();
  void PublishUsage();

  LmdbEnv& env_;
  ReaderGate& gate_;
  const LmdbStoreOptions& options_;
  Clock& clock_;
  StoreObserver* const observer_;

  mutable Mutex mu_;
  CondVar cv_;
  std::deque<PreparedWrite> queue_ BLOBTUNE_GUARDED_BY(mu_);
  bool stopping_ BLOBTUNE_GUARDED_BY(mu_) = false;
  // Writes in the last batch: the refill target (see LmdbStoreOptions::batch_refill_wait).
  size_t last_batch_size_ BLOBTUNE_GUARDED_BY(mu_) = 0;
  // True while the writer sleeps on cv_: Enqueue only pays for a wake-up when it is needed.
  bool writer_waiting_ BLOBTUNE_GUARDED_BY(mu_) = false;

  std::atomic<uint64_t> commits_{0};
  std::atomic<uint64_t> growths_{0};
  std::atomic<uint64_t> map_size_{0};
  std::atomic<uint64_t> used_bytes_{0};

  std::thread thread_;  // Last: starts after everything above is initialised.
};

}  // namespace blobtune::store::internal

#endif  // BLOBTUNE_STORE_SRC_WRITE_BATCHER_H_
