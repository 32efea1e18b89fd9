#include "disk_full.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>

namespace blobtune::store::internal {

std::optional<uint64_t> FreeBytes(const std::string& directory) {
  struct statvfs fs {};
  if (::statvfs(directory.c_str(), &fs) != 0) return std::nullopt;
  const uint64_t blocks = ::geteuid() == 0 ? fs.f_bfree : fs.f_bavail;
  return blocks * fs.f_frsize;
}

bool IsDiskFull(int rc, std::optional<uint64_t> free_bytes, uint64_t commit_bytes) noexcept {
  if (rc == ENOSPC || rc == EDQUOT) return true;
  if (rc != EIO || !free_bytes) return false;
  return *free_bytes < commit_bytes + kDiskFullSlackBytes;
}

}  // namespace blobtune::store::internal
