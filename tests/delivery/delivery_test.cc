// The delivery benchmark's parts over real loopback TCP and a real LMDB store: both paths deliver
// every message exactly once, with and without injected server faults.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "common/temp_dir.h"
#include "delivery_parts.h"
#include "delivery_run.h"
#include "mail_server.h"

namespace blobtune::delivery {
namespace {

class DeliveryTest : public ::testing::Test {
 protected:
  std::unique_ptr<MailServer> StartServer(double fault_rate) {
    MailServerOptions options;
    options.messages = kMessages;
    options.message_size = kSize;
    options.time_scale = kTimeScale;
    options.fault_rate = fault_rate;
    auto server = MailServer::Start(options);
    EXPECT_TRUE(server.ok()) << server.status();
    return std::move(server).value();
  }

  std::unique_ptr<store::BlobStore> OpenStore() { return OpenDeliveryStore(dir_.Sub("store")); }

  static void ExpectEachDeletedOnce(MailServer& server) {
    MailServerReport report = server.Report();
    EXPECT_EQ(report.remaining, 0u);
    EXPECT_EQ(report.applied_deletes.size(), kMessages);
    for (const auto& [id, deletes] : report.applied_deletes) EXPECT_EQ(deletes, 1) << id;
  }

  static constexpr size_t kMessages = 20;
  static constexpr size_t kSize = 10 * 1024;
  static constexpr double kTimeScale = 0.01;
  DeliveryOptions options_{.messages = kMessages, .message_size = kSize, .time_scale = kTimeScale};
  blobtune::testing::TempDir dir_{"blobtune-delivery"};
};

TEST_F(DeliveryTest, BlobPathDeliversEveryMessageThroughTheLimiter) {
  auto server = StartServer(0);
  auto store = OpenStore();
  auto limiter = FixedLimiter(3);
  RunResult result = RunBlobPath(options_, server->port(), *store, *limiter);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.delivered, kMessages);
  EXPECT_EQ(limiter->inflight(), 0);
  EXPECT_TRUE(VerifyDelivered(options_, *store).ok());
  MailServerReport report = server->Report();
  EXPECT_EQ(report.uploads, kMessages);
  EXPECT_EQ(report.syncs, 1u);
  ExpectEachDeletedOnce(*server);
}

TEST_F(DeliveryTest, BlobPathLosesNothingWhenTheServerMisbehaves) {
  auto server = StartServer(0.2);
  auto store = OpenStore();
  auto limiter = FixedLimiter(4);
  RunResult result = RunBlobPath(options_, server->port(), *store, *limiter);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_GT(result.retries, 0u);
  EXPECT_GT(server->Report().faults, 0u);
  EXPECT_TRUE(VerifyDelivered(options_, *store).ok());
  ExpectEachDeletedOnce(*server);
}

TEST_F(DeliveryTest, LegacyPathDeliversEveryMessage) {
  auto server = StartServer(0);
  auto store = OpenStore();
  RunResult result = RunLegacyPath(options_, server->port(), *store);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.delivered, kMessages);
  EXPECT_TRUE(VerifyDelivered(options_, *store).ok());
  ExpectEachDeletedOnce(*server);
}

TEST_F(DeliveryTest, VerificationNoticesAMissingMessage) {
  auto server = StartServer(0);
  auto store = OpenStore();
  auto limiter = FixedLimiter(2);
  ASSERT_TRUE(RunBlobPath(options_, server->port(), *store, *limiter).status.ok());
  ASSERT_TRUE(store->Erase(kPayload, "msg-000007").ok());
  Status verified = VerifyDelivered(options_, *store);
  EXPECT_EQ(verified.code(), StatusCode::kNotFound) << verified;
  EXPECT_NE(verified.message().find("msg-000007"), std::string_view::npos);
}

TEST(MailServerTest, RejectsBadOptions) {
  EXPECT_EQ(MailServer::Start({.time_scale = 0}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MailServer::Start({.fault_rate = 1.5}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MailServer::Start({.address = "not an address"}).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace blobtune::delivery
