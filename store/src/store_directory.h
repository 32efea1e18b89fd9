// The store's directory: checks it before LMDB sees it (so that errors say what is wrong in
// words, not errno), creates it when asked, and claims it: once per process, because LMDB forbids
// opening one environment twice in a process (closing either would drop the other's locks), and
// once per machine, because the store has one writer (its writer thread) and assumes no other
// process writes or grows the map behind it.
//
// The claim across processes is an flock(2) on a lock file of our own, kStoreLockFile, next to
// LMDB's lock.mdb (which stays as LMDB uses it); the file holds the pid of the process that holds
// the lock. The kernel drops the lock when that process exits, however it exits (kill -9
// included), so a crash never leaves a store locked; a stale pid in the file is overwritten by
// the next holder.
//
// Thread-safety: PrepareStoreDirectory and DirectoryClaim are safe from any thread.
#ifndef BLOBTUNE_STORE_SRC_STORE_DIRECTORY_H_
#define BLOBTUNE_STORE_SRC_STORE_DIRECTORY_H_

#include <sys/types.h>

#include <string>
#include <utility>

#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"

namespace blobtune::store::internal {

// The lock file in a store's directory.
inline constexpr char kStoreLockFile[] = "blobtune.lock";

// Releases the claim on destruction. Move-only.
class DirectoryClaim {
 public:
  DirectoryClaim() = default;
  DirectoryClaim(DirectoryClaim&& other) noexcept
      : dev_(other.dev_),
        ino_(other.ino_),
        held_(std::exchange(other.held_, false)),
        lock_fd_(std::exchange(other.lock_fd_, -1)) {}
  DirectoryClaim& operator=(DirectoryClaim&& other) noexcept;
  DirectoryClaim(const DirectoryClaim&) = delete;
  DirectoryClaim& operator=(const DirectoryClaim&) = delete;
  ~DirectoryClaim() { Release(); }

 private:
  friend StatusOr<DirectoryClaim> PrepareStoreDirectory(const std::string&, bool);
  DirectoryClaim(dev_t dev, ino_t ino) : dev_(dev), ino_(ino), held_(true) {}
  void Release() noexcept;

  dev_t dev_ = 0;
  ino_t ino_ = 0;
  bool held_ = false;  // The claim within this process.
  int lock_fd_ = -1;   // The flock'ed kStoreLockFile: the claim across processes.
};

// Checks that `path` is a writable directory (creating it if `create_if_missing`), that its
// data.mdb, if any, is a regular file, and that no other store of this process (ALREADY_EXISTS)
// and no other process (ALREADY_EXISTS naming its pid where the lock file tells) has it open.
// Never waits for the other holder.
StatusOr<DirectoryClaim> PrepareStoreDirectory(const std::string& path, bool create_if_missing);

}  // namespace blobtune::store::internal

#endif  // BLOBTUNE_STORE_SRC_STORE_DIRECTORY_H_
