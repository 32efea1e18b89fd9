// BlobStore: named blobs in an embedded LMDB environment, grouped in namespaces, each blob
// checksummed (CRC32C) and verified on every read unless the read asks otherwise (ReadOptions).
//
//   blobtune::store::StoreOptions options;
//   options.directory = "/var/lib/app/blobs";
//   options.namespaces = {"incoming", "payload"};
//   auto store = blobtune::store::BlobStore::Open(options);
//   if (!store.ok()) return store.status();
//   Status s = (*store)->Put("incoming", "order-17", std::as_bytes(std::span(data)));  // durable
//   (*store)->View("incoming", "order-17",
//                  [&](std::span<const std::byte> bytes, const BlobInfo& info) { Send(bytes); });
//
// Writes: every Put and Erase goes through one writer thread that gathers the writes queued by
// all callers into one LMDB transaction and one sync (group commit); a caller returns when the
// commit holding its write is durable. One put per transaction costs two device flushes, so
// durable throughput comes from many concurrent writers sharing commits.
// Reads: each read runs in its own LMDB read transaction; readers never block the writer or each
// other (except for the ~0.3 ms in which the writer grows the map).
// Missing blobs are NOT_FOUND; a checksum mismatch is DATA_LOSS and no bytes are returned.
// Derived classes that override Get or ViewBlob add `using BlobStore::Get;` (`ViewBlob`) to keep
// the convenience forms visible.
// Asynchronous access through tuner limiters (Boost.Asio): see async_blob_store.h.
//
// A full disk: a write that finds no room on the file system holding the store fails with
// RESOURCE_EXHAUSTED whose message starts "disk full:" and names the directory (a map at
// max_map_size_bytes: "map full:"). Such a write was NOT applied (LMDB makes a commit visible only
// by its last step, the meta page, after the data pages are written and synced, and those are
// what fails on a full disk), so sending it again is safe. Reads go on as before; writes succeed
// again by themselves once deleted blobs or freed disk space make room (LMDB reuses the pages a
// delete frees from the second commit after it on: a put right after a single delete may still
// find no room). Not overload (IsOverload is false): fewer concurrent writes would not make room.
//
// Thread-safety: all methods are safe to call from any number of threads at once. One BlobStore
// at a time may have a given directory open, in one process: Open refuses a second in the same
// process or in another one (a lock file, blobtune.lock, that the kernel releases when its
// process ends, however it ends).
#ifndef BLOBTUNE_STORE_BLOB_STORE_H_
#define BLOBTUNE_STORE_BLOB_STORE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "blobtune/store/store_options.h"
#include "blobtune/tuner/status.h"
#include "blobtune/tuner/status_or.h"

