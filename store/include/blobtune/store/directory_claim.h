// DirectoryClaim: a directory that one process, and one owner in it, has to itself: a blob
// store's directory (OpenLmdbBlobStore claims it), or the data directory of a server whose blobs
// are elsewhere (blobtune-server with --store rados keeps its limiters' state there).
//
//   StatusOr<DirectoryClaim> claim = ClaimDirectory("/var/lib/blobtune", false);
//   if (!claim.ok()) return claim.status();  // ALREADY_EXISTS names the holder's pid
//   ...                                      // the directory is ours until `claim` goes
//
// Across processes the claim is an flock(2) on a lock file in the directory, `blobtune.lock`,
// which holds the pid of the process that has it. The kernel drops the lock when that process
// exits, however it exits (kill -9 included), so a crash never leaves a directory claimed; a
// stale pid in the file is overwritten by the next holder. Within a process, claims are kept by
// the directory's device and inode, so another path to the same directory is refused too.
//
// Thread-safety: ClaimDirectory is safe from any thread; a DirectoryClaim is owned by one.
#ifndef BLOBTUNE_STORE_DIRECTORY_CLAIM_H_
#define BLOBTUNE_STORE_DIRECTORY_CLAIM_H_

#include <sys/types.h>

#include <string>
#include <utility>

#include "blobtune/base/status_or.h"

namespace blobtune::store {

// Holds a directory until destroyed (or moved from). Move-only; a default-constructed claim
// holds nothing.
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
  friend StatusOr<DirectoryClaim> ClaimDirectory(const std::string& path, bool create_if_missing);
  DirectoryClaim(dev_t dev, ino_t ino) : dev_(dev), ino_(ino), held_(true) {}
  void Release() noexcept;

  dev_t dev_ = 0;
  ino_t ino_ = 0;
  bool held_ = false;  // The claim within this process.
  int lock_fd_ = -1;   // The flock'ed lock file: the claim across processes.
};

// Claims `path`, a directory this process can read and write (created first if it is missing
// and `create_if_missing`), without waiting: ALREADY_EXISTS if another owner in this process or
// another process holds it (naming that process's pid where its lock file tells), NOT_FOUND if
// it is missing, INVALID_ARGUMENT if it is not a writable directory.
StatusOr<DirectoryClaim> ClaimDirectory(const std::string& path, bool create_if_missing);

}  // namespace blobtune::store

#endif  // BLOBTUNE_STORE_DIRECTORY_CLAIM_H_
