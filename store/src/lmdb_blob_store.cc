// LmdbBlobStore: the BlobStore over one LMDB environment. Reads run on the caller's thread in a
// pooled read transaction; writes are prepared (validated, checksummed) on the caller's thread and
// committed by the WriteBatcher's writer thread.
#include "blobtune/store/lmdb_blob_store.h"

#include <malloc.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <utility>

#include "blob_format.h"
#include "blobtune/base/mutex.h"
#include "blobtune/store/directory_claim.h"
#include "blobtune/store/store_observer.h"
#include "crc32c.h"
#include "lmdb_env.h"
#include "reader_gate.h"
#include "sync_completion.h"
#include "write_batcher.h"

namespace blobtune::store {
namespace {

using internal::LmdbEnv;
using internal::LmdbTxn;
using internal::PreparedWrite;
using internal::BlobName;
using internal::SyncCompletion;
using internal::WallClockNanos;

// Reset read transactions kept between reads, each on its own seat at the reader gate and each
// holding an LMDB reader slot; the other slots serve bursts and other processes.
constexpr size_t kKeptReadTxns = 32;

class LmdbBlobStore final : public BlobStore {
 public:
  LmdbBlobStore(const LmdbStoreOptions& options, DirectoryClaim claim, LmdbEnv env,
                std::vector<MDB_dbi> dbis)
      : options_(options),
        claim_(std::move(claim)),
        env_(std::move(env)),
        dbis_(std::move(dbis)),
        max_key_size_(env_.MaxKeySize()),
        clock_(options.clock != nullptr ? *options.clock : Clock::Steady()),
        observer_(options.observer),
        gate_(env_.MaxReaders(), std::min<size_t>(kKeptReadTxns, env_.MaxReaders())) {
    writer_ = std::make_unique<internal::WriteBatcher>(env_, gate_, options_, clock_, observer_);
  }

  ~LmdbBlobStore() override {
    writer_->Stop();
    // Aborts the kept read transactions before env_ closes.
    for (MDB_txn* txn : gate_.TakeAll()) LmdbTxn::AdoptReset(txn).Abort();
  }

  Status Put(std::string_view ns, std::string_view id, std::span<const std::byte> bytes,
             uint32_t user_flags, PutOutcome* outcome) override {
    StatusOr<PreparedWrite> w = Prepare(WriteOp::Kind::kPut, ns, id, bytes, user_flags);
    if (!w.ok()) return Fail(StoreOp::kPut, w.status());
    SyncCompletion completion;
    w->done = completion.Callback();
    w->outcome_out = outcome;  // Written by the writer thread before the callback runs.
    // The payload stays borrowed: this thread waits until the writer is done with it.
    if (Status s = writer_->Enqueue(*std::move(w)); !s.ok()) return Fail(StoreOp::kPut, s);
    return completion.Wait();
  }

  Status Erase(std::string_view ns, std::string_view id) override {
    StatusOr<PreparedWrite> w = Prepare(WriteOp::Kind::kErase, ns, id, {}, 0);
    if (!w.ok()) return Fail(StoreOp::kErase, w.status());
    SyncCompletion completion;
    w->done = completion.Callback();
    if (Status s = writer_->Enqueue(*std::move(w)); !s.ok()) return Fail(StoreOp::kErase, s);
    return completion.Wait();
  }

  Status SubmitWrite(WriteOp op, WriteCallback done) override {
    const StoreOp kind = op.kind() == WriteOp::Kind::kPut ? StoreOp::kPut : StoreOp::kErase;
    if (!done) return Fail(kind, Status::InvalidArgument("SubmitWrite needs a callback"));
    StatusOr<PreparedWrite> w =
        Prepare(op.kind(), op.ns(), op.id(), op.bytes(), op.user_flags());
    if (!w.ok()) return Fail(kind, w.status());
    w->outcome_out = op.outcome_out();
    w->owned = std::move(op).TakeOwnedBytes();  // Moving a vector keeps `payload` valid.
    w->done = std::move(done);
    if (Status s = writer_->Enqueue(*std::move(w)); !s.ok()) return Fail(kind, s);
    return Status::Ok();
  }

