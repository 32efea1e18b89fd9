// Behaviour of BlobStore: reads, writes, namespaces, listing, group commit, growth, observer.
#include "blobtune/store/blob_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/store/store_observer.h"
#include "counting_observer.h"
#include "temp_dir.h"

namespace blobtune::store {
namespace {

using testing::Bytes;
using testing::Pattern;
using testing::String;
using testing::CountingObserver;
using testing::TempDir;

class BlobStoreTest : public ::testing::Test {
 protected:
  LmdbStoreOptions Options() const {
    LmdbStoreOptions o;
    o.directory = dir_.Sub("store");
    o.namespaces = {"incoming", "payload"};
    o.initial_map_size_bytes = size_t{1} << 20;
    o.max_map_size_bytes = size_t{256} << 20;
    o.observer = &observer_;
    return o;
  }
  std::unique_ptr<BlobStore> OpenStore(const LmdbStoreOptions& o) {
    StatusOr<std::unique_ptr<BlobStore>> store = OpenLmdbBlobStore(o);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }
  std::unique_ptr<BlobStore> OpenStore() { return OpenStore(Options()); }

  TempDir dir_;
  mutable CountingObserver observer_;
};

TEST_F(BlobStoreTest, PutThenGetReturnsTheBytesAndHeader) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Put("incoming", "a", Bytes("alpha"), 42).ok());
  StatusOr<std::vector<std::byte>> got = store->Get("incoming", "a");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(String(*got), "alpha");
  StatusOr<BlobInfo> info = store->Stat("incoming", "a");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->size_bytes, 5u);
  EXPECT_EQ(info->user_flags, 42u);
  EXPECT_GT(info->created_unix_nanos, 1'600'000'000'000'000'000);
  EXPECT_EQ(observer_.namespaces.load(), 2u);
}

TEST_F(BlobStoreTest, ViewSeesTheStoredBytesWithoutCopying) {
  auto store = OpenStore();
  const auto blob = Pattern(100000, 1);
  ASSERT_TRUE(store->Put("payload", "big", blob).ok());
  bool called = false;
  Status s = store->View("payload", "big", [&](std::span<const std::byte> b, const BlobInfo& i) {
    called = true;
    EXPECT_EQ(i.size_bytes, blob.size());
    EXPECT_TRUE(std::equal(b.begin(), b.end(), blob.begin(), blob.end()));
    EXPECT_NE(b.data(), blob.data());
  });
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_TRUE(called);
}

TEST_F(BlobStoreTest, GetIntoACallerBufferReusesIt) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Put("incoming", "x", Pattern(5000, 2)).ok());
  std::vector<std::byte> buffer;
  buffer.reserve(10000);
  const std::byte* before = buffer.data();
  BlobInfo info;
  ASSERT_TRUE(store->Get("incoming", "x", &buffer, &info).ok());
  EXPECT_EQ(buffer, Pattern(5000, 2));
  EXPECT_EQ(buffer.data(), before);
  EXPECT_EQ(info.size_bytes, 5000u);
}

TEST_F(BlobStoreTest, GetIntoALargerOrSmallerBufferLeavesExactlyTheBlob) {
  auto store = OpenStore();
  for (size_t size : {size_t{0}, size_t{100}, size_t{300}, size_t{40000}, size_t{70001}}) {
    ASSERT_TRUE(store->Put("payload", "b" + std::to_string(size), Pattern(size, 9)).ok());
  }
  std::vector<std::byte> buffer(50000, std::byte{7});  // Larger, then smaller, then larger.
  for (size_t size : {size_t{300}, size_t{40000}, size_t{0}, size_t{70001}, size_t{100}}) {
    ASSERT_TRUE(store->Get("payload", "b" + std::to_string(size), &buffer, nullptr).ok());
    EXPECT_EQ(buffer, Pattern(size, 9)) << size;
  }
}

TEST_F(BlobStoreTest, EmptyBlobIsStoredAndRead) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Put("incoming", "empty", {}).ok());
  StatusOr<std::vector<std::byte>> got = store->Get("incoming", "empty");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(got->empty());
}

