// The HTTP exporter: serving, basic auth, addresses and bind failures. One exporter is shared by
// the whole suite (destroying prometheus-cpp's server can take seconds).
#include "blobtune/metrics/exporter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "blobtune/tuner/limiter.h"
#include "common/blocking_http_client.h"
#include "common/fake_clock.h"
#include "test_support.h"

namespace blobtune::metrics {
namespace {

using examples::HttpGet;
using examples::HttpResponse;
using ::testing::HasSubstr;
namespace http = boost::beast::http;

// The status of GET `path` on 127.0.0.1:port with these credentials, 0 when nothing answered.
unsigned StatusOfGet(uint16_t port, const std::string& path, const std::string& user = "",
                     const std::string& password = "") {
  StatusOr<HttpResponse> r =
      HttpGet("127.0.0.1", port, path, {.username = user, .password = password});
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->result_int() : 0;
}

class SharedExporter : public ::testing::Environment {
 public:
  static Exporter& Get() { return *exporter_; }
  void SetUp() override {
    StatusOr<std::unique_ptr<Exporter>> e = Exporter::Start("127.0.0.1:0");
    ASSERT_TRUE(e.ok()) << e.status();
    exporter_ = *std::move(e);
  }
  void TearDown() override { exporter_.reset(); }

 private:
  static inline std::unique_ptr<Exporter> exporter_;
};
[[maybe_unused]] ::testing::Environment* const kSharedExporter =
    ::testing::AddGlobalTestEnvironment(new SharedExporter);

// A limiter with limit 4 observed under `name` by the shared exporter.
struct ObservedLimiter {
  explicit ObservedLimiter(const std::string& name) {
    tuner::LimiterOptions options;
    options.algorithm = std::make_unique<testing::SteeredAlgorithm>(target);
    options.clock = &clock;
    options.observer = LimiterObserverOf(&SharedExporter::Get(), name);
    limiter = tuner::Limiter::Create(std::move(options)).value();
  }
  FakeClock clock;
  std::shared_ptr<std::atomic<int>> target = std::make_shared<std::atomic<int>>(4);
  std::unique_ptr<tuner::Limiter> limiter;
};

TEST(ExporterTest, ServesTheRegistryOnTheBoundPort) {
  Exporter& exporter = SharedExporter::Get();
  EXPECT_NE(exporter.port(), 0);
  EXPECT_EQ(exporter.address(), "127.0.0.1:" + std::to_string(exporter.port()));
  EXPECT_EQ(exporter.path(), "/metrics");

  ObservedLimiter observed("served");
  for (int i = 0; i < 3; ++i) observed.limiter->TryAcquire()->Success();

  const StatusOr<HttpResponse> r = HttpGet("127.0.0.1", exporter.port(), "/metrics");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->result_int(), 200);
  EXPECT_THAT(std::string((*r)[http::field::content_type]), HasSubstr("text/plain"));
  EXPECT_THAT(r->body(), HasSubstr("blobtune_limiter_permits_total{limiter=\"served\","
                                   "outcome=\"success\"} 3\n"));
  EXPECT_THAT(r->body(), HasSubstr("blobtune_limiter_limit{limiter=\"served\"} 4\n"));
}

TEST(ExporterTest, WhatItServesPassesPromtoolCheckMetrics) {
  ObservedLimiter observed("linted");
  observed.limiter->TryAcquire()->Success();
  const StatusOr<HttpResponse> r = HttpGet("127.0.0.1", SharedExporter::Get().port(), "/metrics");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->result_int(), 200);
  const testing::CommandResult check = testing::PromtoolCheckMetrics(r->body());
  EXPECT_EQ(check.exit_code, 0) << check.output << "\n--- exposition:\n" << r->body();
  EXPECT_EQ(check.output, "") << r->body();
}

TEST(ExporterTest, OtherPathsAreNotServed) {
  EXPECT_EQ(StatusOfGet(SharedExporter::Get().port(), "/other"), 404u);
}

TEST(ExporterTest, ABusyPortIsUnavailable) {
  const std::string busy = "127.0.0.1:" + std::to_string(SharedExporter::Get().port());
  StatusOr<std::unique_ptr<Exporter>> second = Exporter::Start(busy);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()), HasSubstr(busy));
}

