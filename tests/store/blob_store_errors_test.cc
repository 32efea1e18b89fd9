// BlobStore on bad input and bad disks: each case is a Status whose message says what is wrong.
#include <fcntl.h>
#include <lmdb.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <future>
#include <string>
#include <vector>

#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "temp_dir.h"

namespace blobtune::store {
namespace {

using testing::Bytes;
using testing::Pattern;
using testing::TempDir;

bool Contains(const Status& s, std::string_view needle) {
  return s.message().find(needle) != std::string_view::npos;
}

class BlobStoreErrorsTest : public ::testing::Test {
 protected:
  LmdbStoreOptions Options() const {
    LmdbStoreOptions o;
    o.directory = dir_.Sub("store");
    o.namespaces = {"incoming"};
    o.initial_map_size_bytes = size_t{1} << 20;
    return o;
  }
  std::unique_ptr<BlobStore> OpenStore(const LmdbStoreOptions& o) {
    StatusOr<std::unique_ptr<BlobStore>> store = OpenLmdbBlobStore(o);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Rewrites byte `offset` of the stored record of `id` (header included) with raw LMDB.
  void CorruptRecord(const std::string& ns, const std::string& id, size_t offset) {
    MDB_env* env = nullptr;
    ASSERT_EQ(mdb_env_create(&env), 0);
    mdb_env_set_maxdbs(env, 4);
    ASSERT_EQ(mdb_env_open(env, dir_.Sub("store").c_str(), 0, 0644), 0);
    MDB_txn* txn = nullptr;
    ASSERT_EQ(mdb_txn_begin(env, nullptr, 0, &txn), 0);
    MDB_dbi dbi = 0;
    ASSERT_EQ(mdb_dbi_open(txn, ns.c_str(), 0, &dbi), 0);
    MDB_val key{id.size(), const_cast<char*>(id.data())};
    MDB_val value{};
    ASSERT_EQ(mdb_get(txn, dbi, &key, &value), 0);
    std::string record(static_cast<const char*>(value.mv_data), value.mv_size);
    record[offset] = static_cast<char>(record[offset] ^ 0x01);
    MDB_val replacement{record.size(), record.data()};
    ASSERT_EQ(mdb_put(txn, dbi, &key, &replacement, 0), 0);
    ASSERT_EQ(mdb_txn_commit(txn), 0);
    mdb_env_close(env);
  }

  TempDir dir_;
};

TEST_F(BlobStoreErrorsTest, UnknownNamespaceIsInvalidArgumentNamingIt) {
  auto store = OpenStore(Options());
  Status s = store->Put("outgoing", "id", Bytes("x"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "unknown namespace 'outgoing'")) << s;
  EXPECT_TRUE(Contains(s, "incoming")) << s;
  EXPECT_EQ(store->Get("outgoing", "id").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->List("outgoing", "", 1).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(BlobStoreErrorsTest, EmptyIdIsInvalidArgument) {
  auto store = OpenStore(Options());
  Status s = store->Put("incoming", "", Bytes("x"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "empty")) << s;
  EXPECT_EQ(store->Get("incoming", "").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->Erase("incoming", "").code(), StatusCode::kInvalidArgument);
}

TEST_F(BlobStoreErrorsTest, IdOverTheLmdbKeyLimitIsInvalidArgument) {
  auto store = OpenStore(Options());
  const std::string longest(511, 'k');
  EXPECT_TRUE(store->Put("incoming", longest, Bytes("x")).ok());
  EXPECT_TRUE(*store->Exists("incoming", longest));
  Status s = store->Put("incoming", longest + "k", Bytes("x"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "512 bytes")) << s;
  EXPECT_TRUE(Contains(s, "at most 511")) << s;
}

TEST_F(BlobStoreErrorsTest, BlobOverTheMaximumSizeIsResourceExhausted) {
  LmdbStoreOptions o = Options();
  o.max_blob_size_bytes = 1000;
  auto store = OpenStore(o);
  EXPECT_TRUE(store->Put("incoming", "fits", Pattern(1000, 1)).ok());
  Status s = store->Put("incoming", "big", Pattern(1001, 1));
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(Contains(s, "1001 bytes, over max_blob_size_bytes (1000)")) << s;
}

TEST_F(BlobStoreErrorsTest, MissingDirectoryWithoutCreateIsNotFound) {
  LmdbStoreOptions o = Options();
  o.directory = dir_.Sub("absent");
  o.create_if_missing = false;
  StatusOr<std::unique_ptr<BlobStore>> store = OpenLmdbBlobStore(o);
  EXPECT_EQ(store.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(Contains(store.status(), "does not exist")) << store.status();
  o.create_if_missing = true;
  EXPECT_TRUE(OpenLmdbBlobStore(o).ok());
}

TEST_F(BlobStoreErrorsTest, PathThatIsAFileIsInvalidArgument) {
  std::ofstream(dir_.Sub("file")) << "x";
  LmdbStoreOptions o = Options();
  o.directory = dir_.Sub("file");
  StatusOr<std::unique_ptr<BlobStore>> store = OpenLmdbBlobStore(o);
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(store.status(), "is not a directory")) << store.status();
}

TEST_F(BlobStoreErrorsTest, ReadOnlyDirectoryIsInvalidArgument) {
  const std::string ro = dir_.Sub("readonly");
  ASSERT_EQ(::mkdir(ro.c_str(), 0555), 0);
  LmdbStoreOptions o = Options();
  o.directory = ro;
  if (::geteuid() != 0) {
    StatusOr<std::unique_ptr<BlobStore>> store = OpenLmdbBlobStore(o);
    EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(store.status(), "not writable")) << store.status();
    return;
  }
  // Root ignores permissions: check as an unprivileged user in a child process. The child
  // reports through its exit code: 0 = the expected error, 1 = another outcome.
  ASSERT_EQ(::chmod(dir_.path().c_str(), 0755), 0);  // mkdtemp made it 0700.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    StatusOr<std::unique_ptr<BlobStore>> store = OpenLmdbBlobStore(o);
    const bool expected = store.status().code() == StatusCode::kInvalidArgument &&
                          Contains(store.status(), "not writable");
    ::_exit(expected ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 2) GTEST_SKIP() << "cannot drop privileges here";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST_F(BlobStoreErrorsTest, NonLmdbDataFileIsDataLoss) {
  const std::string path = dir_.Sub("store");
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  {
    std::ofstream garbage(path + "/data.mdb", std::ios::binary);
    for (int i = 0; i < 4096 * 4; ++i) garbage.put(static_cast<char>(i * 7));
  }
  StatusOr<std::unique_ptr<BlobStore>> store = OpenLmdbBlobStore(Options());
  EXPECT_EQ(store.status().code(), StatusCode::kDataLoss) << store.status();
  EXPECT_TRUE(Contains(store.status(), "data.mdb' is not a readable LMDB database"))
      << store.status();
}

TEST_F(BlobStoreErrorsTest, CorruptPayloadIsDataLossAndNoBytesAreReturned) {
  {
    auto store = OpenStore(Options());
    ASSERT_TRUE(store->Put("incoming", "victim", Pattern(10000, 3)).ok());
  }
  CorruptRecord("incoming", "victim", 32 + 5000);
  auto store = OpenStore(Options());
  StatusOr<std::vector<std::byte>> got = store->Get("incoming", "victim");
  EXPECT_EQ(got.status().code(), StatusCode::kDataLoss);
  EXPECT_TRUE(Contains(got.status(), "'victim'")) << got.status();
  EXPECT_TRUE(Contains(got.status(), "CRC32C")) << got.status();
  bool called = false;
  Status s = store->View("incoming", "victim",
                         [&](std::span<const std::byte>, const BlobInfo&) { called = true; });
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_FALSE(called);
  std::vector<std::byte> buffer;
  EXPECT_EQ(store->Get("incoming", "victim", &buffer, nullptr).code(), StatusCode::kDataLoss);
  EXPECT_TRUE(buffer.empty());
  // A buffer already large enough takes the one-pass copy-and-check path: still nothing returned.
  std::vector<std::byte> sized(20000, std::byte{1});
  EXPECT_EQ(store->Get("incoming", "victim", &sized, nullptr).code(), StatusCode::kDataLoss);
  EXPECT_TRUE(sized.empty());
  // The header is intact, so Stat (which reads only the header) still answers.
  EXPECT_TRUE(store->Stat("incoming", "victim").ok());
}

TEST_F(BlobStoreErrorsTest, VerificationIsAPerReadChoiceWithTheStoreWideDefault) {
  {
    auto store = OpenStore(Options());
    ASSERT_TRUE(store->Put("incoming", "victim", Pattern(10000, 3)).ok());
  }
  CorruptRecord("incoming", "victim", 32 + 5000);
  ReadOptions verify;
  verify.verify_checksums = true;
  ReadOptions skip;
  skip.verify_checksums = false;
  {  // The store verifies by default; one read may skip it.
    auto store = OpenStore(Options());
    StatusOr<std::vector<std::byte>> got = store->Get(skip, "incoming", "victim");
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->size(), 10000u);
    EXPECT_NE(*got, Pattern(10000, 3)) << "the corruption did not reach the bytes";
    size_t seen = 0;
    EXPECT_TRUE(store->View(skip, "incoming", "victim",
                            [&](std::span<const std::byte> b, const BlobInfo&) { seen = b.size(); })
                    .ok());
    EXPECT_EQ(seen, 10000u);
    EXPECT_EQ(store->Get(ReadOptions(), "incoming", "victim").status().code(),
              StatusCode::kDataLoss);
    EXPECT_EQ(store->Get(verify, "incoming", "victim").status().code(), StatusCode::kDataLoss);
  }
  {  // A store opened without verification skips it by default; one read may still ask for it.
    LmdbStoreOptions o = Options();
    o.verify_checksums = false;
    auto store = OpenStore(o);
    EXPECT_TRUE(store->Get("incoming", "victim").ok());
    std::vector<std::byte> buffer;
    EXPECT_EQ(store->Get(verify, "incoming", "victim", &buffer, nullptr).code(),
              StatusCode::kDataLoss);
    EXPECT_TRUE(buffer.empty());
    bool called = false;
    EXPECT_EQ(store->View(verify, "incoming", "victim",
                          [&](std::span<const std::byte>, const BlobInfo&) { called = true; })
                  .code(),
              StatusCode::kDataLoss);
    EXPECT_FALSE(called);
  }
}

TEST_F(BlobStoreErrorsTest, CorruptHeaderIsDataLossForStatAndList) {
  {
    auto store = OpenStore(Options());
    ASSERT_TRUE(store->Put("incoming", "victim", Pattern(100, 3)).ok());
  }
  CorruptRecord("incoming", "victim", 9);  // Inside the size field.
  auto store = OpenStore(Options());
  EXPECT_EQ(store->Stat("incoming", "victim").status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(store->Get("incoming", "victim").status().code(), StatusCode::kDataLoss);
  StatusOr<std::vector<ListEntry>> listed = store->List("incoming", "", 10);
  EXPECT_EQ(listed.status().code(), StatusCode::kDataLoss);
  EXPECT_TRUE(Contains(listed.status(), "header checksum")) << listed.status();
}

TEST_F(BlobStoreErrorsTest, SecondOpenOfTheSameDirectoryIsRefused) {
  auto store = OpenStore(Options());
  StatusOr<std::unique_ptr<BlobStore>> second = OpenLmdbBlobStore(Options());
  EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(Contains(second.status(), "already in use in this process")) << second.status();
  store.reset();
  EXPECT_TRUE(OpenLmdbBlobStore(Options()).ok());
}

// Another process's store is stood in for by a second open file description of the lock file:
// flock(2) locks of two descriptions conflict even within one process.
TEST_F(BlobStoreErrorsTest, StoreLockedByAnotherProcessIsRefusedAtOnceNamingItsPid) {
  auto store = OpenStore(Options());
  store.reset();  // The directory and its lock file exist now, unlocked.
  const std::string lock_file = Options().directory + "/blobtune.lock";
  const int holder = ::open(lock_file.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(holder, 0);
  ASSERT_EQ(::flock(holder, LOCK_EX | LOCK_NB), 0);
  ASSERT_EQ(::ftruncate(holder, 0), 0);
  ASSERT_EQ(::pwrite(holder, "4242\n", 5, 0), 5);

  StatusOr<std::unique_ptr<BlobStore>> second = OpenLmdbBlobStore(Options());
  EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(Contains(second.status(), "'" + Options().directory + "'")) << second.status();
  EXPECT_TRUE(Contains(second.status(), "another process (pid 4242")) << second.status();

  ASSERT_EQ(::ftruncate(holder, 0), 0);  // A holder that has not written its pid yet.
  second = OpenLmdbBlobStore(Options());
  EXPECT_TRUE(Contains(second.status(), "pid unknown")) << second.status();

  ::close(holder);  // As the kernel does when the holder dies, kill -9 included.
  EXPECT_TRUE(OpenLmdbBlobStore(Options()).ok());
}

TEST_F(BlobStoreErrorsTest, StaleLockFileOfADeadProcessDoesNotBlockAndGetsOurPid) {
  auto store = OpenStore(Options());
  store.reset();
  const std::string lock_file = Options().directory + "/blobtune.lock";
  std::ofstream(lock_file, std::ios::trunc) << "999999999\n";  // Unlocked: its holder is gone.
  store = OpenStore(Options());
  ASSERT_NE(store, nullptr);
  std::ifstream in(lock_file);
  std::string pid;
  in >> pid;
  EXPECT_EQ(pid, std::to_string(::getpid()));
}

TEST_F(BlobStoreErrorsTest, FullMapAtTheMaximumIsResourceExhaustedAndLosesNothing) {
  LmdbStoreOptions o = Options();
  o.initial_map_size_bytes = size_t{1} << 20;
  o.max_map_size_bytes = size_t{2} << 20;
  auto store = OpenStore(o);
  std::vector<std::string> stored;
  Status last;
  for (int i = 0; i < 100; ++i) {
    last = store->Put("incoming", "b" + std::to_string(i), Pattern(100000, i));
    if (!last.ok()) break;
    stored.push_back("b" + std::to_string(i));
  }
  ASSERT_EQ(last.code(), StatusCode::kResourceExhausted) << last;
  EXPECT_TRUE(last.message().starts_with("map full:")) << last;
  EXPECT_TRUE(Contains(last, "'" + o.directory + "'")) << last;
  EXPECT_TRUE(Contains(last, "max_map_size_bytes")) << last;
  EXPECT_FALSE(IsOverload(last));
  EXPECT_GT(stored.size(), 5u);
  EXPECT_EQ(store->Stats().map_size_bytes, size_t{2} << 20);
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(*store->Get("incoming", stored[i]), Pattern(100000, static_cast<uint32_t>(i)));
  }
  // Still usable for smaller writes once something is freed.
  ASSERT_TRUE(store->Erase("incoming", stored.back()).ok());
  EXPECT_TRUE(store->Put("incoming", "small", Bytes("s")).ok());
}

TEST_F(BlobStoreErrorsTest, BatchWithAWriteThatCannotFitCommitsTheOthers) {
  LmdbStoreOptions o = Options();
  o.initial_map_size_bytes = size_t{1} << 20;
  o.max_map_size_bytes = size_t{2} << 20;
  o.max_batch_operations = 3;
  o.max_batch_delay = std::chrono::seconds(30);  // All three are queued before the commit.
  auto store = OpenStore(o);
  std::promise<Status> done[3];
  ASSERT_TRUE(store->SubmitWrite(WriteOp::Put("incoming", "small-1", Pattern(100, 1)),
                                 [&](Status s) { done[0].set_value(s); }).ok());
  ASSERT_TRUE(store->SubmitWrite(WriteOp::Put("incoming", "huge", Pattern(3 << 20, 2)),
                                 [&](Status s) { done[1].set_value(s); }).ok());
  ASSERT_TRUE(store->SubmitWrite(WriteOp::Put("incoming", "small-2", Pattern(100, 3)),
                                 [&](Status s) { done[2].set_value(s); }).ok());
  EXPECT_TRUE(done[0].get_future().get().ok());
  Status huge = done[1].get_future().get();
  EXPECT_EQ(huge.code(), StatusCode::kResourceExhausted) << huge;
  EXPECT_TRUE(Contains(huge, "'huge'")) << huge;
  EXPECT_TRUE(done[2].get_future().get().ok());
  EXPECT_TRUE(*store->Exists("incoming", "small-1"));
  EXPECT_TRUE(*store->Exists("incoming", "small-2"));
  EXPECT_FALSE(*store->Exists("incoming", "huge"));
}

TEST_F(BlobStoreErrorsTest, AllReaderSlotsInUseIsResourceExhausted) {
  LmdbStoreOptions o = Options();
  o.max_readers = 1;  // LMDB rounds this up to what fits in its lock-file page.
  auto store = OpenStore(o);
  ASSERT_TRUE(store->Put("incoming", "r", Bytes("r")).ok());
  // Nest zero-copy reads (each holds a read transaction) until the slots run out.
  Status exhausted;
  int depth = 0;
  std::function<void()> nest = [&] {
    Status s = store->View("incoming", "r", [&](std::span<const std::byte>, const BlobInfo&) {
      if (++depth < 1000) nest();
    });
    if (!s.ok() && exhausted.ok()) exhausted = s;
  };
  nest();
  EXPECT_EQ(exhausted.code(), StatusCode::kResourceExhausted) << exhausted;
  EXPECT_TRUE(Contains(exhausted, "reader slots")) << exhausted;
  EXPECT_LT(depth, 1000);
  // Everything was released: reads work again.
  EXPECT_TRUE(store->Get("incoming", "r").ok());
}

}  // namespace
}  // namespace blobtune::store
