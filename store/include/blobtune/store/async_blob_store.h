// AsyncBlobStore: the BlobStore with Boost.Asio operations whose accesses pass through tuner
// limiters. This is where blobtune tunes "the number of concurrent accesses to the blob store":
// every operation first waits for a Permit, then does its one LMDB access, then reports how the
// access went so the limiter's algorithm can move the limit.
//
//   asio::io_context io;                  // completions run here
//   asio::thread_pool reads(2);           // reads start here, never on the io thread
//   auto writes = tuner::Limiter::Create({.algorithm = ...}).value();
//   store::AsyncBlobStore blobs(*store, io.get_executor(), reads.get_executor(),
//                               /*read_limiter=*/nullptr, writes.get());
//   asio::co_spawn(io, [&]() -> asio::awaitable<void> {
//     Status put = co_await blobs.AsyncPut("incoming", "order-17", bytes,
//                                          Clock::Steady().Now() + 50ms, asio::use_awaitable);
//     StatusOr<std::vector<std::byte>> got = co_await blobs.AsyncGet(
//         "incoming", "order-17", Clock::Steady().Now() + 50ms, asio::use_awaitable);
//   }, asio::detached);
//
// Every operation is built with asio::async_compose, so callbacks, asio::use_future and
// asio::use_awaitable all work. Completion signatures:
//   AsyncPut, AsyncErase: void(Status)
//   AsyncPutWithOutcome:  void(StatusOr<PutOutcome>)  (created or replaced)
//   AsyncGet:             void(StatusOr<std::vector<std::byte>>)
//   AsyncGetBlob:         void(StatusOr<Blob>)  (bytes and header)
//
// One operation, step by step:
//   1. Permit: tuner::AsyncAcquire on the operation's limiter (reads and writes may have separate
//      limiters; a null limiter admits everything). `deadline`, on that limiter's clock, bounds
//      only this wait: past it the operation fails with DEADLINE_EXCEEDED without touching the
//      store. CANCELLED (Limiter::CancelWaiters) and RESOURCE_EXHAUSTED (limiter queue full)
//      end it the same way.
//   2. Access: a put or erase goes to BlobStore::SubmitWrite and the permit stays held until the
//      commit holding it is durable (the latency the tuner must see is the commit's); a get
//      calls BlobStore::SubmitRead on the read executor and holds its permit until the read is
//      done: LMDB reads there, in one read transaction; RADOS sends the read from there and
//      completes it on a librados thread, so reads in flight need no read thread each.
//   3. Outcome, reported on the thread that finished the access, before the handler runs:
//        ok                                     -> Permit::Success(blob bytes; 0 for an erase)
//        IsOverload(status): full write queue,  -> Permit::Dropped()
//          all reader slots in use, deadline
//        anything else (NOT_FOUND, INVALID_ARGUMENT, DATA_LOSS, a blob over the maximum, a map
//          at its maximum size, a full disk,    -> ignored: it says nothing about the load
//          CANCELLED)
//   4. The handler runs on its associated executor (default: the `io` executor), never inside the
//      initiating call.
//
// Thread-safety: start operations from any thread. The BlobStore, the limiters, and the io and
// read executors' execution contexts must outlive every operation started here. An operation
// whose executor is destroyed before it completes is destroyed without completing (its permit,
// if any, is released as ignored).
#ifndef BLOBTUNE_STORE_ASYNC_BLOB_STORE_H_
#define BLOBTUNE_STORE_ASYNC_BLOB_STORE_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <type_traits>
#include <vector>

#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/tuner/async_acquire.h"
#include "blobtune/tuner/limiter.h"