TEST(ExporterTest, RejectsBadAddressesAndOptions) {
  for (const char* bad : {"", "host:", "127.0.0.1:99999", "127.0.0.1:80s", "::1:9464", "[::1]",
                          "[]:80", "a b:80", "127.0.0.1:-1"}) {
    EXPECT_EQ(Exporter::Start(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(Exporter::Start("127.0.0.1:0", {.path = "metrics"}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Exporter::Start("127.0.0.1:0", {.threads = 0}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Exporter::Start("127.0.0.1:0", {.basic_auth_password = "x"}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(NormalizeListenAddressTest, DefaultsTheHostToLoopback) {
  EXPECT_EQ(NormalizeListenAddress("9464").value(), "127.0.0.1:9464");
  EXPECT_EQ(NormalizeListenAddress(":9464").value(), "127.0.0.1:9464");
  EXPECT_EQ(NormalizeListenAddress("0.0.0.0:80").value(), "0.0.0.0:80");
  EXPECT_EQ(NormalizeListenAddress("[::1]:0").value(), "[::1]:0");
  EXPECT_EQ(NormalizeListenAddress(Exporter::kDefaultAddress).value(), "127.0.0.1:9464");
}

TEST(OptionalExporterTest, ANullExporterObservesNothing) {
  EXPECT_EQ(LimiterObserverOf(nullptr, "x"), nullptr);
  EXPECT_EQ(StoreObserverOf(nullptr, "x"), nullptr);
  EXPECT_EQ(LimiterObserverOf(&SharedExporter::Get(), ""), nullptr);
}

TEST(OptionalExporterTest, ALimiterBuiltAgainUnderItsNameContinuesItsSeries) {
  Exporter& exporter = SharedExporter::Get();
  for (int built = 1; built <= 2; ++built) {
    ObservedLimiter observed("rebuilt");
    observed.limiter->TryAcquire()->Success();
    const LimiterSnapshot s = exporter.registry().FindLimiter("rebuilt")->Snapshot();
    EXPECT_EQ(s.permits[static_cast<size_t>(PermitEnd::kSuccess)], static_cast<uint64_t>(built));
    EXPECT_TRUE(s.gauges.has_value()) << "the rebuilt limiter is linked";
  }
  EXPECT_FALSE(exporter.registry().FindLimiter("rebuilt")->Snapshot().gauges.has_value());
}

TEST(ExporterTest, ConstantLabelsAreOnEverySeriesAndMustNotClash) {
  StatusOr<std::unique_ptr<Exporter>> e = Exporter::Start(
      "127.0.0.1:0", {.status_path = "", .constant_labels = {{"service", "mail"}}});
  ASSERT_TRUE(e.ok()) << e.status();
  const StatusOr<HttpResponse> r = HttpGet("127.0.0.1", (*e)->port(), "/metrics");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->body(), HasSubstr("blobtune_build_info{service=\"mail\",version=\""));
  EXPECT_THAT(r->body(), HasSubstr("process_open_fds{service=\"mail\"} "));
  EXPECT_EQ(Exporter::Start("127.0.0.1:0", {.constant_labels = {{"limiter", "x"}}})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(StatusPageTest, IsServedBesideMetricsAndShowsObservedLimiters) {
  Exporter& exporter = SharedExporter::Get();
  EXPECT_EQ(exporter.status_path(), "/status");
  ObservedLimiter observed("status-shown");
  // The sampler records once a second: wait for the state, under a deadline.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  StatusOr<HttpResponse> r = Status::Unavailable("not fetched yet");
  do {
    r = HttpGet("127.0.0.1", exporter.port(), "/status");
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->result_int(), 200u);
  } while (r->body().find("data-limiter='status-shown'") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline);
  EXPECT_THAT(std::string((*r)[http::field::content_type]), HasSubstr("text/html"));
  EXPECT_THAT(r->body(), HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(r->body(), HasSubstr("data-limiter='status-shown'"));
  EXPECT_THAT(r->body(), HasSubstr("<svg"));
  // /metrics is untouched by the page's callback.
  EXPECT_EQ(StatusOfGet(exporter.port(), "/metrics"), 200u);
}

TEST(StatusPageTest, CanBeTurnedOffAndMustNotShadowMetrics) {
  EXPECT_EQ(Exporter::Start("127.0.0.1:0", {.status_path = "/metrics"}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Exporter::Start("127.0.0.1:0", {.status_path = "status"}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Exporter::Start("127.0.0.1:0", {.status_interval = std::chrono::milliseconds(0)})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  StatusOr<std::unique_ptr<Exporter>> e = Exporter::Start("127.0.0.1:0", {.status_path = ""});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(StatusOfGet((*e)->port(), "/status"), 404u);
  EXPECT_EQ(StatusOfGet((*e)->port(), "/metrics"), 200u);
}

TEST(BasicAuthTest, ScrapesNeedTheCredentials) {
  StatusOr<std::unique_ptr<Exporter>> e = Exporter::Start(
      "127.0.0.1:0", {.basic_auth_username = "prom", .basic_auth_password = "s3cret"});
  ASSERT_TRUE(e.ok()) << e.status();
  const uint16_t port = (*e)->port();
  EXPECT_EQ(StatusOfGet(port, "/metrics"), 401u);
  EXPECT_EQ(StatusOfGet(port, "/metrics", "prom", "wrong"), 401u);
  EXPECT_EQ(StatusOfGet(port, "/metrics", "other", "s3cret"), 401u);
  EXPECT_EQ(StatusOfGet(port, "/metrics", "prom", "s3cret"), 200u);
  // The status page takes the same credentials.
  EXPECT_EQ(StatusOfGet(port, "/status"), 401u);
  EXPECT_EQ(StatusOfGet(port, "/status", "prom", "wrong"), 401u);
  const StatusOr<HttpResponse> page =
      HttpGet("127.0.0.1", port, "/status", {.username = "prom", .password = "s3cret"});
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->result_int(), 200u);
  EXPECT_THAT(page->body(), HasSubstr("blobtune status"));
}

}  // namespace
}  // namespace blobtune::metrics
