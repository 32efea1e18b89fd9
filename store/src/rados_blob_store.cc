// RadosBlobStore: the BlobStore over librados (see rados_blob_store.h). Get, View, Stat and List
// are synchronous librados calls on the caller's thread; SubmitRead and every write are
// asynchronous RADOS operations whose completions run on librados finisher threads.
#include "blobtune/store/rados_blob_store.h"

#include <rados/librados.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>
#include <system_error>
#include <utility>

#include "blob_format.h"
#include "blobtune/base/mutex.h"
#include "rados_status.h"
#include "sync_completion.h"

namespace blobtune::store {
namespace {

using internal::BlobName;
using internal::SyncCompletion;
using internal::WallClockNanos;

// The LMDB store's key limit, so that ids are valid in both stores alike.
constexpr size_t kMaxIdSize = 511;
// How often a put with an outcome may find its object deleted between the exclusive create and
// the replace before it gives up (each round trip lost a race with an erase).
constexpr int kMaxOutcomeAttempts = 16;

std::span<const std::byte> AsBytes(librados::bufferlist& bl) {
  if (bl.length() == 0) return {};
  return {reinterpret_cast<const std::byte*>(bl.c_str()), bl.length()};
}

class RadosBlobStore;

// One write from submission to its callback: everything librados needs until it completes, and
// where a put with an outcome stands (which RADOS operation it sent last).
struct PendingWrite {
  enum class Attempt {
    kPlain,    // write_full or remove: no outcome wanted.
    kCreate,   // exclusive create + write_full: succeeds only if the object did not exist.
    kReplace,  // assert_exists + write_full: succeeds only if it did.
  };

  RadosBlobStore* store = nullptr;
  size_t ns_index = 0;
  std::string ns;
  std::string id;
  WriteOp::Kind kind = WriteOp::Kind::kPut;
  librados::bufferlist record;  // Header + bytes, for puts.
  PutOutcome* outcome_out = nullptr;
  Attempt attempt = Attempt::kPlain;
  int outcome_attempts = 0;
  WriteCallback done;
  librados::AioCompletion* completion = nullptr;  // Of the operation in flight.
  TimePoint sent{};  // When the first attempt was sent, for CommitEvent::latency.
};

// One read from SubmitRead to its callback: the buffer librados fills and the completion.
struct PendingRead {
  RadosBlobStore* store = nullptr;
  std::string ns;
  std::string id;
  librados::bufferlist bytes;  // The whole record, once the read completed.
  ReadCallback done;
  librados::AioCompletion* completion = nullptr;
};

class RadosBlobStore final : public BlobStore {
 public:
  RadosBlobStore(const RadosStoreOptions& options, std::unique_ptr<librados::Rados> cluster,
                 std::vector<librados::IoCtx> ioctxs)
      : options_(options), cluster_(std::move(cluster)), ioctxs_(std::move(ioctxs)) {
    if (observer_ == nullptr) return;
    std::vector<std::string_view> names(options_.namespaces.begin(), options_.namespaces.end());
    observer_->OnOpen(names.data(), names.size());
  }

  ~RadosBlobStore() override {
    {
      MutexLock lock(mu_);
      while (writes_in_flight_ > 0 || reads_in_flight_ > 0) cv_.Wait(lock);
    }
    for (librados::IoCtx& io : ioctxs_) io.close();
    cluster_->shutdown();  // Joins the finisher threads: no callback runs after this.
  }

  Status Put(std::string_view ns, std::string_view id, std::span<const std::byte> bytes,
             uint32_t user_flags, PutOutcome* outcome) override {
    StatusOr<std::unique_ptr<PendingWrite>> w =
        Prepare(WriteOp::Kind::kPut, ns, id, bytes, user_flags);
    if (!w.ok()) return w.status();
    SyncCompletion waiter;
    (*w)->done = waiter.Callback();
    (*w)->outcome_out = outcome;
    if (Status s = Send(*std::move(w)); !s.ok()) return s;
    return waiter.Wait();
  }

  Status Erase(std::string_view ns, std::string_view id) override {
    StatusOr<std::unique_ptr<PendingWrite>> w = Prepare(WriteOp::Kind::kErase, ns, id, {}, 0);
    if (!w.ok()) return w.status();
    SyncCompletion waiter;
    (*w)->done = waiter.Callback();
    if (Status s = Send(*std::move(w)); !s.ok()) return s;
    return waiter.Wait();
  }

