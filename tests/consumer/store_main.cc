// Uses the installed blobtune headers and libraries the way an embedding program would: a limiter
// with the default algorithm gating puts into an LMDB blob store in a scratch directory.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "blobtune/base/status.h"
#include "blobtune/base/version.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/tuner/limiter.h"

namespace {

int Fail(const char* what, const blobtune::Status& status) {
  std::fprintf(stderr, "consumer: %s: %s\n", what, status.ToString().c_str());
  return 1;
}

}  // namespace

int main() {
  char dir_template[] = "/tmp/blobtune-consumer-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) return 1;

  auto limiter = blobtune::tuner::Limiter::Create({});
  if (!limiter.ok()) return Fail("create limiter", limiter.status());

  blobtune::store::LmdbStoreOptions options;
  options.directory = dir;
  options.namespaces = {"incoming"};
  auto store = blobtune::store::OpenLmdbBlobStore(options);
  if (!store.ok()) return Fail("open store", store.status());

  std::vector<std::byte> blob(1000, std::byte{42});
  auto permit = (*limiter)->Acquire(std::chrono::seconds(5));
  if (!permit.ok()) return Fail("acquire", permit.status());
  blobtune::Status put = (*store)->Put("incoming", "message-1", blob);
  if (!put.ok()) return Fail("put", put);
  permit->Success(blob.size());

  auto read = (*store)->Get("incoming", "message-1");
  if (!read.ok()) return Fail("get", read.status());
  if (*read != blob) {
    std::fprintf(stderr, "consumer: the blob read back differs from the one written\n");
    return 1;
  }
  store->reset();
  std::system((std::string("rm -rf ") + dir).c_str());
  std::printf("consumer: blobtune %s: put and read back a blob through %s (limit %d)\n",
              std::string(blobtune::kVersion).c_str(),
              std::string((*limiter)->algorithm_name()).c_str(), (*limiter)->limit());
  return 0;
}
