// Each example program exposes its metrics with one flag: started with --metrics 127.0.0.1:0 it
// says where it serves, a scrape of that address passes `promtool check metrics` and carries
// the series of the limiters it ran, and SIGTERM afterwards ends it with status 0.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "common/child_process.h"
#include "http_get.h"
#include "test_support.h"

namespace blobtune::metrics {
namespace {

using blobtune::testing::ChildProcess;
using namespace std::chrono_literals;

// The value of the first sample line that starts with `series` (name and labels), if any.
std::optional<double> SampleValue(const std::string& exposition, const std::string& series) {
  const size_t at = exposition.find("\n" + series + " ");
  if (at == std::string::npos) return std::nullopt;
  return std::stod(exposition.substr(at + series.size() + 2));
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
    ADD_FAILURE() << argv[0] << " never said it was done; stderr:\n" << child->stderr_text();
    return "";
  }
  std::smatch m;
  if (!std::regex_search(*done, m, std::regex(R"(http://([0-9.]+):([0-9]+)(/\S*))"))) {
    ADD_FAILURE() << "no address in: " << *done;
    return "";
  }
  const auto port = static_cast<uint16_t>(std::stoi(m[2]));
  testing::HttpResponse scrape = testing::HttpGet(m[1], port, m[3]);
  EXPECT_EQ(scrape.status, 200) << scrape.error;
  const testing::CommandResult lint = testing::PromtoolCheckMetrics(scrape.body);
  EXPECT_EQ(lint.exit_code, 0) << lint.output;
  EXPECT_EQ(lint.output, "") << "promtool found lint problems";

  child->Signal(SIGTERM);
  EXPECT_EQ(child->Wait(), 0) << child->stderr_text();
  return scrape.body;
}

TEST(CliMetricsTest, WorkbenchServesEverySimulatedLimiter) {
  const std::string body = RunAndScrape(
      {BLOBTUNE_WORKBENCH, "--workload", BLOBTUNE_WORKLOADS_DIR "/delivery_model.json",
       BLOBTUNE_WORKLOADS_DIR "/multi_client.json", "--algorithm", "knee", "aimd"});
  for (const std::string limiter :
       {"delivery_model/knee", "delivery_model/aimd", "multi_client/knee/client0",
        "multi_client/knee/client1"}) {
    const std::optional<double> successes = SampleValue(
        body, "blobtune_limiter_permits_total{limiter=\"" + limiter + "\",outcome=\"success\"}");
    ASSERT_TRUE(successes.has_value()) << limiter << " missing from:\n" << body.substr(0, 2000);
    EXPECT_GT(*successes, 100) << limiter;
  }
  // Latencies are the simulated ones: the delivery model's accesses take milliseconds.
  const std::optional<double> count = SampleValue(
      body, "blobtune_limiter_permit_duration_seconds_count{limiter=\"delivery_model/knee\","
            "outcome=\"success\"}");
  const std::optional<double> sum = SampleValue(
      body, "blobtune_limiter_permit_duration_seconds_sum{limiter=\"delivery_model/knee\","
            "outcome=\"success\"}");
  ASSERT_TRUE(count.has_value() && sum.has_value()) << body.substr(0, 2000);
  EXPECT_GT(*sum / *count, 0.001);
  EXPECT_LT(*sum / *count, 10.0);
  const std::optional<double> increases = SampleValue(
      body, "blobtune_limiter_limit_changes_total{limiter=\"delivery_model/knee\","
            "direction=\"increase\"}");
  ASSERT_TRUE(increases.has_value());
  EXPECT_GT(*increases, 0);
}

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

}  // namespace
}  // namespace blobtune::metrics