  Status SubmitWrite(WriteOp op, WriteCallback done) override {
    if (!done) return Status::InvalidArgument("SubmitWrite needs a callback");
    StatusOr<std::unique_ptr<PendingWrite>> w =
        Prepare(op.kind(), op.ns(), op.id(), op.bytes(), op.user_flags());
    if (!w.ok()) return w.status();
    (*w)->outcome_out = op.outcome_out();
    (*w)->done = std::move(done);
    return Send(*std::move(w));
  }

  using BlobStore::Get;
  using BlobStore::ViewBlob;

  Status Get(const ReadOptions& options, std::string_view ns, std::string_view id,
             std::vector<std::byte>* out, BlobInfo* info) override {
    const bool verify = Verifies(options);
    Status s = ReadBlob(ns, id, verify, [&](std::span<const std::byte> bytes, const BlobInfo& i) {
      out->assign(bytes.begin(), bytes.end());
      if (info != nullptr) *info = i;
    }, out);
    return Report(StoreOp::kGet, ns, std::move(s), out->size());
  }

  // aio_read of the whole object; OnReadComplete decodes it as ReadBlob does.
  void SubmitRead(std::string ns, std::string id, ReadCallback done) override {
    StatusOr<size_t> index = Check(ns, id);
    if (!index.ok()) return done(Report(StoreOp::kGet, ns, index.status(), 0));
    auto r = std::make_unique<PendingRead>();
    r->store = this;
    r->ns = std::move(ns);
    r->id = std::move(id);
    r->done = std::move(done);
    {
      MutexLock lock(mu_);
      ++reads_in_flight_;
    }
    r->completion = librados::Rados::aio_create_completion(r.get(), &OnReadComplete);
    // Length 0 reads the whole object.
    const int rc = ioctxs_[*index].aio_read(r->id, r->completion, &r->bytes, 0, 0);
    if (rc < 0) {
      r->completion->release();
      r->completion = nullptr;
      FinishRead(std::move(r), rc);
      return;
    }
    r.release();  // Owned by the completion until OnReadComplete.
  }

  Status ViewBlob(const ReadOptions& options, std::string_view ns, std::string_view id,
                  ViewFn fn) override {
    uint64_t size = 0;
    Status s = ReadBlob(ns, id, Verifies(options),
                        [&](std::span<const std::byte> bytes, const BlobInfo& info) {
                          size = bytes.size();
                          fn(bytes, info);
                        },
                        nullptr);
    return Report(StoreOp::kView, ns, std::move(s), size);
  }

  StatusOr<BlobInfo> Stat(std::string_view ns, std::string_view id) override {
    StatusOr<size_t> index = Check(ns, id);
    if (!index.ok()) return Report(StoreOp::kStat, ns, index.status(), 0);
    StatusOr<BlobInfo> info = ReadHeader(*index, id);
    Observe(StoreOp::kStat, ns, info.status(), info.ok() ? info->size_bytes : 0);
    return info;
  }

  StatusOr<bool> Exists(std::string_view ns, std::string_view id) override {
    StatusOr<size_t> index = Check(ns, id);
    if (!index.ok()) return Report(StoreOp::kExists, ns, index.status(), 0);
    uint64_t size = 0;
    time_t mtime = 0;
    const int rc = ioctxs_[*index].stat(std::string(id), &size, &mtime);
    if (rc < 0 && rc != -ENOENT) {
      return Report(StoreOp::kExists, ns, internal::RadosStatus(rc, "stat of " + BlobName(ns, id)),
                    0);
    }
    Observe(StoreOp::kExists, ns, Status::Ok(), 0);
    return rc != -ENOENT;
  }

  StatusOr<std::vector<ListEntry>> List(std::string_view ns, std::string_view prefix, size_t limit,
                                        std::string_view start_after) override {
    StatusOr<std::vector<ListEntry>> page = ListPage(ns, prefix, limit, start_after);
    Observe(StoreOp::kList, ns, page.status(), 0);
    return page;
  }

  StoreStats Stats() const override {
    StoreStats s;
    s.commits = commits_.load(std::memory_order_relaxed);
    MutexLock lock(mu_);
    s.queued_writes = writes_in_flight_;
    return s;
  }

