// StoreOptions: everything BlobStore::Open needs, with defaults that suit one process writing
// blobs of 1 KiB to a few MiB to a local disk.
//
//   blobtune::store::StoreOptions options;
//   options.directory = "/var/lib/app/blobs";
//   options.namespaces = {"incoming", "payload"};
//   auto store = blobtune::store::BlobStore::Open(options);
//
// Thread-safety: a plain value; Open copies it.
#ifndef BLOBTUNE_STORE_STORE_OPTIONS_H_
#define BLOBTUNE_STORE_STORE_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "blobtune/tuner/clock.h"
#include "blobtune/tuner/status.h"

namespace blobtune::store {

class StoreObserver;

// When a commit reaches the disk.
enum class Durability {
  // Each commit is on stable storage when its callers return (LMDB: two flushes per commit).
  kDurable,
  // MDB_NOMETASYNC: the data is flushed but the meta page is not; a power loss can undo the last
  // commit(s), never corrupt the database. About half the flush cost.
  kNoMetaSync,
  // MDB_NOSYNC: nothing is flushed by the store; the OS writes back later. A power loss (not a
  // process crash) can lose recent commits, and with some file systems corrupt the database.
  kNoSync,
};

struct StoreOptions {
  // The directory holding data.mdb and lock.mdb. REQUIRES: not empty.
  std::string directory;
  // Create `directory` (one level, mode 0755) when it does not exist. Default: true.
  bool create_if_missing = true;
  // The namespaces, one LMDB named database each; created at open when missing. Names are 1..255
  // bytes without NUL and distinct. Default: {"default"}.
  std::vector<std::string> namespaces = {"default"};

  // Map size at open, in bytes; an existing larger store keeps its size. Default: 64 MiB.
  size_t initial_map_size_bytes = size_t{64} << 20;
  // The map grows (doubling, or more for a large batch) up to this many bytes; past it writes
  // fail with RESOURCE_EXHAUSTED. REQUIRES: >= initial_map_size_bytes. Default: 64 GiB (costs
  // only address space: the file grows with use).
  size_t max_map_size_bytes = size_t{64} << 30;
  // Largest blob accepted, in bytes. Default: 64 MiB.
  size_t max_blob_size_bytes = size_t{64} << 20;
  // LMDB reader slots, i.e. read transactions open at once in all processes. Default: 512.
  unsigned max_readers = 512;

  // See Durability. Default: kDurable. (MDB_WRITEMAP is never used.)
  Durability durability = Durability::kDurable;
  // Group commit bounds: a transaction holds at most this many puts and erases. Default: 1024.
  size_t max_batch_operations = 1024;
  // ... and at most about this many record bytes (a single larger blob still commits alone).
  // Default: 64 MiB.
  size_t max_batch_bytes = size_t{64} << 20;
  // ... and once the first operation of a batch is queued, the writer waits at most this long
  // for more before it commits. 0 commits what is queued at once: operations that arrive during
  // a commit form the next batch anyway. Default: 0.
  Duration max_batch_delay{0};
  // After a commit of n writes, the writer waits at most this long for n writes to be queued
  // again before it commits fewer: the n callers it just released need a moment to submit their
  // next writes, and without the wait the first one to arrive would commit alone. Never waits
  // when the last batch was a single write. 0 disables. Default: 200 us.
  Duration batch_refill_wait = std::chrono::microseconds(200);
  // Writes queued and not yet committed, at most; past it a write fails at once with
  // RESOURCE_EXHAUSTED. Default: 65536.
  size_t max_queued_writes = 65536;

  // The store-wide default of ReadOptions::verify_checksums: whether a read that does not say
  // checks each blob's CRC32C (the header's own checksum is always checked). What verification
  // costs: see ReadOptions in blob_store.h. Turning it off trades the DATA_LOSS guarantee for
  // that cost. Default: true.
  bool verify_checksums = true;

  // Opt-in, PROCESS-WIDE: calls mallopt(M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_TOP_PAD) at open so
  // that glibc keeps freed heap memory resident instead of returning it to the OS: LMDB mallocs
  // every dirty page of a write transaction and fresh pages are slow to fault in (docs/LMDB.md:
  // 2x for 1 MiB x 10 group commits). Affects every allocation of the process. Default: false.
  bool keep_heap_resident = false;

  // Measures commit latency and batch delay. Not owned; must outlive the store.
  // Default: nullptr, meaning Clock::Steady().
  Clock* clock = nullptr;
  // Receives events; not owned; must outlive the store. Default: nullptr (none).
  StoreObserver* observer = nullptr;

  // Checks the fields above; Open calls it and fails with its Status.
  Status Validate() const;
};

}  // namespace blobtune::store

#endif  // BLOBTUNE_STORE_STORE_OPTIONS_H_
