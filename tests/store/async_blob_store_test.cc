// Behaviour of AsyncBlobStore: the three completion styles, the limiter gating each kind of
// access, deadlines while waiting for a permit, how outcomes reach the permit, and many
// concurrent coroutines on a small thread pool.
// Boost 1.74 enables C++20 coroutines (use_awaitable, co_spawn) for GCC only; clang 14 with
// libstdc++'s <coroutine> supports them too. Must precede every Asio header.
#if defined(__clang__) && defined(__cpp_impl_coroutine) && !defined(BOOST_ASIO_HAS_CO_AWAIT)
#define BOOST_ASIO_HAS_CO_AWAIT 1
#define BOOST_ASIO_HAS_STD_COROUTINE 1
#endif

#include "blobtune/store/async_blob_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "blobtune/base/mutex.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/store/store_observer.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "common/fake_clock.h"
#include "temp_dir.h"

namespace blobtune::store {
namespace {

namespace asio = boost::asio;
using std::chrono::hours;
using std::chrono::milliseconds;
using testing::Bytes;
using testing::Pattern;
using testing::String;
using testing::TempDir;
using tuner::Limiter;
using tuner::PermitOutcome;

// Counts how permits ended.
class OutcomeObserver : public tuner::LimiterObserver {
 public:
  void OnReleased(tuner::PartitionId, PermitOutcome outcome, const tuner::Sample*) override {
    released[static_cast<int>(outcome)].fetch_add(1);
  }
  void OnAcquireFailed(tuner::PartitionId, tuner::AcquireFailure) override { failed_acquires.fetch_add(1); }
  int count(PermitOutcome o) const { return released[static_cast<int>(o)].load(); }

  std::atomic<int> released[3]{};
  std::atomic<int> failed_acquires{0};
};

// A BlobStore that forwards to a real one, counting the reads and writes in flight at the store
// (a read from entering Get to leaving it, a write from SubmitWrite to its completion) and able
// to hold them back: held writes are submitted on Release(), held reads block until Release().
class GateStore final : public BlobStore {
 public:
  explicit GateStore(BlobStore& inner) : inner_(inner) {}

  // From now on, hold new reads and writes.
  void Hold() {
    MutexLock lock(mu_);
    holding_ = true;
  }
  // Stops holding and lets every held access go on.
  void Release() {
    std::vector<std::pair<WriteOp, WriteCallback>> held;
    {
      MutexLock lock(mu_);
      holding_ = false;
      held.swap(held_writes_);
      cv_.NotifyAll();
    }
    for (auto& [op, done] : held) {
      if (Status s = inner_.SubmitWrite(std::move(op), std::move(done)); !s.ok()) {
        ADD_FAILURE() << s;
      }
    }
  }
  // Blocks until `n` reads are held inside Get.
  void AwaitHeldReads(int n) {
    MutexLock lock(mu_);
    while (held_reads_ < n) cv_.Wait(lock);
  }
  int held_writes() {
    MutexLock lock(mu_);
    return static_cast<int>(held_writes_.size());
  }
  int max_reads() const { return max_reads_.load(); }
  int max_writes() const { return max_writes_.load(); }

  Status SubmitWrite(WriteOp op, WriteCallback done) override {
    Enter(writes_, max_writes_);
    WriteCallback counted = [this, done = std::move(done)](Status s) {
      writes_.fetch_sub(1);
      done(std::move(s));
    };
    {
      MutexLock lock(mu_);
      if (holding_) {
        held_writes_.emplace_back(std::move(op), std::move(counted));
        return Status::Ok();
      }
    }
    Status s = inner_.SubmitWrite(std::move(op), std::move(counted));
    if (!s.ok()) writes_.fetch_sub(1);
    return s;
  }
  using BlobStore::Get;
  using BlobStore::ViewBlob;

