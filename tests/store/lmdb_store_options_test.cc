#include "blobtune/store/lmdb_blob_store.h"

#include <gtest/gtest.h>

namespace blobtune::store {
namespace {

LmdbStoreOptions Valid() {
  LmdbStoreOptions o;
  o.directory = "/tmp/x";
  return o;
}

TEST(StoreOptionsTest, DefaultsWithADirectoryAreValid) {
  EXPECT_TRUE(Valid().Validate().ok());
  EXPECT_EQ(Valid().max_readers, 512u);
  EXPECT_EQ(Valid().durability, Durability::kDurable);
}

TEST(StoreOptionsTest, RejectsEachBadField) {
  auto expect_invalid = [](LmdbStoreOptions o, std::string_view needle) {
    Status s = o.Validate();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << needle;
    EXPECT_NE(s.message().find(needle), std::string_view::npos) << s;
  };
  LmdbStoreOptions o = Valid();
  o.directory.clear();
  expect_invalid(o, "directory");
  o = Valid();
  o.namespaces.clear();
  expect_invalid(o, "namespaces");
  o = Valid();
  o.namespaces = {"a", "a"};
  expect_invalid(o, "declared twice");
  o = Valid();
  o.namespaces = {""};
  expect_invalid(o, "1..255 bytes");
  o = Valid();
  o.initial_map_size_bytes = 4096;
  expect_invalid(o, "initial_map_size_bytes");
  o = Valid();
  o.max_map_size_bytes = o.initial_map_size_bytes - 1;
  expect_invalid(o, "max_map_size_bytes");
  o = Valid();
  o.max_blob_size_bytes = 0;
  expect_invalid(o, "max_blob_size_bytes");
  o = Valid();
  o.max_readers = 0;
  expect_invalid(o, "max_readers");
  o = Valid();
  o.max_batch_operations = 0;
  expect_invalid(o, "max_batch_operations");
  o = Valid();
  o.max_batch_delay = Duration(-1);
  expect_invalid(o, "max_batch_delay");
  o = Valid();
  o.batch_refill_wait = Duration(-1);
  expect_invalid(o, "batch_refill_wait");
  o = Valid();
  o.max_queued_writes = 0;
  expect_invalid(o, "max_queued_writes");
}

}  // namespace
}  // namespace blobtune::store
