// Behaviour of RadosBlobStore against a real throwaway Ceph cluster (scripts/rados-cluster, one
// monitor and one in-memory OSD, started once per program by the first test that needs it).
// BlobStoreContractTest runs the cases every BlobStore shares (reads, writes, outcomes,
// namespaces, listing, many writes in flight) against LMDB and RADOS alike; RadosBlobStoreTest
// what only RADOS has (raw corruption, bad options, an unreachable monitor, a stalled OSD, writes
// through a limiter while the OSD is away). RadosOsdRestartTest starts a second cluster whose
// OSD keeps its objects on disk (start --persistent), kills that OSD with SIGKILL in the middle
// of a burst of writes through a limiter and starts a new one, and checks that no acknowledged
// write is lost.
// The RADOS cases are skipped where ceph-mon and ceph-osd are not installed.
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/store/rados_blob_store.h"

#include <signal.h>
#include <sys/types.h>

#include <gtest/gtest.h>
#include <rados/librados.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "blobtune/base/mutex.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/limiter.h"
#include "counting_observer.h"
#include "crc32c.h"
#include "temp_dir.h"

namespace blobtune::store {
namespace {

using testing::Bytes;
using testing::CountingObserver;
using testing::Pattern;
using testing::String;

// Runs `command` with the shell, its output in `*output`; whether it exited 0.
bool RunCommand(const std::string& command, std::string* output) {
  output->clear();
  FILE* out = popen(command.c_str(), "r");
  if (out == nullptr) {
    *output = "cannot run " + command;
    return false;
  }
  char line[512];
  while (fgets(line, sizeof line, out) != nullptr) *output += line;
  return pclose(out) == 0;
}

// The cluster, started by the first test that needs it (so that a run of LMDB cases alone, as
// ctest runs them, starts none) and stopped in the environment's TearDown.
class RadosCluster : public ::testing::Environment {
 public:
  // `start_flags`: what follows `start DIR` on the script's command line ("--persistent").
  explicit RadosCluster(std::string start_flags = "") : start_flags_(std::move(start_flags)) {}

  // Starts the cluster unless that was tried already; then started() or skip_reason() says how
  // it went, and start_output() what the script printed.
  void EnsureStarted() {
    if (attempted_) return;
    attempted_ = true;
    if (std::system("command -v ceph-mon > /dev/null 2>&1 && "
                    "command -v ceph-osd > /dev/null 2>&1") != 0) {
      skip_reason_ = "ceph-mon or ceph-osd is not installed (scripts/bootstrap installs them)";
      return;
    }
    dir_ = std::make_unique<testing::TempDir>();
    cluster_dir_ = dir_->Sub("cluster");
    if (!RunCommand(std::string(BLOBTUNE_RADOS_CLUSTER) + " start '" + cluster_dir_ + "' " +
                        start_flags_ + " 2>&1",
                    &start_output_)) {
      return;
    }
    // The last line names the cluster's ceph.conf.
    std::string last = start_output_;
    while (!last.empty() && (last.back() == '\n' || last.back() == '\r')) last.pop_back();
    conf_ = last.substr(last.find_last_of('\n') + 1);
    started_ = true;
  }

  void TearDown() override {
    if (!started_) return;
    const std::string command = std::string(BLOBTUNE_RADOS_CLUSTER) + " stop '" +
                                cluster_dir_ + "'";
    EXPECT_EQ(std::system(command.c_str()), 0);
    dir_.reset();
  }

  const std::string& conf() const { return conf_; }
  // The directory the script keeps the cluster in.
  const std::string& dir() const { return cluster_dir_; }
  const std::string& start_output() const { return start_output_; }
  // The OSD's process id (the script's pid file), 0 if unknown.
  pid_t OsdPid() const {
    std::ifstream in(cluster_dir_ + "/run/osd.0.pid");
    long pid = 0;
    in >> pid;
    return static_cast<pid_t>(pid);
  }
  bool started() const { return started_; }
  const std::string& skip_reason() const { return skip_reason_; }

 private:
  const std::string start_flags_;
  std::unique_ptr<testing::TempDir> dir_;
  std::string cluster_dir_;
  std::string conf_;
  std::string skip_reason_;
  std::string start_output_;
  bool attempted_ = false;
  bool started_ = false;
};

RadosCluster* const cluster =
    static_cast<RadosCluster*>(::testing::AddGlobalTestEnvironment(new RadosCluster));

// Waits on a count of completed writes, with a deadline.
class CompletionCounter {
 public:
  WriteCallback Callback() {
    return [this](Status s) {
      MutexLock lock(mu_);
      if (!s.ok()) failures_.push_back(s.ToString());
      ++done_;
      cv_.NotifyAll();
    };
  }
  bool WaitFor(size_t count, std::chrono::seconds deadline) {
    MutexLock lock(mu_);
    return cv_.WaitFor(lock, deadline, [&]() BLOBTUNE_REQUIRES(mu_) { return done_ >= count; });
  }
  std::vector<std::string> failures() {
    MutexLock lock(mu_);
    return failures_;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  size_t done_ BLOBTUNE_GUARDED_BY(mu_) = 0;
  std::vector<std::string> failures_ BLOBTUNE_GUARDED_BY(mu_);
};

// Collects the results of submitted reads, with a deadline.
class ReadResults {
 public:
  explicit ReadResults(size_t count) : results_(count) {}
  ReadCallback Callback(size_t index) {
    return [this, index](StatusOr<Blob> got) {
      MutexLock lock(mu_);
      if (got.ok()) {
        results_[index] = std::move(got->bytes);
      } else {
        results_[index] = got.status();
      }
      ++done_;
      cv_.NotifyAll();
    };
  }
  bool WaitForAll(std::chrono::seconds deadline) {
    MutexLock lock(mu_);
    return cv_.WaitFor(lock, deadline,
                       [&]() BLOBTUNE_REQUIRES(mu_) { return done_ == results_.size(); });
  }
  size_t done() {
    MutexLock lock(mu_);
    return done_;
  }
  // REQUIRES: WaitForAll returned true.
  const StatusOr<std::vector<std::byte>>& result(size_t index) {
    MutexLock lock(mu_);
    return *results_[index];
  }