TEST_F(BlobStoreTest, PutReplacesAndEraseRemoves) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Put("incoming", "k", Bytes("one")).ok());
  ASSERT_TRUE(store->Put("incoming", "k", Bytes("two")).ok());
  EXPECT_EQ(String(*store->Get("incoming", "k")), "two");
  EXPECT_TRUE(*store->Exists("incoming", "k"));
  ASSERT_TRUE(store->Erase("incoming", "k").ok());
  EXPECT_FALSE(*store->Exists("incoming", "k"));
  EXPECT_EQ(store->Get("incoming", "k").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Stat("incoming", "k").status().code(), StatusCode::kNotFound);
  Status again = store->Erase("incoming", "k");
  EXPECT_EQ(again.code(), StatusCode::kNotFound);
  EXPECT_NE(again.message().find("'k'"), std::string_view::npos) << again;
}

TEST_F(BlobStoreTest, PutSaysWhetherItCreatedOrReplacedTheBlob) {
  auto store = OpenStore();
  PutOutcome outcome = PutOutcome::kReplaced;
  ASSERT_TRUE(store->Put("incoming", "k", Bytes("one"), 0, &outcome).ok());
  EXPECT_EQ(outcome, PutOutcome::kCreated);
  ASSERT_TRUE(store->Put("incoming", "k", Bytes("two"), 0, &outcome).ok());
  EXPECT_EQ(outcome, PutOutcome::kReplaced);
  // The same id in another namespace is another blob.
  ASSERT_TRUE(store->Put("payload", "k", Bytes("three"), 0, &outcome).ok());
  EXPECT_EQ(outcome, PutOutcome::kCreated);
  ASSERT_TRUE(store->Erase("incoming", "k").ok());
  ASSERT_TRUE(store->Put("incoming", "k", Bytes("four"), 0, &outcome).ok());
  EXPECT_EQ(outcome, PutOutcome::kCreated);
  EXPECT_EQ(String(*store->Get("incoming", "k")), "four");
}

TEST_F(BlobStoreTest, NamespacesAreSeparate) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Put("incoming", "same", Bytes("in")).ok());
  ASSERT_TRUE(store->Put("payload", "same", Bytes("pay")).ok());
  EXPECT_EQ(String(*store->Get("incoming", "same")), "in");
  EXPECT_EQ(String(*store->Get("payload", "same")), "pay");
  ASSERT_TRUE(store->Erase("incoming", "same").ok());
  EXPECT_TRUE(*store->Exists("payload", "same"));
}