 private:
  // The librados completion callback: runs on a librados finisher thread.
  static void OnWriteComplete(librados::completion_t, void* arg) {
    auto* w = static_cast<PendingWrite*>(arg);
    const int rc = w->completion->get_return_value();
    // Safe inside the callback: librados holds its own reference until the callback returns.
    w->completion->release();
    w->completion = nullptr;
    w->store->Finish(std::unique_ptr<PendingWrite>(w), rc);
  }

  // The librados completion callback of SubmitRead: runs on a librados finisher thread.
  static void OnReadComplete(librados::completion_t, void* arg) {
    std::unique_ptr<PendingRead> r(static_cast<PendingRead*>(arg));
    const int rc = r->completion->get_return_value();
    r->completion->release();  // As in OnWriteComplete.
    r->completion = nullptr;
    r->store->FinishRead(std::move(r), rc);
  }

  // The end of a submitted read whose librados call returned `rc`: decodes the record, verifies
  // it, and runs the caller's callback.
  void FinishRead(std::unique_ptr<PendingRead> r, int rc) {
    StatusOr<Blob> result = Blob();
    Status s = DecodeRead(rc, r->bytes, r->ns, r->id, Verifies(ReadOptions()),
                          [&](std::span<const std::byte> bytes, const BlobInfo& info) {
                            result->bytes.assign(bytes.begin(), bytes.end());
                            result->info = info;
                          });
    Observe(StoreOp::kGet, r->ns, s, result.ok() ? result->bytes.size() : 0);
    if (!s.ok()) result = std::move(s);
    ReadCallback done = std::move(r->done);
    r.reset();
    done(std::move(result));
    MutexLock lock(mu_);  // After the callback: the destructor must not run while it does.
    if (--reads_in_flight_ == 0 && writes_in_flight_ == 0) cv_.NotifyAll();
  }

  // Sends the RADOS operation of `w`'s current attempt; on ok its completion will call
  // OnWriteComplete. On error nothing was sent and `w->completion` is released.
  int Issue(PendingWrite* w) {
    librados::IoCtx& io = ioctxs_[w->ns_index];
    w->completion = librados::Rados::aio_create_completion(w, &RadosBlobStore::OnWriteComplete);
    int rc = 0;
    if (w->kind == WriteOp::Kind::kErase) {
      rc = io.aio_remove(w->id, w->completion);
    } else if (w->attempt == PendingWrite::Attempt::kPlain) {
      rc = io.aio_write_full(w->id, w->completion, w->record);
    } else {
      librados::ObjectWriteOperation op;
      if (w->attempt == PendingWrite::Attempt::kCreate) {
        op.create(/*exclusive=*/true);
      } else {
        op.assert_exists();
      }
      op.write_full(w->record);
      rc = io.aio_operate(w->id, w->completion, &op);
    }
    if (rc < 0) {
      w->completion->release();
      w->completion = nullptr;
    }
    return rc;
  }

  // Counts `w` in flight and sends it; the destructor waits for the count to drop to zero.
  Status Send(std::unique_ptr<PendingWrite> w) {
    w->store = this;
    w->sent = Clock::Steady().Now();
    if (w->kind == WriteOp::Kind::kPut && w->outcome_out != nullptr) {
      w->attempt = PendingWrite::Attempt::kCreate;
    }
    {
      MutexLock lock(mu_);
      ++writes_in_flight_;
    }
    const int rc = Issue(w.get());
    if (rc < 0) {
      Status s = internal::RadosStatus(rc, WriteName(*w));
      Observe(OpOf(*w), w->ns, s, 0);
      EndWrite();
      return s;
    }
    w.release();  // Owned by the completion until OnWriteComplete.
    return Status::Ok();
  }

