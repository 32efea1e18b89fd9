#include "scratch_store.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

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
  store::StoreOptions options;  // Defaults: durable, group commit.
  options.directory = (*dir)->Sub("store");
  options.namespaces = {std::string(kNamespace)};
  StatusOr<std::unique_ptr<store::BlobStore>> opened = store::BlobStore::Open(options);
  if (!opened.ok()) return opened.status();
  return std::unique_ptr<ScratchStore>(new ScratchStore(*std::move(dir), *std::move(opened)));
}

ScratchStore::~ScratchStore() { store_.reset(); }

}  // namespace blobtune::plantbench
