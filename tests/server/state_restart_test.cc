// The real blobtune-server binary keeps its limiters' learned state in its data directory: killed
// with -9 under load, it restarts at the write limit it had saved; a state saved by another
// version of blobtune or by another algorithm is not used, and the log says why.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "blobtune/base/version.h"
#include "blobtune/tuner/algorithm_state.h"
#include "common/blocking_http_client.h"
#include "common/temp_dir.h"
#include "common/wait_for.h"
#include "server_process.h"

namespace blobtune::server {
namespace {

using blobtune::testing::TempDir;
using blobtune::testing::WaitFor;
using examples::BlockingHttpClient;
namespace http = boost::beast::http;
using namespace std::chrono_literals;

std::optional<tuner::AlgorithmState> ReadState(const std::string& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  StatusOr<tuner::AlgorithmState> state = tuner::AlgorithmState::FromText(text.str());
  if (!state.ok()) return std::nullopt;
  return *state;
}

// The write limiter's limit in the server's /metrics, or -1.
int WriteLimit(uint16_t port) {
  BlockingHttpClient client(port);
  StatusOr<examples::HttpResponse> metrics = client.Send(http::verb::get, "/metrics");
  if (!metrics.ok()) return -1;
  std::istringstream lines(metrics->body());
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("blobtune_limiter_limit{", 0) == 0 &&
        line.find("limiter=\"write\"") != std::string::npos) {
      return static_cast<int>(std::stod(line.substr(line.rfind(' ') + 1)));
    }
  }
  return -1;
}

TEST(ServerState, AServerKilledUnderLoadRestartsAtTheWriteLimitItSaved) {
  TempDir dir("blobtune-state");
  const std::string data = dir.Sub("data");
  const std::string state_file = data + "/limiter-write.state";
  const std::vector<std::string> args = {"--data-dir", data, "--listen", "127.0.0.1:0",
                                         "--durability", "nosync", "--state-save-interval-ms",
                                         "100"};
  // The first server's limit stays at 16 or more whatever its load makes of it (how far the
  // default climbs depends on the machine), so that the second, a default that would start at
  // 4, shows where it started from.
  std::vector<std::string> first_args = args;
  first_args.insert(first_args.end(), {"--algorithm", "marginal:initial_limit=24,min_limit=16"});
  {
    ServerProcess first(first_args);
    const uint16_t port = first.ReadPort();
    ASSERT_NE(port, 0) << first.output();
    std::atomic<bool> stop{false};
    std::vector<std::thread> writers;
    for (int w = 0; w < 32; ++w) {
      writers.emplace_back([&, w] {
        BlockingHttpClient client(port);
        for (int i = 0; !stop; ++i) {
          const std::string id = "w" + std::to_string(w) + "-" + std::to_string(i % 64);
          (void)client.Send(http::verb::put, "/blobs/default/" + id, std::string(4096, 'x'));
        }
      });
    }
    // A save made under load: the law has measured how long a write holds its permit.
    const bool saved_under_load = WaitFor(
        [&] {
          const std::optional<tuner::AlgorithmState> state = ReadState(state_file);
          return state && state->Find("hold_s").value_or(0) > 0;
        },
        30s, 20ms);
    first.Signal(SIGKILL);
    stop = true;
    for (std::thread& writer : writers) writer.join();
    first.WaitExit();
    ASSERT_TRUE(saved_under_load) << "no save of a measured write limit within 30 s";
  }
  // The file holds the last save before the kill, whole.
  const std::optional<tuner::AlgorithmState> saved = ReadState(state_file);
  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(saved->algorithm, "marginal");
  const int saved_limit = static_cast<int>(std::lround(saved->Find("limit").value()));
  EXPECT_GE(saved_limit, 16);

  ServerProcess second(args);
  const uint16_t port = second.ReadPort();
  ASSERT_NE(port, 0) << second.output();
  EXPECT_NE(second.output().find("the write limiter starts from " + state_file + " at limit " +
                                  std::to_string(saved_limit)),
            std::string::npos)
      << second.output();
  // Before any access: the limit the first server had, not the default's 4.
  EXPECT_EQ(WriteLimit(port), saved_limit);
}

TEST(ServerState, AStateOfAnotherVersionOrAlgorithmIsIgnoredAndSaysSo) {
  TempDir dir("blobtune-state");
  const std::string data = dir.Sub("data");
  std::filesystem::create_directories(data);
  const auto write_state = [&](const tuner::AlgorithmState& state) {
    std::ofstream(data + "/limiter-write.state") << state.ToText();
  };
  tuner::AlgorithmState state{.version = "0.0.0-elsewhere",
                              .algorithm = "marginal",
                              .values = {{"limit", 50}, {"hold_s", 0.01}, {"noise", 1}}};
  write_state(state);
  {
    ServerProcess server({"--data-dir", data, "--listen", "127.0.0.1:0"});
    const uint16_t port = server.ReadPort();
    ASSERT_NE(port, 0) << server.output();
    EXPECT_NE(server.output().find("it was saved by blobtune 0.0.0-elsewhere, this is " +
                                   std::string(kVersion)),
              std::string::npos)
        << server.output();
    EXPECT_EQ(WriteLimit(port), 4);  // marginal's initial limit: a fresh start.
  }
  state.version = std::string(kVersion);
  write_state(state);
  ServerProcess server({"--data-dir", data, "--listen", "127.0.0.1:0", "--algorithm",
                        "gradient2"});
  const uint16_t port = server.ReadPort();
  ASSERT_NE(port, 0) << server.output();
  EXPECT_NE(server.output().find("it was saved by marginal, this limiter runs gradient2"),
            std::string::npos)
      << server.output();
  EXPECT_EQ(WriteLimit(port), 20);  // gradient2's initial limit.
}

}  // namespace
}  // namespace blobtune::server