  // The end of one RADOS operation of `w`: a put with an outcome may need another attempt;
  // otherwise runs the caller's callback.
  void Finish(std::unique_ptr<PendingWrite> w, int rc) {
    using Attempt = PendingWrite::Attempt;
    Attempt next = w->attempt;
    if (w->attempt == Attempt::kCreate && rc == -EEXIST) next = Attempt::kReplace;
    if (w->attempt == Attempt::kReplace && rc == -ENOENT &&
        ++w->outcome_attempts < kMaxOutcomeAttempts) {
      next = Attempt::kCreate;  // Erased since the create failed: try to create it again.
    }
    if (next != w->attempt) {
      w->attempt = next;
      // Only queues the operation (librados may throttle past objecter_inflight_ops).
      const int issued = Issue(w.get());
      if (issued >= 0) {
        w.release();
        return;
      }
      rc = issued;
    }
    Status s;
    if (rc == -ENOENT && w->kind == WriteOp::Kind::kErase) {
      s = Status::NotFound(BlobName(w->ns, w->id) + " does not exist");
    } else if (rc < 0) {
      s = internal::RadosStatus(rc, WriteName(*w));
    } else {
      if (w->outcome_out != nullptr) {
        *w->outcome_out =
            w->attempt == Attempt::kCreate ? PutOutcome::kCreated : PutOutcome::kReplaced;
      }
      commits_.fetch_add(1, std::memory_order_relaxed);
    }
    if (observer_ != nullptr) {
      const uint64_t bytes = w->kind == WriteOp::Kind::kPut ? w->record.length() : 0;
      Observe(OpOf(*w), w->ns, s, bytes > internal::kHeaderSize ? bytes - internal::kHeaderSize : 0);
      // A missing blob's erase changed nothing in the cluster: no commit to report.
      if (s.code() != StatusCode::kNotFound) {
        observer_->OnCommit(CommitEvent{Clock::Steady().Now() - w->sent, 1, bytes,
                                        w->outcome_attempts + 1, s.ok()});
      }
    }
    WriteCallback done = std::move(w->done);
    w.reset();
    done(std::move(s));
    EndWrite();  // After the callback: the destructor must not run while it does.
  }

  void EndWrite() {
    MutexLock lock(mu_);
    if (--writes_in_flight_ == 0 && reads_in_flight_ == 0) cv_.NotifyAll();
  }

  StatusOr<std::vector<ListEntry>> ListPage(std::string_view ns, std::string_view prefix,
                                            size_t limit, std::string_view start_after);

  static StoreOp OpOf(const PendingWrite& w) {
    return w.kind == WriteOp::Kind::kPut ? StoreOp::kPut : StoreOp::kErase;
  }

  // Tells the observer how `op` on namespace `ns` went (`bytes`: the blob's size).
  void Observe(StoreOp op, std::string_view ns, const Status& s, uint64_t bytes) const {
    if (observer_ == nullptr) return;
    if (!s.ok()) {
      observer_->OnError(op, s.code());
    } else if (StatusOr<size_t> index = Check(ns, "-"); index.ok()) {
      observer_->OnOperation(op, *index, bytes);
    }
  }
  // Observe, then `s` for the caller to return.
  Status Report(StoreOp op, std::string_view ns, Status s, uint64_t bytes) const {
    Observe(op, ns, s, bytes);
    return s;
  }

  static std::string WriteName(const PendingWrite& w) {
    return (w.kind == WriteOp::Kind::kPut ? "put of " : "erase of ") + BlobName(w.ns, w.id);
  }

  StatusOr<std::unique_ptr<PendingWrite>> Prepare(WriteOp::Kind kind, std::string_view ns,
                                                  std::string_view id,
                                                  std::span<const std::byte> bytes,
                                                  uint32_t user_flags) const {
    StatusOr<size_t> index = Check(ns, id);
    if (!index.ok()) return index.status();
    auto w = std::make_unique<PendingWrite>();
    w->kind = kind;
    w->ns_index = *index;
    w->ns.assign(ns);
    w->id.assign(id);
    if (kind == WriteOp::Kind::kPut) {
      if (bytes.size() > options_.max_blob_size_bytes) {
        return Status::ResourceExhausted(BlobName(ns, id) + " is " + std::to_string(bytes.size()) +
                                         " bytes, over max_blob_size_bytes (" +
                                         std::to_string(options_.max_blob_size_bytes) + ")");
      }
      const internal::EncodedHeader header =
          internal::EncodeHeader(bytes, user_flags, WallClockNanos());
      // One copy into a buffer librados owns: a borrowed span may be reused by its owner once
      // the callback ran, and librados may still hold the buffer then.
      ceph::bufferptr buffer = ceph::buffer::create(header.size() + bytes.size());
      std::copy(header.begin(), header.end(), reinterpret_cast<std::byte*>(buffer.c_str()));
      std::copy(bytes.begin(), bytes.end(),
                reinterpret_cast<std::byte*>(buffer.c_str()) + header.size());
      w->record.push_back(std::move(buffer));
    }
    return w;
  }

