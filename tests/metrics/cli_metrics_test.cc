// Each program exposes its metrics: the lab's workbench and the delivery benchmark with one
// flag (--metrics 127.0.0.1:0: they say where they serve, and after their work keep serving until
// SIGTERM, then exit 0), the blob server at GET /metrics on its own port. Every scrape passes
// `promtool check metrics` and carries the series of the limiters (and stores) the program ran.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/child_process.h"
#include "common/blocking_http_client.h"
#include "test_support.h"

namespace blobtune::metrics {
namespace {

using blobtune::testing::ChildProcess;
using examples::HttpGet;
using examples::HttpResponse;
using namespace std::chrono_literals;

// The value of the first sample line that starts with `series` (name and labels), if any.
std::optional<double> SampleValue(const std::string& exposition, const std::string& series) {
  const size_t at = exposition.find("\n" + series + " ");
  if (at == std::string::npos) return std::nullopt;
  return std::stod(exposition.substr(at + series.size() + 2));
}

// Where a program said it serves: HOST:PORT[/PATH] right after `marker` in `line`.
struct Endpoint {
  std::string host;
  uint16_t port = 0;
  std::string path;
};

std::optional<Endpoint> FindEndpoint(std::string_view line, std::string_view marker) {
  const size_t at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  line.remove_prefix(at + marker.size());
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  size_t end = colon + 1;
  unsigned port = 0;
  while (end < line.size() && line[end] >= '0' && line[end] <= '9') {
    port = port * 10 + static_cast<unsigned>(line[end++] - '0');
  }
  if (end == colon + 1 || port > 65535) return std::nullopt;
  const size_t path_end = line.find_first_of(" \n", end);
  return Endpoint{std::string(line.substr(0, colon)), static_cast<uint16_t>(port),
                  std::string(line.substr(end, path_end == std::string_view::npos
                                                   ? std::string_view::npos
                                                   : path_end - end))};
}

// Runs `argv` plus --metrics 127.0.0.1:0 until it has finished its work, scrapes it, checks
// the exposition with promtool, stops it with SIGTERM and returns what it served.
std::string RunAndScrape(std::vector<std::string> argv) {
  argv.insert(argv.end(), {"--metrics", "127.0.0.1:0"});
  std::unique_ptr<ChildProcess> child = ChildProcess::Start(argv);
  if (child == nullptr) {
    ADD_FAILURE() << "cannot start " << argv[0];
    return "";
  }
  std::optional<std::string> done = child->WaitForLine("done; serving metrics at http://", 300s);
  if (!done) {
    ADD_FAILURE() << argv[0] << " never said it was done; stderr:\n" << child->output();
    return "";
  }
  const std::optional<Endpoint> at = FindEndpoint(*done, "http://");
  if (!at || at->path.empty()) {
    ADD_FAILURE() << "no address in: " << *done;
    return "";
  }
  StatusOr<HttpResponse> scrape = HttpGet(at->host, at->port, at->path);
  EXPECT_TRUE(scrape.ok()) << scrape.status();
  const std::string body = scrape.ok() ? scrape->body() : "";
  EXPECT_EQ(scrape.ok() ? scrape->result_int() : 0, 200u) << body;
  const testing::CommandResult lint = testing::PromtoolCheckMetrics(body);
  EXPECT_EQ(lint.exit_code, 0) << lint.output;
  EXPECT_EQ(lint.output, "") << "promtool found lint problems";
  // The status page is served beside the metrics, on the same port.
  const StatusOr<HttpResponse> page = HttpGet(at->host, at->port, "/status");
  EXPECT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page.ok() ? page->result_int() : 0, 200u);
  EXPECT_NE(page.ok() ? page->body().find("<h1>blobtune status</h1>") : std::string::npos,
            std::string::npos);

