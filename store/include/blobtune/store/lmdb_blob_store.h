// OpenLmdbBlobStore: the BlobStore (blob_store.h) in an embedded LMDB environment on a local
// disk, and its options (LmdbStoreOptions), whose defaults suit one process writing blobs of
// 1 KiB to a few MiB.
//
//   blobtune::store::LmdbStoreOptions options;
//   options.directory = "/var/lib/app/blobs";
//   options.namespaces = {"incoming", "payload"};
//   auto store = blobtune::store::OpenLmdbBlobStore(options);
//   if (!store.ok()) return store.status();
//   Status s = (*store)->Put("incoming", "order-17", std::as_bytes(std::span(data)));  // durable
//   (*store)->View("incoming", "order-17",
//                  [&](std::span<const std::byte> bytes, const BlobInfo& info) { Send(bytes); });
//
// Namespaces: one LMDB named database each.
// Writes: every Put and Erase goes through one writer thread that gathers the writes queued by
// all callers into one LMDB transaction and one sync (group commit); a caller returns when the
// commit holding its write is durable. One put per transaction costs two device flushes, so
// durable throughput comes from many concurrent writers sharing commits. Write callbacks
// (WriteCallback) run on the writer thread.
// Reads: each read runs in its own LMDB read transaction; readers never block the writer or each
// other (except for the ~0.3 ms in which the writer grows the map). View is zero-copy: `fn` sees
// the bytes inside LMDB's map, and must not write to the store because the writer may be waiting
// for that read to end before it can grow the map. SubmitRead is the base one (reads copy mapped
// pages and are over sooner than a hand-off to another thread would be).
//
// What verification costs (ReadOptions::verify_checksums): one CRC32C over the blob's bytes. Get
// computes it in the same pass as its copy (AVX-512 VPCLMULQDQ where the CPU has it: each 64-byte
// block is checksummed as it is copied), so a verified Get costs the copy plus the checksum
// arithmetic, not a second read of the blob; without that instruction set the blob is copied,
// then checksummed in 16 KiB chunks while they are still in the L1 cache. View must read every
// byte once before calling `fn`, which an unverified View never does: O(size) where the
// unverified one is O(1). The store bench (BM_StoreGetCopy, BM_StoreGetCopyNoVerify,
// BM_RawLmdbGetCopy and BM_RawLmdbGetCopyCrc, a raw read, copy, then CRC32C) measures both
// against raw LMDB. On an AVX-512 server CPU, cached 10 KiB to 1 MiB blobs: a verified Get took
// at most about 1.1x an unverified one, where copying and then checksumming took 1.4x to 2.1x
// the copy alone.
//
// Overload (IsOverload, status.h): a full write queue (max_queued_writes) or all LMDB reader
// slots in use, and nothing else the store returns.
// A full disk: a write that finds no room on the file system holding the store fails with
// RESOURCE_EXHAUSTED whose message starts "disk full:" and names the directory (a map at
// max_map_size_bytes: "map full:"). Such a write was NOT applied (LMDB makes a commit visible only
// by its last step, the meta page, after the data pages are written and synced, and those are
// what fails on a full disk), so sending it again is safe. Reads go on as before; writes succeed
// again by themselves once deleted blobs or freed disk space make room (LMDB reuses the pages a
// delete frees from the second commit after it on: a put right after a single delete may still
// find no room). Not overload (IsOverload is false): fewer concurrent writes would not make room.
//
// Thread-safety: all methods are safe to call from any number of threads at once. One store at a
// time may have a given directory open, in one process: OpenLmdbBlobStore claims it
// (directory_claim.h) and refuses a directory that another owner in the same process or another
// process holds. LmdbStoreOptions is a plain value; OpenLmdbBlobStore copies it.
#ifndef BLOBTUNE_STORE_LMDB_BLOB_STORE_H_
#define BLOBTUNE_STORE_LMDB_BLOB_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"
#include "blobtune/store/blob_store.h"

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

struct LmdbStoreOptions {
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
  // costs: see the top of this file. Turning it off trades the DATA_LOSS guarantee for that
  // cost. Default: true.
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

  // Checks the fields above; OpenLmdbBlobStore calls it and fails with its Status.
  Status Validate() const;
};

// Opens (creating when missing) the store described by `options`.
// Errors: INVALID_ARGUMENT for bad options or a directory that is not a writable directory,
// NOT_FOUND for a missing directory without create_if_missing, DATA_LOSS for a data file that
// is not an LMDB database or is corrupt, ALREADY_EXISTS if this process or another one has
// it open already (naming the directory, and the other process's pid when it is known).
StatusOr<std::unique_ptr<BlobStore>> OpenLmdbBlobStore(const LmdbStoreOptions& options);

}  // namespace blobtune::store

#endif  // BLOBTUNE_STORE_LMDB_BLOB_STORE_H_