namespace blobtune::store {

namespace internal {

// Reports a finished access on its permit (see step 3 above). No-op for an empty permit.
void ReportAccess(tuner::Permit& permit, const Status& status, uint64_t bytes) noexcept;

// Resumes a composed operation `self` with `args` on its associated executor, from a thread
// that is not that executor's (the writer thread, a read thread).
template <typename Self, typename... Args>
void ResumeOn(Self self, Args... args) {
  auto executor = boost::asio::get_associated_executor(self);
  // Outstanding work until post() has returned: Asio signals the io_context's condition variable
  // after handing over the handler, so without it the handler could run, run() return and the
  // io_context be destroyed while this thread is still inside post() (TSan saw it).
  auto work = boost::asio::make_work_guard(executor);
  boost::asio::post(executor, [self = std::move(self), ... args = std::move(args)]() mutable {
    self(std::move(args)...);
  });
}

// The result of the access, handed back to the operation on the handler's executor.
template <typename Result>
struct AccessDone {
  Result result;
};

// What a write operation completes with: Status, or StatusOr<PutOutcome> for a put that reports
// whether it created or replaced its blob.
template <typename Result>
Result WriteResult(Status status, PutOutcome outcome) {
  if constexpr (std::is_same_v<Result, Status>) {
    (void)outcome;
    return status;
  } else {
    if (!status.ok()) return status;
    return outcome;
  }
}

// Put or erase: permit, SubmitWrite, outcome when the commit is durable. `Result` is the
// completion's argument: Status or StatusOr<PutOutcome>.
template <typename Result>
class AsyncWriteOp {
 public:
  AsyncWriteOp(BlobStore& store, tuner::Limiter* limiter,
               const boost::asio::any_io_executor& io, TimePoint deadline, WriteOp op,
               tuner::PartitionId partition = {})
      : store_(&store),
        limiter_(limiter),
        io_(io),
        deadline_(deadline),
        partition_(partition),
        op_(std::move(op)) {}
  // Under a permit the caller holds already: no wait.
  AsyncWriteOp(BlobStore& store, tuner::Permit held, WriteOp op)
      : store_(&store), limiter_(nullptr), held_(std::move(held)), op_(std::move(op)) {}

  template <typename Self>
  void operator()(Self& self) {
    if (limiter_ == nullptr) return Submit(self, std::move(held_));
    tuner::AsyncAcquire(*limiter_, partition_, io_, deadline_, std::stop_token(), std::move(self));
  }

  template <typename Self>
  void operator()(Self& self, StatusOr<tuner::Permit> permit) {
    // AsyncAcquire completed through a post: completing here is never inside the initiation.
    if (!permit.ok()) return self.complete(Result(permit.status()));
    Submit(self, *std::move(permit));
  }

  template <typename Self>
  void operator()(Self& self, AccessDone<Result> done) {
    self.complete(std::move(done.result));
  }

 private:
  // The operation, parked while the writer thread has the write. WriteCallback is a
  // std::function and must be copyable; the composed operation is move-only, so callbacks share
  // it through a shared_ptr. `outcome` is where the writer thread puts a put's outcome.
  template <typename Self>
  struct Parked {
    Self self;
    tuner::Permit permit;
    PutOutcome outcome = PutOutcome::kCreated;
  };

  template <typename Self>
  void Submit(Self& self, tuner::Permit permit) {
    // Everything this needs is moved out of *this first: *this lives inside `self`.
    BlobStore& store = *store_;
    WriteOp op = std::move(op_);
    const uint64_t bytes = op.kind() == WriteOp::Kind::kPut ? op.bytes().size() : 0;
    auto parked = std::make_shared<Parked<Self>>(Parked<Self>{std::move(self), std::move(permit)});
    op.set_outcome_out(&parked->outcome);  // `parked` lives until the callback has run.
    Status submitted = store.SubmitWrite(std::move(op), [parked, bytes](Status status) {
      // The writer thread, right after the commit: the permit's latency ends here.
      ReportAccess(parked->permit, status, bytes);
      Result result = WriteResult<Result>(std::move(status), parked->outcome);
      ResumeOn(std::move(parked->self), AccessDone<Result>{std::move(result)});
    });
    if (!submitted.ok()) {  // The callback will never run.
      ReportAccess(parked->permit, submitted, 0);
      ResumeOn(std::move(parked->self), AccessDone<Result>{Result(std::move(submitted))});
    }
  }

  BlobStore* store_;
  tuner::Limiter* limiter_;
  boost::asio::any_io_executor io_;
  TimePoint deadline_;
  tuner::PartitionId partition_;
  tuner::Permit held_;  // Empty unless the caller brought its permit.
  WriteOp op_;
};

// What a read operation completes with: the blob's bytes, or the whole Blob (bytes and header).
template <typename Result>
Result ReadResult(StatusOr<Blob> got) {
  if constexpr (std::is_same_v<Result, StatusOr<Blob>>) {
    return got;
  } else {
    if (!got.ok()) return got.status();
    return std::move(got->bytes);
  }
}

// Get: permit, BlobStore::SubmitRead from the read executor, outcome right after the read.
// `Result` is the completion's argument: StatusOr<std::vector<std::byte>> or StatusOr<Blob>.
template <typename Result>
class AsyncGetOp {
 public:
  AsyncGetOp(BlobStore& store, tuner::Limiter* limiter, const boost::asio::any_io_executor& io,
             const boost::asio::any_io_executor& reads, TimePoint deadline, std::string ns,
             std::string id, tuner::PartitionId partition = {})
      : store_(&store),
        limiter_(limiter),
        io_(io),
        reads_(reads),
        deadline_(deadline),
        partition_(partition),
        ns_(std::move(ns)),
        id_(std::move(id)) {}

