// docs/METRICS.md, "Wiring it in": an Exporter serving a limiter's and a store's series at
// http://ADDRESS/metrics (and the status page at /status), while the program puts one blob.
//
//   build/bin/blobtune-doc-exporter [--address ADDRESS] [--data-dir DIR]
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "blobtune/metrics/exporter.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/tuner/limiter.h"
#include "common/command_line.h"

blobtune::Status Run(const std::string& address, const std::string& directory) {
  // example: exporter
  auto exporter = blobtune::metrics::Exporter::Start(address);   // StatusOr
  if (!exporter.ok()) return exporter.status();                  // e.g. port in use

  blobtune::tuner::LimiterOptions lo;
  lo.observer = (*exporter)->AddLimiter("put").value();  // fixed at construction
  auto limiter = blobtune::tuner::Limiter::Create(std::move(lo)).value();  // exported whole

  blobtune::store::LmdbStoreOptions so;
  so.directory = directory;
  so.observer = (*exporter)->AddStore("blobs").value();
  auto store = blobtune::store::OpenLmdbBlobStore(so).value();
  auto store_link = (*exporter)->registry().FindStore("blobs")->Attach(*store);  // map gauges
  // example end

  std::printf("serving http://%s/metrics\n", (*exporter)->address().c_str());
  const std::vector<std::byte> blob(100, std::byte{1});
  auto permit = limiter->Acquire(std::chrono::seconds(1));
  if (!permit.ok()) return permit.status();
  blobtune::Status put = store->Put("default", "first", blob);
  if (put.ok()) permit->Success(blob.size());
  return put;
}

int main(int argc, char** argv) {
  std::string address = "127.0.0.1:9464";
  std::string directory = "/tmp/blobtune-doc-exporter";
  blobtune::examples::CommandLine cli(
      "blobtune-doc-exporter", "usage: blobtune-doc-exporter [--address ADDRESS] [--data-dir DIR]\n");
  cli.Add({
      {"address", &address, "ADDRESS", "serve /metrics and /status here"},
      {"data-dir", &directory, "DIR", "the blob store's directory"},
  });
  if (int code = cli.Parse(argc, argv); code >= 0) return code;
  const blobtune::Status s = Run(address, directory);
  if (!s.ok()) std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return s.ok() ? 0 : 1;
}
