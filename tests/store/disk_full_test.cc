// Telling a full disk from an I/O error (store/src/disk_full.h), with the free space given: the
// store's test on a real full file system is full_disk_test.cc.
#include "disk_full.h"

#include <gtest/gtest.h>
#include <lmdb.h>

#include <cerrno>

#include "temp_dir.h"

namespace blobtune::store::internal {
namespace {

constexpr uint64_t kCommit = 100'000;

TEST(DiskFullTest, NoSpaceAndQuotaAreAFullDiskWhateverTheFreeSpace) {
  EXPECT_TRUE(IsDiskFull(ENOSPC, uint64_t{1} << 40, kCommit));
  EXPECT_TRUE(IsDiskFull(ENOSPC, std::nullopt, kCommit));
  EXPECT_TRUE(IsDiskFull(EDQUOT, uint64_t{1} << 40, kCommit));
}

TEST(DiskFullTest, IoErrorIsAFullDiskOnlyWithoutRoomForTheCommit) {
  EXPECT_TRUE(IsDiskFull(EIO, 0, kCommit));
  EXPECT_TRUE(IsDiskFull(EIO, kCommit + kDiskFullSlackBytes - 1, kCommit));
  EXPECT_FALSE(IsDiskFull(EIO, kCommit + kDiskFullSlackBytes, kCommit));
  EXPECT_FALSE(IsDiskFull(EIO, uint64_t{1} << 40, kCommit));
  EXPECT_FALSE(IsDiskFull(EIO, std::nullopt, kCommit));  // Unknown: not taken for full.
}

TEST(DiskFullTest, OtherErrorsAreNeverAFullDisk) {
  EXPECT_FALSE(IsDiskFull(MDB_MAP_FULL, 0, kCommit));
  EXPECT_FALSE(IsDiskFull(MDB_CORRUPTED, 0, kCommit));
  EXPECT_FALSE(IsDiskFull(EACCES, 0, kCommit));
}

TEST(DiskFullTest, FreeBytesOfADirectoryAndOfNone) {
  testing::TempDir dir;
  EXPECT_TRUE(FreeBytes(dir.path()).has_value());
  EXPECT_FALSE(FreeBytes(dir.Sub("missing")).has_value());
}

}  // namespace
}  // namespace blobtune::store::internal