  Status Get(const ReadOptions& options, std::string_view ns, std::string_view id,
             std::vector<std::byte>* out, BlobInfo* info) override {
    Enter(reads_, max_reads_);
    {
      MutexLock lock(mu_);
      if (holding_) {
        ++held_reads_;
        cv_.NotifyAll();
        while (holding_) cv_.Wait(lock);
        --held_reads_;
      }
    }
    Status got = inner_.Get(options, ns, id, out, info);
    reads_.fetch_sub(1);
    return got;
  }

  Status Put(std::string_view ns, std::string_view id, std::span<const std::byte> bytes,
             uint32_t user_flags, PutOutcome* outcome) override {
    return inner_.Put(ns, id, bytes, user_flags, outcome);
  }
  Status Erase(std::string_view ns, std::string_view id) override { return inner_.Erase(ns, id); }
  Status ViewBlob(const ReadOptions& options, std::string_view ns, std::string_view id,
                  ViewFn fn) override {
    return inner_.ViewBlob(options, ns, id, fn);
  }
  StatusOr<bool> Exists(std::string_view ns, std::string_view id) override {
    return inner_.Exists(ns, id);
  }
  StatusOr<BlobInfo> Stat(std::string_view ns, std::string_view id) override {
    return inner_.Stat(ns, id);
  }
  StatusOr<std::vector<ListEntry>> List(std::string_view ns, std::string_view prefix,
                                        size_t limit, std::string_view start_after) override {
    return inner_.List(ns, prefix, limit, start_after);
  }
  StoreStats Stats() const override { return inner_.Stats(); }

 private:
  static void Enter(std::atomic<int>& current, std::atomic<int>& max) {
    const int now = current.fetch_add(1) + 1;
    int seen = max.load();
    while (now > seen && !max.compare_exchange_weak(seen, now)) {
    }
  }

  BlobStore& inner_;
  std::atomic<int> reads_{0};
  std::atomic<int> writes_{0};
  std::atomic<int> max_reads_{0};
  std::atomic<int> max_writes_{0};
  Mutex mu_;
  CondVar cv_;
  bool holding_ BLOBTUNE_GUARDED_BY(mu_) = false;
  int held_reads_ BLOBTUNE_GUARDED_BY(mu_) = 0;
  std::vector<std::pair<WriteOp, WriteCallback>> held_writes_ BLOBTUNE_GUARDED_BY(mu_);
};

class AsyncBlobStoreTest : public ::testing::Test {
 protected:
  LmdbStoreOptions Options(StoreObserver* observer = nullptr) const {
    LmdbStoreOptions o;
    o.directory = dir_.Sub("store");
    o.namespaces = {"incoming", "payload"};
    o.initial_map_size_bytes = size_t{1} << 20;
    o.max_map_size_bytes = size_t{256} << 20;
    o.durability = Durability::kNoSync;  // These tests are about concurrency, not the disk.
    o.observer = observer;
    return o;
  }
  void OpenStore(const LmdbStoreOptions& o) {
    StatusOr<std::unique_ptr<BlobStore>> store = OpenLmdbBlobStore(o);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }
  void SetUp() override { OpenStore(Options()); }

  // A limiter whose limit stays at `limit`, built by name as a configuration would.
  std::unique_ptr<Limiter> FixedLimiter(int limit, OutcomeObserver* observer = nullptr,
                                        Clock* clock = nullptr) {
    StatusOr<tuner::AlgorithmSpec> spec =
        tuner::ParseAlgorithmSpec("fixed:limit=" + std::to_string(limit));
    EXPECT_TRUE(spec.ok()) << spec.status();
    StatusOr<std::unique_ptr<tuner::LimitAlgorithm>> algorithm = tuner::MakeAlgorithm(*spec);
    EXPECT_TRUE(algorithm.ok()) << algorithm.status();
    StatusOr<std::unique_ptr<Limiter>> limiter = Limiter::Create(
        {.algorithm = *std::move(algorithm), .clock = clock, .observer = observer});
    EXPECT_TRUE(limiter.ok()) << limiter.status();
    return *std::move(limiter);
  }

