// Uses every installed component the way a program that already serves its own metrics with
// prometheus-cpp would: its Exposer (on 127.0.0.1:0) serves a counter of its own and blobtune's
// Collectable, which observes a limiter and an LMDB blob store. One scrape of that Exposer is
// written to the file named by argv[1] (run_consumer_test.cmake lints it with promtool).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/registry.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "blobtune/base/status.h"
#include "blobtune/base/version.h"
#include "blobtune/metrics/collectable.h"
#include "blobtune/metrics/registry.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/tuner/limiter.h"

namespace {

int Fail(const char* what, const blobtune::Status& status) {
  std::fprintf(stderr, "consumer: %s: %s\n", what, status.ToString().c_str());
  return 1;
}

// The body of GET /metrics on 127.0.0.1:port, as a scraper sees it; empty on failure.
std::string Scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  const std::string request = "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n";
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
      write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
    char buffer[4096];
    for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) answer.append(buffer, n);
  }
  close(fd);
  const size_t body = answer.find("\r\n\r\n");
  return body == std::string::npos ? "" : answer.substr(body + 4);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer SCRAPE_FILE\n");
    return 2;
  }
  char dir_template[] = "/tmp/blobtune-consumer-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) return 1;

  // example: collectable
  // blobtune's metrics: declared before the Exposer, which collects them until it is gone.
  blobtune::metrics::MetricsRegistry blobtune_metrics;

  // The program's own metrics, served by its own Exposer.
  prometheus::Exposer exposer("127.0.0.1:0");
  auto own = std::make_shared<prometheus::Registry>();
  auto& messages = prometheus::BuildCounter()
                       .Name("consumer_messages_total")
                       .Help("Messages the program stored.")
                       .Register(*own)
                       .Add({});
  exposer.RegisterCollectable(own);

  // blobtune's, next to them: the Exposer keeps a weak_ptr, so the program keeps this one.
  auto collectable = blobtune::metrics::MakeCollectable(blobtune_metrics, {{"service", "mail"}});
  if (!collectable.ok()) return Fail("make collectable", collectable.status());
  exposer.RegisterCollectable(*collectable);

  blobtune::tuner::LimiterOptions limiter_options;
  limiter_options.observer = blobtune_metrics.AddLimiter("put").value();
  auto limiter = blobtune::tuner::Limiter::Create(std::move(limiter_options));
  // example end
  if (!limiter.ok()) return Fail("create limiter", limiter.status());

  blobtune::store::LmdbStoreOptions options;
  options.directory = dir;
  options.namespaces = {"incoming"};
  options.observer = blobtune_metrics.AddStore("blobs").value();
  auto store = blobtune::store::OpenLmdbBlobStore(options);
  if (!store.ok()) return Fail("open store", store.status());

  std::vector<std::byte> blob(1000, std::byte{42});
  auto permit = (*limiter)->Acquire(std::chrono::seconds(5));
  if (!permit.ok()) return Fail("acquire", permit.status());
  blobtune::Status put = (*store)->Put("incoming", "message-1", blob);
  if (!put.ok()) return Fail("put", put);
  permit->Success(blob.size());
  messages.Increment();

  const std::string text = Scrape(exposer.GetListeningPorts().front());
  std::ofstream(argv[1]) << text;
  for (const char* wanted :
       {"consumer_messages_total 1", "blobtune_build_info{service=\"mail\",version=",
        "blobtune_limiter_permits_total{service=\"mail\",limiter=\"put\",outcome=\"success\"} 1",
        "blobtune_limiter_max_limit{service=\"mail\",limiter=\"put\"} ",
        "blobtune_store_commits_total{service=\"mail\",store=\"blobs\",result=\"ok\"} 1"}) {
    if (text.find(wanted) == std::string::npos) {
      std::fprintf(stderr, "consumer: the scrape lacks %s:\n%s\n", wanted, text.c_str());
      return 1;
    }
  }
  store->reset();
  std::system((std::string("rm -rf ") + dir).c_str());
  std::printf(
      "consumer (all): blobtune %s: one scrape of the program's own Exposer shows its "
      "counter and blobtune's series\n",
      std::string(blobtune::kVersion).c_str());
  return 0;
}
