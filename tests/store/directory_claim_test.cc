// ClaimDirectory: one owner for a directory, within this process and across processes (the
// cross-process half is an flock, exercised through a blob store in blob_store_errors_test.cc).
#include "blobtune/store/directory_claim.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <utility>

#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "temp_dir.h"

namespace blobtune::store {
namespace {

using blobtune::testing::TempDir;

bool Contains(const Status& status, const std::string& text) {
  return status.message().find(text) != std::string::npos;
}

TEST(DirectoryClaimTest, OneOwnerAtATimeWhateverThePath) {
  TempDir dir("blobtune-claim");
  StatusOr<DirectoryClaim> first = ClaimDirectory(dir.path(), false);
  ASSERT_TRUE(first.ok()) << first.status();

  StatusOr<DirectoryClaim> second = ClaimDirectory(dir.path(), false);
  EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(Contains(second.status(), "'" + dir.path() + "'")) << second.status();
  EXPECT_TRUE(Contains(second.status(), "in this process")) << second.status();
  // Another name for the same directory is the same directory.
  EXPECT_EQ(ClaimDirectory(dir.path() + "/.", false).status().code(), StatusCode::kAlreadyExists);

  DirectoryClaim moved = *std::move(first);
  EXPECT_EQ(ClaimDirectory(dir.path(), false).status().code(), StatusCode::kAlreadyExists);
  moved = DirectoryClaim();  // Releases it.
  EXPECT_TRUE(ClaimDirectory(dir.path(), false).ok());
}

TEST(DirectoryClaimTest, AMissingDirectoryIsNotFoundUnlessItMayBeCreated) {
  TempDir dir("blobtune-claim");
  const std::string missing = dir.Sub("state");
  StatusOr<DirectoryClaim> claim = ClaimDirectory(missing, false);
  EXPECT_EQ(claim.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(Contains(claim.status(), "'" + missing + "' does not exist")) << claim.status();

  claim = ClaimDirectory(missing, true);
  ASSERT_TRUE(claim.ok()) << claim.status();
  EXPECT_TRUE(std::ifstream(missing + "/blobtune.lock").good());
}

TEST(DirectoryClaimTest, AFileIsNotADirectory) {
  TempDir dir("blobtune-claim");
  const std::string file = dir.Sub("file");
  std::ofstream(file) << "x";
  StatusOr<DirectoryClaim> claim = ClaimDirectory(file, true);
  EXPECT_EQ(claim.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(claim.status(), "is not a directory")) << claim.status();
}

TEST(DirectoryClaimTest, ABlobStoreAndAClaimExcludeEachOther) {
  TempDir dir("blobtune-claim");
  LmdbStoreOptions options;
  options.directory = dir.Sub("db");
  options.namespaces = {"ns"};
  StatusOr<std::unique_ptr<BlobStore>> store = OpenLmdbBlobStore(options);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(ClaimDirectory(options.directory, false).status().code(),
            StatusCode::kAlreadyExists);
  store->reset();

  StatusOr<DirectoryClaim> claim = ClaimDirectory(options.directory, false);
  ASSERT_TRUE(claim.ok()) << claim.status();
  store = OpenLmdbBlobStore(options);
  EXPECT_EQ(store.status().code(), StatusCode::kAlreadyExists);
}

}  // namespace
}  // namespace blobtune::store