  using BlobStore::Get;
  using BlobStore::ViewBlob;

  Status Get(const ReadOptions& options, std::string_view ns, std::string_view id,
             std::vector<std::byte>* out, BlobInfo* info) override {
    const bool verify = Verifies(options);
    // The checksum is computed while copying (one pass over the bytes), not before.
    auto copy = [&](std::span<const std::byte> bytes, const BlobInfo& i) -> Status {
      if (!verify) {
        out->assign(bytes.begin(), bytes.end());
      } else if (Status s = internal::CheckPayloadChecksum(VerifiedCopy(bytes, out), bytes.size(),
                                                           i, id);
                 !s.ok()) {
        out->clear();  // No bytes that fail their checksum reach the caller.
        return s;
      }
      if (info != nullptr) *info = i;
      return Status::Ok();
    };
    return Read(StoreOp::kGet, ns, id, /*verify=*/false, copy);
  }

  Status ViewBlob(const ReadOptions& options, std::string_view ns, std::string_view id,
                  ViewFn fn) override {
    return Read(StoreOp::kView, ns, id, Verifies(options), fn);
  }

  StatusOr<BlobInfo> Stat(std::string_view ns, std::string_view id) override {
    BlobInfo info;
    auto keep = [&](std::span<const std::byte>, const BlobInfo& i) { info = i; };
    if (Status s = Read(StoreOp::kStat, ns, id, /*verify=*/false, keep); !s.ok()) return s;
    return info;
  }

  StatusOr<bool> Exists(std::string_view ns, std::string_view id) override {
    StatusOr<size_t> index = Check(ns, id);
    if (!index.ok()) return Fail(StoreOp::kExists, index.status());
    ReadScope scope(*this);
    if (!scope.status().ok()) return Fail(StoreOp::kExists, scope.status());
    MDB_val value{};
    const int rc = scope.txn().Get(dbis_[*index], id, &value);
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
      return Fail(StoreOp::kExists, internal::LmdbStatus(rc, "lookup of " + BlobName(ns, id)));
    }
    Observe(StoreOp::kExists, *index, 0);
    return rc == MDB_SUCCESS;
  }

  StatusOr<std::vector<ListEntry>> List(std::string_view ns, std::string_view prefix, size_t limit,
                                        std::string_view start_after) override;

  StoreStats Stats() const override {
    StoreStats s;
    s.map_size_bytes = writer_->map_size();
    s.max_map_size_bytes = options_.max_map_size_bytes;
    s.used_bytes = writer_->used_bytes();
    s.queued_writes = writer_->queued();
    s.commits = writer_->commits();
    s.map_growths = writer_->growths();
    return s;
  }

  void NotifyOpen() {
    if (observer_ == nullptr) return;
    std::vector<std::string_view> names(options_.namespaces.begin(), options_.namespaces.end());
    observer_->OnOpen(names.data(), names.size());
  }

 private:
  // A seat at the reader gate and its read transaction, renewed, for one read.
  class ReadScope {
   public:
    explicit ReadScope(LmdbBlobStore& store) : store_(store), seat_(store.gate_.Enter()) {
      if (!seat_.taken()) {
        status_ = store_.AllSeatsBusy();
        return;
      }
      if (seat_.txn != nullptr) {
        txn_ = LmdbTxn::AdoptReset(seat_.txn);
        status_ = txn_.Renew();  // The warm path: the seat's reader slot, no lock.
        if (!status_.ok()) txn_.Abort();
        return;
      }
      StatusOr<LmdbTxn> fresh = store_.BeginReadTxn();
      if (fresh.ok()) {
        txn_ = *std::move(fresh);
      } else {
        status_ = fresh.status();
      }
    }
    ~ReadScope() {
      if (!seat_.taken()) return;
      txn_.Reset();  // Before leaving the seat: a reset txn holds no snapshot.
      MDB_txn* kept = store_.gate_.Keeps(seat_.index) ? txn_.ReleaseReset() : nullptr;
      txn_.Abort();  // A burst seat's own transaction (no-op once released).
      store_.gate_.Leave(seat_.index, kept);
    }
    ReadScope(const ReadScope&) = delete;
    ReadScope& operator=(const ReadScope&) = delete;

