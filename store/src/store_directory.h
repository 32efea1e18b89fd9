// The store's directory: checks it before LMDB sees it (so that errors say what is wrong in
// words, not errno), creates it when asked, and claims it for this process, because LMDB forbids
// opening one environment twice in a process (closing either would drop the other's locks).
//
// Thread-safety: PrepareStoreDirectory and DirectoryClaim are safe from any thread.
#ifndef BLOBTUNE_STORE_SRC_STORE_DIRECTORY_H_
#define BLOBTUNE_STORE_SRC_STORE_DIRECTORY_H_

#include <sys/types.h>

#include <string>
#include <utility>

#include "blobtune/tuner/status.h"
#include "blobtune/tuner/status_or.h"

namespace blobtune::store::internal {

// Releases the claim on destruction. Move-only.
class DirectoryClaim {
 public:
  DirectoryClaim() = default;
  DirectoryClaim(DirectoryClaim&& other) noexcept
      : dev_(other.dev_), ino_(other.ino_), held_(std::exchange(other.held_, false)) {}
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
  bool held_ = false;
};

// Checks that `path` is a writable directory (creating it if `create_if_missing`), that its
// data.mdb, if any, is a regular file, and that no other store of this process has it open.
StatusOr<DirectoryClaim> PrepareStoreDirectory(const std::string& path, bool create_if_missing);

}  // namespace blobtune::store::internal

#endif  // BLOBTUNE_STORE_SRC_STORE_DIRECTORY_H_
