// BlobStore: named blobs grouped in namespaces, each blob checksummed (CRC32C) and verified on
// every read unless the read asks otherwise (ReadOptions). This is the interface; each backend's
// own header declares its options and the function that opens it, and says how it writes, reads
// and fails.
//
//   // `store` came from a backend's open function; this code works with any of them.
//   Status Forward(blobtune::store::BlobStore& store, std::span<const std::byte> data) {
//     if (Status s = store.Put("incoming", "order-17", data); !s.ok()) return s;  // durable
//     return store.View("incoming", "order-17",
//                       [&](std::span<const std::byte> bytes, const BlobInfo&) { Send(bytes); });
//   }
//
// Missing blobs are NOT_FOUND; a checksum mismatch is DATA_LOSS and no bytes are returned. A
// failure that says the store is overloaded (fewer concurrent accesses would help) is
// IsOverload (status.h); a blob over the maximum size or a full disk is not.
// Derived classes that override Get or ViewBlob add `using BlobStore::Get;` (`ViewBlob`) to keep
// the convenience forms visible.
// Asynchronous access through tuner limiters (Boost.Asio): see async_blob_store.h.
//
// Thread-safety: all methods are safe to call from any number of threads at once.
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

#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"

namespace blobtune::store {

// What the header stored with each blob says about it.
struct BlobInfo {
  uint64_t size_bytes = 0;
  uint32_t user_flags = 0;          // Whatever the writer passed to Put.
  uint32_t crc32c = 0;              // CRC32C of the blob's bytes.
  int64_t created_unix_nanos = 0;   // Wall-clock time of the Put (system clock), ns since 1970.
  uint8_t format_version = 0;       // Record format version.
};

// The CRC32C (Castagnoli) of `bytes`: the BlobInfo::crc32c that every backend stores for a blob
// of these bytes, so a writer knows what a read will report (an HTTP server's ETag for a PUT).
uint32_t BlobChecksum(std::span<const std::byte> bytes) noexcept;

// How one read runs, as RocksDB's ReadOptions. A plain value; the default verifies.
//
//   ReadOptions fast;
//   fast.verify_checksums = false;  // e.g. bytes that carry their own end-to-end check
//   Status s = store->Get(fast, "incoming", "order-17", &buffer, nullptr);
struct ReadOptions {
  // Whether this read checks the blob's CRC32C before any of its bytes reach the caller
  // (DATA_LOSS on a mismatch, and no bytes). Unset: the verify_checksums of the options the store
  // was opened with, true unless they say otherwise. The header's own checksum (32 bytes) is
  // checked either way, so sizes and flags are always trustworthy. What verification costs is
  // the backend's: see its header.
  std::optional<bool> verify_checksums;
};

struct ListEntry {
  std::string id;
  BlobInfo info;
};

// A snapshot of the store's state for dashboards and tests.
struct StoreStats {
  // The map fields are 0 for a backend without a memory map.
  uint64_t map_size_bytes = 0;      // Current map size.
  uint64_t max_map_size_bytes = 0;  // The most the map may grow to.
  uint64_t used_bytes = 0;          // Pages in use in the data file, in bytes.
  uint64_t queued_writes = 0;       // Writes submitted and not yet committed.
  uint64_t commits = 0;             // Commits (write transactions or acknowledged writes).
  uint64_t map_growths = 0;         // Times the map grew since open.
};

// What a put found: no blob under its id (it created one) or a blob it replaced, exact for the
// write that landed. Two puts of one id see each other in the order they commit: the first
// creates, the second replaces.
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

  // A put with an outcome pointer: before its completion callback runs with ok, the store
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

// Completion of a submitted write: called exactly once, on a thread of the store's, after the
// commit holding the write is durable (ok) or has failed. It must be quick, must not throw and
// must not wait for another write of the same store (the thread running it may be the one that
// would commit that write); hand real work to another executor (e.g. asio::post).
using WriteCallback = std::function<void(Status)>;

// A whole blob as a read returns it: its bytes and what its header says about them.
struct Blob {
  std::vector<std::byte> bytes;
  BlobInfo info;
};

// Completion of a submitted read (SubmitRead): the blob, its bytes verified as Get verifies
// them, or why there is none. Called exactly once; quick, must not throw (as WriteCallback).
using ReadCallback = std::function<void(StatusOr<Blob>)>;

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

  BlobStore() = default;
  BlobStore(const BlobStore&) = delete;
  BlobStore& operator=(const BlobStore&) = delete;
  // Finishes the writes already submitted (their callbacks run) and closes the store.
  // REQUIRES: no call on this store is running or starts.
  virtual ~BlobStore() = default;

  // Stores `bytes` under `id` in namespace `ns`, replacing any blob with that id; returns once
  // the commit is durable (what that means is the backend's). On ok, `*outcome` (when not null)
  // says whether a blob with that id existed when the put landed (PutOutcome).
  // Errors: INVALID_ARGUMENT (unknown namespace, empty id, id over 511 bytes), RESOURCE_EXHAUSTED
  // (blob over max_blob_size_bytes, no room left: see the backend's header; overload),
  // CANCELLED (store closing), or what the commit reported.
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

  // Read in place: calls `fn(bytes, info)` with the blob's bytes (zero-copy where the backend
  // can), verified against the checksum first unless `options` say otherwise; `bytes` is valid
  // only during the call. `fn` runs while the read holds the store's resources, so it should be
  // short, and must not write to this store or start another read of it. An exception thrown by
  // `fn` propagates (the read's resources are released).
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
  // submits it. On ok, `done` will be called exactly once, on a thread of the store's, after the
  // commit holding `op` (see WriteCallback). On error (the same errors as Put/Erase that can be
  // seen before submitting), `done` is never called.
  virtual Status SubmitWrite(WriteOp op, WriteCallback done) = 0;

  // The asynchronous primitive under AsyncGet: Get(ns, id, &bytes, &info) with the default
  // ReadOptions, its result handed to `done`, which is called exactly once. This base version
  // reads on the calling thread and calls `done` before returning, for backends whose reads are
  // local and quick. A backend whose reads wait for a network sends the read and returns; `done`
  // then runs on one of its threads when the answer arrives, so reads in flight need no thread
  // each. Either way, a request that is wrong from the start (unknown namespace, bad id)
  // completes inside the call.
  virtual void SubmitRead(std::string ns, std::string id, ReadCallback done);
};

}  // namespace blobtune::store

#endif  // BLOBTUNE_STORE_BLOB_STORE_H_