  bool Verifies(const ReadOptions& options) const {
    return options.verify_checksums.value_or(options_.verify_checksums);
  }

  // Reads the whole object, checks its header and, if `verify`, its bytes, then calls
  // fn(bytes, info). On DATA_LOSS `*clear_on_data_loss` (when not null) is emptied.
  template <typename F>
  Status ReadBlob(std::string_view ns, std::string_view id, bool verify, F&& fn,
                  std::vector<std::byte>* clear_on_data_loss) {
    StatusOr<size_t> index = Check(ns, id);
    if (!index.ok()) return index.status();
    librados::bufferlist bl;
    // Length 0 reads the whole object.
    const int rc = ioctxs_[*index].read(std::string(id), bl, 0, 0);
    Status s = DecodeRead(rc, bl, ns, id, verify, fn);
    if (clear_on_data_loss != nullptr && s.code() == StatusCode::kDataLoss) {
      clear_on_data_loss->clear();
    }
    return s;
  }

  // What a read of the whole object that returned `rc` into `bl` found: NOT_FOUND, the error,
  // or a record whose header (and, if `verify`, bytes) check out, handed to fn(bytes, info).
  template <typename F>
  static Status DecodeRead(int rc, librados::bufferlist& bl, std::string_view ns,
                           std::string_view id, bool verify, F&& fn) {
    if (rc == -ENOENT) return Status::NotFound(BlobName(ns, id) + " does not exist");
    if (rc < 0) return internal::RadosStatus(rc, "read of " + BlobName(ns, id));
    BlobInfo info;
    std::span<const std::byte> payload;
    Status s = internal::DecodeRecord(AsBytes(bl), id, &info, &payload);
    if (s.ok() && verify) s = internal::VerifyPayload(payload, info, id);
    if (!s.ok()) return s.WithContext("namespace '" + std::string(ns) + "'");
    fn(payload, info);
    return Status::Ok();
  }

  // The blob's header alone (one read of kHeaderSize bytes at offset 0).
  StatusOr<BlobInfo> ReadHeader(size_t index, std::string_view id) {
    const std::string& ns = options_.namespaces[index];
    librados::bufferlist bl;
    const int rc = ioctxs_[index].read(std::string(id), bl, internal::kHeaderSize, 0);
    if (rc == -ENOENT) return Status::NotFound(BlobName(ns, id) + " does not exist");
    if (rc < 0) return internal::RadosStatus(rc, "stat of " + BlobName(ns, id));
    BlobInfo info;
    if (Status s = internal::DecodeHeader(AsBytes(bl), id, &info); !s.ok()) {
      return s.WithContext("namespace '" + ns + "'");
    }
    return info;
  }

  // The namespace's index, or why `ns`/`id` cannot name a blob (the LMDB store's rules, so that
  // one name is valid in both stores alike).
  StatusOr<size_t> Check(std::string_view ns, std::string_view id) const {
    return internal::CheckBlobName(options_.namespaces, ns, id, kMaxIdSize, "ids");
  }

