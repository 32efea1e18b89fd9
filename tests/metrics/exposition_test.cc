// The text exposition of a registry: names, types, labels and units, and promtool's verdict.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "blobtune/base/version.h"
#include "blobtune/metrics/registry.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/tuner/limiter.h"
#include "common/fake_clock.h"
#include "test_support.h"

namespace blobtune::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MetricsRegistryTest, NamesAreUniqueAndNotEmpty) {
  MetricsRegistry registry;
  ASSERT_TRUE(registry.AddLimiter("put").ok());
  EXPECT_EQ(registry.AddLimiter("put").status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.AddLimiter("").status().code(), StatusCode::kInvalidArgument);
  // Limiters and stores are separate name spaces (different labels).
  EXPECT_TRUE(registry.AddStore("put").ok());
  EXPECT_EQ(registry.AddStore("put").status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(registry.FindLimiter("put"), nullptr);
  EXPECT_EQ(registry.FindLimiter("get"), nullptr);
  EXPECT_NE(registry.FindStore("put"), nullptr);
}

TEST(MetricsRegistryTest, AnEmptyRegistryExposesOnlyItsBuildInfo) {
  MetricsRegistry registry;
  EXPECT_EQ(registry.TextExposition(),
            "# HELP blobtune_build_info The blobtune library this program runs (value always 1).\n"
            "# TYPE blobtune_build_info gauge\n"
            "blobtune_build_info{version=\"" + std::string(kVersion) + "\"} 1\n");
}

TEST(MetricsRegistryTest, ExposesEveryConnectionEndAndTimeoutFromTheStart) {
  MetricsRegistry registry;
  HttpMetrics* http = registry.AddHttpServer().value();
  std::string text = registry.TextExposition();
  for (size_t i = 0; i < kConnectionEndCount; ++i) {
    const std::string reason(ConnectionEndName(static_cast<ConnectionEnd>(i)));
    EXPECT_THAT(text, HasSubstr("blobtune_http_connections_closed_total{reason=\"" + reason +
                                "\"} 0\n"));
  }
  for (size_t i = 0; i < kHttpTimeoutCount; ++i) {
    const std::string kind(HttpTimeoutName(static_cast<HttpTimeout>(i)));
    EXPECT_THAT(text, HasSubstr("blobtune_http_timeouts_total{kind=\"" + kind + "\"} 0\n"));
  }
  http->RecordConnectionEnd(ConnectionEnd::kHeaderTimeout);
  http->RecordConnectionEnd(ConnectionEnd::kHeaderTimeout);
  http->RecordConnectionEnd(ConnectionEnd::kRefusedOverCap);
  http->RecordTimeout(HttpTimeout::kHeader);
  text = registry.TextExposition();
  EXPECT_THAT(text, HasSubstr(
                        "blobtune_http_connections_closed_total{reason=\"header_timeout\"} 2\n"));
  EXPECT_THAT(text, HasSubstr(
                        "blobtune_http_connections_closed_total{reason=\"refused_over_cap\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_http_timeouts_total{kind=\"header\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_http_timeouts_total{kind=\"body\"} 0\n"));
}

TEST(MetricsRegistryTest, ExposesTheParkedRequestsOfEachGateFromTheStart) {
  MetricsRegistry registry;
  HttpMetrics* http = registry.AddHttpServer().value();
  std::string text = registry.TextExposition();
  EXPECT_THAT(text, HasSubstr("# TYPE blobtune_http_requests_parked gauge\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_http_requests_parked{limiter=\"read\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_http_requests_parked{limiter=\"write\"} 0\n"));
  http->SetParked(HttpGate::kWrite, 37);
  http->SetParked(HttpGate::kRead, 5);
  http->SetParked(HttpGate::kRead, 2);
  text = registry.TextExposition();
  EXPECT_THAT(text, HasSubstr("blobtune_http_requests_parked{limiter=\"read\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_http_requests_parked{limiter=\"write\"} 37\n"));
}

TEST(MetricsRegistryTest, ExposesTheHttpServerAndTheProcessOnceAdded) {
  MetricsRegistry registry;
  HttpMetrics* http = registry.AddHttpServer().value();
  EXPECT_EQ(registry.AddHttpServer().status().code(), StatusCode::kAlreadyExists);
  http->Record("GET", 200, std::chrono::milliseconds(3));
  http->Record("GET", 200, std::chrono::milliseconds(30));
  http->Record("BREW", 503, std::chrono::microseconds(10));
  http->Record("GET", 1000, std::chrono::milliseconds(1));  // Not a status code: not counted.
  std::string text = registry.TextExposition();
  EXPECT_THAT(text, HasSubstr("blobtune_http_requests_total{method=\"GET\",code=\"200\"} 2\n"));
  EXPECT_THAT(text,
              HasSubstr("blobtune_http_requests_total{method=\"other\",code=\"503\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_http_request_duration_seconds_bucket{method=\"GET\","
                              "le=\"0.005\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("blobtune_http_request_duration_seconds_count{method=\"GET\"} 2\n"));
  EXPECT_THAT(text, Not(HasSubstr("method=\"PUT\"")));
  EXPECT_THAT(text, Not(HasSubstr("process_")));
  registry.AddProcessMetrics();
  text = registry.TextExposition();
  for (const char* name : {"process_cpu_seconds_total ", "process_resident_memory_bytes ",
                           "process_virtual_memory_bytes ", "process_open_fds ",
                           "process_max_fds ", "process_start_time_seconds "}) {
    EXPECT_THAT(text, HasSubstr(std::string("\n") + name)) << name;
  }
  const testing::CommandResult r = testing::PromtoolCheckMetrics(text);
  EXPECT_EQ(r.exit_code, 0) << r.output << "\n--- exposition:\n" << text;
  EXPECT_EQ(r.output, "") << "promtool found lint problems";
}

TEST(MetricsRegistryTest, ProcessStartTimeIsWhenThisProcessStarted) {
  MetricsRegistry registry;
  registry.AddProcessMetrics();
  const std::string text = registry.TextExposition();
  const std::string name = "\nprocess_start_time_seconds ";
  const size_t at = text.find(name);
  ASSERT_NE(at, std::string::npos) << text;
  const double started = std::stod(text.substr(at + name.size()));
  const double now = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  EXPECT_LE(started, now + 1);
  EXPECT_GT(started, now - 3600) << "the test binary started within the hour";
}

class ExpositionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    limiter_metrics_ = registry_.AddLimiter("put").value();
    store_metrics_ = registry_.AddStore("blobs").value();
    tuner::LimiterOptions lo;
    lo.algorithm = std::make_unique<testing::SteeredAlgorithm>(target_);
    lo.clock = &clock_;
    lo.observer = limiter_metrics_;
    limiter_ = tuner::Limiter::Create(std::move(lo)).value();
    store::LmdbStoreOptions so;
    so.directory = dir_.Sub("store");
    so.namespaces = {"incoming", "payload"};
    so.durability = store::Durability::kNoSync;
    so.observer = store_metrics_;
    store_ = store::OpenLmdbBlobStore(so).value();
    store_link_ = store_metrics_->Attach(*store_);
  }