    const Status& status() const { return status_; }
    LmdbTxn& txn() { return txn_; }

   private:
    LmdbBlobStore& store_;
    const internal::ReaderGate::Seat seat_;
    LmdbTxn txn_;
    Status status_;
  };

  // A new read transaction, for a seat that keeps none.
  StatusOr<LmdbTxn> BeginReadTxn() {
    int rc = MDB_SUCCESS;
    StatusOr<LmdbTxn> fresh = LmdbTxn::BeginRead(env_, &rc);
    if (rc == MDB_READERS_FULL) return ReaderSlotsFull("in use by open read transactions");
    return fresh;
  }
  Status AllSeatsBusy() const { return ReaderSlotsFull("taken by this store's reads"); }
  Status ReaderSlotsFull(std::string_view by_whom) const {
    return Status::Overloaded(
        "LMDB reader slots are full: all " + std::to_string(env_.MaxReaders()) +
        " are " + std::string(by_whom) + " (LmdbStoreOptions::max_readers is " +
        std::to_string(options_.max_readers) + "; raise it or bound concurrent reads)");
  }

  // Copies `bytes` into `*out` and returns their CRC32C, in one pass where the CPU allows.
  static uint32_t VerifiedCopy(std::span<const std::byte> bytes, std::vector<std::byte>* out) {
    if (out->size() >= bytes.size()) {
      out->resize(bytes.size());  // Shrinking writes nothing.
      return crc32c::ExtendCopy(0, out->data(), bytes);
    }
    // Growing with resize() would zero-fill first; append chunks instead and checksum each while
    // it is still in the L1 cache.
    constexpr size_t kChunk = 16 * 1024;
    out->clear();
    out->reserve(bytes.size());
    uint32_t crc = 0;
    for (size_t at = 0; at < bytes.size(); at += kChunk) {
      const std::span<const std::byte> chunk = bytes.subspan(at, std::min(kChunk, bytes.size() - at));
      out->insert(out->end(), chunk.begin(), chunk.end());
      crc = crc32c::Extend(crc, std::span<const std::byte>(out->data() + at, chunk.size()));
    }
    return crc;
  }

  // Whether a read with `options` checks the blob's CRC32C.
  bool Verifies(const ReadOptions& options) const {
    return options.verify_checksums.value_or(options_.verify_checksums);
  }

  // Looks the blob up in a read transaction, checks its header and, if `verify`, its bytes; then
  // calls fn(payload, info). If fn returns a Status, that is the result.
  template <typename F>
  Status Read(StoreOp op, std::string_view ns, std::string_view id, bool verify, F&& fn) {
    StatusOr<size_t> index = Check(ns, id);
    if (!index.ok()) return Fail(op, index.status());
    ReadScope scope(*this);
    if (!scope.status().ok()) return Fail(op, scope.status());
    MDB_val value{};
    const int rc = scope.txn().Get(dbis_[*index], id, &value);
    if (rc == MDB_NOTFOUND) return Fail(op, Status::NotFound(BlobName(ns, id) + " does not exist"));
    if (rc != MDB_SUCCESS) return Fail(op, internal::LmdbStatus(rc, "read of " + BlobName(ns, id)));
    BlobInfo info;
    std::span<const std::byte> payload;
    if (Status s = internal::DecodeRecord(internal::ValToBytes(value), id, &info, &payload);
        !s.ok()) {
      return Fail(op, s.WithContext("namespace '" + std::string(ns) + "'"));
    }
    if (verify) {
      if (Status s = internal::VerifyPayload(payload, info, id); !s.ok()) {
        return Fail(op, s.WithContext("namespace '" + std::string(ns) + "'"));
      }
    }
    if constexpr (std::is_same_v<decltype(fn(payload, info)), Status>) {
      if (Status s = fn(payload, info); !s.ok()) {
        return Fail(op, s.WithContext("namespace '" + std::string(ns) + "'"));
      }
    } else {
      fn(payload, info);
    }
    Observe(op, *index, op == StoreOp::kStat ? 0 : info.size_bytes);
    return Status::Ok();
  }