TEST_F(BlobStoreTest, ListReturnsPrefixMatchesInOrderWithLimitAndPaging) {
  auto store = OpenStore();
  for (const char* id : {"a/3", "a/1", "b/1", "a/2", "a/4", "ab"}) {
    ASSERT_TRUE(store->Put("incoming", id, Bytes(id)).ok());
  }
  StatusOr<std::vector<ListEntry>> page = store->List("incoming", "a/", 3);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->size(), 3u);
  EXPECT_EQ((*page)[0].id, "a/1");
  EXPECT_EQ((*page)[2].id, "a/3");
  EXPECT_EQ((*page)[0].info.size_bytes, 3u);
  page = store->List("incoming", "a/", 3, (*page)[2].id);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->size(), 1u);
  EXPECT_EQ((*page)[0].id, "a/4");
  EXPECT_EQ(store->List("incoming", "", 100)->size(), 6u);
  EXPECT_TRUE(store->List("payload", "a", 10)->empty());
  EXPECT_TRUE(store->List("incoming", "zzz", 10)->empty());
  EXPECT_EQ(store->List("incoming", "a", 0).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(BlobStoreTest, DataSurvivesReopen) {
  {
    auto store = OpenStore();
    ASSERT_TRUE(store->Put("payload", "kept", Pattern(300000, 9)).ok());
  }
  auto store = OpenStore();
  EXPECT_EQ(*store->Get("payload", "kept"), Pattern(300000, 9));
}

TEST_F(BlobStoreTest, QueuedWritesShareOneTransaction) {
  LmdbStoreOptions o = Options();
  o.max_batch_operations = 8;
  o.max_batch_delay = std::chrono::seconds(30);  // The batch is full long before.
  auto store = OpenStore(o);
  std::vector<std::promise<Status>> done(8);
  for (int i = 0; i < 8; ++i) {
    Status s = store->SubmitWrite(
        WriteOp::Put("incoming", "id" + std::to_string(i), Pattern(1000, i)),
        [&done, i](Status result) { done[i].set_value(result); });
    ASSERT_TRUE(s.ok()) << s;
  }
  for (auto& d : done) EXPECT_TRUE(d.get_future().get().ok());
  EXPECT_EQ(observer_.commits.load(), 1u);
  EXPECT_EQ(observer_.max_batch.load(), 8u);
  EXPECT_EQ(store->Stats().commits, 1u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(*store->Get("incoming", "id" + std::to_string(i)), Pattern(1000, i));
  }
}

TEST_F(BlobStoreTest, PutsInOneBatchSeeEachOtherWhenTheyReportTheirOutcome) {
  {
    auto store = OpenStore();
    ASSERT_TRUE(store->Put("incoming", "old", Bytes("before")).ok());
  }
  LmdbStoreOptions o = Options();
  o.max_batch_operations = 4;
  o.max_batch_delay = std::chrono::seconds(30);  // The batch is full long before.
  auto store = OpenStore(o);
  const uint64_t commits_before = store->Stats().commits;
  // Initialised to the opposite of what each put must report, so that a value nobody wrote
  // cannot pass.
  std::vector<PutOutcome> outcomes = {PutOutcome::kCreated, PutOutcome::kReplaced,
                                      PutOutcome::kCreated, PutOutcome::kCreated};
  const std::vector<std::pair<std::string, std::string>> puts = {
      {"old", "replaced"}, {"dup", "first"}, {"dup", "second"}, {"dup", "third"}};
  std::vector<std::promise<Status>> done(puts.size());
  for (size_t i = 0; i < puts.size(); ++i) {
    WriteOp op = WriteOp::Put("incoming", puts[i].first, Bytes(puts[i].second));
    op.set_outcome_out(&outcomes[i]);
    ASSERT_TRUE(
        store->SubmitWrite(std::move(op), [&done, i](Status s) { done[i].set_value(s); }).ok());
  }
  for (auto& d : done) ASSERT_TRUE(d.get_future().get().ok());
  EXPECT_EQ(store->Stats().commits, commits_before + 1) << "the four puts were not one batch";
  EXPECT_EQ(outcomes[0], PutOutcome::kReplaced);  // Existed before the batch.
  EXPECT_EQ(outcomes[1], PutOutcome::kCreated);   // New...
  EXPECT_EQ(outcomes[2], PutOutcome::kReplaced);  // ... and replaced within the same transaction.
  EXPECT_EQ(outcomes[3], PutOutcome::kReplaced);
  EXPECT_EQ(String(*store->Get("incoming", "dup")), "third");
}

TEST_F(BlobStoreTest, SubmitWriteWithBorrowedBytesAndErase) {
  auto store = OpenStore();
  const auto blob = Pattern(2048, 5);
  std::promise<Status> put_done;
  ASSERT_TRUE(store
                  ->SubmitWrite(WriteOp::PutBorrowed("payload", "b", blob, 7),
                                [&](Status s) { put_done.set_value(s); })
                  .ok());
  EXPECT_TRUE(put_done.get_future().get().ok());
  EXPECT_EQ(store->Stat("payload", "b")->user_flags, 7u);
  std::promise<Status> erase_done;
  ASSERT_TRUE(store
                  ->SubmitWrite(WriteOp::Erase("payload", "b"),
                                [&](Status s) { erase_done.set_value(s); })
                  .ok());
  EXPECT_TRUE(erase_done.get_future().get().ok());
  EXPECT_FALSE(*store->Exists("payload", "b"));
  // Rejected up front: the callback is never called.
  bool called = false;
  Status s = store->SubmitWrite(WriteOp::Erase("nope", "b"), [&](Status) { called = true; });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(called);
}

TEST_F(BlobStoreTest, ConcurrentWritersAreGroupCommittedAndAllDurable) {
  auto store = OpenStore();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 40;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const auto blob = Pattern(1000 + i, t * 1000 + i);
        if (!store->Put("incoming", std::to_string(t) + "/" + std::to_string(i), blob).ok()) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& w : writers) w.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(observer_.committed_ops.load(), uint64_t{kThreads * kPerThread});
  // Eight writers block on their commits at once, so commits carry more than one put.
  EXPECT_LT(observer_.commits.load(), uint64_t{kThreads * kPerThread});
  EXPECT_EQ(store->List("incoming", "", 1000)->size(), size_t{kThreads * kPerThread});
  EXPECT_EQ(observer_.ops[static_cast<int>(StoreOp::kPut)].load(), uint64_t{kThreads * kPerThread});
}