  const RadosStoreOptions options_;
  StoreObserver* const observer_ = options_.observer;
  std::unique_ptr<librados::Rados> cluster_;
  std::vector<librados::IoCtx> ioctxs_;  // Parallel to options_.namespaces; read-only after open.
  std::atomic<uint64_t> commits_{0};
  mutable Mutex mu_;
  CondVar cv_;  // Signalled when nothing is in flight any more.
  // Writes sent, callback not yet returned.
  uint64_t writes_in_flight_ BLOBTUNE_GUARDED_BY(mu_) = 0;
  uint64_t reads_in_flight_ BLOBTUNE_GUARDED_BY(mu_) = 0;  // Submitted reads, the same.
};

StatusOr<std::vector<ListEntry>> RadosBlobStore::ListPage(std::string_view ns,
                                                          std::string_view prefix, size_t limit,
                                                          std::string_view start_after) {
  StatusOr<size_t> index = Check(ns, "-");  // A placeholder id: only the namespace matters.
  if (!index.ok()) return index.status();
  if (limit < 1) return Status::InvalidArgument("List limit must be >= 1");
  // RADOS lists in hash order: collect every matching id of the namespace, then sort.
  std::vector<std::string> ids;
  librados::IoCtx& io = ioctxs_[*index];
  try {
    for (auto it = io.nobjects_begin(); it != io.nobjects_end(); ++it) {
      const std::string& oid = it->get_oid();
      if (!std::string_view(oid).starts_with(prefix)) continue;
      if (!start_after.empty() && std::string_view(oid) <= start_after) continue;
      ids.push_back(oid);
    }
  } catch (const std::system_error& e) {
    return internal::RadosStatus(-e.code().value(), "listing namespace '" + std::string(ns) + "'");
  }
  std::sort(ids.begin(), ids.end());
  std::vector<ListEntry> out;
  for (std::string& id : ids) {
    if (out.size() == limit) break;
    StatusOr<BlobInfo> info = ReadHeader(*index, id);
    if (info.status().code() == StatusCode::kNotFound) continue;  // Erased since the listing.
    if (!info.ok()) return info.status();
    out.push_back(ListEntry{std::move(id), *info});
  }
  return out;
}

// librados' own objecter_timeout, kept when op_timeout is long enough.
constexpr int kDefaultObjecterTimeoutSeconds = 10;

// Ceph takes its timeouts in whole seconds.
std::string TimeoutSeconds(Duration timeout) {
  const auto seconds = std::chrono::ceil<std::chrono::seconds>(timeout).count();
  return std::to_string(std::max<int64_t>(seconds, 1));
}

}  // namespace

StatusOr<std::unique_ptr<BlobStore>> OpenRadosBlobStore(const RadosStoreOptions& options) {
  if (Status s = options.Validate(); !s.ok()) return s;
  auto cluster = std::make_unique<librados::Rados>();
  if (int rc = cluster->init(options.client_id.c_str()); rc < 0) {
    return internal::RadosStatus(rc, "initializing librados for client." + options.client_id);
  }
  if (int rc = cluster->conf_read_file(options.conf_file.c_str()); rc < 0) {
    return Status::InvalidArgument("cannot read Ceph configuration '" + options.conf_file +
                                   "': " + internal::ErrnoText(rc));
  }
  const std::string timeout = TimeoutSeconds(options.op_timeout);
  // A restarted OSD comes back under a new identity, which a client learns only from a newer OSD
  // map. Without another OSD to pass one on, librados asks the monitor for one when an operation
  // has waited objecter_timeout (checked every objecter_tick_interval); both must stay below
  // op_timeout, or every operation times out first and the client never finds the OSD again.
  const std::string map_check = TimeoutSeconds(std::min<Duration>(
      options.op_timeout / 2, std::chrono::seconds(kDefaultObjecterTimeoutSeconds)));
  const std::pair<const char*, const std::string*> settings[] = {
      {"rados_osd_op_timeout", &timeout}, {"rados_mon_op_timeout", &timeout},
      {"client_mount_timeout", &timeout}, {"objecter_timeout", &map_check},
      {"objecter_tick_interval", &map_check}};
  for (const auto& [option, value] : settings) {
    if (int rc = cluster->conf_set(option, value->c_str()); rc < 0) {
      return internal::RadosStatus(rc, std::string("setting ") + option);
    }
  }
  if (int rc = cluster->connect(); rc < 0) {
    return Status::Unavailable("cannot connect to the Ceph cluster of '" + options.conf_file +
                               "' within " + timeout + " s: " +
                               internal::ErrnoText(rc));
  }
  std::vector<librados::IoCtx> ioctxs(options.namespaces.size());
  for (size_t i = 0; i < options.namespaces.size(); ++i) {
    if (int rc = cluster->ioctx_create(options.pool.c_str(), ioctxs[i]); rc < 0) {
      Status s = rc == -ENOENT ? Status::NotFound("pool '" + options.pool + "' does not exist")
                               : internal::RadosStatus(rc, "opening pool '" + options.pool + "'");
      ioctxs.clear();
      cluster->shutdown();
      return s;
    }
    ioctxs[i].set_namespace(options.namespaces[i]);
  }
  return std::unique_ptr<BlobStore>(
      std::make_unique<RadosBlobStore>(options, std::move(cluster), std::move(ioctxs)));
}

}  // namespace blobtune::store