  // The namespace's index, or why `ns`/`id` cannot name a blob.
  StatusOr<size_t> Check(std::string_view ns, std::string_view id) const {
    return internal::CheckBlobName(options_.namespaces, ns, id, max_key_size_, "LMDB keys");
  }

  StatusOr<PreparedWrite> Prepare(WriteOp::Kind kind, std::string_view ns, std::string_view id,
                                  std::span<const std::byte> bytes, uint32_t user_flags) const {
    StatusOr<size_t> index = Check(ns, id);
    if (!index.ok()) return index.status();
    PreparedWrite w;
    w.kind = kind;
    w.ns_index = *index;
    w.dbi = dbis_[*index];
    w.id.assign(id);
    if (kind == WriteOp::Kind::kPut) {
      if (bytes.size() > options_.max_blob_size_bytes) {
        return Status::ResourceExhausted(BlobName(ns, id) + " is " + std::to_string(bytes.size()) +
                                         " bytes, over max_blob_size_bytes (" +
                                         std::to_string(options_.max_blob_size_bytes) + ")");
      }
      w.payload = bytes;
      w.header = internal::EncodeHeader(bytes, user_flags, WallClockNanos());
    }
    return w;
  }

  Status Fail(StoreOp op, Status s) const {
    if (observer_ != nullptr) observer_->OnError(op, s.code());
    return s;
  }
  void Observe(StoreOp op, size_t ns_index, uint64_t bytes) const {
    if (observer_ != nullptr) observer_->OnOperation(op, ns_index, bytes);
  }

  const LmdbStoreOptions options_;
  DirectoryClaim claim_;  // Released last, after the environment has closed.
  LmdbEnv env_;
  const std::vector<MDB_dbi> dbis_;  // Parallel to options_.namespaces.
  const size_t max_key_size_;
  Clock& clock_;
  StoreObserver* const observer_;
  // One seat per LMDB reader slot, each keeping a reset read transaction: renewing one avoids
  // the reader-table lock that a fresh mdb_txn_begin takes under MDB_NOTLS.
  internal::ReaderGate gate_;
  std::unique_ptr<internal::WriteBatcher> writer_;
};

StatusOr<std::vector<ListEntry>> LmdbBlobStore::List(std::string_view ns, std::string_view prefix,
                                                     size_t limit, std::string_view start_after) {
  // An id is not needed here; check the namespace with a placeholder id.
  StatusOr<size_t> index = Check(ns, "-");
  if (!index.ok()) return Fail(StoreOp::kList, index.status());
  if (limit < 1) return Fail(StoreOp::kList, Status::InvalidArgument("List limit must be >= 1"));
  if (prefix.size() > max_key_size_ || start_after.size() > max_key_size_) {
    return Fail(StoreOp::kList, Status::InvalidArgument("List prefix or start_after is longer "
                                                        "than the LMDB key limit"));
  }
  ReadScope scope(*this);
  if (!scope.status().ok()) return Fail(StoreOp::kList, scope.status());
  StatusOr<internal::LmdbCursor> cursor = internal::LmdbCursor::Open(scope.txn(), dbis_[*index]);
  if (!cursor.ok()) return Fail(StoreOp::kList, cursor.status());
  const std::string_view from = start_after > prefix ? start_after : prefix;
  MDB_val key = internal::ToVal(from);
  MDB_val value{};
  std::vector<ListEntry> out;
  int rc = from.empty() ? cursor->Get(&key, &value, MDB_FIRST)
                        : cursor->Get(&key, &value, MDB_SET_RANGE);
  for (; rc == MDB_SUCCESS && out.size() < limit; rc = cursor->Get(&key, &value, MDB_NEXT)) {
    const std::string_view id = internal::ValToString(key);
    if (!id.starts_with(prefix)) break;
    if (!start_after.empty() && id == start_after) continue;
    ListEntry entry;
    entry.id.assign(id);
    std::span<const std::byte> payload;
    if (Status s = internal::DecodeRecord(internal::ValToBytes(value), id, &entry.info, &payload);
        !s.ok()) {
      return Fail(StoreOp::kList, s.WithContext("namespace '" + std::string(ns) + "'"));
    }
    out.push_back(std::move(entry));
  }
  if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
    return Fail(StoreOp::kList, internal::LmdbStatus(rc, "listing namespace '" +
                                                             std::string(ns) + "'"));
  }
  Observe(StoreOp::kList, *index, 0);
  return out;
}

