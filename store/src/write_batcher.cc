#include "write_batcher.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "disk_full.h"

namespace blobtune::store::internal {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

StoreOp OpOf(const PreparedWrite& w) {
  return w.kind == WriteOp::Kind::kPut ? StoreOp::kPut : StoreOp::kErase;
}

std::string Describe(const PreparedWrite& w, std::span<const std::string> namespaces) {
  std::string out = "blob '";
  out.append(w.id.substr(0, 64));
  out += "' in namespace '";
  out += namespaces[w.ns_index];
  out += "'";
  return out;
}

}  // namespace

WriteBatcher::WriteBatcher(LmdbEnv& env, ReaderGate& gate, const LmdbStoreOptions& options,
                           Clock& clock, StoreObserver* observer)
    : env_(env), gate_(gate), options_(options), clock_(clock), observer_(observer) {
  map_size_.store(env_.MapSize(), std::memory_order_relaxed);
  used_bytes_.store(env_.UsedBytes(), std::memory_order_relaxed);
  thread_ = std::thread([this] { Run(); });
}

WriteBatcher::~WriteBatcher() { Stop(); }

void WriteBatcher::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  cv_.NotifyAll();
  if (thread_.joinable()) thread_.join();
}

uint64_t WriteBatcher::queued() const {
  MutexLock lock(mu_);
  return queue_.size();
}

Status WriteBatcher::Enqueue(PreparedWrite write) {
  MutexLock lock(mu_);
  if (stopping_) return Status::Cancelled("the store is closing; write not queued");
  if (queue_.size() >= options_.max_queued_writes) {
    return Status::Overloaded("write queue is full: " + std::to_string(queue_.size()) +
                              " writes wait for the writer thread (max_queued_writes)");
  }
  queue_.push_back(std::move(write));
  if (writer_waiting_) cv_.NotifyOne();
  return Status::Ok();
}

