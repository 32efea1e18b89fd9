#include "lmdb_env.h"

#include <cerrno>
#include <cstring>
#include <string>

namespace blobtune::store::internal {

Status LmdbStatus(int rc, std::string_view what) {
  std::string msg(what);
  msg += ": ";
  msg += mdb_strerror(rc);
  switch (rc) {
    case MDB_NOTFOUND:
      return Status::NotFound(msg);
    case MDB_KEYEXIST:
      return Status::AlreadyExists(msg);
    case MDB_MAP_FULL:
    case MDB_READERS_FULL:
    case MDB_DBS_FULL:
    case MDB_TXN_FULL:
    case MDB_CURSOR_FULL:
    case MDB_PAGE_FULL:
    case MDB_TLS_FULL:
    case ENOSPC:
    case ENOMEM:
      return Status::ResourceExhausted(msg);
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
    case MDB_INVALID:
    case MDB_VERSION_MISMATCH:
    case MDB_INCOMPATIBLE:
      return Status::DataLoss(msg);
    case MDB_MAP_RESIZED:
    case EAGAIN:
    case EBUSY:
    case EIO:
      return Status::Unavailable(msg);
    case EACCES:
    case EPERM:
    case EROFS:
    case EINVAL:
    case MDB_BAD_VALSIZE:
    case MDB_BAD_DBI:
      return Status::InvalidArgument(msg);
    case ENOENT:
    case ENOTDIR:
      return Status::NotFound(msg);
    default:
      return Status::Internal(msg);  // MDB_PANIC, MDB_BAD_TXN, MDB_BAD_RSLOT, other errno.
  }
}

StatusOr<LmdbEnv> LmdbEnv::Open(const std::string& path, const LmdbEnvSettings& settings) {
  MDB_env* raw = nullptr;
  if (int rc = mdb_env_create(&raw); rc != MDB_SUCCESS) return LmdbStatus(rc, "mdb_env_create");
  LmdbEnv env(raw);
  if (int rc = mdb_env_set_maxreaders(raw, settings.max_readers); rc != MDB_SUCCESS) {
    return LmdbStatus(rc, "mdb_env_set_maxreaders");
  }
  if (int rc = mdb_env_set_maxdbs(raw, settings.max_dbs); rc != MDB_SUCCESS) {
    return LmdbStatus(rc, "mdb_env_set_maxdbs");
  }
  if (int rc = mdb_env_set_mapsize(raw, settings.map_size_bytes); rc != MDB_SUCCESS) {
    return LmdbStatus(rc, "mdb_env_set_mapsize");
  }
  if (int rc = mdb_env_open(raw, path.c_str(), settings.flags | MDB_NOTLS, 0644);
      rc != MDB_SUCCESS) {
    // LMDB leaves the environment unusable after a failed open; the destructor closes it.
    return LmdbStatus(rc, "mdb_env_open(" + path + ")");
  }
  return env;
}

LmdbEnv& LmdbEnv::operator=(LmdbEnv&& other) noexcept {
  if (this != &other) {
    if (env_ != nullptr) mdb_env_close(env_);
    env_ = std::exchange(other.env_, nullptr);
  }
  return *this;
}

LmdbEnv::~LmdbEnv() {
  if (env_ != nullptr) mdb_env_close(env_);
}

size_t LmdbEnv::MaxKeySize() const noexcept {
  return static_cast<size_t>(mdb_env_get_maxkeysize(env_));
}

unsigned LmdbEnv::MaxReaders() const noexcept {
  unsigned readers = 0;
  mdb_env_get_maxreaders(env_, &readers);
  return readers;
}

size_t LmdbEnv::PageSize() const noexcept {
  MDB_stat st{};
  mdb_env_stat(env_, &st);
  return st.ms_psize;
}

size_t LmdbEnv::MapSize() const noexcept {
  MDB_envinfo info{};
  mdb_env_info(env_, &info);
  return info.me_mapsize;
}

size_t LmdbEnv::UsedBytes() const noexcept {
  MDB_envinfo info{};
  mdb_env_info(env_, &info);
  return (info.me_last_pgno + 1) * PageSize();
}

Status LmdbEnv::SetMapSize(size_t bytes) {
  if (int rc = mdb_env_set_mapsize(env_, bytes); rc != MDB_SUCCESS) {
    return LmdbStatus(rc, "mdb_env_set_mapsize(" + std::to_string(bytes) + ")");
  }
  return Status::Ok();
}

int LmdbEnv::ClearStaleReaders() noexcept {
  int dead = 0;
  mdb_reader_check(env_, &dead);
  return dead;
}

StatusOr<LmdbTxn> LmdbTxn::BeginWrite(const LmdbEnv& env, int* rc_out) {
  MDB_txn* txn = nullptr;
  const int rc = mdb_txn_begin(env.handle(), nullptr, 0, &txn);
  if (rc_out != nullptr) *rc_out = rc;
  if (rc != MDB_SUCCESS) return LmdbStatus(rc, "mdb_txn_begin(write)");
  return LmdbTxn(txn);
}

StatusOr<LmdbTxn> LmdbTxn::BeginRead(const LmdbEnv& env, int* rc_out) {
  MDB_txn* txn = nullptr;
  const int rc = mdb_txn_begin(env.handle(), nullptr, MDB_RDONLY, &txn);
  if (rc_out != nullptr) *rc_out = rc;
  if (rc != MDB_SUCCESS) return LmdbStatus(rc, "mdb_txn_begin(read)");
  return LmdbTxn(txn);
}

LmdbTxn& LmdbTxn::operator=(LmdbTxn&& other) noexcept {
  if (this != &other) {
    Abort();
    txn_ = std::exchange(other.txn_, nullptr);
    reset_ = std::exchange(other.reset_, false);
  }
  return *this;
}

Status LmdbTxn::Commit(int* rc_out) {
  MDB_txn* txn = std::exchange(txn_, nullptr);  // mdb_txn_commit frees it even on failure.
  reset_ = false;
  if (txn == nullptr) return Status::Internal("commit of a transaction that is not live");
  const int rc = mdb_txn_commit(txn);
  if (rc_out != nullptr) *rc_out = rc;
  if (rc != MDB_SUCCESS) return LmdbStatus(rc, "mdb_txn_commit");
  return Status::Ok();
}

Status LmdbTxn::Renew() {
  if (txn_ == nullptr || !reset_) return Status::Internal("renew of a transaction that is not reset");
  if (int rc = mdb_txn_renew(txn_); rc != MDB_SUCCESS) return LmdbStatus(rc, "mdb_txn_renew");
  reset_ = false;
  return Status::Ok();
}

int LmdbTxn::Reserve(MDB_dbi dbi, std::string_view key, size_t size, std::byte** out,
                     bool* existed) noexcept {
  MDB_val k = ToVal(key);
  MDB_val v{size, nullptr};
  // MDB_NOOVERWRITE fails with MDB_KEYEXIST (changing nothing) when the key is there; then the
  // plain put replaces the value.
  int rc = mdb_put(txn_, dbi, &k, &v, MDB_RESERVE | MDB_NOOVERWRITE);
  *existed = rc == MDB_KEYEXIST;
  if (*existed) {
    v = MDB_val{size, nullptr};  // MDB_KEYEXIST pointed it at the existing value.
    rc = mdb_put(txn_, dbi, &k, &v, MDB_RESERVE);
  }
  if (rc == MDB_SUCCESS) *out = static_cast<std::byte*>(v.mv_data);
  return rc;
}

int LmdbTxn::Del(MDB_dbi dbi, std::string_view key) noexcept {
  MDB_val k = ToVal(key);
  return mdb_del(txn_, dbi, &k, nullptr);
}

StatusOr<LmdbCursor> LmdbCursor::Open(const LmdbTxn& txn, MDB_dbi dbi) {
  MDB_cursor* cursor = nullptr;
  if (int rc = mdb_cursor_open(txn.handle(), dbi, &cursor); rc != MDB_SUCCESS) {
    return LmdbStatus(rc, "mdb_cursor_open");
  }
  return LmdbCursor(cursor);
}

LmdbCursor& LmdbCursor::operator=(LmdbCursor&& other) noexcept {
  if (this != &other) {
    if (cursor_ != nullptr) mdb_cursor_close(cursor_);
    cursor_ = std::exchange(other.cursor_, nullptr);
  }
  return *this;
}

LmdbCursor::~LmdbCursor() {
  if (cursor_ != nullptr) mdb_cursor_close(cursor_);
}

int LmdbCursor::Get(MDB_val* key, MDB_val* value, MDB_cursor_op op) noexcept {
  return mdb_cursor_get(cursor_, key, value, op);
}

StatusOr<MDB_dbi> OpenDatabase(LmdbTxn& txn, const std::string& name) {
  MDB_dbi dbi = 0;
  if (int rc = mdb_dbi_open(txn.handle(), name.c_str(), MDB_CREATE, &dbi); rc != MDB_SUCCESS) {
    return LmdbStatus(rc, "mdb_dbi_open(" + name + ")");
  }
  return dbi;
}

}  // namespace blobtune::store::internal