  static TimePoint In(Duration d) { return Clock::Steady().Now() + d; }

  // Runs the io_context until it has nothing left to do.
  void RunIo() {
    io_.run();
    io_.restart();
  }
  // Runs the handlers that are ready now, without waiting for more.
  void PollIo() {
    io_.poll();
    io_.restart();
  }

  TempDir dir_;
  std::unique_ptr<BlobStore> store_;
  asio::io_context io_;
  asio::thread_pool reads_{4};
};

TEST_F(AsyncBlobStoreTest, CallbacksPutGetAndEraseAndReportSuccess) {
  OutcomeObserver read_outcomes, write_outcomes;
  auto read_limiter = FixedLimiter(2, &read_outcomes);
  auto write_limiter = FixedLimiter(2, &write_outcomes);
  AsyncBlobStore blobs(*store_, io_.get_executor(), reads_.get_executor(), read_limiter.get(),
                       write_limiter.get());

  std::optional<Status> put;
  blobs.AsyncPut("incoming", "a", Bytes("alpha"), In(hours(1)),
                 [&](Status s) { put.emplace(std::move(s)); });
  EXPECT_FALSE(put.has_value()) << "completed inside the initiating call";
  RunIo();
  ASSERT_TRUE(put.has_value());
  EXPECT_TRUE(put->ok()) << *put;

  std::optional<StatusOr<std::vector<std::byte>>> got;
  blobs.AsyncGet("incoming", "a", In(hours(1)),
                 [&](StatusOr<std::vector<std::byte>> r) { got.emplace(std::move(r)); });
  RunIo();
  ASSERT_TRUE(got.has_value() && got->ok()) << (got ? got->status() : Status());
  EXPECT_EQ(String(**got), "alpha");

  std::optional<Status> erased;
  blobs.AsyncErase("incoming", "a", In(hours(1)), [&](Status s) { erased.emplace(std::move(s)); });
  RunIo();
  ASSERT_TRUE(erased.has_value());
  EXPECT_TRUE(erased->ok()) << *erased;

  EXPECT_EQ(write_outcomes.count(PermitOutcome::kSuccess), 2);
  EXPECT_EQ(read_outcomes.count(PermitOutcome::kSuccess), 1);
  EXPECT_EQ(read_limiter->inflight(), 0);
  EXPECT_EQ(write_limiter->inflight(), 0);
}


TEST_F(AsyncBlobStoreTest, PutWithOutcomeSaysCreatedThenReplaced) {
  OutcomeObserver write_outcomes;
  auto write_limiter = FixedLimiter(2, &write_outcomes);
  AsyncBlobStore blobs(*store_, io_.get_executor(), reads_.get_executor(), nullptr,
                       write_limiter.get());
  std::vector<StatusOr<PutOutcome>> outcomes;
  auto keep = [&](StatusOr<PutOutcome> r) { outcomes.push_back(std::move(r)); };
  blobs.AsyncPutWithOutcome("incoming", "a", Bytes("alpha"), In(hours(1)), keep);
  RunIo();
  blobs.AsyncPutWithOutcome(tuner::Permit(), "incoming", "a", Bytes("beta"), keep);
  RunIo();
  blobs.AsyncPutWithOutcome("nope", "a", Bytes("gamma"), In(hours(1)), keep);
  RunIo();
  ASSERT_EQ(outcomes.size(), 3u);
  ASSERT_TRUE(outcomes[0].ok()) << outcomes[0].status();
  EXPECT_EQ(*outcomes[0], PutOutcome::kCreated);
  ASSERT_TRUE(outcomes[1].ok()) << outcomes[1].status();
  EXPECT_EQ(*outcomes[1], PutOutcome::kReplaced);
  EXPECT_EQ(outcomes[2].status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(write_outcomes.count(PermitOutcome::kSuccess), 1);  // The second held no permit.
  EXPECT_EQ(String(*store_->Get("incoming", "a")), "beta");
}
TEST_F(AsyncBlobStoreTest, UseFutureWorksWithTheIoContextOnAnotherThread) {
  auto limiter = FixedLimiter(2);
  AsyncBlobStore blobs(*store_, io_.get_executor(), reads_.get_executor(), limiter.get(),
                       limiter.get());
  auto work = asio::make_work_guard(io_);
  std::thread io_thread([this] { io_.run(); });

  const auto blob = Pattern(30000, 7);
  EXPECT_TRUE(blobs.AsyncPut("payload", "f", blob, In(hours(1)), asio::use_future).get().ok());
  StatusOr<std::vector<std::byte>> got =
      blobs.AsyncGet("payload", "f", In(hours(1)), asio::use_future).get();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, blob);
  // AsyncGetBlob: the same bytes, and the header of the read that returned them.
  StatusOr<Blob> whole = blobs.AsyncGetBlob("payload", "f", In(hours(1)), asio::use_future).get();
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(whole->bytes, blob);
  const BlobInfo stat = store_->Stat("payload", "f").value();
  EXPECT_EQ(whole->info.size_bytes, blob.size());
  EXPECT_EQ(whole->info.crc32c, stat.crc32c);
  EXPECT_EQ(whole->info.created_unix_nanos, stat.created_unix_nanos);
  EXPECT_TRUE(blobs.AsyncErase("payload", "f", In(hours(1)), asio::use_future).get().ok());
  EXPECT_EQ(blobs.AsyncGet("payload", "f", In(hours(1)), asio::use_future).get().status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(
      blobs.AsyncGetBlob("payload", "f", In(hours(1)), asio::use_future).get().status().code(),
      StatusCode::kNotFound);

  work.reset();
  io_thread.join();
}

TEST_F(AsyncBlobStoreTest, UseAwaitableWorksInACoroutine) {
  auto limiter = FixedLimiter(2);
  AsyncBlobStore blobs(*store_, io_.get_executor(), reads_.get_executor(), limiter.get(),
                       limiter.get());
  bool finished = false;
  asio::co_spawn(
      io_,
      [&]() -> asio::awaitable<void> {
        Status put = co_await blobs.AsyncPut("incoming", "c", Bytes("coro"), In(hours(1)),
                                             asio::use_awaitable);
        EXPECT_TRUE(put.ok()) << put;
        StatusOr<std::vector<std::byte>> got =
            co_await blobs.AsyncGet("incoming", "c", In(hours(1)), asio::use_awaitable);
        EXPECT_TRUE(got.ok()) << got.status();
        if (got.ok()) {
          EXPECT_EQ(String(*got), "coro");
        }
        Status erased =
            co_await blobs.AsyncErase("incoming", "c", In(hours(1)), asio::use_awaitable);
        EXPECT_TRUE(erased.ok()) << erased;
        finished = true;
      },
      asio::detached);
  RunIo();
  EXPECT_TRUE(finished);
}

TEST_F(AsyncBlobStoreTest, TheWriteLimiterAdmitsAtMostItsLimitOfWrites) {
  GateStore gate(*store_);
  auto limiter = FixedLimiter(2);
  AsyncBlobStore blobs(gate, io_.get_executor(), reads_.get_executor(), nullptr, limiter.get());
  gate.Hold();
  constexpr int kPuts = 6;
  std::atomic<int> ok{0};
  for (int i = 0; i < kPuts; ++i) {
    blobs.AsyncPut("incoming", "w" + std::to_string(i), Pattern(1000, i), In(hours(1)),
                   [&](Status s) {
                     EXPECT_TRUE(s.ok()) << s;
                     ok.fetch_add(s.ok() ? 1 : 0);
                   });
  }
  PollIo();  // Every put has its permit or waits in the limiter's queue.
  EXPECT_EQ(gate.held_writes(), 2);
  EXPECT_EQ(limiter->inflight(), 2);
  EXPECT_EQ(limiter->queue_length(), static_cast<size_t>(kPuts - 2));

  gate.Release();
  RunIo();
  EXPECT_EQ(ok.load(), kPuts);
  EXPECT_EQ(gate.max_writes(), 2);
  EXPECT_EQ(limiter->inflight(), 0);
}

TEST_F(AsyncBlobStoreTest, TheReadLimiterAdmitsAtMostItsLimitOfReads) {
  ASSERT_TRUE(store_->Put("payload", "r", Pattern(5000, 3)).ok());
  GateStore gate(*store_);
  auto limiter = FixedLimiter(2);
  // Four read threads: only the limiter can keep reads to two.
  AsyncBlobStore blobs(gate, io_.get_executor(), reads_.get_executor(), limiter.get(), nullptr);
  gate.Hold();
  constexpr int kGets = 6;
  std::atomic<int> ok{0};
  for (int i = 0; i < kGets; ++i) {
    blobs.AsyncGet("payload", "r", In(hours(1)), [&](StatusOr<std::vector<std::byte>> r) {
      EXPECT_TRUE(r.ok()) << r.status();
      ok.fetch_add(r.ok() && *r == Pattern(5000, 3) ? 1 : 0);
    });
  }
  PollIo();
  gate.AwaitHeldReads(2);
  EXPECT_EQ(limiter->inflight(), 2);
  EXPECT_EQ(limiter->queue_length(), static_cast<size_t>(kGets - 2));

  gate.Release();
  RunIo();
  EXPECT_EQ(ok.load(), kGets);
  EXPECT_EQ(gate.max_reads(), 2);
  EXPECT_EQ(limiter->inflight(), 0);
}

TEST_F(AsyncBlobStoreTest, TheDeadlinePassesWhileWaitingForAPermit) {
  FakeClock clock;
  OutcomeObserver outcomes;
  auto limiter = FixedLimiter(2, &outcomes, &clock);
  AsyncBlobStore blobs(*store_, io_.get_executor(), reads_.get_executor(), limiter.get(),
                       limiter.get());
  std::optional<tuner::Permit> held1 = limiter->TryAcquire();
  std::optional<tuner::Permit> held2 = limiter->TryAcquire();
  ASSERT_TRUE(held1 && held2);

  std::optional<Status> put;
  std::optional<StatusOr<std::vector<std::byte>>> got;
  blobs.AsyncPut("incoming", "late", Bytes("x"), clock.Now() + milliseconds(10),
                 [&](Status s) { put.emplace(std::move(s)); });
  blobs.AsyncGet("incoming", "late", clock.Now() + milliseconds(20),
                 [&](StatusOr<std::vector<std::byte>> r) { got.emplace(std::move(r)); });
  PollIo();
  EXPECT_EQ(limiter->queue_length(), 2u);
  clock.Advance(milliseconds(20));
  RunIo();
  ASSERT_TRUE(put && got);
  EXPECT_EQ(put->code(), StatusCode::kDeadlineExceeded) << *put;
  EXPECT_EQ(got->status().code(), StatusCode::kDeadlineExceeded) << got->status();
  EXPECT_EQ(outcomes.failed_acquires.load(), 2);
  EXPECT_EQ(store_->Get("incoming", "late").status().code(), StatusCode::kNotFound)
      << "a put whose deadline passed in the queue must not reach the store";
}

TEST_F(AsyncBlobStoreTest, APutUnderAHeldPermitDoesNotWaitAndReportsOnIt) {
  OutcomeObserver outcomes;
  auto limiter = FixedLimiter(1, &outcomes);
  AsyncBlobStore blobs(*store_, io_.get_executor(), reads_.get_executor(), limiter.get(),
                       limiter.get());
  std::optional<tuner::Permit> only = limiter->TryAcquire();  // The limiter's one slot.
  ASSERT_TRUE(only.has_value());
  std::optional<Status> put;
  blobs.AsyncPut(*std::move(only), "incoming", "held", Bytes("early"),
                 [&](Status s) { put.emplace(std::move(s)); });
  EXPECT_FALSE(put.has_value()) << "completed inside the initiating call";
  RunIo();
  ASSERT_TRUE(put.has_value());
  EXPECT_TRUE(put->ok()) << *put;
  EXPECT_EQ(outcomes.count(PermitOutcome::kSuccess), 1);
  EXPECT_EQ(limiter->inflight(), 0);
  StatusOr<std::vector<std::byte>> got = store_->Get("incoming", "held");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(String(*got), "early");
}

TEST_F(AsyncBlobStoreTest, ErrorsPropagateAndTheirPermitsAreIgnored) {
  OutcomeObserver outcomes;
  auto limiter = FixedLimiter(2, &outcomes);
  AsyncBlobStore blobs(*store_, io_.get_executor(), reads_.get_executor(), limiter.get(),
                       limiter.get());
  std::optional<Status> bad_put, missing_erase;
  std::optional<StatusOr<std::vector<std::byte>>> missing_get, bad_get;
  blobs.AsyncPut("nope", "a", Bytes("x"), In(hours(1)),
                 [&](Status s) { bad_put.emplace(std::move(s)); });
  blobs.AsyncErase("incoming", "missing", In(hours(1)),
                   [&](Status s) { missing_erase.emplace(std::move(s)); });
  blobs.AsyncGet("incoming", "missing", In(hours(1)),
                 [&](StatusOr<std::vector<std::byte>> r) { missing_get.emplace(std::move(r)); });
  blobs.AsyncGet("incoming", "", In(hours(1)),
                 [&](StatusOr<std::vector<std::byte>> r) { bad_get.emplace(std::move(r)); });
  RunIo();
  ASSERT_TRUE(bad_put && missing_erase && missing_get && bad_get);
  EXPECT_EQ(bad_put->code(), StatusCode::kInvalidArgument) << *bad_put;
  EXPECT_EQ(missing_erase->code(), StatusCode::kNotFound) << *missing_erase;
  EXPECT_EQ(missing_get->status().code(), StatusCode::kNotFound) << missing_get->status();
  EXPECT_EQ(bad_get->status().code(), StatusCode::kInvalidArgument) << bad_get->status();
  EXPECT_EQ(outcomes.count(PermitOutcome::kIgnored), 4);
  EXPECT_EQ(outcomes.count(PermitOutcome::kSuccess), 0);
  EXPECT_EQ(outcomes.count(PermitOutcome::kDropped), 0);
  EXPECT_EQ(limiter->inflight(), 0);
}

// Stalls the store's writer thread inside OnCommit until released.
class StallingObserver : public StoreObserver {
 public:
  void OnCommit(const CommitEvent&) override {
    MutexLock lock(mu_);
    stalled_ = true;
    cv_.NotifyAll();
    while (!released_) cv_.Wait(lock);
  }
  void AwaitStalled() {
    MutexLock lock(mu_);
    while (!stalled_) cv_.Wait(lock);
  }
  void Release() {
    MutexLock lock(mu_);
    released_ = true;
    cv_.NotifyAll();
  }

 private:
  Mutex mu_;
  CondVar cv_;
  bool stalled_ BLOBTUNE_GUARDED_BY(mu_) = false;
  bool released_ BLOBTUNE_GUARDED_BY(mu_) = false;
};

TEST_F(AsyncBlobStoreTest, AFullWriteQueueIsOverloadAndDropsThePermit) {
  store_.reset();
  StallingObserver stall;
  LmdbStoreOptions o = Options(&stall);
  o.max_queued_writes = 1;
  o.batch_refill_wait = Duration::zero();
  OpenStore(o);
  OutcomeObserver outcomes;
  auto limiter = FixedLimiter(10, &outcomes);
  AsyncBlobStore blobs(*store_, io_.get_executor(), reads_.get_executor(), nullptr,
                       limiter.get());

  std::optional<Status> first, second, third;
  blobs.AsyncPut("incoming", "1", Bytes("a"), In(hours(1)),
                 [&](Status s) { first.emplace(std::move(s)); });
  PollIo();
  stall.AwaitStalled();  // The writer committed the first put and is stuck before completing it.
  blobs.AsyncPut("incoming", "2", Bytes("b"), In(hours(1)),
                 [&](Status s) { second.emplace(std::move(s)); });
  blobs.AsyncPut("incoming", "3", Bytes("c"), In(hours(1)),
                 [&](Status s) { third.emplace(std::move(s)); });
  while (!third) io_.run_one();  // The first two cannot complete while the writer is stuck.
  EXPECT_EQ(third->code(), StatusCode::kResourceExhausted) << *third;
  EXPECT_TRUE(IsOverload(*third));
  EXPECT_EQ(outcomes.count(PermitOutcome::kDropped), 1);

  stall.Release();
  RunIo();
  ASSERT_TRUE(first && second);
  EXPECT_TRUE(first->ok()) << *first;
  EXPECT_TRUE(second->ok()) << *second;
  EXPECT_EQ(outcomes.count(PermitOutcome::kSuccess), 2);
  store_.reset();  // Before `stall`, which it reports to, goes away.
}

TEST_F(AsyncBlobStoreTest, ManyConcurrentCoroutinePutsOnTwoThreadsThenReadsVerifyEveryBlob) {
  asio::thread_pool io(2);
  asio::thread_pool reads(2);
  auto write_limiter = FixedLimiter(4);
  auto read_limiter = FixedLimiter(3);
  AsyncBlobStore blobs(*store_, io.get_executor(), reads.get_executor(), read_limiter.get(),
                       write_limiter.get());
  constexpr int kWriters = 32;
  constexpr int kBlobsEach = 4;
  auto id = [](int w, int k) { return "blob-" + std::to_string(w) + "-" + std::to_string(k); };
  auto size = [](int w, int k) { return static_cast<size_t>(100 + 997 * ((w * 7 + k) % 23)); };
  auto seed = [](int w, int k) { return static_cast<uint32_t>(w * 100 + k); };

  std::atomic<int> failures{0};
  std::vector<std::future<void>> done;
  for (int w = 0; w < kWriters; ++w) {
    done.push_back(asio::co_spawn(
        io,
        [&, w]() -> asio::awaitable<void> {
          for (int k = 0; k < kBlobsEach; ++k) {
            Status s = co_await blobs.AsyncPut("payload", id(w, k), Pattern(size(w, k), seed(w, k)),
                                               In(hours(1)), asio::use_awaitable);
            if (!s.ok()) failures.fetch_add(1);
          }
        },
        asio::use_future));
  }
  for (auto& f : done) f.get();
  EXPECT_EQ(failures.load(), 0);

  done.clear();
  for (int w = 0; w < kWriters; ++w) {
    done.push_back(asio::co_spawn(
        io,
        [&, w]() -> asio::awaitable<void> {
          for (int k = 0; k < kBlobsEach; ++k) {
            StatusOr<std::vector<std::byte>> got =
                co_await blobs.AsyncGet("payload", id(w, k), In(hours(1)), asio::use_awaitable);
            if (!got.ok() || *got != Pattern(size(w, k), seed(w, k))) failures.fetch_add(1);
          }
        },
        asio::use_future));
  }
  for (auto& f : done) f.get();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(write_limiter->inflight(), 0);
  EXPECT_EQ(read_limiter->inflight(), 0);
  io.join();
  reads.join();
}

}  // namespace
}  // namespace blobtune::store
