// The delivery benchmark's parts over real loopback TCP and a real LMDB store: both paths deliver
// every message exactly once, with and without injected server faults.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/limiter.h"
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

// Counts grants by partition.
class GrantsByPartition final : public tuner::LimiterObserver {
 public:
  void OnGranted(tuner::PartitionId partition, Duration) override {
    ++granted[partition.index == 0 ? 0 : 1];
  }
  std::atomic<int> granted[2] = {};
};

TEST_F(DeliveryTest, AReaderReadsDeliveredMessagesInItsOwnPartitionWhileTheDeliveryRuns) {
  auto server = StartServer(0);
  auto store = OpenStore();
  GrantsByPartition grants;
  tuner::LimiterOptions limiter_options;
  limiter_options.algorithm =
      tuner::MakeAlgorithm({.name = "fixed", .params = {{"limit", 3.0}}}).value();
  limiter_options.observer = &grants;
  limiter_options.partitions = {{.name = "delivery", .share = 0.67},
                                {.name = "reader", .share = 0.33, .priority = 1}};
  auto limiter = tuner::Limiter::Create(std::move(limiter_options)).value();
  DeliveryOptions options = options_;
  options.reader_rate = 20;  // 2,000 opens a second at this time scale.
  RunResult result = RunBlobPath(options, server->port(), *store, *limiter);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.delivered, kMessages);
  EXPECT_TRUE(VerifyDelivered(options, *store).ok());  // Reading took nothing away.
  // How many opens find a delivered message depends on the machine's speed (the first message
  // is done late); each one that does is granted in the reader's partition, and every step of
  // the delivery in the delivery's.
  EXPECT_EQ(grants.granted[1].load(), static_cast<int>(result.read_ms.size()));
  EXPECT_EQ(grants.granted[0].load(), static_cast<int>(3 * kMessages));  // get, put, delete.
  EXPECT_EQ(limiter->inflight(), 0);
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
