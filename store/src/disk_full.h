// Telling a commit that failed because the disk is full from one that hit a real I/O error.
//
//   int rc = ...;                                   // mdb_txn_commit's return code
//   std::optional<uint64_t> free = FreeBytes(dir);  // statvfs, right after the failure
//   if (IsDiskFull(rc, free, commit_bytes)) ...     // RESOURCE_EXHAUSTED, not UNAVAILABLE
//
// LMDB reports a full disk in two ways. A write that cannot store its first byte fails with
// ENOSPC (EDQUOT past a quota). A write that stops short, because the file system filled up in
// the middle of it, is reported as EIO: LMDB treats every short write as an I/O error. tmpfs
// and ext4 both do the latter when a commit fills them. So an EIO counts as a full disk when
// the file system holding the store has fewer bytes free than the commit had to write, plus
// kDiskFullSlackBytes for LMDB's own pages: after a short write the disk is (nearly) full,
// while a disk with room to spare that reports EIO has a real I/O error.
//
// Thread-safety: stateless functions, safe from any thread.
#ifndef BLOBTUNE_STORE_SRC_DISK_FULL_H_
#define BLOBTUNE_STORE_SRC_DISK_FULL_H_

#include <cstdint>
#include <optional>
#include <string>

namespace blobtune::store::internal {

// What a commit may write beyond its records: branch and leaf pages, the free list, the meta
// page. Generous: a commit of a few records dirties a few dozen pages.
inline constexpr uint64_t kDiskFullSlackBytes = uint64_t{1} << 20;

// The bytes this process may still write on the file system holding `directory`: the blocks
// free to unprivileged users, or all free blocks for root (ext4 keeps a reserve that only root
// may fill). Nothing if statvfs fails.
std::optional<uint64_t> FreeBytes(const std::string& directory);

// Whether a commit that failed with `rc` and had `commit_bytes` of records to write failed
// because the disk is full (see the top of this file). `free_bytes`: FreeBytes() after the
// failure; unknown, an EIO is not taken for a full disk.
bool IsDiskFull(int rc, std::optional<uint64_t> free_bytes, uint64_t commit_bytes) noexcept;

}  // namespace blobtune::store::internal

#endif  // BLOBTUNE_STORE_SRC_DISK_FULL_H_
