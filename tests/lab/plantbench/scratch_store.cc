#include "scratch_store.h"

#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "blobtune/store/lmdb_blob_store.h"
#if BLOBTUNE_HAVE_RADOS
#include "blobtune/store/rados_blob_store.h"
#endif

namespace blobtune::plantbench {

StatusOr<std::unique_ptr<ScratchDir>> ScratchDir::Create(std::string_view name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                        "/blobtune-plant-" + std::string(name) + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::Unavailable("cannot make a directory like " + pattern + ": " +
                               std::strerror(errno));
  }
  return std::unique_ptr<ScratchDir>(new ScratchDir(std::move(pattern)));
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

StatusOr<std::unique_ptr<ScratchStore>> ScratchStore::Open(std::string_view name) {
  StatusOr<std::unique_ptr<ScratchDir>> dir = ScratchDir::Create(name);
  if (!dir.ok()) return dir.status();
  store::LmdbStoreOptions options;  // Defaults: durable, group commit.
  options.directory = (*dir)->Sub("store");
  options.namespaces = {std::string(kNamespace)};
  StatusOr<std::unique_ptr<store::BlobStore>> opened = store::OpenLmdbBlobStore(options);
  if (!opened.ok()) return opened.status();
  return std::unique_ptr<ScratchStore>(new ScratchStore(*std::move(dir), "", *std::move(opened)));
}

#if BLOBTUNE_HAVE_RADOS
namespace {

// Runs `command` through the shell; its exit status and what it printed (stdout and stderr).
int RunCapturing(const std::string& command, std::string* output) {
  FILE* out = popen((command + " 2>&1").c_str(), "r");
  if (out == nullptr) return -1;
  char chunk[512];
  while (std::fgets(chunk, sizeof chunk, out) != nullptr) *output += chunk;
  return pclose(out);
}

std::string ClusterCommand(std::string_view verb, const std::string& dir) {
  return std::string(BLOBTUNE_RADOS_CLUSTER_SCRIPT) + " " + std::string(verb) + " '" + dir + "'";
}

}  // namespace
#endif

Status ScratchStore::OpenOnce(std::string_view name, std::unique_ptr<ScratchStore>* kept) {
  if (*kept) return Status::Ok();
  StatusOr<std::unique_ptr<ScratchStore>> opened = Open(name);
  if (!opened.ok()) return opened.status();
  *kept = *std::move(opened);
  return Status::Ok();
}

StatusOr<std::unique_ptr<ScratchStore>> ScratchStore::OpenRados(std::string_view name) {
#if BLOBTUNE_HAVE_RADOS
  StatusOr<std::unique_ptr<ScratchDir>> dir = ScratchDir::Create(name);
  if (!dir.ok()) return dir.status();
  const std::string cluster_dir = (*dir)->Sub("cluster");
  std::string output;
  if (RunCapturing(ClusterCommand("start", cluster_dir), &output) != 0) {
    std::string ignored;
    RunCapturing(ClusterCommand("stop", cluster_dir), &ignored);
    return Status::Unavailable("the throwaway Ceph cluster did not start: " + output);
  }
  // The script's last line is the path of the cluster's ceph.conf.
  std::string_view text = output;
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  store::RadosStoreOptions options;
  options.conf_file = std::string(text.substr(text.rfind('\n') + 1));
  options.pool = "blobtune";
  options.namespaces = {std::string(kNamespace)};
  StatusOr<std::unique_ptr<store::BlobStore>> opened = store::OpenRadosBlobStore(options);
  if (!opened.ok()) {
    std::string ignored;
    RunCapturing(ClusterCommand("stop", cluster_dir), &ignored);
    return opened.status();
  }
  return std::unique_ptr<ScratchStore>(
      new ScratchStore(*std::move(dir), cluster_dir, *std::move(opened)));
#else
  (void)name;
  return Status::Unavailable("this build has no RADOS store (librados-dev, libradospp-dev)");
#endif
}

ScratchStore::~ScratchStore() {
  store_.reset();
#if BLOBTUNE_HAVE_RADOS
  if (!cluster_dir_.empty()) {
    std::string ignored;
    RunCapturing(ClusterCommand("stop", cluster_dir_), &ignored);
  }
#endif
}

}  // namespace blobtune::plantbench
