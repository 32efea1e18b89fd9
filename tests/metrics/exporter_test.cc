// The HTTP exporter: serving, basic auth, addresses and bind failures. One exporter is shared by
// the whole suite (destroying prometheus-cpp's server can take seconds).
#include "blobtune/metrics/exporter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "blobtune/tuner/fake_clock.h"
#include "blobtune/tuner/limiter.h"
#include "http_get.h"
#include "test_support.h"

namespace blobtune::metrics {
namespace {

using ::testing::HasSubstr;

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
    link = AttachTo(&SharedExporter::Get(), name, *limiter);
  }
  FakeClock clock;
  std::shared_ptr<std::atomic<int>> target = std::make_shared<std::atomic<int>>(4);
  std::unique_ptr<tuner::Limiter> limiter;
  Attachment link;
};

TEST(ExporterTest, ServesTheRegistryOnTheBoundPort) {
  Exporter& exporter = SharedExporter::Get();
  EXPECT_NE(exporter.port(), 0);
  EXPECT_EQ(exporter.address(), "127.0.0.1:" + std::to_string(exporter.port()));
  EXPECT_EQ(exporter.path(), "/metrics");

  ObservedLimiter observed("served");
  ASSERT_TRUE(observed.link.linked());
  for (int i = 0; i < 3; ++i) observed.limiter->TryAcquire()->Success();

  const testing::HttpResponse r = testing::HttpGet("127.0.0.1", exporter.port(), "/metrics");
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_THAT(r.content_type, HasSubstr("text/plain"));
  EXPECT_THAT(r.body, HasSubstr("blobtune_limiter_permits_total{limiter=\"served\","
                                "outcome=\"success\"} 3\n"));
  EXPECT_THAT(r.body, HasSubstr("blobtune_limiter_limit{limiter=\"served\"} 4\n"));
}

TEST(ExporterTest, WhatItServesPassesPromtoolCheckMetrics) {
  ObservedLimiter observed("linted");
  observed.limiter->TryAcquire()->Success();
  const testing::HttpResponse r =
      testing::HttpGet("127.0.0.1", SharedExporter::Get().port(), "/metrics");
  ASSERT_EQ(r.status, 200) << r.error;
  const testing::CommandResult check = testing::PromtoolCheckMetrics(r.body);
  EXPECT_EQ(check.exit_code, 0) << check.output << "\n--- exposition:\n" << r.body;
  EXPECT_EQ(check.output, "") << r.body;
}

TEST(ExporterTest, OtherPathsAreNotServed) {
  const testing::HttpResponse r =
      testing::HttpGet("127.0.0.1", SharedExporter::Get().port(), "/other");
  EXPECT_EQ(r.status, 404) << r.error;
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
  auto limiter = tuner::Limiter::Create({}).value();
  EXPECT_FALSE(AttachTo(nullptr, "x", *limiter).linked());
  // An unknown name links nothing either.
  EXPECT_FALSE(AttachTo(&SharedExporter::Get(), "never-added", *limiter).linked());
}

TEST(StatusPageTest, IsServedBesideMetricsAndShowsObservedLimiters) {
  Exporter& exporter = SharedExporter::Get();
  EXPECT_EQ(exporter.status_path(), "/status");
  ObservedLimiter observed("status-shown");
  // The sampler records once a second: wait for the state, under a deadline.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  testing::HttpResponse r;
  do {
    r = testing::HttpGet("127.0.0.1", exporter.port(), "/status");
    ASSERT_EQ(r.status, 200) << r.error;
  } while (r.body.find("data-limiter='status-shown'") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline);
  EXPECT_THAT(r.content_type, HasSubstr("text/html"));
  EXPECT_THAT(r.body, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(r.body, HasSubstr("data-limiter='status-shown'"));
  EXPECT_THAT(r.body, HasSubstr("<svg"));
  // /metrics is untouched by the page's callback.
  EXPECT_EQ(testing::HttpGet("127.0.0.1", exporter.port(), "/metrics").status, 200);
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
  EXPECT_EQ(testing::HttpGet("127.0.0.1", (*e)->port(), "/status").status, 404);
  EXPECT_EQ(testing::HttpGet("127.0.0.1", (*e)->port(), "/metrics").status, 200);
}

TEST(BasicAuthTest, ScrapesNeedTheCredentials) {
  StatusOr<std::unique_ptr<Exporter>> e = Exporter::Start(
      "127.0.0.1:0", {.basic_auth_username = "prom", .basic_auth_password = "s3cret"});
  ASSERT_TRUE(e.ok()) << e.status();
  const uint16_t port = (*e)->port();
  EXPECT_EQ(testing::HttpGet("127.0.0.1", port, "/metrics").status, 401);
  EXPECT_EQ(testing::HttpGet("127.0.0.1", port, "/metrics", "prom", "wrong").status, 401);
  EXPECT_EQ(testing::HttpGet("127.0.0.1", port, "/metrics", "other", "s3cret").status, 401);
  EXPECT_EQ(testing::HttpGet("127.0.0.1", port, "/metrics", "prom", "s3cret").status, 200);
  // The status page takes the same credentials.
  EXPECT_EQ(testing::HttpGet("127.0.0.1", port, "/status").status, 401);
  EXPECT_EQ(testing::HttpGet("127.0.0.1", port, "/status", "prom", "wrong").status, 401);
  const testing::HttpResponse page = testing::HttpGet("127.0.0.1", port, "/status", "prom", "s3cret");
  EXPECT_EQ(page.status, 200);
  EXPECT_THAT(page.body, HasSubstr("blobtune status"));
}

}  // namespace
}  // namespace blobtune::metrics
