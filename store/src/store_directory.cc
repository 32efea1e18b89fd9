#include "store_directory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "blobtune/tuner/mutex.h"

namespace blobtune::store::internal {
namespace {

Mutex& ClaimsMutex() {
  static Mutex mu;
  return mu;
}

std::set<std::pair<dev_t, ino_t>>& Claims() {
  static std::set<std::pair<dev_t, ino_t>> claims;  // Guarded by ClaimsMutex().
  return claims;
}

std::string Errno(int err) { return std::strerror(err); }

}  // namespace

DirectoryClaim& DirectoryClaim::operator=(DirectoryClaim&& other) noexcept {
  if (this != &other) {
    Release();
    dev_ = other.dev_;
    ino_ = other.ino_;
    held_ = std::exchange(other.held_, false);
  }
  return *this;
}

void DirectoryClaim::Release() noexcept {
  if (!held_) return;
  held_ = false;
  MutexLock lock(ClaimsMutex());
  Claims().erase({dev_, ino_});
}

StatusOr<DirectoryClaim> PrepareStoreDirectory(const std::string& path, bool create_if_missing) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err != ENOENT) {
      return Status::InvalidArgument("cannot use store directory '" + path + "': " + Errno(err));
    }
    if (!create_if_missing) {
      return Status::NotFound("store directory '" + path +
                              "' does not exist (create_if_missing is false)");
    }
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      const int mkdir_err = errno;
      return Status::InvalidArgument("cannot create store directory '" + path +
                                     "': " + Errno(mkdir_err));
    }
    if (::stat(path.c_str(), &st) != 0) {
      return Status::Internal("store directory '" + path + "' vanished after mkdir");
    }
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("store path '" + path + "' is not a directory");
  }
  if (::access(path.c_str(), R_OK | W_OK | X_OK) != 0) {
    const int err = errno;
    return Status::InvalidArgument("store directory '" + path +
                                   "' is not writable by this process: " + Errno(err));
  }
  const std::string data_file = path + "/data.mdb";
  struct stat data_st {};
  if (::stat(data_file.c_str(), &data_st) == 0 && !S_ISREG(data_st.st_mode)) {
    return Status::InvalidArgument("'" + data_file + "' exists but is not a regular file");
  }
  MutexLock lock(ClaimsMutex());
  if (!Claims().insert({st.st_dev, st.st_ino}).second) {
    return Status::AlreadyExists("store directory '" + path +
                                 "' is already open in this process (LMDB allows one "
                                 "environment per file per process)");
  }
  return DirectoryClaim(st.st_dev, st.st_ino);
}

}  // namespace blobtune::store::internal