 private:
  Mutex mu_;
  CondVar cv_;
  size_t done_ BLOBTUNE_GUARDED_BY(mu_) = 0;
  std::vector<std::optional<StatusOr<std::vector<std::byte>>>> results_ BLOBTUNE_GUARDED_BY(mu_);
};

// Stops a process (the cluster's OSD) with SIGSTOP until Continue() or the end of the scope.
class PausedOsd {
 public:
  explicit PausedOsd(pid_t pid) : pid_(pid), paused_(pid > 0 && kill(pid, SIGSTOP) == 0) {}
  PausedOsd(const PausedOsd&) = delete;
  PausedOsd& operator=(const PausedOsd&) = delete;
  ~PausedOsd() { Continue(); }

  bool paused() const { return paused_; }
  // Lets the process run again; false if SIGCONT could not be sent.
  bool Continue() {
    if (!paused_) return true;
    paused_ = false;
    return kill(pid_, SIGCONT) == 0;
  }

 private:
  const pid_t pid_;
  bool paused_;
};

// Kills the OSD of a persistent cluster (scripts/rados-cluster kill-osd: SIGKILL, no shutdown)
// until Restart() starts a new ceph-osd on the same block file (start-osd). Nothing restarts it
// at the end of the scope: the cluster's TearDown stops what runs.
class KilledOsd {
 public:
  explicit KilledOsd(std::string cluster_dir)
      : cluster_dir_(std::move(cluster_dir)), killed_(RunScript("kill-osd")) {}
  KilledOsd(const KilledOsd&) = delete;
  KilledOsd& operator=(const KilledOsd&) = delete;

  bool killed() const { return killed_; }
  // Starts the OSD again and waits until the pool answers (the script gives up after 60 s);
  // false if it did not, and output() says why.
  bool Restart() { return RunScript("start-osd"); }
  const std::string& output() const { return output_; }

 private:
  bool RunScript(const char* verb) {
    // `timeout`: start-osd bounds its own wait for the pool, not a ceph-osd that never returns.
    return RunCommand("timeout 120 " + std::string(BLOBTUNE_RADOS_CLUSTER) + " " + verb + " '" +
                          cluster_dir_ + "' 2>&1",
                      &output_);
  }

  const std::string cluster_dir_;
  std::string output_;
  const bool killed_;
};

// What the writes of a BurstWriter reported. Kept apart from the writer's thread so that it can
// be declared before the store and outlive it: the store's destructor waits for the callbacks
// that fill it. Thread-safety: fields under `mu`; WaitUntil from any thread.
struct WriteLog {
  Mutex mu;
  CondVar cv;  // Signalled after each completion, once its permit is released.
  std::vector<uint64_t> acknowledged BLOBTUNE_GUARDED_BY(mu);
  std::vector<std::pair<uint64_t, Status>> failed BLOBTUNE_GUARDED_BY(mu);
  uint64_t in_flight BLOBTUNE_GUARDED_BY(mu) = 0;
  // From WatchLowest on, the lowest limit the limiter had at any completion.
  bool watching BLOBTUNE_GUARDED_BY(mu) = false;
  int lowest BLOBTUNE_GUARDED_BY(mu) = 0;

