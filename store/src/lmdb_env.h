// A private, move-only RAII layer over LMDB (after lmdbxx, without its implicit conversions).
//
//   StatusOr<LmdbEnv> env = LmdbEnv::Open(path, settings);
//   StatusOr<LmdbTxn> txn = LmdbTxn::BeginWrite(*env);
//   RETURN_IF_ERROR(txn->Put(dbi, key, value));
//   Status s = txn->Commit();           // releases the handle first: the txn is gone either way
//
// Every LMDB return code becomes a Status in one place, LmdbStatus().
//
// Thread-safety: an LmdbEnv may be shared by threads once open. An LmdbTxn belongs to one thread
// at a time: a write txn to the thread that began it, always; a read txn (the environment uses
// MDB_NOTLS) may be reset on one thread and renewed on another, never used by two at once.
// An LmdbCursor belongs to its transaction's thread.
#ifndef BLOBTUNE_STORE_SRC_LMDB_ENV_H_
#define BLOBTUNE_STORE_SRC_LMDB_ENV_H_

#include <lmdb.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"

namespace blobtune::store::internal {

// Maps an LMDB (or errno) return code to a canonical Status whose message starts with `what`.
// REQUIRES: rc != MDB_SUCCESS.
Status LmdbStatus(int rc, std::string_view what);

inline MDB_val ToVal(std::string_view s) {
  return MDB_val{s.size(), const_cast<char*>(s.data())};
}
inline std::string_view ValToString(const MDB_val& v) {
  return {static_cast<const char*>(v.mv_data), v.mv_size};
}
inline std::span<const std::byte> ValToBytes(const MDB_val& v) {
  return {static_cast<const std::byte*>(v.mv_data), v.mv_size};
}

struct LmdbEnvSettings {
  size_t map_size_bytes = 0;
  unsigned max_readers = 126;
  unsigned max_dbs = 1;
  unsigned flags = 0;  // MDB_NOTLS is always added.
};

class LmdbEnv {
 public:
  // Opens the environment in directory `path` (which must exist).
  static StatusOr<LmdbEnv> Open(const std::string& path, const LmdbEnvSettings& settings);

  LmdbEnv() = default;
  LmdbEnv(LmdbEnv&& other) noexcept : env_(std::exchange(other.env_, nullptr)) {}
  LmdbEnv& operator=(LmdbEnv&& other) noexcept;
  LmdbEnv(const LmdbEnv&) = delete;
  LmdbEnv& operator=(const LmdbEnv&) = delete;
  ~LmdbEnv();

  MDB_env* handle() const noexcept { return env_; }
  size_t MaxKeySize() const noexcept;
  size_t PageSize() const noexcept;
  // Reader slots in the lock file (LMDB rounds the requested number up to fill its pages).
  unsigned MaxReaders() const noexcept;
  // The current map size and the bytes in use (last used page + 1, times the page size).
  size_t MapSize() const noexcept;
  size_t UsedBytes() const noexcept;
  // REQUIRES: no transaction of this process is active (the caller coordinates readers).
  Status SetMapSize(size_t bytes);
  // Clears reader slots left by dead processes; returns how many.
  int ClearStaleReaders() noexcept;

 private:
  explicit LmdbEnv(MDB_env* env) : env_(env) {}
  MDB_env* env_ = nullptr;
};

class LmdbTxn {
 public:
  // `rc`, when given, receives LMDB's return code (to tell MDB_MAP_RESIZED from other errors).
  static StatusOr<LmdbTxn> BeginWrite(const LmdbEnv& env, int* rc = nullptr);
  static StatusOr<LmdbTxn> BeginRead(const LmdbEnv& env, int* rc = nullptr);

  LmdbTxn() = default;
  LmdbTxn(LmdbTxn&& other) noexcept
      : txn_(std::exchange(other.txn_, nullptr)), reset_(std::exchange(other.reset_, false)) {}
  LmdbTxn& operator=(LmdbTxn&& other) noexcept;
  LmdbTxn(const LmdbTxn&) = delete;
  LmdbTxn& operator=(const LmdbTxn&) = delete;
  ~LmdbTxn() { Abort(); }

  MDB_txn* handle() const noexcept { return txn_; }
  bool live() const noexcept { return txn_ != nullptr && !reset_; }

  // Commits and releases the handle; after it the transaction is gone whatever the outcome.
  Status Commit(int* rc = nullptr);
  // Aborts a live (or reset) transaction; a no-op when there is none.
  void Abort() noexcept {
    if (txn_ != nullptr) mdb_txn_abort(std::exchange(txn_, nullptr));
    reset_ = false;
  }
  // Read transactions only: drop the snapshot but keep the reader slot, then take a new one.
  // The small ones are defined here: they run on every read.
  void Reset() noexcept {
    if (txn_ != nullptr && !reset_) {
      mdb_txn_reset(txn_);
      reset_ = true;
    }
  }
  Status Renew();
  // Read transactions only, for a pool of reset transactions: gives up the handle of a reset
  // transaction (REQUIRES: reset), and wraps such a handle again.
  MDB_txn* ReleaseReset() noexcept {
    reset_ = false;
    return std::exchange(txn_, nullptr);
  }
  static LmdbTxn AdoptReset(MDB_txn* txn) noexcept {
    LmdbTxn out(txn);
    out.reset_ = txn != nullptr;
    return out;
  }

  // mdb_get: returns MDB_SUCCESS or MDB_NOTFOUND, other codes as they come.
  int Get(MDB_dbi dbi, std::string_view key, MDB_val* value) const noexcept {
    MDB_val k{key.size(), const_cast<char*>(key.data())};
    return mdb_get(txn_, dbi, &k, value);
  }
  // mdb_put with MDB_RESERVE: `*out` points at `size` writable bytes inside the map, and
  // `*existed` says whether the key had a value in this transaction before (it is replaced).
  // Costs one more B-tree descent than a plain put only when the key existed.
  int Reserve(MDB_dbi dbi, std::string_view key, size_t size, std::byte** out,
              bool* existed) noexcept;
  int Del(MDB_dbi dbi, std::string_view key) noexcept;

 private:
  explicit LmdbTxn(MDB_txn* txn) : txn_(txn) {}
  MDB_txn* txn_ = nullptr;
  bool reset_ = false;
};

class LmdbCursor {
 public:
  static StatusOr<LmdbCursor> Open(const LmdbTxn& txn, MDB_dbi dbi);

  LmdbCursor() = default;
  LmdbCursor(LmdbCursor&& other) noexcept : cursor_(std::exchange(other.cursor_, nullptr)) {}
  LmdbCursor& operator=(LmdbCursor&& other) noexcept;
  LmdbCursor(const LmdbCursor&) = delete;
  LmdbCursor& operator=(const LmdbCursor&) = delete;
  ~LmdbCursor();

  // mdb_cursor_get; returns MDB_SUCCESS, MDB_NOTFOUND or another code.
  int Get(MDB_val* key, MDB_val* value, MDB_cursor_op op) noexcept;

 private:
  explicit LmdbCursor(MDB_cursor* cursor) : cursor_(cursor) {}
  MDB_cursor* cursor_ = nullptr;
};

// Opens (creating if needed) the named database `name` in a write transaction.
StatusOr<MDB_dbi> OpenDatabase(LmdbTxn& txn, const std::string& name);

}  // namespace blobtune::store::internal

#endif  // BLOBTUNE_STORE_SRC_LMDB_ENV_H_
