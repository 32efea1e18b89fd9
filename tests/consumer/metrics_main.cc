// Uses every installed component: a limiter and a blob store observed by the metrics registry of
// an Exporter (prometheus-cpp's HTTP server on 127.0.0.1:0), and the text a scrape would return.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "blobtune/metrics/exporter.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/tuner/limiter.h"
#include "blobtune/tuner/status.h"
#include "blobtune/tuner/version.h"

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

  auto exporter = blobtune::metrics::Exporter::Start("127.0.0.1:0");
  if (!exporter.ok()) return Fail("start exporter", exporter.status());
  blobtune::tuner::LimiterOptions limiter_options;
  limiter_options.observer = blobtune::metrics::LimiterObserverOf(exporter->get(), "put");
  auto limiter = blobtune::tuner::Limiter::Create(std::move(limiter_options));
  if (!limiter.ok()) return Fail("create limiter", limiter.status());

  blobtune::store::StoreOptions options;
  options.directory = dir;
  options.namespaces = {"incoming"};
  options.observer = blobtune::metrics::StoreObserverOf(exporter->get(), "blobs");
  auto store = blobtune::store::BlobStore::Open(options);
  if (!store.ok()) return Fail("open store", store.status());

  std::vector<std::byte> blob(1000, std::byte{42});
  auto permit = (*limiter)->Acquire(std::chrono::seconds(5));
  if (!permit.ok()) return Fail("acquire", permit.status());
  blobtune::Status put = (*store)->Put("incoming", "message-1", blob);
  if (!put.ok()) return Fail("put", put);
  permit->Success(blob.size());

  const std::string text = (*exporter)->registry().TextExposition();
  if (text.find("blobtune_limiter_permits_total{limiter=\"put\",outcome=\"success\"} 1") ==
          std::string::npos ||
      text.find("store=\"blobs\"") == std::string::npos) {
    std::fprintf(stderr, "consumer: the exposition lacks the put:\n%s\n", text.c_str());
    return 1;
  }
  store->reset();
  std::system((std::string("rm -rf ") + dir).c_str());
  std::printf("consumer (all): blobtune %s: a put counted in the metrics served on port %u\n",
              std::string(blobtune::kVersion).c_str(), unsigned{(*exporter)->port()});
  return 0;
}