namespace blobtune::store {

// What the header stored with each blob says about it.
struct BlobInfo {
  uint64_t size_bytes = 0;
  uint32_t user_flags = 0;          // Whatever the writer passed to Put.
  uint32_t crc32c = 0;              // CRC32C of the blob's bytes.
  int64_t created_unix_nanos = 0;   // Wall-clock time of the Put (system clock), ns since 1970.
  uint8_t format_version = 0;       // Record format version.
};

// How one read runs, as RocksDB's ReadOptions. A plain value; the default verifies.
//
//   ReadOptions fast;
//   fast.verify_checksums = false;  // e.g. bytes that carry their own end-to-end check
//   Status s = store->Get(fast, "incoming", "order-17", &buffer, nullptr);
struct ReadOptions {
  // Whether this read checks the blob's CRC32C before any of its bytes reach the caller
  // (DATA_LOSS on a mismatch, and no bytes). Unset: StoreOptions::verify_checksums, which is
  // true unless the store was opened without it. The header's own checksum (32 bytes) is checked
  // either way, so sizes and flags are always trustworthy.
  //
  // What verification costs: one CRC32C over the blob's bytes. Get computes it in the same pass
  // as its copy (AVX-512 VPCLMULQDQ where the CPU has it: each 64-byte block is checksummed as
  // it is copied), so a verified Get costs the copy plus the checksum arithmetic, not a second
  // read of the blob; without that instruction set the blob is copied, then checksummed in
  // 16 KiB chunks while they are still in the L1 cache. View must read every byte once before
  // calling `fn`, which an unverified View never does: O(size) where the unverified one is O(1).
  // The store bench (BM_StoreGetCopy, BM_StoreGetCopyNoVerify, BM_RawLmdbGetCopy and
  // BM_RawLmdbGetCopyCrc, a raw read, copy, then CRC32C) measures both against raw LMDB. On an
  // AVX-512 server CPU, cached 10 KiB to 1 MiB blobs: a verified Get took at most about 1.1x an
  // unverified one, where copying and then checksumming took 1.4x to 2.1x the copy alone.
  std::optional<bool> verify_checksums;
};

struct ListEntry {
  std::string id;
  BlobInfo info;
};

// A snapshot of the store's state for dashboards and tests.
struct StoreStats {
  uint64_t map_size_bytes = 0;      // Current LMDB map size.
  uint64_t max_map_size_bytes = 0;  // StoreOptions::max_map_size_bytes.
  uint64_t used_bytes = 0;          // Pages in use in the data file, in bytes.
  uint64_t queued_writes = 0;       // Writes waiting for the writer thread.
  uint64_t commits = 0;             // Write transactions committed since open.
  uint64_t map_growths = 0;         // Times the map grew since open.
};

// What a put found in its own write transaction: no blob under its id (it created one) or a blob
// it replaced. Two puts of one id in one group commit see each other: the first creates, the
// second replaces.
enum class PutOutcome { kCreated, kReplaced };

// One put or erase for SubmitWrite. A plain movable value.
class WriteOp {
 public:
  enum class Kind { kPut, kErase };

  // A put that owns its bytes.
  static WriteOp Put(std::string ns, std::string id, std::vector<std::byte> bytes,
                     uint32_t user_flags = 0);
  // A put that borrows its bytes. REQUIRES: `bytes` stay valid and unchanged until the
  // completion callback has run (or SubmitWrite returned an error).
  static WriteOp PutBorrowed(std::string ns, std::string id, std::span<const std::byte> bytes,
                             uint32_t user_flags = 0);
  static WriteOp Erase(std::string ns, std::string id);

  // A put with an outcome pointer: before its completion callback runs with ok, the writer thread
  // stores in `*outcome` whether the put created or replaced its blob. REQUIRES: `outcome` stays
  // valid until the callback has run (or SubmitWrite returned an error). Ignored by an erase.
  void set_outcome_out(PutOutcome* outcome) noexcept { outcome_out_ = outcome; }
  PutOutcome* outcome_out() const noexcept { return outcome_out_; }

  Kind kind() const noexcept { return kind_; }
  const std::string& ns() const noexcept { return ns_; }
  const std::string& id() const noexcept { return id_; }
  uint32_t user_flags() const noexcept { return user_flags_; }
  std::span<const std::byte> bytes() const noexcept {
    return borrowed_ ? borrowed_bytes_ : std::span<const std::byte>(owned_bytes_);
  }
  // Hands the owned bytes over (empty for borrowed puts and erases).
  std::vector<std::byte> TakeOwnedBytes() && { return std::move(owned_bytes_); }