  void WatchLowest(int from) {
    MutexLock lock(mu);
    watching = true;
    lowest = from;
  }
  // Waits until `more` writes beyond those acknowledged by now are acknowledged and `limiter`'s
  // limit is above the lowest seen, at most `within`.
  bool WaitForRecovery(const tuner::Limiter& limiter, size_t more, std::chrono::seconds within) {
    MutexLock lock(mu);
    const size_t target = acknowledged.size() + more;
    return cv.WaitFor(lock, within, [&]() BLOBTUNE_REQUIRES(mu) {
      return acknowledged.size() >= target && limiter.limit() > lowest;
    });
  }
  // Waits until `ready()` holds (called under `mu`, after every completion), at most `within`.
  template <typename Ready>
  bool WaitUntil(Ready ready, std::chrono::seconds within) {
    MutexLock lock(mu);
    return cv.WaitFor(lock, within, std::move(ready));
  }
  int Lowest() {
    MutexLock lock(mu);
    return lowest;
  }
};

// The blob and id of a BurstWriter's write number `n`.
std::vector<std::byte> BurstBlob(uint64_t n) { return Pattern(4096, static_cast<uint32_t>(n)); }
std::string BurstId(uint64_t n) { return "w-" + std::to_string(n); }

// The limiter of the OSD fault tests: AIMD, so a dropped access shrinks the limit at once.
std::unique_ptr<tuner::Limiter> AimdLimiter() {
  tuner::LimiterOptions options;
  options.algorithm =
      tuner::MakeAlgorithmFromText("aimd:initial_limit=16,min_limit=1,max_limit=64").value();
  return tuner::Limiter::Create(std::move(options)).value();
}

// One thread writing BurstBlob(n) under BurstId(n), n = 0, 1, ..., into `ns` through `limiter`,
// each permit held until the store acknowledged the write (Success) or failed it (Dropped), until
// Stop() or destruction. Thread-safety: Stop and submitted from one thread.
class BurstWriter {
 public:
  BurstWriter(BlobStore& store, std::string ns, tuner::Limiter& limiter, WriteLog& log)
      : thread_([this, &store, ns = std::move(ns), &limiter, &log] {
          for (uint64_t n = 0; !stop_.load(); ++n) {
            StatusOr<tuner::Permit> permit = limiter.Acquire(std::chrono::seconds(5));
            if (!permit.ok()) continue;
            auto held = std::make_shared<tuner::Permit>(*std::move(permit));
            {
              MutexLock lock(log.mu);
              ++log.in_flight;
            }
            auto done = [&log, &limiter, held, n](Status s) {
              if (s.ok()) {
                held->Success(4096);
              } else {
                held->Dropped();
              }
              MutexLock lock(log.mu);
              if (s.ok()) {
                log.acknowledged.push_back(n);
              } else {
                log.failed.emplace_back(n, std::move(s));
              }
              if (log.watching) log.lowest = std::min(log.lowest, limiter.limit());
              --log.in_flight;
              log.cv.NotifyAll();
            };
            Status submitted = store.SubmitWrite(WriteOp::Put(ns, BurstId(n), BurstBlob(n)), done);
            submitted_.store(n + 1);
            if (!submitted.ok()) done(submitted);
          }
        }) {}
  BurstWriter(const BurstWriter&) = delete;
  BurstWriter& operator=(const BurstWriter&) = delete;
  ~BurstWriter() { Stop(); }

  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  // Writes 0 to submitted() - 1 have been handed to the store.
  uint64_t submitted() const { return submitted_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> submitted_{0};
  std::thread thread_;  // Last: starts once the flags exist.
};

enum class Backend { kLmdb, kRados };

// Opens the store under test. Each test gets its own two namespaces (RADOS: the cluster is
// shared by every test of the program) and, for LMDB, its own directory.
class StoreFixture : public ::testing::Test {
 protected:
  void OpenStore(Backend backend) {
    backend_ = backend;
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(test.begin(), test.end(), '/', '-');
    ns_a_ = test + "-a";
    ns_b_ = test + "-b";
    if (backend == Backend::kLmdb) {
      LmdbStoreOptions options;
      options.directory = lmdb_dir_.Sub("store");
      options.namespaces = {ns_a_, ns_b_};
      options.max_blob_size_bytes = kMaxBlobSize;
      options.observer = &observer_;
      auto opened = OpenLmdbBlobStore(options);
      ASSERT_TRUE(opened.ok()) << opened.status().ToString();
      store_ = *std::move(opened);
      return;
    }
    cluster->EnsureStarted();
    if (!cluster->skip_reason().empty()) GTEST_SKIP() << cluster->skip_reason();
    ASSERT_TRUE(cluster->started()) << "rados-cluster start failed:\n" << cluster->start_output();
    RadosStoreOptions options = Options({ns_a_, ns_b_});
    options.observer = &observer_;
    auto opened = OpenRadosBlobStore(options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = *std::move(opened);
  }

  static constexpr size_t kMaxBlobSize = size_t{2} << 20;

  static RadosStoreOptions Options(std::vector<std::string> namespaces) {
    RadosStoreOptions options;
    options.conf_file = cluster->conf();
    options.pool = "blobtune";
    options.namespaces = std::move(namespaces);
    options.max_blob_size_bytes = kMaxBlobSize;
    options.op_timeout = std::chrono::seconds(10);
    return options;
  }

  Backend backend_ = Backend::kLmdb;
  CountingObserver observer_;  // Outlives store_ (declared first).
  testing::TempDir lmdb_dir_;
  std::string ns_a_;
  std::string ns_b_;
  std::unique_ptr<BlobStore> store_;
};

// The behaviour every BlobStore shares, run against each backend.
class BlobStoreContractTest : public StoreFixture,
                              public ::testing::WithParamInterface<Backend> {
 protected:
  void SetUp() override { OpenStore(GetParam()); }
};

INSTANTIATE_TEST_SUITE_P(Backends, BlobStoreContractTest,
                         ::testing::Values(Backend::kLmdb, Backend::kRados),
                         [](const ::testing::TestParamInfo<Backend>& param_info) {
                           return param_info.param == Backend::kLmdb ? "Lmdb" : "Rados";
                         });

// What only the RADOS store has: raw objects, a cluster to lose, librados' timeouts.
class RadosBlobStoreTest : public StoreFixture {
 protected:
  void SetUp() override { OpenStore(Backend::kRados); }