  // Puts a blob under a permit that takes `latency` of fake time.
  void Put(const std::string& id, std::chrono::nanoseconds latency) {
    auto permit = limiter_->TryAcquire();
    ASSERT_TRUE(permit);
    const std::vector<std::byte> bytes(64, std::byte{1});
    ASSERT_TRUE(store_->Put("incoming", id, bytes).ok());
    clock_.Advance(latency);
    permit->Success(bytes.size());
  }

  testing::TempDir dir_;
  FakeClock clock_;
  std::shared_ptr<std::atomic<int>> target_ = std::make_shared<std::atomic<int>>(4);
  MetricsRegistry registry_;
  LimiterMetrics* limiter_metrics_ = nullptr;
  StoreMetrics* store_metrics_ = nullptr;
  std::unique_ptr<tuner::Limiter> limiter_;
  std::unique_ptr<store::BlobStore> store_;
  Attachment store_link_;
};

TEST_F(ExpositionTest, ExposesLimiterSeriesInBaseUnitsWithTheLimiterLabel) {
  Put("a", std::chrono::milliseconds(3));
  Put("b", std::chrono::milliseconds(30));
  (void)limiter_->TryAcquire();  // One ignored permit.
  const std::string text = registry_.TextExposition();
  EXPECT_THAT(text, HasSubstr("# TYPE blobtune_limiter_limit gauge\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_limiter_limit{limiter=\"put\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_limiter_inflight{limiter=\"put\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_limiter_queue_length{limiter=\"put\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_limiter_info{limiter=\"put\",algorithm=\"steered\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("blobtune_limiter_algorithm_state{limiter=\"put\",state=\"steady\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("blobtune_limiter_baseline_latency_seconds{limiter=\"put\"} 0.002\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_limiter_max_throughput{limiter=\"put\"} 1234.5\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_limiter_min_limit{limiter=\"put\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_limiter_max_limit{limiter=\"put\"} 64\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE blobtune_limiter_permits_total counter\n"));
  EXPECT_THAT(text,
              HasSubstr("blobtune_limiter_permits_total{limiter=\"put\",outcome=\"success\"} 2\n"));
  EXPECT_THAT(text,
              HasSubstr("blobtune_limiter_permits_total{limiter=\"put\",outcome=\"ignored\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("blobtune_limiter_permits_total{limiter=\"put\",outcome=\"timeout\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE blobtune_limiter_permit_duration_seconds histogram\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_limiter_permit_duration_seconds_bucket{limiter=\"put\","
                              "outcome=\"success\",le=\"0.005\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_limiter_permit_duration_seconds_bucket{limiter=\"put\","
                              "outcome=\"success\",le=\"+Inf\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_limiter_permit_duration_seconds_sum{limiter=\"put\","
                              "outcome=\"success\"} 0.033"));
  EXPECT_THAT(text, HasSubstr("blobtune_limiter_queue_wait_seconds_count{limiter=\"put\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_limiter_limit_changes_total{limiter=\"put\","
                              "direction=\"increase\"} 0\n"));
}

TEST_F(ExpositionTest, ExposesStoreSeriesWithStoreOpAndNamespaceLabels) {
  Put("a", std::chrono::milliseconds(1));
  EXPECT_FALSE(store_->Get("incoming", "missing").ok());
  const std::string text = registry_.TextExposition();
  EXPECT_THAT(text, HasSubstr("blobtune_store_operations_total{store=\"blobs\",op=\"put\","
                              "namespace=\"incoming\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_store_blob_bytes_total{store=\"blobs\",op=\"put\","
                              "namespace=\"incoming\"} 64\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_store_operations_total{store=\"blobs\",op=\"get\","
                              "namespace=\"payload\"} 0\n"));
  EXPECT_THAT(text, Not(HasSubstr("blobtune_store_blob_bytes_total{store=\"blobs\",op=\"erase\"")));
  EXPECT_THAT(text, HasSubstr("blobtune_store_errors_total{store=\"blobs\",op=\"get\","
                              "code=\"NOT_FOUND\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_store_commits_total{store=\"blobs\",result=\"ok\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("blobtune_store_commit_batch_size_bucket{store=\"blobs\",le=\"1\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_store_commit_duration_seconds_count{store=\"blobs\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_store_map_size_bytes{store=\"blobs\"} 67108864\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_store_map_max_bytes{store=\"blobs\"} 68719476736\n"));
  EXPECT_THAT(text, HasSubstr("blobtune_store_map_used_bytes{store=\"blobs\"} "));
  EXPECT_THAT(text, HasSubstr("blobtune_store_queued_writes{store=\"blobs\"} 0\n"));
}

TEST_F(ExpositionTest, PassesPromtoolCheckMetrics) {
  Put("a", std::chrono::milliseconds(2));
  (void)limiter_->TryAcquire();
  EXPECT_FALSE(store_->Get("payload", "missing").ok());
  const std::string text = registry_.TextExposition();
  const testing::CommandResult r = testing::PromtoolCheckMetrics(text);
  EXPECT_EQ(r.exit_code, 0) << r.output << "\n--- exposition:\n" << text;
  EXPECT_EQ(r.output, "") << "promtool found lint problems";
}

}  // namespace
}  // namespace blobtune::metrics