 private:
  Kind kind_ = Kind::kPut;
  std::string ns_;
  std::string id_;
  std::vector<std::byte> owned_bytes_;
  std::span<const std::byte> borrowed_bytes_;
  bool borrowed_ = false;
  uint32_t user_flags_ = 0;
  PutOutcome* outcome_out_ = nullptr;
};

// Completion of a submitted write: called exactly once, on the store's writer thread, after the
// commit holding the write is durable (ok) or has failed. It must be quick, must not throw and
// must not wait for another write of the same store (the writer thread is the one running it);
// hand real work to another executor (e.g. asio::post).
using WriteCallback = std::function<void(Status)>;

// A whole blob as a read returns it: its bytes and what its header says about them.
struct Blob {
  std::vector<std::byte> bytes;
  BlobInfo info;
};

// Completion of a submitted read (SubmitRead): the blob, its bytes verified as Get verifies
// them, or why there is none. Called exactly once; quick, must not throw (as WriteCallback).
using ReadCallback = std::function<void(StatusOr<Blob>)>;

// Whether a failure returned by a BlobStore says the store is overloaded (more concurrent
// accesses than it can serve now) rather than that the request was wrong or the data is bad:
// RESOURCE_EXHAUSTED from a full write queue or from all LMDB reader slots in use,
// DEADLINE_EXCEEDED and UNAVAILABLE. A blob over max_blob_size_bytes, a map at its maximum size
// or a full disk is RESOURCE_EXHAUSTED too, but not overload: fewer concurrent accesses would not
// help.
// A limiter should count an overloaded access as dropped (AsyncBlobStore does).
bool IsOverload(const Status& status) noexcept;

class BlobStore {
 public:
  // A non-owning reference to a callable `void(std::span<const std::byte>, const BlobInfo&)`.
  class ViewFn {
   public:
    template <typename F>
      requires(!std::is_same_v<std::remove_cv_t<F>, ViewFn>)
    ViewFn(F& f)  // NOLINT(google-explicit-constructor): View() wraps the caller's lambda.
        : object_(const_cast<void*>(static_cast<const void*>(&f))),
          call_([](void* o, std::span<const std::byte> b, const BlobInfo& i) {
            (*static_cast<F*>(o))(b, i);
          }) {}
    void operator()(std::span<const std::byte> bytes, const BlobInfo& info) const {
      call_(object_, bytes, info);
    }

   private:
    void* object_;
    void (*call_)(void*, std::span<const std::byte>, const BlobInfo&);
  };

  // Opens (creating when missing) the store described by `options`.
  // Errors: INVALID_ARGUMENT for bad options or a directory that is not a writable directory,
  // NOT_FOUND for a missing directory without create_if_missing, DATA_LOSS for a data file that
  // is not an LMDB database or is corrupt, ALREADY_EXISTS if this process or another one has
  // it open already (naming the directory, and the other process's pid when it is known).
  static StatusOr<std::unique_ptr<BlobStore>> Open(const StoreOptions& options);

  BlobStore() = default;
  BlobStore(const BlobStore&) = delete;
  BlobStore& operator=(const BlobStore&) = delete;
  // Commits the writes already queued, stops the writer thread and closes the environment.
  // REQUIRES: no call on this store is running or starts.
  virtual ~BlobStore() = default;

  // Stores `bytes` under `id` in namespace `ns`, replacing any blob with that id; returns once
  // the commit is durable (see StoreOptions::durability). On ok, `*outcome` (when not null) says
  // whether a blob with that id existed in the put's own transaction (PutOutcome).
  // Errors: INVALID_ARGUMENT (unknown namespace, empty id, id over the LMDB key limit of 511
  // bytes), RESOURCE_EXHAUSTED (blob over max_blob_size_bytes, map at max_map_size_bytes, disk
  // full: see the top of this file; write queue full), CANCELLED (store closing), or what the
  // commit reported.
  virtual Status Put(std::string_view ns, std::string_view id, std::span<const std::byte> bytes,
                     uint32_t user_flags = 0, PutOutcome* outcome = nullptr) = 0;
  // Removes a blob; NOT_FOUND if there was none. Durable like Put. On a full disk a delete
  // usually succeeds (it reuses pages the store freed before), but may fail like a Put.
  virtual Status Erase(std::string_view ns, std::string_view id) = 0;

