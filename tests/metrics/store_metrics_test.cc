#include "blobtune/metrics/store_metrics.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "test_support.h"

namespace blobtune::metrics {
namespace {

using store::StoreOp;

size_t Op(StoreOp op) { return static_cast<size_t>(op); }

std::vector<std::byte> Bytes(size_t n) { return std::vector<std::byte>(n, std::byte{7}); }

const NamespaceSnapshot* Namespace(const StoreSnapshot& s, std::string_view name) {
  for (const auto& n : s.namespaces) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

class StoreMetricsTest : public ::testing::Test {
 protected:
  std::unique_ptr<store::BlobStore> Open() {
    store::LmdbStoreOptions options;
    options.directory = dir_.Sub("store");
    options.namespaces = {"incoming", "payload"};
    options.durability = store::Durability::kNoSync;  // The tests count, they do not crash.
    options.observer = &metrics_;
    return store::OpenLmdbBlobStore(options).value();
  }

  testing::TempDir dir_;
  StoreMetrics metrics_{"blobs"};
};

TEST_F(StoreMetricsTest, CountsOperationsAndBytesPerNamespace) {
  auto store = Open();
  ASSERT_TRUE(store->Put("incoming", "a", Bytes(100)).ok());
  ASSERT_TRUE(store->Put("incoming", "b", Bytes(50)).ok());
  ASSERT_TRUE(store->Put("payload", "c", Bytes(7)).ok());
  ASSERT_TRUE(store->Get("incoming", "a").ok());
  ASSERT_TRUE(store->Erase("payload", "c").ok());

  const StoreSnapshot s = metrics_.Snapshot();
  EXPECT_EQ(s.name, "blobs");
  ASSERT_EQ(s.namespaces.size(), 2u);
  const NamespaceSnapshot* incoming = Namespace(s, "incoming");
  const NamespaceSnapshot* payload = Namespace(s, "payload");
  ASSERT_TRUE(incoming && payload);
  EXPECT_EQ(incoming->operations[Op(StoreOp::kPut)], 2u);
  EXPECT_EQ(incoming->bytes[Op(StoreOp::kPut)], 150u);
  EXPECT_EQ(incoming->operations[Op(StoreOp::kGet)], 1u);
  EXPECT_EQ(incoming->bytes[Op(StoreOp::kGet)], 100u);
  EXPECT_EQ(payload->operations[Op(StoreOp::kPut)], 1u);
  EXPECT_EQ(payload->operations[Op(StoreOp::kErase)], 1u);
  EXPECT_EQ(payload->bytes[Op(StoreOp::kErase)], 0u);
}

TEST_F(StoreMetricsTest, CountsErrorsByOperationAndStatusCode) {
  auto store = Open();
  EXPECT_EQ(store->Get("incoming", "missing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Put("nowhere", "x", Bytes(1)).code(), StatusCode::kInvalidArgument);
  const StoreSnapshot s = metrics_.Snapshot();
  EXPECT_EQ(s.errors[Op(StoreOp::kGet)][static_cast<size_t>(StatusCode::kNotFound)], 1u);
  EXPECT_EQ(s.errors[Op(StoreOp::kPut)][static_cast<size_t>(StatusCode::kInvalidArgument)], 1u);
}

TEST_F(StoreMetricsTest, RecordsCommitsBatchSizesAndMapUsage) {
  auto store = Open();
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(store->Put("incoming", std::to_string(i), Bytes(10)).ok());
  const StoreSnapshot s = metrics_.Snapshot();
  EXPECT_EQ(s.commits_ok, 5u);  // Sequential puts: one commit each.
  EXPECT_EQ(s.commits_failed, 0u);
  EXPECT_GT(s.committed_bytes, 50u);  // Headers included.
  EXPECT_EQ(s.commit_latency.count, 5u);
  EXPECT_EQ(s.batch_size.count, 5u);
  EXPECT_EQ(s.batch_size.counts[0], 5u);  // All in the le=1 bucket.
  ASSERT_TRUE(s.map_size_bytes.has_value());
  EXPECT_EQ(*s.map_size_bytes, size_t{64} << 20);
  ASSERT_TRUE(s.map_used_bytes.has_value());
  EXPECT_GT(*s.map_used_bytes, 0u);
  EXPECT_FALSE(s.map_max_bytes.has_value());  // Not attached.
}

TEST_F(StoreMetricsTest, AttachedStoreAddsItsStatsUntilTheLinkGoes) {
  auto store = Open();
  {
    Attachment link = metrics_.Attach(*store);
    const StoreSnapshot s = metrics_.Snapshot();
    ASSERT_TRUE(s.map_max_bytes.has_value());
    EXPECT_EQ(*s.map_max_bytes, size_t{64} << 30);
    EXPECT_EQ(s.queued_writes.value_or(99), 0u);
  }
  EXPECT_FALSE(metrics_.Snapshot().map_max_bytes.has_value());
}

TEST_F(StoreMetricsTest, ReopeningContinuesTheNamespaceCounters) {
  {
    auto store = Open();
    ASSERT_TRUE(store->Put("payload", "a", Bytes(1)).ok());
  }
  {
    auto store = Open();
    ASSERT_TRUE(store->Put("payload", "b", Bytes(1)).ok());
  }
  const StoreSnapshot s = metrics_.Snapshot();
  EXPECT_EQ(s.namespaces.size(), 2u);
  EXPECT_EQ(Namespace(s, "payload")->operations[Op(StoreOp::kPut)], 2u);
}

TEST(StoreMetricsUnknownNamespaceTest, OperationsWithoutAKnownIndexCountUnderUnknown) {
  StoreMetrics metrics("s");
  metrics.OnOperation(StoreOp::kGet, 0, 3);  // Before OnOpen.
  const std::string_view names[] = {"a"};
  metrics.OnOpen(names, 1);
  metrics.OnOperation(StoreOp::kGet, 5, 4);  // Index out of range.
  metrics.OnOperation(StoreOp::kGet, 0, 1);
  const StoreSnapshot s = metrics.Snapshot();
  ASSERT_EQ(s.namespaces.size(), 2u);
  EXPECT_EQ(Namespace(s, "a")->operations[Op(StoreOp::kGet)], 1u);
  EXPECT_EQ(Namespace(s, "unknown")->operations[Op(StoreOp::kGet)], 2u);
  EXPECT_EQ(Namespace(s, "unknown")->bytes[Op(StoreOp::kGet)], 7u);
}

TEST(StoreMetricsUnknownNamespaceTest, ANamespaceCalledUnknownAbsorbsTheFallback) {
  StoreMetrics metrics("s");
  const std::string_view names[] = {"unknown"};
  metrics.OnOpen(names, 1);
  metrics.OnOperation(StoreOp::kPut, 0, 1);
  metrics.OnOperation(StoreOp::kPut, 9, 1);
  const StoreSnapshot s = metrics.Snapshot();
  ASSERT_EQ(s.namespaces.size(), 1u);
  EXPECT_EQ(s.namespaces[0].operations[Op(StoreOp::kPut)], 2u);
}

}  // namespace
}  // namespace blobtune::metrics
