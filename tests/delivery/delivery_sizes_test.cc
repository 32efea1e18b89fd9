// The delivery benchmark at message sizes and counts far from the default 100 x 100 KiB, over
// real loopback TCP and a real LMDB store: big messages and big syncs go through, and a body over
// one of the mail server's limits, or one its storage has no room for, is a clear error that is
// not retried.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "common/temp_dir.h"
#include "delivery_parts.h"
#include "delivery_run.h"
#include "mail_server.h"

namespace blobtune::delivery {
namespace {

constexpr double kTimeScale = 0.01;

class DeliverySizesTest : public ::testing::Test {
 protected:
  // Starts a server with `messages` of `size` bytes; `limits` may lower its body limits.
  std::unique_ptr<MailServer> StartServer(size_t messages, size_t size,
                                          MailServerOptions limits = {}) {
    options_ = {.messages = messages, .message_size = size, .time_scale = kTimeScale};
    limits.messages = messages;
    limits.message_size = size;
    limits.time_scale = kTimeScale;
    auto server = MailServer::Start(limits);
    EXPECT_TRUE(server.ok()) << server.status();
    return std::move(server).value();
  }

  std::unique_ptr<store::BlobStore> OpenStore() { return OpenDeliveryStore(dir_.Sub("store")); }

  // Runs the blob path and checks that every message arrived intact and was deleted once.
  void ExpectBlobPathDeliversAll(MailServer& server, int limit) {
    auto store = OpenStore();
    auto limiter = FixedLimiter(limit);
    RunResult result = RunBlobPath(options_, server.port(), *store, *limiter);
    ASSERT_TRUE(result.status.ok()) << result.status;
    EXPECT_EQ(result.delivered, options_.messages);
    EXPECT_EQ(result.retries, 0u);
    Status verified = VerifyDelivered(options_, *store);
    EXPECT_TRUE(verified.ok()) << verified;
    MailServerReport report = server.Report();
    EXPECT_EQ(report.remaining, 0u);
    EXPECT_EQ(report.uploads, options_.messages);
    EXPECT_EQ(report.syncs, 1u);
    EXPECT_EQ(report.too_large, 0u);
  }

  // Runs the blob path, which must fail with RESOURCE_EXHAUSTED whose message holds `what` and
  // `limit`, retrying nothing and leaving no permit held.
  void ExpectClearErrorNotRetried(MailServer& server, std::string_view what,
                                  std::string_view limit) {
    auto store = OpenStore();
    auto limiter = FixedLimiter(2);
    RunResult result = RunBlobPath(options_, server.port(), *store, *limiter);
    EXPECT_EQ(result.status.code(), StatusCode::kResourceExhausted) << result.status;
    EXPECT_NE(result.status.message().find(what), std::string_view::npos) << result.status;
    EXPECT_NE(result.status.message().find(limit), std::string_view::npos) << result.status;
    EXPECT_EQ(result.retries, 0u);
    EXPECT_EQ(limiter->inflight(), 0);
  }

  DeliveryOptions options_;
  blobtune::testing::TempDir dir_{"blobtune-delivery-sizes"};
};

TEST_F(DeliverySizesTest, BlobPathDeliversOneTenMebibyteMessage) {
  auto server = StartServer(1, 10 << 20);
  ExpectBlobPathDeliversAll(*server, 2);
}

TEST_F(DeliverySizesTest, BlobPathDeliversAThousandSmallMessagesAndTheirBigSync) {
  auto server = StartServer(1000, 10 << 10);  // A 4.6 MB sync, over Beast's default 1 MiB.
  ExpectBlobPathDeliversAll(*server, 10);
}

TEST_F(DeliverySizesTest, LegacyPathDownloadsBatchesOverEightMebibytes) {
  auto server = StartServer(10, 1 << 20);  // One 10 MiB answer: over Beast's default 8 MiB.
  auto store = OpenStore();
  RunResult result = RunLegacyPath(options_, server->port(), *store);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.delivered, options_.messages);
  EXPECT_TRUE(VerifyDelivered(options_, *store).ok());
  EXPECT_EQ(server->Report().remaining, 0u);
}

TEST_F(DeliverySizesTest, AnUploadOverTheServersLimitIsAClearErrorNotRetried) {
  auto server = StartServer(1, 100 << 10, {.max_upload_bytes = 64 << 10});
  ExpectClearErrorNotRetried(*server, "413", "max_upload_bytes of 65536 bytes");
  MailServerReport report = server->Report();
  EXPECT_EQ(report.too_large, 1u);
  EXPECT_EQ(report.uploads, 0u);
  EXPECT_EQ(report.remaining, 1u);  // Not deleted upstream: nothing was lost.
}

TEST_F(DeliverySizesTest, AnUploadTheServerHasNoRoomForIsAClearErrorNotRetried) {
  constexpr size_t kSealed = (10 << 10) + 16;  // A message and its encryption tag.
  auto server = StartServer(3, 10 << 10, {.max_outgoing_bytes = 2 * kSealed + 100});
  ExpectClearErrorNotRetried(*server, "507, the server's storage is full", "max_outgoing_bytes");
  MailServerReport report = server->Report();
  EXPECT_EQ(report.storage_full, 1u);
  EXPECT_EQ(report.uploads, 2u);
}

TEST_F(DeliverySizesTest, ASyncOverTheServersLimitIsAClearErrorNotRetried) {
  auto server = StartServer(3, 1 << 10, {.max_sync_bytes = 1 << 10});
  ExpectClearErrorNotRetried(*server, "POST /sync: 413", "max_sync_bytes");
  MailServerReport report = server->Report();
  EXPECT_EQ(report.too_large, 1u);
  EXPECT_EQ(report.syncs, 0u);
}

TEST(MailServerLimitsTest, RejectsZeroLimits) {
  EXPECT_EQ(MailServer::Start({.max_upload_bytes = 0}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(MailServer::Start({.max_sync_bytes = 0}).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace blobtune::delivery
