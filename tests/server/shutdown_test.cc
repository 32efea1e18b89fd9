// The real blobtune-server binary, as a child process, under SIGTERM while clients write: it must
// exit 0, and every PUT it acknowledged must be in the store afterwards with the right bytes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "common/blocking_http_client.h"
#include "common/temp_dir.h"
#include "server_process.h"

namespace blobtune::server {
namespace {

using blobtune::testing::TempDir;
using examples::BlockingHttpClient;
using examples::HttpResponse;
namespace http = boost::beast::http;
using namespace std::chrono_literals;

std::string BodyOf(const std::string& id) { return "blob " + id + std::string(3000, '.') + id; }

TEST(ServerShutdown, SigtermLosesNoAcknowledgedPutAndExitsZero) {
  TempDir dir("blobtune-shutdown");
  const std::string data = dir.Sub("data");
  ServerProcess server({"--data-dir", data, "--listen", "127.0.0.1:0", "--durability", "durable",
                        "--wait-deadline-ms", "2000"});
  const uint16_t port = server.ReadPort();
  ASSERT_NE(port, 0) << server.output();

  std::mutex mu;
  std::condition_variable acknowledgement;
  std::vector<std::string> acknowledged;
  std::atomic<int> answered_after_signal{0};
  std::atomic<bool> signalled{false};
  std::vector<std::thread> writers;
  for (int w = 0; w < 8; ++w) {
    writers.emplace_back([&, w] {
      const auto give_up = std::chrono::steady_clock::now() + 20s;
      std::unique_ptr<BlockingHttpClient> client;
      for (int i = 0; std::chrono::steady_clock::now() < give_up; ++i) {
        const std::string id = "w" + std::to_string(w) + "-" + std::to_string(i);
        if (!client) client = std::make_unique<BlockingHttpClient>(port);
        StatusOr<HttpResponse> response =
            client->Send(http::verb::put, "/blobs/default/" + id, BodyOf(id));
        if (!response.ok()) {
          client.reset();  // Closed under us; a refused connect below ends the writer.
          // Nothing listens: the server stopped accepting.
          if (signalled && !BlockingHttpClient(port).Connect().ok()) return;
          continue;
        }
        if (response->result_int() == 201) {
          std::lock_guard lock(mu);
          acknowledged.push_back(id);
          acknowledgement.notify_all();
        }
        if (signalled) ++answered_after_signal;
        if (!response->keep_alive()) client.reset();
      }
    });
  }
  // The signal arrives while the writers are busy: once every writer could have had a few PUTs
  // acknowledged (counted, not timed), with a deadline for a server that acknowledges none.
  // The writers give up after 20 s; the signal goes out either way, so that they all end.
  {
    std::unique_lock lock(mu);
    EXPECT_TRUE(acknowledgement.wait_for(lock, 30s, [&] { return acknowledged.size() >= 200; }))
        << "fewer than 200 PUTs acknowledged within 30 s: " << acknowledged.size();
  }
  signalled = true;
  server.Signal(SIGTERM);
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(server.WaitExit(), 0) << server.output();
  EXPECT_NE(server.output().find("stopped"), std::string::npos) << server.output();

  ASSERT_GT(acknowledged.size(), 0u);
  store::LmdbStoreOptions options;
  options.directory = data;
  options.create_if_missing = false;
  auto store = store::OpenLmdbBlobStore(options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  size_t intact = 0;
  for (const std::string& id : acknowledged) {
    StatusOr<std::vector<std::byte>> got = (*store)->Get("default", id);
    ASSERT_TRUE(got.ok()) << id << ": " << got.status().ToString();
    std::string bytes(reinterpret_cast<const char*>(got->data()), got->size());
    EXPECT_EQ(bytes, BodyOf(id)) << id;
    ++intact;
  }
  EXPECT_EQ(intact, acknowledged.size());
  std::printf("%zu acknowledged PUTs intact after SIGTERM; %d answers after the signal\n", intact,
              answered_after_signal.load());
}

TEST(ServerShutdown, SigintWhileIdleExitsZero) {
  TempDir dir("blobtune-shutdown");
  ServerProcess server({"--data-dir", dir.Sub("data"), "--listen", "127.0.0.1:0"});
  ASSERT_NE(server.ReadPort(), 0) << server.output();
  server.Signal(SIGINT);
  EXPECT_EQ(server.WaitExit(), 0) << server.output();
}

}  // namespace
}  // namespace blobtune::server
