// A real Prometheus server scrapes a tuned workload: worker threads put and get blobs in a real
// BlobStore through a real Limiter (gradient2), exported by the Exporter on 127.0.0.1:0. The
// test asks Prometheus's HTTP API for the limit, inflight, throughput and latency quantiles, and
// for the shipped recording rules evaluated on them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <utility>  // Before Asio (Boost 1.74 with -std=c++20).
#include <vector>

#include "blobtune/metrics/exporter.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/limiter.h"
#include "common/wait_for.h"
#include "common/blocking_http_client.h"
#include "test_support.h"

extern char** environ;

namespace blobtune::metrics {
namespace {

using namespace std::chrono_literals;

constexpr auto kOverallTimeout = 90s;
constexpr const char* kRulesFile = BLOBTUNE_SOURCE_DIR "/metrics/rules/blobtune.rules.yml";
constexpr const char* kDashboardFile = BLOBTUNE_SOURCE_DIR "/metrics/dashboards/blobtune.json";

// A Grafana query with its template variables replaced by what Grafana would send.
std::string Expand(std::string expr) {
  const std::pair<std::string, std::string> vars[] = {
      {"$__rate_interval", "5s"}, {"$job", ".*"},   {"$instance", ".*"},
      {"$limiter", ".*"},         {"$store", ".*"},
  };
  for (const auto& [name, value] : vars) {
    for (size_t at = expr.find(name); at != std::string::npos; at = expr.find(name, at)) {
      expr.replace(at, name.size(), value);
      at += value.size();
    }
  }
  return expr;
}

// A port that was free a moment ago (Prometheus takes its address as a flag and cannot report a
// port it chose itself).
uint16_t FreePort() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor acceptor(
      io, boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

// Several threads doing acquire / put or get / release until stopped.
class TunedWorkload {
 public:
  TunedWorkload(Exporter& exporter, const std::string& directory) {
    tuner::LimiterOptions lo;
    lo.algorithm =
        tuner::MakeAlgorithm(
            tuner::ParseAlgorithmSpec("gradient2:min_limit=2,max_limit=64,initial_limit=8").value())
            .value();
    lo.observer = exporter.AddLimiter("put").value();
    limiter_ = tuner::Limiter::Create(std::move(lo)).value();

    store::LmdbStoreOptions so;
    so.directory = directory;
    so.namespaces = {"incoming", "payload"};
    so.durability = store::Durability::kNoSync;  // Keep the test off the disk's flush latency.
    so.observer = exporter.AddStore("blobs").value();
    store_ = store::OpenLmdbBlobStore(so).value();
    store_link_ = exporter.registry().FindStore("blobs")->Attach(*store_);

    for (int t = 0; t < kThreads; ++t) threads_.emplace_back([this, t] { Run(t); });
  }
  ~TunedWorkload() {
    stop_.store(true);
    for (auto& t : threads_) t.join();
  }
  TunedWorkload(const TunedWorkload&) = delete;
  TunedWorkload& operator=(const TunedWorkload&) = delete;

  uint64_t completed() const { return completed_.load(); }

 private:
  static constexpr int kThreads = 6;

  void Run(int thread) {
    const std::vector<std::byte> blob(4096, std::byte{42});
    for (uint64_t i = 0; !stop_.load(std::memory_order_relaxed); ++i) {
      StatusOr<tuner::Permit> permit = limiter_->Acquire(100ms);
      if (!permit.ok()) continue;
      const std::string id = std::to_string(thread) + "-" + std::to_string(i % 64);
      Status s =
          (i % 3 == 2) ? store_->Get("incoming", id).status() : store_->Put("incoming", id, blob);
      if (s.ok() || s.code() == StatusCode::kNotFound) {
        permit->Success(blob.size());
      } else {
        permit->Dropped();
      }
      completed_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  std::unique_ptr<tuner::Limiter> limiter_;
  std::unique_ptr<store::BlobStore> store_;
  Attachment store_link_;  // Declared after the store: unlinked first.
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> completed_{0};
  std::vector<std::thread> threads_;  // Last: joined (in the destructor) before the rest goes.
};

// Debian's prometheus on 127.0.0.1:`port`, its storage in `dir`; SIGTERM (then SIGKILL) at the end.
class PrometheusServer {
 public:
  PrometheusServer(const testing::TempDir& dir, uint16_t port, uint16_t target_port)
      : port_(port), log_(dir.Sub("prometheus.log")) {
    const std::string config = dir.Sub("prometheus.yml");
    std::ofstream(config) << "global:\n"
                          << "  scrape_interval: 500ms\n"
                          << "  evaluation_interval: 500ms\n"
                          << "rule_files:\n"
                          << "  - " << kRulesFile << "\n"
                          << "scrape_configs:\n"
                          << "  - job_name: blobtune\n"
                          << "    static_configs:\n"
                          << "      - targets: ['127.0.0.1:" << target_port << "']\n";
    std::vector<std::string> args = {
        BLOBTUNE_PROMETHEUS,
        "--config.file=" + config,
        "--storage.tsdb.path=" + dir.Sub("tsdb"),
        "--web.listen-address=127.0.0.1:" + std::to_string(port),
        "--log.level=warn",
    };
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~PrometheusServer() {
    if (pid_ <= 0) return;
    // A pidfd becomes readable when the child exits: wait for that, at most 10 s, then kill it.
    const int exited = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
    kill(pid_, SIGTERM);
    pollfd wait{exited, POLLIN, 0};
    if (exited < 0 || poll(&wait, 1, 10'000) != 1) kill(pid_, SIGKILL);
    if (exited >= 0) close(exited);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  bool started() const { return pid_ > 0; }
  bool running() const { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }
  uint16_t port() const { return port_; }
  std::string Log() const {
    std::ifstream in(log_);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

 private:
  uint16_t port_;
  std::string log_;
  pid_t pid_ = -1;
};

class RealPrometheusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StatusOr<std::unique_ptr<Exporter>> e = Exporter::Start("127.0.0.1:0");
    ASSERT_TRUE(e.ok()) << e.status();
    exporter_ = *std::move(e);
    workload_ = std::make_unique<TunedWorkload>(*exporter_, dir_.Sub("store"));
    prometheus_ = std::make_unique<PrometheusServer>(dir_, FreePort(), exporter_->port());
    ASSERT_TRUE(prometheus_->started());
  }
  void TearDown() override {
    prometheus_.reset();
    workload_.reset();
    exporter_.reset();
  }

  // One instant query: the API's status ("success", "error", or the transport error) and how
  // many series it returned.
  std::pair<std::string, size_t> Query(const std::string& query) {
    const StatusOr<examples::HttpResponse> r = examples::HttpGet(
        "127.0.0.1", prometheus_->port(), "/api/v1/query?query=" + testing::UrlEncode(query));
    if (!r.ok()) return {r.status().ToString(), 0};
    const nlohmann::json j = nlohmann::json::parse(r->body(), nullptr, false);
    if (j.is_discarded()) return {"unparsable answer: " + r->body(), 0};
    if (j.value("status", "") != "success") return {r->body(), 0};
    return {"success", j["data"]["result"].size()};
  }

  // Polls `query` until every returned sample satisfies `ok` (and there is at least one), or the
  // overall deadline passes. Returns the last values seen. Prometheus scrapes every 500 ms and
  // offers nothing to block on, so the API is asked every 200 ms.
  std::vector<double> WaitFor(const std::string& query, const std::function<bool(double)>& ok) {
    std::vector<double> values;
    std::string last_body;
    bool exited = false;
    const bool seen = blobtune::testing::WaitFor([&] {
      if (!prometheus_->running()) {
        exited = true;
        return true;
      }
      const StatusOr<examples::HttpResponse> r = examples::HttpGet(
          "127.0.0.1", prometheus_->port(), "/api/v1/query?query=" + testing::UrlEncode(query));
      last_body = r.ok() ? r->body() : r.status().ToString();
      values.clear();
      if (r.ok() && r->result_int() == 200) {
        const nlohmann::json j = nlohmann::json::parse(r->body(), nullptr, false);
        if (!j.is_discarded() && j.value("status", "") == "success") {
          for (const auto& sample : j["data"]["result"]) {
            values.push_back(std::stod(sample["value"][1].get<std::string>()));
          }
        }
      }
      bool all = !values.empty();
      for (double v : values) all = all && ok(v);
      return all;
    }, deadline_ - std::chrono::steady_clock::now(), 200ms);
    if (exited) {
      ADD_FAILURE() << "prometheus exited:\n" << prometheus_->Log();
      return {};
    }
    if (seen) return values;
    ADD_FAILURE() << "timed out waiting for " << query << "; last answer: " << last_body
                  << "\nprometheus log:\n"
                  << prometheus_->Log();
    return values;
  }

  testing::TempDir dir_;
  std::unique_ptr<Exporter> exporter_;
  std::unique_ptr<TunedWorkload> workload_;
  std::unique_ptr<PrometheusServer> prometheus_;
  const std::chrono::steady_clock::time_point deadline_ =
      std::chrono::steady_clock::now() + kOverallTimeout;
};

TEST_F(RealPrometheusTest, ScrapesLimitInflightThroughputAndLatencyQuantiles) {
  auto finite_positive = [](double v) { return std::isfinite(v) && v > 0; };

  // The target is up: Prometheus reached the exporter and parsed what it served.
  WaitFor("up{job=\"blobtune\"}", [](double v) { return v == 1; });
  // The limit lies within the declared bounds; inflight never exceeds the hard maximum.
  const std::vector<double> limit = WaitFor("blobtune_limiter_limit{limiter=\"put\"}",
                                            [](double v) { return v >= 2 && v <= 64; });
  const std::vector<double> inflight = WaitFor("blobtune_limiter_inflight{limiter=\"put\"}",
                                               [](double v) { return v >= 0 && v <= 64; });
  WaitFor("blobtune_limiter_queue_length{limiter=\"put\"}", [](double v) { return v >= 0; });
  // Throughput: successful permits per second over a few scrapes.
  const std::vector<double> rate =
      WaitFor("rate(blobtune_limiter_permits_total{limiter=\"put\",outcome=\"success\"}[5s])",
              finite_positive);
  ASSERT_FALSE(rate.empty());
  EXPECT_LT(rate.front(), 1e7) << "more completions per second than a machine can do";
  // Latency quantiles from the histogram: finite, positive, ordered, and under 10 s.
  const auto quantile = [](double q) {
    return "histogram_quantile(" + std::to_string(q) +
           ", sum by (le) (rate(blobtune_limiter_permit_duration_seconds_bucket{limiter=\"put\","
           "outcome=\"success\"}[5s])))";
  };
  const std::vector<double> p50 = WaitFor(quantile(0.5), finite_positive);
  const std::vector<double> p99 = WaitFor(quantile(0.99), finite_positive);
  ASSERT_FALSE(p50.empty());
  ASSERT_FALSE(p99.empty());
  EXPECT_LE(p50.front(), p99.front() * 1.5);  // Taken a moment apart: allow some drift.
  EXPECT_LT(p99.front(), 10.0);
  std::cout << "prometheus saw: limit " << limit.at(0) << ", inflight " << inflight.at(0) << ", "
            << rate.front() << " successful permits/s, p50 " << p50.front() * 1e3 << " ms, p99 "
            << p99.front() * 1e3 << " ms\n";
  // The store committed, in batches of at least one write.
  WaitFor("rate(blobtune_store_commits_total{store=\"blobs\",result=\"ok\"}[5s])", finite_positive);
  WaitFor(
      "histogram_quantile(0.5, sum by (le) "
      "(rate(blobtune_store_commit_batch_size_bucket{store=\"blobs\"}[5s])))",
      [](double v) { return v >= 1; });
  WaitFor("blobtune_store_map_used_bytes{store=\"blobs\"}", finite_positive);
  // The shipped recording rules evaluate on the real series.
  WaitFor("blobtune_limiter:throughput:rate1m{limiter=\"put\"}", finite_positive);
  WaitFor("blobtune_limiter:permit_duration_seconds:p99_1m{limiter=\"put\"}", finite_positive);
  WaitFor("blobtune_store:map_usage:ratio{store=\"blobs\"}",
          [](double v) { return v > 0 && v < 1; });
  EXPECT_GT(workload_->completed(), 0u);

  // Every query of the shipped dashboard is valid PromQL on the real series, and most panels
  // show data (a few series exist only when something goes wrong, e.g. errors by code).
  std::ifstream in(kDashboardFile);
  const nlohmann::json dashboard = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(dashboard.is_discarded());
  size_t queries = 0;
  size_t with_data = 0;
  for (const auto& panel : dashboard["panels"]) {
    if (!panel.contains("targets")) continue;
    for (const auto& target : panel["targets"]) {
      const std::string expr = Expand(target["expr"].get<std::string>());
      const auto [status, series] = Query(expr);
      EXPECT_EQ(status, "success") << panel["title"] << ": " << expr;
      ++queries;
      if (series > 0) ++with_data;
    }
  }
  std::cout << "dashboard: " << with_data << " of " << queries << " queries returned data\n";
  EXPECT_GE(queries, 20u);
  EXPECT_GE(with_data * 4, queries * 3);
}

}  // namespace
}  // namespace blobtune::metrics