  // A raw librados handle on namespace `ns` of the pool, to reach the stored records directly.
  struct RawPool {
    librados::Rados rados;
    librados::IoCtx io;
  };
  static std::unique_ptr<RawPool> OpenRaw(const std::string& ns) {
    auto raw = std::make_unique<RawPool>();
    EXPECT_EQ(raw->rados.init("admin"), 0);
    EXPECT_EQ(raw->rados.conf_read_file(cluster->conf().c_str()), 0);
    EXPECT_EQ(raw->rados.connect(), 0);
    EXPECT_EQ(raw->rados.ioctx_create("blobtune", raw->io), 0);
    raw->io.set_namespace(ns);
    return raw;
  }
};

TEST_P(BlobStoreContractTest, PutThenGetRoundTripsEverySize) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{64} << 10, size_t{1} << 20}) {
    SCOPED_TRACE("size " + std::to_string(size));
    const std::string id = "blob-" + std::to_string(size);
    const std::vector<std::byte> bytes = Pattern(size, static_cast<uint32_t>(size) + 7);
    ASSERT_TRUE(store_->Put(ns_a_, id, bytes, 42).ok());
    std::vector<std::byte> out;
    BlobInfo info;
    ASSERT_TRUE(store_->Get(ns_a_, id, &out, &info).ok());
    EXPECT_EQ(out, bytes);
    EXPECT_EQ(info.size_bytes, size);
    EXPECT_EQ(info.user_flags, 42u);
    size_t viewed = 0;
    auto view = [&](std::span<const std::byte> b, const BlobInfo&) {
      viewed = b.size();
      EXPECT_TRUE(std::equal(b.begin(), b.end(), bytes.begin(), bytes.end()));
    };
    ASSERT_TRUE(store_->View(ns_a_, id, view).ok());
    EXPECT_EQ(viewed, size);
  }
}

TEST_P(BlobStoreContractTest, PutReportsCreatedThenReplaced) {
  PutOutcome outcome = PutOutcome::kReplaced;
  ASSERT_TRUE(store_->Put(ns_a_, "x", Bytes("first"), 0, &outcome).ok());
  EXPECT_EQ(outcome, PutOutcome::kCreated);
  ASSERT_TRUE(store_->Put(ns_a_, "x", Bytes("second"), 0, &outcome).ok());
  EXPECT_EQ(outcome, PutOutcome::kReplaced);
  auto got = store_->Get(ns_a_, "x");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(String(*got), "second");
  ASSERT_TRUE(store_->Erase(ns_a_, "x").ok());
  ASSERT_TRUE(store_->Put(ns_a_, "x", Bytes("third"), 0, &outcome).ok());
  EXPECT_EQ(outcome, PutOutcome::kCreated);
}

TEST_P(BlobStoreContractTest, MissingBlobIsNotFound) {
  EXPECT_EQ(store_->Get(ns_a_, "nothing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Erase(ns_a_, "nothing").code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Stat(ns_a_, "nothing").status().code(), StatusCode::kNotFound);
  auto view = [](std::span<const std::byte>, const BlobInfo&) { ADD_FAILURE(); };
  EXPECT_EQ(store_->View(ns_a_, "nothing", view).code(), StatusCode::kNotFound);
}

TEST_P(BlobStoreContractTest, ExistsFollowsPutAndErase) {
  auto exists = store_->Exists(ns_a_, "e");
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists);
  ASSERT_TRUE(store_->Put(ns_a_, "e", Bytes("here")).ok());
  exists = store_->Exists(ns_a_, "e");
  ASSERT_TRUE(exists.ok());
  EXPECT_TRUE(*exists);
  ASSERT_TRUE(store_->Erase(ns_a_, "e").ok());
  exists = store_->Exists(ns_a_, "e");
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists);
}

TEST_P(BlobStoreContractTest, StatReportsTheHeader) {
  const std::vector<std::byte> bytes = Pattern(5000, 3);
  const auto before = std::chrono::system_clock::now();
  ASSERT_TRUE(store_->Put(ns_a_, "s", bytes, 0xabcd).ok());
  auto info = store_->Stat(ns_a_, "s");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->size_bytes, 5000u);
  EXPECT_EQ(info->user_flags, 0xabcdu);
  EXPECT_EQ(info->crc32c, crc32c::Value(bytes));
  EXPECT_EQ(info->format_version, 1);
  EXPECT_GE(info->created_unix_nanos,
            std::chrono::duration_cast<std::chrono::nanoseconds>(before.time_since_epoch())
                .count());
}

TEST_P(BlobStoreContractTest, InvalidRequestsWriteNothing) {
  const std::vector<std::byte> bytes = Bytes("payload");
  EXPECT_EQ(store_->Put("undeclared", "id", bytes).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Put(ns_a_, "", bytes).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Put(ns_a_, std::string(512, 'k'), bytes).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Put(ns_a_, std::string(511, 'k'), bytes).code(), StatusCode::kOk);
  ASSERT_TRUE(store_->Erase(ns_a_, std::string(511, 'k')).ok());
  const std::vector<std::byte> big((size_t{2} << 20) + 1);
  EXPECT_EQ(store_->Put(ns_a_, "big", big).code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(store_->Get("undeclared", "id").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Exists(ns_a_, "").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->SubmitWrite(WriteOp::Put(ns_a_, "cb", {}), nullptr).code(),
            StatusCode::kInvalidArgument);
  auto listed = store_->List(ns_a_, "", 100);
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
  EXPECT_EQ(store_->List(ns_a_, "", 0).status().code(), StatusCode::kInvalidArgument);
}

TEST_P(BlobStoreContractTest, NamespacesAreIsolated) {
  ASSERT_TRUE(store_->Put(ns_a_, "same", Bytes("in a")).ok());
  ASSERT_TRUE(store_->Put(ns_b_, "same", Bytes("in b")).ok());
  EXPECT_EQ(String(*store_->Get(ns_a_, "same")), "in a");
  EXPECT_EQ(String(*store_->Get(ns_b_, "same")), "in b");
  ASSERT_TRUE(store_->Erase(ns_a_, "same").ok());
  EXPECT_EQ(store_->Get(ns_a_, "same").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(String(*store_->Get(ns_b_, "same")), "in b");
}

TEST_P(BlobStoreContractTest, ListFiltersByPrefixAndPagesInIdOrder) {
  for (const char* id : {"log-3", "img-1", "log-1", "log-10", "log-2", "zzz"}) {
    ASSERT_TRUE(store_->Put(ns_a_, id, Bytes(id)).ok());
  }
  ASSERT_TRUE(store_->Put(ns_b_, "log-0", Bytes("other namespace")).ok());
  auto ids = [](const std::vector<ListEntry>& entries) {
    std::vector<std::string> out;
    for (const ListEntry& e : entries) out.push_back(e.id);
    return out;
  };
  auto page = store_->List(ns_a_, "log-", 2);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(ids(*page), (std::vector<std::string>{"log-1", "log-10"}));
  EXPECT_EQ((*page)[0].info.size_bytes, 5u);
  page = store_->List(ns_a_, "log-", 2, "log-10");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(ids(*page), (std::vector<std::string>{"log-2", "log-3"}));
  page = store_->List(ns_a_, "log-", 2, "log-3");
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->empty());
  page = store_->List(ns_a_, "", 10);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(ids(*page),
            (std::vector<std::string>{"img-1", "log-1", "log-10", "log-2", "log-3", "zzz"}));
}

TEST_F(RadosBlobStoreTest, CorruptedBytesAreDataLossUnlessUnverified) {
  const std::vector<std::byte> bytes = Pattern(1000, 9);
  ASSERT_TRUE(store_->Put(ns_a_, "victim", bytes).ok());
  auto raw = OpenRaw(ns_a_);
  librados::bufferlist flipped;
  librados::bufferlist record;
  ASSERT_EQ(raw->io.read("victim", record, 0, 0), 32 + 1000);
  flipped.append(static_cast<char>(record[32 + 500] ^ 0x01));
  ASSERT_EQ(raw->io.write("victim", flipped, 1, 32 + 500), 0);

  std::vector<std::byte> out = Bytes("stale");
  Status s = store_->Get(ns_a_, "victim", &out, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
  EXPECT_TRUE(out.empty());
  auto view = [](std::span<const std::byte>, const BlobInfo&) { ADD_FAILURE(); };
  EXPECT_EQ(store_->View(ns_a_, "victim", view).code(), StatusCode::kDataLoss);

  ReadOptions unverified;
  unverified.verify_checksums = false;
  auto got = store_->Get(unverified, ns_a_, "victim");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), bytes.size());
  EXPECT_NE(*got, bytes);
  EXPECT_EQ((*got)[500], bytes[500] ^ std::byte{0x01});
  EXPECT_TRUE(store_->Stat(ns_a_, "victim").ok());  // The header is intact.

  // A damaged header fails every read, verified or not, and Stat.
  librados::bufferlist header_byte;
  header_byte.append(static_cast<char>(record[4] ^ 0x10));
  ASSERT_EQ(raw->io.write("victim", header_byte, 1, 4), 0);
  EXPECT_EQ(store_->Stat(ns_a_, "victim").status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(store_->Get(unverified, ns_a_, "victim").status().code(), StatusCode::kDataLoss);
  raw->io.close();
  raw->rados.shutdown();
}

TEST_P(BlobStoreContractTest, ManySubmittedWritesAreAllAcknowledgedAndReadable) {
  constexpr size_t kWrites = 200;
  CompletionCounter counter;
  std::vector<PutOutcome> outcomes(kWrites, PutOutcome::kReplaced);
  for (size_t i = 0; i < kWrites; ++i) {
    WriteOp op = WriteOp::Put(ns_a_, "w-" + std::to_string(i), Pattern(1024, uint32_t(i)),
                              uint32_t(i));
    if (i % 2 == 0) op.set_outcome_out(&outcomes[i]);
    ASSERT_TRUE(store_->SubmitWrite(std::move(op), counter.Callback()).ok());
  }
  ASSERT_TRUE(counter.WaitFor(kWrites, std::chrono::seconds(30)));
  EXPECT_TRUE(counter.failures().empty()) << counter.failures().front();
  // RADOS counts acknowledged writes; LMDB counts group commits, which hold many writes.
  if (backend_ == Backend::kRados) {
    EXPECT_GE(store_->Stats().commits, kWrites);
  } else {
    EXPECT_GE(store_->Stats().commits, 1u);
  }
  // A write counts as queued until its callback has returned, just after the count above.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (store_->Stats().queued_writes != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_EQ(store_->Stats().queued_writes, 0u);
  for (size_t i = 0; i < kWrites; ++i) {
    if (i % 2 == 0) {
      EXPECT_EQ(outcomes[i], PutOutcome::kCreated) << i;
    }
    auto got = store_->Get(ns_a_, "w-" + std::to_string(i));
    ASSERT_TRUE(got.ok()) << i << ": " << got.status().ToString();
    EXPECT_EQ(*got, Pattern(1024, uint32_t(i)));
  }
  // Erases through SubmitWrite; one of an id that does not exist.
  CompletionCounter erased;
  ASSERT_TRUE(store_->SubmitWrite(WriteOp::Erase(ns_a_, "w-0"), erased.Callback()).ok());
  ASSERT_TRUE(store_->SubmitWrite(WriteOp::Erase(ns_a_, "no-such"), erased.Callback()).ok());
  ASSERT_TRUE(erased.WaitFor(2, std::chrono::seconds(30)));
  ASSERT_EQ(erased.failures().size(), 1u);
  EXPECT_NE(erased.failures()[0].find("NOT_FOUND"), std::string::npos) << erased.failures()[0];
  EXPECT_EQ(store_->Get(ns_a_, "w-0").status().code(), StatusCode::kNotFound);
}

// The observer hears of every operation, its errors and the commits, as the metrics need them.
TEST_P(BlobStoreContractTest, ObserverSeesEveryOperation) {
  auto count = [&](StoreOp op) { return observer_.ops[static_cast<int>(op)].load(); };
  auto bytes = [&](StoreOp op) { return observer_.op_bytes[static_cast<int>(op)].load(); };
  EXPECT_EQ(observer_.namespaces.load(), 2u);
  ASSERT_TRUE(store_->Put(ns_a_, "one", Pattern(1000, 1)).ok());
  ASSERT_TRUE(store_->Put(ns_b_, "two", Pattern(24, 2)).ok());
  ASSERT_TRUE(store_->Get(ns_a_, "one").ok());
  ASSERT_TRUE(store_->View(ns_b_, "two", [](std::span<const std::byte>, const BlobInfo&) {}).ok());
  ASSERT_TRUE(store_->Stat(ns_a_, "one").ok());
  ASSERT_TRUE(store_->Exists(ns_a_, "none").ok());
  ASSERT_TRUE(store_->List(ns_a_, "", 10).ok());
  ReadResults read(1);
  store_->SubmitRead(ns_a_, "one", read.Callback(0));
  ASSERT_TRUE(read.WaitForAll(std::chrono::seconds(30)));
  ASSERT_TRUE(store_->Erase(ns_b_, "two").ok());
  EXPECT_EQ(store_->Get(ns_a_, "missing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Erase(ns_a_, "missing").code(), StatusCode::kNotFound);

  EXPECT_EQ(count(StoreOp::kPut), 2u);
  EXPECT_EQ(bytes(StoreOp::kPut), 1024u);
  EXPECT_EQ(count(StoreOp::kGet), 2u);  // Get and SubmitRead.
  EXPECT_EQ(bytes(StoreOp::kGet), 2000u);
  EXPECT_EQ(count(StoreOp::kView), 1u);
  EXPECT_EQ(bytes(StoreOp::kView), 24u);
  EXPECT_EQ(count(StoreOp::kStat), 1u);
  EXPECT_EQ(count(StoreOp::kExists), 1u);
  EXPECT_EQ(count(StoreOp::kList), 1u);
  EXPECT_EQ(count(StoreOp::kErase), 1u);
  EXPECT_EQ(observer_.errors[static_cast<int>(StatusCode::kNotFound)].load(), 2u);
  // Every write reached a commit: LMDB's group commits, one acknowledgement each for RADOS.
  EXPECT_GE(observer_.committed_ops.load(), 3u);
  EXPECT_GE(observer_.commits.load(), 1u);
}

// Reads submitted all at once (RADOS: all in flight together, no thread each) each complete once
// with the blob, NOT_FOUND, or, for a bad request, inside the call.
TEST_P(BlobStoreContractTest, SubmittedReadsAnswerEachRead) {
  constexpr size_t kBlobs = 100;
  for (size_t i = 0; i < kBlobs; ++i) {
    ASSERT_TRUE(store_->Put(ns_a_, "r-" + std::to_string(i), Pattern(i * 997, uint32_t(i))).ok());
  }
  ReadResults results(kBlobs + 1);
  for (size_t i = 0; i < kBlobs; ++i) {
    store_->SubmitRead(ns_a_, "r-" + std::to_string(i), results.Callback(i));
  }
  store_->SubmitRead(ns_a_, "no-such", results.Callback(kBlobs));
  ASSERT_TRUE(results.WaitForAll(std::chrono::seconds(30)));
  for (size_t i = 0; i < kBlobs; ++i) {
    ASSERT_TRUE(results.result(i).ok()) << i << ": " << results.result(i).status().ToString();
    EXPECT_EQ(*results.result(i), Pattern(i * 997, uint32_t(i))) << i;
  }
  EXPECT_EQ(results.result(kBlobs).status().code(), StatusCode::kNotFound);

  ReadResults bad(2);
  store_->SubmitRead("no-such-namespace", "r-0", bad.Callback(0));
  store_->SubmitRead(ns_a_, "", bad.Callback(1));
  ASSERT_EQ(bad.done(), 2u);  // Completed inside the calls.
  EXPECT_EQ(bad.result(0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.result(1).status().code(), StatusCode::kInvalidArgument);
}

TEST_P(BlobStoreContractTest, DestroyingTheStoreWaitsForWritesAndReadsInFlight) {
  ASSERT_TRUE(store_->Put(ns_b_, "read-me", Pattern(4096, 7)).ok());
  CompletionCounter counter;
  ReadResults reads(20);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(store_->SubmitWrite(WriteOp::Put(ns_a_, "d-" + std::to_string(i), Pattern(64, i)),
                                    counter.Callback())
                    .ok());
    store_->SubmitRead(ns_b_, "read-me", reads.Callback(i));
  }
  store_.reset();
  EXPECT_TRUE(counter.WaitFor(20, std::chrono::seconds(0)));
  EXPECT_TRUE(counter.failures().empty());
  ASSERT_TRUE(reads.WaitForAll(std::chrono::seconds(0)));
  for (size_t i = 0; i < 20; ++i) {
    ASSERT_TRUE(reads.result(i).ok()) << reads.result(i).status().ToString();
    EXPECT_EQ(*reads.result(i), Pattern(4096, 7));
  }
}

TEST_F(RadosBlobStoreTest, BadOptionsAreInvalidArgument) {
  RadosStoreOptions options = Options({"one", "one"});
  EXPECT_EQ(OpenRadosBlobStore(options).status().code(), StatusCode::kInvalidArgument);
  options = Options({"one"});
  options.pool.clear();
  EXPECT_EQ(OpenRadosBlobStore(options).status().code(), StatusCode::kInvalidArgument);
  options = Options({"one"});
  options.conf_file = "/nonexistent/ceph.conf";
  auto opened = OpenRadosBlobStore(options);
  EXPECT_EQ(opened.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(opened.status().ToString().find("/nonexistent/ceph.conf"), std::string::npos);
  options = Options({"one"});
  options.pool = "no-such-pool";
  EXPECT_EQ(OpenRadosBlobStore(options).status().code(), StatusCode::kNotFound);
}

TEST_F(RadosBlobStoreTest, UnreachableMonitorFailsWithinTheTimeout) {
  // A monitor address nothing listens on: a port of this cluster's host that was just free.
  testing::TempDir dir;
  const std::string conf = dir.Sub("ceph.conf");
  {
    FILE* f = std::fopen(conf.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("[global]\nmon host = [v2:127.0.0.1:9]\nauth client required = none\n"
               "log file = /dev/null\n", f);
    std::fclose(f);
  }
  RadosStoreOptions options = Options({"one"});
  options.conf_file = conf;
  options.op_timeout = std::chrono::seconds(2);
  const auto start = std::chrono::steady_clock::now();
  auto opened = OpenRadosBlobStore(options);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(opened.status().code(), StatusCode::kUnavailable) << opened.status().ToString();
  std::cout << "unreachable monitor: " << opened.status().ToString() << "\n";
  EXPECT_LT(took, std::chrono::seconds(15));
}

// A stalled OSD (SIGSTOP) must not hang the store: reads and writes fail with DEADLINE_EXCEEDED
// once op_timeout has passed, and the store works again once the OSD runs again.
TEST_F(RadosBlobStoreTest, StalledOsdGivesDeadlineExceeded) {
  ASSERT_TRUE(store_->Put(ns_a_, "before", Bytes("kept")).ok());
  RadosStoreOptions options = Options({ns_a_});
  options.op_timeout = std::chrono::seconds(2);
  auto opened = OpenRadosBlobStore(options);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<BlobStore> impatient = *std::move(opened);

  PausedOsd osd(cluster->OsdPid());
  ASSERT_TRUE(osd.paused());

  const auto start = std::chrono::steady_clock::now();
  auto got = impatient->Get(ns_a_, "before");
  EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded) << got.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  // A submitted read returns at once and fails once op_timeout has passed.
  ReadResults read(1);
  impatient->SubmitRead(ns_a_, "before", read.Callback(0));
  EXPECT_EQ(read.done(), 0u);
  ASSERT_TRUE(read.WaitForAll(std::chrono::seconds(10)));
  EXPECT_EQ(read.result(0).status().code(), StatusCode::kDeadlineExceeded)
      << read.result(0).status().ToString();
  CompletionCounter counter;
  ASSERT_TRUE(impatient->SubmitWrite(WriteOp::Put(ns_a_, "during", Bytes("lost")),
                                     counter.Callback())
                  .ok());
  ASSERT_TRUE(counter.WaitFor(1, std::chrono::seconds(10)));
  ASSERT_EQ(counter.failures().size(), 1u);
  EXPECT_NE(counter.failures()[0].find("DEADLINE_EXCEEDED"), std::string::npos)
      << counter.failures()[0];

  ASSERT_TRUE(osd.Continue());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  StatusOr<std::vector<std::byte>> again = impatient->Get(ns_a_, "before");
  while (!again.ok() && std::chrono::steady_clock::now() < deadline) {
    again = impatient->Get(ns_a_, "before");
  }
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(String(*again), "kept");
}

// Writes that go on while the OSD is away (stopped, then continued): with a limiter in front
// (AIMD: a dropped access shrinks the limit), the limit falls while the OSD is away and grows
// again after; every acknowledged write reads back intact, and every write that failed says
// DEADLINE_EXCEEDED. (A memstore OSD loses its objects when killed, so "away" is SIGSTOP.)
TEST_F(RadosBlobStoreTest, OsdAwayLowersTheLimitAndLosesNoAcknowledgedWrite) {
  std::unique_ptr<tuner::Limiter> limiter = AimdLimiter();
  WriteLog log;
  RadosStoreOptions options = Options({ns_a_});
  options.op_timeout = std::chrono::seconds(2);
  auto opened = OpenRadosBlobStore(options);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<BlobStore> store = *std::move(opened);
  BurstWriter writer(*store, ns_a_, *limiter, log);

  ASSERT_TRUE(
      log.WaitUntil([&]() BLOBTUNE_REQUIRES(log.mu) { return log.acknowledged.size() >= 200; },
                    std::chrono::seconds(30)));
  const int before = limiter->limit();
  log.WatchLowest(before);
  PausedOsd osd(cluster->OsdPid());
  ASSERT_TRUE(osd.paused());
  ASSERT_TRUE(log.WaitUntil(
      [&]() BLOBTUNE_REQUIRES(log.mu) { return !log.failed.empty() && log.lowest < before; },
      std::chrono::seconds(30)))
      << "limit " << limiter->limit() << " (before " << before << ")";

  ASSERT_TRUE(osd.Continue());
  ASSERT_TRUE(log.WaitForRecovery(*limiter, 200, std::chrono::seconds(60)))
      << "limit " << limiter->limit() << " (lowest " << log.Lowest() << ")";
  const int after = limiter->limit();
  writer.Stop();
  ASSERT_TRUE(log.WaitUntil([&]() BLOBTUNE_REQUIRES(log.mu) { return log.in_flight == 0; },
                            std::chrono::seconds(30)));

  MutexLock lock(log.mu);
  for (uint64_t n : log.acknowledged) {
    auto got = store->Get(ns_a_, BurstId(n));
    ASSERT_TRUE(got.ok()) << "acknowledged write " << n << ": " << got.status().ToString();
    ASSERT_EQ(*got, BurstBlob(n)) << "acknowledged write " << n;
  }
  for (const auto& [n, status] : log.failed) {
    EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded) << n << ": " << status.ToString();
  }
  std::cout << "OSD away: limit " << before << " before, " << log.lowest << " lowest, " << after
            << " after; " << log.acknowledged.size() << " acknowledged writes read back intact, "
            << log.failed.size() << " failed with DEADLINE_EXCEEDED\n";
}

// A second cluster whose OSD keeps its objects on disk (start --persistent), started only by the
// tests that kill and restart its OSD; every other test keeps the in-memory one.
RadosCluster* const persistent_cluster = static_cast<RadosCluster*>(
    ::testing::AddGlobalTestEnvironment(new RadosCluster("--persistent")));

class RadosOsdRestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    persistent_cluster->EnsureStarted();
    if (!persistent_cluster->skip_reason().empty()) {
      GTEST_SKIP() << persistent_cluster->skip_reason();
    }
    ASSERT_TRUE(persistent_cluster->started()) << "rados-cluster start --persistent failed:\n"
                                               << persistent_cluster->start_output();
  }

  // A store on the persistent cluster whose accesses give up after 2 s.
  static StatusOr<std::unique_ptr<BlobStore>> OpenImpatientStore(const std::string& ns) {
    RadosStoreOptions options;
    options.conf_file = persistent_cluster->conf();
    options.pool = "blobtune";
    options.namespaces = {ns};
    options.op_timeout = std::chrono::seconds(2);
    return OpenRadosBlobStore(options);
  }
};

// The OSD crashes (SIGKILL) in the middle of a burst of writes through a limiter (AIMD, as in
// OsdAwayLowersTheLimitAndLosesNoAcknowledgedWrite), and a new ceph-osd starts on the same block
// file once writes have begun to fail: the limit falls while the OSD is away and grows again
// after; every acknowledged write reads back intact after the restart; every failed write says
// DEADLINE_EXCEEDED (librados keeps an operation for an OSD that went away and resends it to the
// OSD's next instance, so only rados_osd_op_timeout ends it early) and is either absent or intact
// (a put is one write_full, applied whole or not at all). The store's client finds the new OSD
// because the store makes librados ask for a newer OSD map once an operation has waited half of
// op_timeout (see rados_blob_store.h).
TEST_F(RadosOsdRestartTest, KilledOsdLowersTheLimitAndLosesNoAcknowledgedWrite) {
  std::unique_ptr<tuner::Limiter> limiter = AimdLimiter();
  WriteLog log;
  const std::string ns = "osd-restart";
  auto opened = OpenImpatientStore(ns);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<BlobStore> store = *std::move(opened);
  BurstWriter writer(*store, ns, *limiter, log);

  ASSERT_TRUE(
      log.WaitUntil([&]() BLOBTUNE_REQUIRES(log.mu) { return log.acknowledged.size() >= 200; },
                    std::chrono::seconds(30)));
  const int before = limiter->limit();
  log.WatchLowest(before);
  const auto killed_at = std::chrono::steady_clock::now();
  KilledOsd osd(persistent_cluster->dir());
  ASSERT_TRUE(osd.killed()) << osd.output();
  // Writes from here to the restart are sent while no OSD runs: any of them acknowledged was
  // resent to the new OSD and acknowledged by it.
  const uint64_t first_write_while_down = writer.submitted();
  ASSERT_TRUE(log.WaitUntil(
      [&]() BLOBTUNE_REQUIRES(log.mu) { return !log.failed.empty() && log.lowest < before; },
      std::chrono::seconds(30)))
      << "limit " << limiter->limit() << " (before " << before << ")";

  const uint64_t first_write_after_down = writer.submitted();
  ASSERT_TRUE(osd.Restart()) << osd.output();
  const auto restarted_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(log.WaitForRecovery(*limiter, 200, std::chrono::seconds(60)))
      << "limit " << limiter->limit() << " (lowest " << log.Lowest() << ")";
  const int after = limiter->limit();
  writer.Stop();
  ASSERT_TRUE(log.WaitUntil([&]() BLOBTUNE_REQUIRES(log.mu) { return log.in_flight == 0; },
                            std::chrono::seconds(30)));

  MutexLock lock(log.mu);
  size_t lost = 0;
  size_t acknowledged_from_down = 0;  // Sent while no OSD ran, acknowledged by the new one.
  for (uint64_t n : log.acknowledged) {
    if (n >= first_write_while_down && n < first_write_after_down) ++acknowledged_from_down;
    auto got = store->Get(ns, BurstId(n));
    if (got.ok() && *got == BurstBlob(n)) continue;
    ++lost;
    ADD_FAILURE() << "acknowledged write " << n << ": "
                  << (got.ok() ? "read back different" : got.status().ToString());
  }
  std::map<std::string_view, size_t> failed_by_code;
  size_t stored_anyway = 0;
  for (const auto& [n, status] : log.failed) {
    ++failed_by_code[StatusCodeName(status.code())];
    EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded) << n << ": " << status.ToString();
    EXPECT_TRUE(IsOverload(status)) << n << ": " << status.ToString();
    auto got = store->Get(ns, BurstId(n));
    if (got.ok()) {
      EXPECT_EQ(*got, BurstBlob(n)) << "failed write " << n << " is stored, but not intact";
      ++stored_anyway;
    } else {
      EXPECT_EQ(got.status().code(), StatusCode::kNotFound)
          << "failed write " << n << ": " << got.status().ToString();
    }
  }
  EXPECT_EQ(lost, 0u);
  std::string codes;
  for (const auto& [code, count] : failed_by_code) {
    codes += (codes.empty() ? "" : ", ") + std::to_string(count) + " " + std::string(code);
  }
  const auto away = std::chrono::duration<double>(restarted_at - killed_at).count();
  std::cout << "OSD restart: limit " << before << " before, " << log.lowest << " lowest, "
            << after << " after; " << log.acknowledged.size() << " acknowledged writes ("
            << acknowledged_from_down << " of them sent while no OSD ran), " << lost
            << " of them lost; " << log.failed.size() << " failed ("
            << (codes.empty() ? "none" : codes) << "), " << stored_anyway
            << " of them stored anyway; OSD away " << std::fixed << std::setprecision(1) << away
            << " s (kill to pool answering)\n";
}

}  // namespace
}  // namespace blobtune::store
