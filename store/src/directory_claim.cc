#include "blobtune/store/directory_claim.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <set>
#include <utility>

#include "blobtune/base/mutex.h"

namespace blobtune::store {
namespace {

// The lock file in a claimed directory.
constexpr char kLockFile[] = "blobtune.lock";

// The directories (device, inode) that this process has claimed.
struct ClaimedDirectories {
  Mutex mu;
  std::set<std::pair<dev_t, ino_t>> ids BLOBTUNE_GUARDED_BY(mu);
};

ClaimedDirectories& Claims() {
  static ClaimedDirectories claims;
  return claims;
}

std::string Errno(int err) { return std::strerror(err); }

// The pid written in a lock file held by another process, or "" if it says none.
std::string HolderPid(int fd) {
  char text[32] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return "";
  long pid = 0;
  const auto [end, ec] = std::from_chars(text, text + n, pid);
  if (ec != std::errc() || pid <= 0 || (end != text + n && *end != '\n')) return "";
  return std::to_string(pid);
}

// Takes the flock of `path`/kLockFile without waiting and writes this process's pid in it.
// Returns the open, locked descriptor.
StatusOr<int> LockAcrossProcesses(const std::string& path) {
  const std::string lock_file = path + "/" + kLockFile;
  const int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    return Status::InvalidArgument("cannot open the lock file '" + lock_file +
                                   "': " + Errno(err));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK) {
      ::close(fd);
      return Status::InvalidArgument("cannot lock '" + lock_file + "': " + Errno(err));
    }
    const std::string pid = HolderPid(fd);
    ::close(fd);
    return Status::AlreadyExists("directory '" + path + "' is in use by another process (" +
                                 (pid.empty() ? std::string("pid unknown") : "pid " + pid) +
                                 ", which holds the lock on '" + lock_file +
                                 "'); one process at a time may use it");
  }
  // Best effort: the pid only makes another process's message clearer (an empty file says
  // "pid unknown"); the lock is held either way.
  const std::string pid = std::to_string(::getpid()) + "\n";
  const bool written = ::ftruncate(fd, 0) == 0 &&
                       ::pwrite(fd, pid.data(), pid.size(), 0) == static_cast<ssize_t>(pid.size());
  (void)written;
  return fd;
}

}  // namespace

DirectoryClaim& DirectoryClaim::operator=(DirectoryClaim&& other) noexcept {
  if (this != &other) {
    Release();
    dev_ = other.dev_;
    ino_ = other.ino_;
    held_ = std::exchange(other.held_, false);
    lock_fd_ = std::exchange(other.lock_fd_, -1);
  }
  return *this;
}

void DirectoryClaim::Release() noexcept {
  // Closing the descriptor drops the flock; the file stays, for the next holder to reuse.
  if (lock_fd_ >= 0) ::close(std::exchange(lock_fd_, -1));
  if (!held_) return;
  held_ = false;
  ClaimedDirectories& claims = Claims();
  MutexLock lock(claims.mu);
  claims.ids.erase({dev_, ino_});
}

StatusOr<DirectoryClaim> ClaimDirectory(const std::string& path, bool create_if_missing) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err != ENOENT) {
      return Status::InvalidArgument("cannot use directory '" + path + "': " + Errno(err));
    }
    if (!create_if_missing) {
      return Status::NotFound("directory '" + path + "' does not exist");
    }
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      const int mkdir_err = errno;
      return Status::InvalidArgument("cannot create directory '" + path +
                                     "': " + Errno(mkdir_err));
    }
    if (::stat(path.c_str(), &st) != 0) {
      return Status::Internal("directory '" + path + "' vanished after mkdir");
    }
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("path '" + path + "' is not a directory");
  }
  if (::access(path.c_str(), R_OK | W_OK | X_OK) != 0) {
    const int err = errno;
    return Status::InvalidArgument("directory '" + path + "' is not writable by this process: " +
                                   Errno(err));
  }
  {
    ClaimedDirectories& claims = Claims();
    MutexLock lock(claims.mu);
    if (!claims.ids.insert({st.st_dev, st.st_ino}).second) {
      return Status::AlreadyExists("directory '" + path +
                                   "' is already in use in this process (a blob store open on "
                                   "it, or another claim)");
    }
  }
  DirectoryClaim claim(st.st_dev, st.st_ino);  // Released again if the lock is not ours.
  StatusOr<int> fd = LockAcrossProcesses(path);
  if (!fd.ok()) return fd.status();
  claim.lock_fd_ = *fd;
  return claim;
}

}  // namespace blobtune::store
