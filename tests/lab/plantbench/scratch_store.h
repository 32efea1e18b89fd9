// ScratchStore: a BlobStore with default options (durable) in a fresh temp directory, or a RADOS
// store on a throwaway cluster in one, for a plant; closing it removes the directory and
// everything in it.
//
//   StatusOr<std::unique_ptr<ScratchStore>> scratch = ScratchStore::Open("lmdb_put_1k");
//   if (!scratch.ok()) return scratch.status();
//   (*scratch)->store().Put("default", "id", bytes);
//
// The directory is made under $TMPDIR (default /tmp) as blobtune-plant-<name>-XXXXXX. The put
// plants keep one scratch store for all their points and replace blobs among PutId()'s ids, as
// a mail store in its steady state does (messages come and go): the data file stops growing
// after the first pass, and the disk's allocation of new blocks stays out of the figures.
//
// Thread-safety: store() as BlobStore's contract; the destructor from one thread once no
// access to the store runs.
#ifndef BLOBTUNE_TESTS_LAB_PLANTBENCH_SCRATCH_STORE_H_
#define BLOBTUNE_TESTS_LAB_PLANTBENCH_SCRATCH_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "blobtune/base/status_or.h"
#include "blobtune/store/blob_store.h"

namespace blobtune::plantbench {

// A fresh empty directory, removed with its contents on destruction. Thread-safety: path()
// from any thread.
class ScratchDir {
 public:
  // UNAVAILABLE if the directory cannot be made.
  static StatusOr<std::unique_ptr<ScratchDir>> Create(std::string_view name);

  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();

  const std::string& path() const noexcept { return path_; }
  std::string Sub(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

class ScratchStore {
 public:
  // The namespace every plant uses.
  static constexpr std::string_view kNamespace = "default";
  // The id of the n-th put of a put plant: one of 1,024, so that puts replace blobs.
  static std::string PutId(uint64_t n) { return "put-" + std::to_string(n % 1024); }

  // The directory's error, or the store's.
  static StatusOr<std::unique_ptr<ScratchStore>> Open(std::string_view name);
  // For a plant that keeps one store for all its points: opens it into `*kept` unless one is
  // there already. Open's error, with `*kept` left empty.
  static Status OpenOnce(std::string_view name, std::unique_ptr<ScratchStore>* kept);
  // A RADOS store (pool `blobtune`) on a throwaway single-node Ceph cluster that it starts in a
  // fresh directory (scripts/rados-cluster: one monitor, one OSD keeping objects in memory) and
  // stops on destruction. UNAVAILABLE where the build has no librados or the cluster does not
  // start (the message carries the script's output).
  static StatusOr<std::unique_ptr<ScratchStore>> OpenRados(std::string_view name);

  ScratchStore(const ScratchStore&) = delete;
  ScratchStore& operator=(const ScratchStore&) = delete;
  // Closes the store (its queued writes commit), stops the cluster if it started one, then
  // removes the directory.
  ~ScratchStore();

  store::BlobStore& store() const noexcept { return *store_; }

 private:
  ScratchStore(std::unique_ptr<ScratchDir> dir, std::string cluster_dir,
               std::unique_ptr<store::BlobStore> store)
      : dir_(std::move(dir)), cluster_dir_(std::move(cluster_dir)), store_(std::move(store)) {}
  std::unique_ptr<ScratchDir> dir_;
  std::string cluster_dir_;                  // Where OpenRados started a cluster, or empty.
  std::unique_ptr<store::BlobStore> store_;  // Destroyed first.
};

}  // namespace blobtune::plantbench

#endif  // BLOBTUNE_TESTS_LAB_PLANTBENCH_SCRATCH_STORE_H_