  template <typename Self>
  void operator()(Self& self) {
    if (limiter_ == nullptr) return Read(self, tuner::Permit());
    tuner::AsyncAcquire(*limiter_, partition_, io_, deadline_, std::stop_token(), std::move(self));
  }

  template <typename Self>
  void operator()(Self& self, StatusOr<tuner::Permit> permit) {
    if (!permit.ok()) return self.complete(Result(permit.status()));
    Read(self, *std::move(permit));
  }

  template <typename Self>
  void operator()(Self& self, AccessDone<Result> done) {
    self.complete(std::move(done.result));
  }

 private:
  template <typename Self>
  void Read(Self& self, tuner::Permit permit) {
    // Everything the read needs is moved out of *this first: *this lives inside `self`.
    BlobStore* store = store_;
    boost::asio::any_io_executor reads = reads_;
    std::string ns = std::move(ns_);
    std::string id = std::move(id_);
    // ReadCallback is a std::function and must be copyable; the composed operation is
    // move-only, so the callback shares it through a shared_ptr.
    auto parked = std::make_shared<Parked<Self>>(Parked<Self>{std::move(self), std::move(permit)});
    // A plain lambda (no associated executor), so it runs on `reads`, not on the handler's.
    boost::asio::post(reads, [parked = std::move(parked), store, ns = std::move(ns),
                              id = std::move(id)]() mutable {
      // LMDB reads right here; RADOS sends the read and calls back from a librados thread.
      store->SubmitRead(std::move(ns), std::move(id), [parked](StatusOr<Blob> got) {
        // Right after the read: the permit's latency ends here.
        ReportAccess(parked->permit, got.status(), got.ok() ? got->bytes.size() : 0);
        ResumeOn(std::move(parked->self),
                 AccessDone<Result>{ReadResult<Result>(std::move(got))});
      });
    });
  }

  // The operation, parked while the store has the read.
  template <typename Self>
  struct Parked {
    Self self;
    tuner::Permit permit;
  };

  BlobStore* store_;
  tuner::Limiter* limiter_;
  boost::asio::any_io_executor io_;
  boost::asio::any_io_executor reads_;
  TimePoint deadline_;
  tuner::PartitionId partition_;
  std::string ns_;
  std::string id_;
};

}  // namespace internal

class AsyncBlobStore {
 public:
  // `io`: where waits for permits run and where handlers without an executor of their own
  // complete. `reads`: where reads start (e.g. an asio::thread_pool's executor; an LMDB read
  // runs there whole); it may be `io` itself only if blocking an io thread for a read is
  // acceptable. `read_limiter` and `write_limiter` gate reads and writes (they may be the same
  // limiter); null admits everything. None is owned; all must outlive this object's operations.
  AsyncBlobStore(BlobStore& store, boost::asio::any_io_executor io,
                 boost::asio::any_io_executor reads, tuner::Limiter* read_limiter,
                 tuner::Limiter* write_limiter);

  AsyncBlobStore(const AsyncBlobStore&) = delete;
  AsyncBlobStore& operator=(const AsyncBlobStore&) = delete;
  ~AsyncBlobStore() = default;

  // BlobStore::Put, durably, through the write limiter. Completion: void(Status).
  template <typename CompletionToken>
  auto AsyncPut(std::string ns, std::string id, std::vector<std::byte> bytes, TimePoint deadline,
                CompletionToken&& token) {
    return boost::asio::async_compose<CompletionToken, void(Status)>(
        internal::AsyncWriteOp<Status>(store_, write_limiter_, io_, deadline,
                               WriteOp::Put(std::move(ns), std::move(id), std::move(bytes))),
        token, io_);
  }

  // AsyncPut under a write permit the caller already holds (taken from write_limiter(); empty if
  // there is none), e.g. one taken as soon as a request's header arrived, so that an
  // overloaded server refuses a blob before receiving it. Nothing waits; the outcome is
  // reported on `permit` as for AsyncPut. Completion: void(Status).
  template <typename CompletionToken>
  auto AsyncPut(tuner::Permit permit, std::string ns, std::string id,
                std::vector<std::byte> bytes, CompletionToken&& token) {
    return boost::asio::async_compose<CompletionToken, void(Status)>(
        internal::AsyncWriteOp<Status>(store_, std::move(permit),
                                       WriteOp::Put(std::move(ns), std::move(id),
                                                    std::move(bytes))),
        token, io_);
  }