TEST_F(BlobStoreTest, MapGrowsUnderLoadWhileReadersRead) {
  auto store = OpenStore();  // 1 MiB map to start.
  ASSERT_TRUE(store->Put("payload", "anchor", Pattern(4000, 77)).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> bad_reads{0};
  std::atomic<int> reads{0};
  std::thread reader([&] {
    while (!stop.load()) {
      StatusOr<std::vector<std::byte>> got = store->Get("payload", "anchor");
      if (!got.ok() || *got != Pattern(4000, 77)) bad_reads.fetch_add(1);
      reads.fetch_add(1);
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < 2; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        Status s = store->Put("payload", std::to_string(t) + "-" + std::to_string(i),
                              Pattern(256 * 1024, t * 100 + i));
        EXPECT_TRUE(s.ok()) << s;
      }
    });
  }
  for (auto& w : writers) w.join();
  stop.store(true);
  reader.join();
  EXPECT_EQ(bad_reads.load(), 0);
  EXPECT_GT(reads.load(), 0);
  const StoreStats stats = store->Stats();
  EXPECT_GT(stats.map_growths, 0u);
  EXPECT_GT(stats.map_size_bytes, size_t{20} << 20);
  EXPECT_EQ(observer_.growths.load(), stats.map_growths);
  EXPECT_GE(observer_.map_size.load(), observer_.used_bytes.load());
  for (int t = 0; t < 2; ++t) {
    for (int i = 0; i < 40; ++i) {
      EXPECT_EQ(*store->Get("payload", std::to_string(t) + "-" + std::to_string(i)),
                Pattern(256 * 1024, t * 100 + i));
    }
  }
}

TEST_F(BlobStoreTest, ReadersRunConcurrentlyWithTheWriter) {
  auto store = OpenStore();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(store->Put("incoming", std::to_string(i), Pattern(500, i)).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r] {
      int n = 0;
      while (!stop.load()) {
        const int i = (n++ + r) % 20;
        Status s = store->View("incoming", std::to_string(i),
                               [&](std::span<const std::byte> b, const BlobInfo&) {
                                 if (b.size() != 500) bad.fetch_add(1);
                               });
        if (!s.ok()) bad.fetch_add(1);
      }
    });
  }
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(store->Put("incoming", std::to_string(i % 20), Pattern(500, i)).ok());
  stop.store(true);
  for (auto& r : readers) r.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST_F(BlobStoreTest, NoSyncModeStoresAndReads) {
  LmdbStoreOptions o = Options();
  o.durability = Durability::kNoSync;
  o.keep_heap_resident = true;
  auto store = OpenStore(o);
  ASSERT_TRUE(store->Put("incoming", "fast", Bytes("f")).ok());
  EXPECT_EQ(String(*store->Get("incoming", "fast")), "f");
}

TEST_F(BlobStoreTest, ObserverCountsReadsAndErrors) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Put("incoming", "a", Bytes("abc")).ok());
  ASSERT_TRUE(store->Get("incoming", "a").ok());
  EXPECT_EQ(store->Get("incoming", "missing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(observer_.ops[static_cast<int>(StoreOp::kGet)].load(), 1u);
  EXPECT_EQ(observer_.op_bytes[static_cast<int>(StoreOp::kGet)].load(), 3u);
  EXPECT_EQ(observer_.errors[static_cast<int>(StatusCode::kNotFound)].load(), 1u);
  EXPECT_EQ(StoreOpName(StoreOp::kList), "list");
}

}  // namespace
}  // namespace blobtune::store