  // A copy of the blob's bytes, verified against its checksum unless `options` say otherwise
  // (ReadOptions::verify_checksums). The forms without ReadOptions use the defaults.
  StatusOr<std::vector<std::byte>> Get(const ReadOptions& options, std::string_view ns,
                                       std::string_view id) {
    std::vector<std::byte> out;
    if (Status s = Get(options, ns, id, &out, nullptr); !s.ok()) return s;
    return out;
  }
  StatusOr<std::vector<std::byte>> Get(std::string_view ns, std::string_view id) {
    return Get(ReadOptions(), ns, id);
  }
  // The same into a caller's buffer (its capacity is reused); `info` may be null. The checksum
  // is checked while copying: on DATA_LOSS `*out` is left empty, on other errors untouched.
  virtual Status Get(const ReadOptions& options, std::string_view ns, std::string_view id,
                     std::vector<std::byte>* out, BlobInfo* info) = 0;
  Status Get(std::string_view ns, std::string_view id, std::vector<std::byte>* out,
             BlobInfo* info) {
    return Get(ReadOptions(), ns, id, out, info);
  }

  // Zero-copy read: calls `fn(bytes, info)` with the blob's bytes inside LMDB's map, verified
  // against the checksum first unless `options` say otherwise; `bytes` is valid only during the
  // call. `fn` runs inside a read transaction, so it should be short, and must not write to this
  // store or start another read of it (the writer may be waiting for this read to end before it
  // can grow the map). An exception thrown by `fn` propagates (the read transaction is released).
  template <typename F>
  Status View(const ReadOptions& options, std::string_view ns, std::string_view id, F&& fn) {
    return ViewBlob(options, ns, id, ViewFn(fn));
  }
  template <typename F>
  Status View(std::string_view ns, std::string_view id, F&& fn) {
    return ViewBlob(ReadOptions(), ns, id, ViewFn(fn));
  }
  virtual Status ViewBlob(const ReadOptions& options, std::string_view ns, std::string_view id,
                          ViewFn fn) = 0;
  Status ViewBlob(std::string_view ns, std::string_view id, ViewFn fn) {
    return ViewBlob(ReadOptions(), ns, id, fn);
  }

  // Whether a blob exists (without reading it).
  virtual StatusOr<bool> Exists(std::string_view ns, std::string_view id) = 0;
  // The blob's header, checked against the header checksum (the bytes are not read).
  virtual StatusOr<BlobInfo> Stat(std::string_view ns, std::string_view id) = 0;
  // Up to `limit` blobs whose ids start with `prefix`, in id order, starting after
  // `start_after` when it is not empty (pass the last id of a page to get the next page).
  // REQUIRES: limit >= 1.
  virtual StatusOr<std::vector<ListEntry>> List(std::string_view ns, std::string_view prefix,
                                                size_t limit,
                                                std::string_view start_after = {}) = 0;

  virtual StoreStats Stats() const = 0;

  // The asynchronous primitive under Put and Erase, for the async front: validates `op` and
  // queues it for the writer thread. On ok, `done` will be called exactly once, on the writer
  // thread, after the commit holding `op` (see WriteCallback). On error (the same errors as
  // Put/Erase that can be seen before queuing), `done` is never called.
  virtual Status SubmitWrite(WriteOp op, WriteCallback done) = 0;

  // The asynchronous primitive under AsyncGet: Get(ns, id, &bytes, &info) with the default
  // ReadOptions, its result handed to `done`, which is called exactly once. This base version reads on the calling
  // thread and calls `done` before returning: the LMDB store's reads copy mapped pages and are
  // over sooner than a hand-off to another thread would be. A backend whose reads wait for a
  // network (RADOS) sends the read and returns; `done` then runs on one of its threads when the
  // answer arrives, so reads in flight need no thread each. Either way, a request that is wrong
  // from the start (unknown namespace, bad id) completes inside the call.
  virtual void SubmitRead(std::string ns, std::string id, ReadCallback done);
};

}  // namespace blobtune::store

#endif  // BLOBTUNE_STORE_BLOB_STORE_H_