  // The two AsyncPut forms above, completing with whether the put created its blob or replaced
  // one (PutOutcome, as seen in the commit's own transaction) when it succeeded.
  // Completion: void(StatusOr<PutOutcome>).
  template <typename CompletionToken>
  auto AsyncPutWithOutcome(std::string ns, std::string id, std::vector<std::byte> bytes,
                           TimePoint deadline, CompletionToken&& token) {
    return boost::asio::async_compose<CompletionToken, void(StatusOr<PutOutcome>)>(
        internal::AsyncWriteOp<StatusOr<PutOutcome>>(
            store_, write_limiter_, io_, deadline,
            WriteOp::Put(std::move(ns), std::move(id), std::move(bytes))),
        token, io_);
  }
  template <typename CompletionToken>
  auto AsyncPutWithOutcome(tuner::Permit permit, std::string ns, std::string id,
                           std::vector<std::byte> bytes, CompletionToken&& token) {
    return boost::asio::async_compose<CompletionToken, void(StatusOr<PutOutcome>)>(
        internal::AsyncWriteOp<StatusOr<PutOutcome>>(
            store_, std::move(permit),
            WriteOp::Put(std::move(ns), std::move(id), std::move(bytes))),
        token, io_);
  }

  // BlobStore::Erase, durably, through the write limiter (in `partition` of it, see
  // tuner/partition.h); NOT_FOUND if there was no blob. Completion: void(Status).
  template <typename CompletionToken>
  auto AsyncErase(tuner::PartitionId partition, std::string ns, std::string id,
                  TimePoint deadline, CompletionToken&& token) {
    return boost::asio::async_compose<CompletionToken, void(Status)>(
        internal::AsyncWriteOp<Status>(store_, write_limiter_, io_, deadline,
                                       WriteOp::Erase(std::move(ns), std::move(id)), partition),
        token, io_);
  }
  template <typename CompletionToken>
  auto AsyncErase(std::string ns, std::string id, TimePoint deadline, CompletionToken&& token) {
    return AsyncErase(tuner::PartitionId{}, std::move(ns), std::move(id), deadline,
                      std::forward<CompletionToken>(token));
  }

  // BlobStore::Get (a verified copy) through the read limiter, started on the read executor
  // (BlobStore::SubmitRead).
  // Completion: void(StatusOr<std::vector<std::byte>>).
  template <typename CompletionToken>
  auto AsyncGet(std::string ns, std::string id, TimePoint deadline, CompletionToken&& token) {
    using Result = StatusOr<std::vector<std::byte>>;
    return boost::asio::async_compose<CompletionToken, void(Result)>(
        internal::AsyncGetOp<Result>(store_, read_limiter_, io_, reads_, deadline, std::move(ns),
                                     std::move(id)),
        token, io_);
  }

  // AsyncGet, completing with the blob's header (its size, checksum, creation time) beside its
  // bytes, both from the one read; in `partition` of the read limiter if given.
  // Completion: void(StatusOr<Blob>).
  template <typename CompletionToken>
  auto AsyncGetBlob(tuner::PartitionId partition, std::string ns, std::string id,
                    TimePoint deadline, CompletionToken&& token) {
    return boost::asio::async_compose<CompletionToken, void(StatusOr<Blob>)>(
        internal::AsyncGetOp<StatusOr<Blob>>(store_, read_limiter_, io_, reads_, deadline,
                                             std::move(ns), std::move(id), partition),
        token, io_);
  }
  template <typename CompletionToken>
  auto AsyncGetBlob(std::string ns, std::string id, TimePoint deadline,
                    CompletionToken&& token) {
    return AsyncGetBlob(tuner::PartitionId{}, std::move(ns), std::move(id), deadline,
                        std::forward<CompletionToken>(token));
  }

  BlobStore& store() const noexcept { return store_; }
  const boost::asio::any_io_executor& io_executor() const noexcept { return io_; }
  tuner::Limiter* read_limiter() const noexcept { return read_limiter_; }
  tuner::Limiter* write_limiter() const noexcept { return write_limiter_; }

 private:
  BlobStore& store_;
  const boost::asio::any_io_executor io_;
  const boost::asio::any_io_executor reads_;
  tuner::Limiter* const read_limiter_;
  tuner::Limiter* const write_limiter_;
};

}  // namespace blobtune::store

#endif  // BLOBTUNE_STORE_ASYNC_BLOB_STORE_H_