void WriteBatcher::TakeQueued(std::vector<PreparedWrite>* batch, size_t* bytes) {
  while (!queue_.empty() && batch->size() < options_.max_batch_operations) {
    const size_t next = queue_.front().RecordBytes();
    if (!batch->empty() && *bytes + next > options_.max_batch_bytes) break;
    *bytes += next;
    batch->push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
}

bool WriteBatcher::CollectBatch(std::vector<PreparedWrite>* batch) {
  MutexLock lock(mu_);
  while (queue_.empty() && !stopping_) {
    writer_waiting_ = true;
    cv_.Wait(lock);
    writer_waiting_ = false;
  }
  if (queue_.empty()) return false;  // Stopping, and everything queued has been committed.
  size_t bytes = 0;
  // Refill: wait briefly for as many writes as the last batch held (see batch_refill_wait).
  const size_t refill_target = std::min(last_batch_size_, options_.max_batch_operations);
  if (refill_target > 1 && queue_.size() < refill_target &&
      options_.batch_refill_wait > Duration::zero()) {
    const TimePoint deadline = clock_.Now() + options_.batch_refill_wait;
    for (TimePoint now = clock_.Now(); queue_.size() < refill_target && !stopping_ &&
                                       now < deadline;
         now = clock_.Now()) {
      writer_waiting_ = true;
      cv_.WaitFor(lock, clock_.RealWaitFor(deadline - now));
      writer_waiting_ = false;
    }
  }
  TakeQueued(batch, &bytes);
  if (options_.max_batch_delay > Duration::zero()) {
    const TimePoint deadline = clock_.Now() + options_.max_batch_delay;
    for (;;) {
      if (batch->size() >= options_.max_batch_operations || bytes >= options_.max_batch_bytes ||
          stopping_) {
        break;
      }
      const TimePoint now = clock_.Now();
      if (now >= deadline) break;
      writer_waiting_ = true;
      cv_.WaitFor(lock, clock_.RealWaitFor(deadline - now));
      writer_waiting_ = false;
      TakeQueued(batch, &bytes);
    }
  }
  last_batch_size_ = batch->size();
  return true;
}

void WriteBatcher::Run() {
  std::vector<PreparedWrite> batch;
  std::vector<Status> results;
  while (CollectBatch(&batch)) {
    results.assign(batch.size(), Status::Ok());
    Process(batch, results);
    for (size_t i = 0; i < batch.size(); ++i) {
      if (observer_ != nullptr) {
        if (results[i].ok()) {
          observer_->OnOperation(OpOf(batch[i]), batch[i].ns_index, batch[i].payload.size());
        } else {
          observer_->OnError(OpOf(batch[i]), results[i].code());
        }
      }
      if (results[i].ok() && batch[i].outcome_out != nullptr) {
        *batch[i].outcome_out = batch[i].outcome;
      }
      // Move the callback out first: it may release what the borrowed payload points into.
      WriteCallback done = std::move(batch[i].done);
      done(std::move(results[i]));
    }
    batch.clear();
  }
}

WriteBatcher::Outcome WriteBatcher::TryCommit(std::span<PreparedWrite> batch,
                                              std::span<Status> results, Status* failure,
                                              size_t* record_bytes) {
  int rc = MDB_SUCCESS;
  StatusOr<LmdbTxn> txn = LmdbTxn::BeginWrite(env_, &rc);
  if (rc == MDB_MAP_RESIZED) {  // Another process grew the map: adopt its size and retry once.
    AdoptForeignMapSize();
    txn = LmdbTxn::BeginWrite(env_, &rc);
  }
  if (!txn.ok()) {
    *failure = txn.status();
    return Outcome::kTxnFailed;
  }
  *record_bytes = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    PreparedWrite& w = batch[i];
    results[i] = Status::Ok();
    if (w.kind == WriteOp::Kind::kPut) {
      std::byte* dst = nullptr;
      bool existed = false;
      rc = txn->Reserve(w.dbi, w.id, w.RecordBytes(), &dst, &existed);
      if (rc == MDB_SUCCESS) {
        w.outcome = existed ? PutOutcome::kReplaced : PutOutcome::kCreated;
        std::memcpy(dst, w.header.data(), kHeaderSize);
        if (!w.payload.empty()) std::memcpy(dst + kHeaderSize, w.payload.data(), w.payload.size());
        *record_bytes += w.RecordBytes();
        continue;
      }
    } else {
      rc = txn->Del(w.dbi, w.id);
      if (rc == MDB_SUCCESS) continue;
      if (rc == MDB_NOTFOUND) {  // Harmless to the transaction; only this caller hears of it.
        results[i] = Status::NotFound(Describe(w, options_.namespaces) + " does not exist");
        continue;
      }
    }
    if (rc == MDB_MAP_FULL) return Outcome::kMapFull;  // The txn is dead; ~LmdbTxn aborts it.
    *failure = LmdbStatus(rc, (w.kind == WriteOp::Kind::kPut ? "put of " : "erase of ") +
                                  Describe(w, options_.namespaces));
    return Outcome::kWriteFailed;
  }
  Status committed = txn->Commit(&rc);
  if (rc == MDB_MAP_FULL) return Outcome::kMapFull;
  if (!committed.ok()) {
    *failure = committed;
    const bool disk_full = IsDiskFull(rc, FreeBytes(options_.directory), *record_bytes);
    return disk_full ? Outcome::kDiskFull : Outcome::kTxnFailed;
  }
  return Outcome::kCommitted;
}