  child->Signal(SIGTERM);
  EXPECT_EQ(child->Wait(), 0) << child->output();
  return body;
}

#ifdef BLOBTUNE_WORKBENCH  // Built with the lab (BLOBTUNE_BUILD_LAB).
TEST(CliMetricsTest, WorkbenchServesEverySimulatedLimiter) {
  const std::string body = RunAndScrape(
      {BLOBTUNE_WORKBENCH, "--workload", BLOBTUNE_WORKLOADS_DIR "/delivery_model.json",
       BLOBTUNE_WORKLOADS_DIR "/multi_client.json", "--algorithm", "marginal", "aimd"});
  for (const std::string limiter :
       {"delivery_model/marginal", "delivery_model/aimd", "multi_client/marginal/client0",
        "multi_client/marginal/client1"}) {
    const std::optional<double> successes = SampleValue(
        body, "blobtune_limiter_permits_total{limiter=\"" + limiter + "\",outcome=\"success\"}");
    ASSERT_TRUE(successes.has_value()) << limiter << " missing from:\n" << body.substr(0, 2000);
    EXPECT_GT(*successes, 100) << limiter;
  }
  // Latencies are the simulated ones: the delivery model's accesses take milliseconds.
  const std::optional<double> count = SampleValue(
      body, "blobtune_limiter_permit_duration_seconds_count{limiter=\"delivery_model/marginal\","
            "outcome=\"success\"}");
  const std::optional<double> sum = SampleValue(
      body, "blobtune_limiter_permit_duration_seconds_sum{limiter=\"delivery_model/marginal\","
            "outcome=\"success\"}");
  ASSERT_TRUE(count.has_value() && sum.has_value()) << body.substr(0, 2000);
  EXPECT_GT(*sum / *count, 0.001);
  EXPECT_LT(*sum / *count, 10.0);
  const std::optional<double> increases = SampleValue(
      body, "blobtune_limiter_limit_changes_total{limiter=\"delivery_model/marginal\","
            "direction=\"increase\"}");
  ASSERT_TRUE(increases.has_value());
  EXPECT_GT(*increases, 0);
}
#endif  // BLOBTUNE_WORKBENCH

TEST(CliMetricsTest, DeliveryServesItsLimitersAndStore) {
  const std::string body =
      RunAndScrape({BLOBTUNE_DELIVERY, "--mode", "blobs", "--concurrency", "2,auto",
                    "--messages", "20", "--rounds", "1", "--time-scale", "0.02"});
  for (const std::string limiter : {"blobs_c2", "blobs_cauto"}) {
    const std::optional<double> successes = SampleValue(
        body, "blobtune_limiter_permits_total{limiter=\"" + limiter + "\",outcome=\"success\"}");
    ASSERT_TRUE(successes.has_value()) << limiter << " missing from:\n" << body.substr(0, 2000);
    // Two rounds (warm-up and one measured) of 20 messages, each a get, a put and a delete.
    EXPECT_GE(*successes, 2 * 20 * 3) << limiter;
  }
  const std::optional<double> puts = SampleValue(
      body, "blobtune_store_operations_total{store=\"delivery\",op=\"put\",namespace=\"incoming\"}");
  ASSERT_TRUE(puts.has_value()) << body.substr(0, 3000);
  EXPECT_GE(*puts, 4 * 20);  // Two configurations x two rounds x 20 messages.
}

TEST(CliMetricsTest, ServerServesItsLimitersAndStoreOnItsOwnPort) {
  blobtune::testing::TempDir dir("blobtune-cli-metrics");
  std::unique_ptr<ChildProcess> server = ChildProcess::Start(
      {BLOBTUNE_SERVER, "--listen", "127.0.0.1:0", "--data-dir", dir.Sub("data")},
      ChildProcess::Read::kStdout);
  ASSERT_NE(server, nullptr);
  std::optional<std::string> listening = server->WaitForLine("listening on", 60s);
  ASSERT_TRUE(listening.has_value()) << server->output();
  const std::optional<Endpoint> at = FindEndpoint(*listening, "listening on ");
  ASSERT_TRUE(at.has_value()) << *listening;
  // One read of a missing blob passes through the read limiter.
  StatusOr<HttpResponse> absent = HttpGet(at->host, at->port, "/blobs/default/absent");
  ASSERT_TRUE(absent.ok()) << absent.status();
  EXPECT_EQ(absent->result_int(), 404u);
  const StatusOr<HttpResponse> scrape = HttpGet(at->host, at->port, "/metrics");
  ASSERT_TRUE(scrape.ok()) << scrape.status();
  ASSERT_EQ(scrape->result_int(), 200u);
  const testing::CommandResult lint = testing::PromtoolCheckMetrics(scrape->body());
  EXPECT_EQ(lint.exit_code, 0) << lint.output;
  EXPECT_EQ(lint.output, "") << "promtool found lint problems";
  for (const std::string limiter : {"read", "write"}) {
    const std::optional<double> limit =
        SampleValue(scrape->body(), "blobtune_limiter_limit{limiter=\"" + limiter + "\"}");
    ASSERT_TRUE(limit.has_value()) << limiter << " missing from:\n"
                                   << scrape->body().substr(0, 2000);
    EXPECT_GE(*limit, 1);
  }
  double read_permits = 0;  // The 404's permit, however the server reported it.
  for (const std::string outcome : {"success", "dropped", "ignored"}) {
    read_permits += SampleValue(scrape->body(), "blobtune_limiter_permits_total{limiter=\"read\","
                                                "outcome=\"" + outcome + "\"}")
                        .value_or(0);
  }
  EXPECT_EQ(read_permits, 1);
  server->Signal(SIGTERM);
  EXPECT_EQ(server->Wait(), 0);
}

}  // namespace
}  // namespace blobtune::metrics
