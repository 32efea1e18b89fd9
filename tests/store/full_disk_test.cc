// The store on a real full file system: a 16 MiB tmpfs mounted for the test (skipped, saying
// why, where this process may not mount one). 100 KB puts fill it; past full every put is
// RESOURCE_EXHAUSTED naming the full disk and the directory, reads go on, deletes make room and
// writes resume by themselves, as they do once other files on the disk are removed; through
// AsyncBlobStore the failed put's permit is ignored, not dropped as overload; after a reopen every
// acknowledged blob is intact. (kill -9 at full: tests/server/full_disk_test.py.)
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "blobtune/store/async_blob_store.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "counting_observer.h"
#include "temp_dir.h"

namespace blobtune::store {
namespace {

using testing::Pattern;
using tuner::PermitOutcome;

constexpr size_t kBlobBytes = 100'000;

// A tmpfs of `size_mib` mounted on a fresh directory for as long as this object lives.
class TmpfsMount {
 public:
  TmpfsMount(const std::string& path, int size_mib) : path_(path) {
    std::filesystem::create_directories(path_);
    const std::string data = "size=" + std::to_string(size_mib) + "m,mode=0755";
    if (::mount("tmpfs", path_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, data.c_str()) != 0) {
      error_ = std::strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~TmpfsMount() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;

  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  bool mounted_ = false;
  std::string error_;
};

// Counts how permits ended.
class OutcomeObserver : public tuner::LimiterObserver {
 public:
  void OnReleased(tuner::PartitionId, PermitOutcome outcome, const tuner::Sample*) override {
    released[static_cast<int>(outcome)].fetch_add(1);
  }
  int count(PermitOutcome o) const { return released[static_cast<int>(o)].load(); }
  std::atomic<int> released[3]{};
};

class FullDiskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!mount_.mounted()) {
      GTEST_SKIP() << "cannot mount a tmpfs here (" << mount_.error()
                   << "; mounting needs root or CAP_SYS_ADMIN): the full-disk test is skipped";
    }
    // Ballast: disk space taken by something else, removed later to free space on the disk.
    std::ofstream(Ballast()) << std::string(size_t{2} << 20, 'b');
  }

  std::string Ballast() const { return dir_.Sub("fs") + "/ballast"; }
  LmdbStoreOptions Options() {
    LmdbStoreOptions o;
    o.directory = dir_.Sub("fs") + "/store";
    o.observer = &observer_;
    return o;  // The 64 MiB map is larger than the disk: the disk fills first.
  }

  // Puts 100 KB blobs under fresh ids until one fails; returns that failure.
  Status FillUp(BlobStore& store) {
    for (int i = 0; i < 1000; ++i) {
      const std::string id = "b" + std::to_string(next_++);
      Status s = store.Put("default", id, Pattern(kBlobBytes, next_));
      if (!s.ok()) return s;
      acked_[id] = next_;
    }
    return Status::Internal("1000 puts of 100 KB fitted on a 16 MiB disk");
  }

  void ExpectDiskFull(const Status& s) {
    EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s;
    EXPECT_TRUE(s.message().starts_with("disk full:")) << s;
    EXPECT_NE(s.message().find("'" + Options().directory + "'"), std::string_view::npos) << s;
    EXPECT_FALSE(IsOverload(s)) << s;
  }

  void ExpectEveryAcknowledgedBlobIntact(BlobStore& store) {
    for (const auto& [id, seed] : acked_) {
      StatusOr<std::vector<std::byte>> got = store.Get("default", id);
      ASSERT_TRUE(got.ok()) << id << ": " << got.status();
      ASSERT_EQ(*got, Pattern(kBlobBytes, seed)) << id;
    }
  }

  testing::TempDir dir_;
  TmpfsMount mount_{dir_.Sub("fs"), 16};
  testing::CountingObserver observer_;
  std::map<std::string, uint32_t> acked_;  // id -> pattern seed.
  uint32_t next_ = 0;
};

TEST_F(FullDiskTest, FullDiskIsResourceExhaustedReadsGoOnAndWritesResumeOnceThereIsRoom) {
  auto store = OpenLmdbBlobStore(Options());
  ASSERT_TRUE(store.ok()) << store.status();
  Status full = FillUp(**store);
  ExpectDiskFull(full);
  EXPECT_GT(acked_.size(), 50u);
  ExpectDiskFull((*store)->Put("default", "again", Pattern(kBlobBytes, 0)));
  EXPECT_GE(observer_.errors[static_cast<int>(StatusCode::kResourceExhausted)].load(), 2u);
  ExpectEveryAcknowledgedBlobIntact(**store);

  // Deleting blobs makes room in the store's own file.
  for (int i = 0; i < 20; ++i) {
    const auto first = acked_.begin();
    ASSERT_TRUE((*store)->Erase("default", first->first).ok()) << first->first;
    acked_.erase(first);
  }
  const size_t before = acked_.size();
  ExpectDiskFull(FillUp(**store));
  EXPECT_GE(acked_.size(), before + 15) << "deleting 20 blobs made room for too few";

  // Removing another file makes room on the disk.
  ASSERT_TRUE(std::filesystem::remove(Ballast()));
  const size_t after_delete = acked_.size();
  ExpectDiskFull(FillUp(**store));
  EXPECT_GE(acked_.size(), after_delete + 15) << "freeing 2 MiB made room for too few";
  ExpectEveryAcknowledgedBlobIntact(**store);

  store->reset();
  auto reopened = OpenLmdbBlobStore(Options());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  ExpectEveryAcknowledgedBlobIntact(**reopened);
}

TEST_F(FullDiskTest, AsyncPutOnAFullDiskIgnoresItsPermitInsteadOfDroppingIt) {
  auto store = OpenLmdbBlobStore(Options());
  ASSERT_TRUE(store.ok()) << store.status();
  ExpectDiskFull(FillUp(**store));

  OutcomeObserver outcomes;
  auto algorithm = tuner::MakeAlgorithmFromText("fixed:limit=4");
  ASSERT_TRUE(algorithm.ok()) << algorithm.status();
  auto limiter =
      tuner::Limiter::Create({.algorithm = *std::move(algorithm), .observer = &outcomes});
  ASSERT_TRUE(limiter.ok()) << limiter.status();
  boost::asio::io_context io;
  boost::asio::thread_pool reads(1);
  AsyncBlobStore blobs(**store, io.get_executor(), reads.get_executor(), limiter->get(),
                       limiter->get());
  std::optional<Status> put;
  blobs.AsyncPut("default", "async", Pattern(kBlobBytes, 1),
                 Clock::Steady().Now() + std::chrono::hours(1),
                 [&](Status s) { put.emplace(std::move(s)); });
  io.run();
  reads.join();
  ASSERT_TRUE(put.has_value());
  ExpectDiskFull(*put);
  EXPECT_EQ(outcomes.count(PermitOutcome::kIgnored), 1);
  EXPECT_EQ(outcomes.count(PermitOutcome::kDropped), 0);
  EXPECT_EQ((*limiter)->inflight(), 0);
}

}  // namespace
}  // namespace blobtune::store