void KeepHeapResident() {
  // Freed memory below 1 GiB stays in the heap, allocations up to 64 MiB come from the heap (not
  // fresh mmaps), and the heap grows in 64 MiB steps: see docs/LMDB.md, "Memory".
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
}

}  // namespace

StatusOr<std::unique_ptr<BlobStore>> OpenLmdbBlobStore(const LmdbStoreOptions& options) {
  if (Status s = options.Validate(); !s.ok()) return s;
  // The directory is checked before LMDB sees it, so that errors say what is wrong in words, not
  // errno, and claimed: once per process, because LMDB forbids opening one environment twice in
  // a process (closing either would drop the other's locks), and once per machine, because the
  // store has one writer (its writer thread) and assumes no other process writes or grows the
  // map behind it.
  StatusOr<DirectoryClaim> claim = ClaimDirectory(options.directory, options.create_if_missing);
  if (!claim.ok()) return claim.status();
  const std::string data_file = options.directory + "/data.mdb";
  struct stat data {};
  if (::stat(data_file.c_str(), &data) == 0 && !S_ISREG(data.st_mode)) {
    return Status::InvalidArgument("'" + data_file + "' exists but is not a regular file");
  }

  internal::LmdbEnvSettings settings;
  settings.map_size_bytes = options.initial_map_size_bytes;
  settings.max_readers = options.max_readers;
  settings.max_dbs = static_cast<unsigned>(options.namespaces.size());
  switch (options.durability) {
    case Durability::kDurable: settings.flags = 0; break;
    case Durability::kNoMetaSync: settings.flags = MDB_NOMETASYNC; break;
    case Durability::kNoSync: settings.flags = MDB_NOSYNC; break;
  }
  StatusOr<LmdbEnv> env = LmdbEnv::Open(options.directory, settings);
  if (!env.ok()) {
    const Status& s = env.status();
    if (s.code() == StatusCode::kDataLoss) {
      return s.WithContext("'" + options.directory +
                           "/data.mdb' is not a readable LMDB database (wrong format, another "
                           "LMDB version, or corrupt)");
    }
    return s.WithContext("opening the store in '" + options.directory + "'");
  }
  env->ClearStaleReaders();  // Slots of processes that died with a read open.

  std::vector<MDB_dbi> dbis;
  {
    StatusOr<LmdbTxn> txn = LmdbTxn::BeginWrite(*env);
    if (!txn.ok()) return txn.status().WithContext("opening the namespaces");
    for (const std::string& ns : options.namespaces) {
      StatusOr<MDB_dbi> dbi = internal::OpenDatabase(*txn, ns);
      if (!dbi.ok()) return dbi.status().WithContext("opening namespace '" + ns + "'");
      dbis.push_back(*dbi);
    }
    if (Status s = txn->Commit(); !s.ok()) return s.WithContext("creating the namespaces");
  }
  if (options.keep_heap_resident) KeepHeapResident();
  auto store = std::make_unique<LmdbBlobStore>(options, *std::move(claim), *std::move(env),
                                               std::move(dbis));
  store->NotifyOpen();
  return std::unique_ptr<BlobStore>(std::move(store));
}

}  // namespace blobtune::store