void WriteBatcher::Process(std::span<PreparedWrite> batch, std::span<Status> results) {
  size_t needed = 0;
  for (const PreparedWrite& w : batch) needed += w.RecordBytes();
  const TimePoint start = clock_.Now();
  int attempts = 0;
  for (;;) {
    ++attempts;
    Status failure;
    size_t record_bytes = 0;
    const Outcome outcome = TryCommit(batch, results, &failure, &record_bytes);
    if (outcome == Outcome::kCommitted || outcome == Outcome::kTxnFailed) {
      if (outcome == Outcome::kCommitted) {
        commits_.fetch_add(1, std::memory_order_relaxed);
        PublishUsage();
      } else {
        for (Status& r : results) r = failure;
      }
      if (observer_ != nullptr) {
        observer_->OnCommit(CommitEvent{clock_.Now() - start, batch.size(), record_bytes,
                                        attempts, outcome == Outcome::kCommitted});
      }
      return;
    }
    if (outcome == Outcome::kMapFull || outcome == Outcome::kDiskFull) {
      Status why_not;
      if (outcome == Outcome::kMapFull && Grow(needed, &why_not)) continue;
      if (batch.size() == 1) {
        results[0] = outcome == Outcome::kMapFull ? NoRoomInMap(batch[0], why_not)
                                                  : NoRoomOnDisk(batch[0], failure);
        if (observer_ != nullptr) {
          observer_->OnCommit(CommitEvent{clock_.Now() - start, 1, 0, attempts, false});
        }
        return;
      }
    } else if (batch.size() == 1) {  // kWriteFailed
      results[0] = failure;
      return;
    }
    // Several writes and one of them cannot be applied: give each its own transaction, so
    // that every write that can commit does and each caller hears its own outcome.
    for (size_t i = 0; i < batch.size(); ++i) Process(batch.subspan(i, 1), results.subspan(i, 1));
    return;
  }
}

bool WriteBatcher::Grow(size_t needed_bytes, Status* why_not) {
  const size_t current = env_.MapSize();
  const size_t page = env_.PageSize();
  const size_t max = options_.max_map_size_bytes / page * page;
  if (current >= max) {
    *why_not = Status::ResourceExhausted("the map is at its maximum of " + std::to_string(current) +
                                         " bytes (max_map_size_bytes)");
    return false;
  }
  size_t target = std::max(current * 2, current + 2 * needed_bytes + kMiB);
  target = std::min((target + page - 1) / page * page, max);
  const TimePoint wait_start = clock_.Now();
  gate_.Close();  // No read transaction of this process may be open while LMDB remaps.
  const Duration waited = clock_.Now() - wait_start;
  Status resized = env_.SetMapSize(target);
  gate_.Open();
  if (!resized.ok()) {
    *why_not = resized.WithContext("growing the map from " + std::to_string(current) + " bytes");
    return false;
  }
  growths_.fetch_add(1, std::memory_order_relaxed);
  map_size_.store(env_.MapSize(), std::memory_order_relaxed);
  if (observer_ != nullptr) observer_->OnMapGrown(current, env_.MapSize(), waited);
  PublishUsage();
  return true;
}

Status WriteBatcher::NoRoomOnDisk(const PreparedWrite& w, const Status& lmdb_error) const {
  const std::optional<uint64_t> free = FreeBytes(options_.directory);
  return Status::ResourceExhausted(
      "disk full: " + NoRoomFor(w) + " on the file system holding '" + options_.directory +
      "' (" + (free ? std::to_string(*free) : std::string("unknown")) +
      " bytes free); the write was not applied, and writes succeed again once blobs are "
      "deleted or disk space is freed (" + std::string(lmdb_error.message()) + ")");
}

Status WriteBatcher::NoRoomInMap(const PreparedWrite& w, const Status& why_not) const {
  return Status::ResourceExhausted("map full: " + NoRoomFor(w) + " in the store in '" +
                                   options_.directory + "': " + why_not.ToString());
}

std::string WriteBatcher::NoRoomFor(const PreparedWrite& w) const {
  const std::string what = Describe(w, options_.namespaces);
  if (w.kind == WriteOp::Kind::kErase) return "no room to erase " + what;
  return "no room for " + what + " (" + std::to_string(w.RecordBytes()) + " record bytes)";
}

void WriteBatcher::AdoptForeignMapSize() {
  gate_.Close();
  Status ignored = env_.SetMapSize(0);  // 0 adopts the size recorded in the data file.
  (void)ignored;
  gate_.Open();
  map_size_.store(env_.MapSize(), std::memory_order_relaxed);
}

void WriteBatcher::PublishUsage() {
  const uint64_t used = env_.UsedBytes();
  used_bytes_.store(used, std::memory_order_relaxed);
  if (observer_ != nullptr) observer_->OnMapUsage(map_size_.load(std::memory_order_relaxed), used);
}

}  // namespace blobtune::store::internal
