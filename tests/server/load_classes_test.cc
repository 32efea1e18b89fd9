// blobtune-load's classes against a real BlobServer with two partitions: RunLoads drives a
// closed-loop bulk class and an open-loop interactive class at once; each is answered, each
// class's acknowledged PUTs read back intact under ids of its own, and the server counted the
// write permits of both partitions.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "blob_server.h"
#include "common/temp_dir.h"
#include "common/wait_for.h"
#include "load_class.h"
#include "load_generator.h"

namespace blobtune::load {
namespace {

using blobtune::testing::TempDir;
using blobtune::testing::WaitFor;
using namespace std::chrono_literals;

class LoadClassesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server::ServerOptions options;
    options.data_dir = dir_.Sub("data");
    options.durability = store::Durability::kNoSync;  // Speed; durability is not tested here.
    options.partitions = {{.name = "interactive", .share = 0.3, .priority = 1},
                          {.name = "bulk", .share = 0.7}};
    StatusOr<std::unique_ptr<server::BlobServer>> started = server::BlobServer::Start(options);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    server_ = *std::move(started);
  }

  // The write permits of `partition` that the server counted as successes.
  uint64_t SuccessfulWrites(std::string_view partition) const {
    for (const metrics::LimiterSnapshot& limiter : server_->LimiterSnapshots()) {
      if (limiter.name != "write") continue;
      for (const metrics::PartitionSnapshot& p : limiter.partitions) {
        if (p.name == partition) {
          return p.permits[static_cast<size_t>(metrics::PermitEnd::kSuccess)];
        }
      }
    }
    return 0;
  }

  // The run's options: this server, one short measured second, no warm-up.
  LoadOptions Base() const {
    LoadOptions base;
    base.port = server_->port();
    base.seconds = 1;
    base.warmup_seconds = 0;
    base.size = 1024;
    base.id_prefix = "classes";
    return base;
  }

  TempDir dir_{"blobtune-load-classes"};
  std::unique_ptr<server::BlobServer> server_;
};

uint64_t Answered(const LoadResult& result) {
  uint64_t answered = 0;
  for (const auto& [status, count] : result.by_status) answered += count;
  return answered;
}

std::set<std::string> AcknowledgedIds(const LoadOptions& options, const LoadResult& result) {
  std::set<std::string> ids;
  for (uint64_t n : result.acknowledged) ids.insert(LoadBlobId(options, n));
  return ids;
}

TEST_F(LoadClassesTest, TwoClassesAtOnceAreEachAnsweredVerifiedAndCountedInTheirPartitions) {
  StatusOr<std::vector<LoadClass>> classes =
      ParseLoadClasses({"bulk: mode=closed connections=4 put-fraction=1 partition=bulk",
                        "interactive: mode=open rate=50 put-fraction=0.5 partition=interactive"},
                       Base());
  ASSERT_TRUE(classes.ok()) << classes.status().ToString();
  const LoadOptions& bulk = (*classes)[0].options;
  const LoadOptions& interactive = (*classes)[1].options;

  StatusOr<std::vector<LoadResult>> results = RunLoads({bulk, interactive});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  ASSERT_EQ(results->size(), 2u);

  for (size_t i = 0; i < classes->size(); ++i) {
    const LoadClass& load_class = (*classes)[i];
    const LoadResult& result = (*results)[i];
    SCOPED_TRACE(load_class.name);
    EXPECT_GT(Answered(result), 0u);
    ASSERT_FALSE(result.acknowledged.empty());
    const VerifyResult verified = VerifyPuts(load_class.options, result.acknowledged);
    EXPECT_EQ(verified.checked, result.acknowledged.size());
    EXPECT_TRUE(verified.ok()) << verified.intact << " intact of " << verified.checked << ", "
                               << verified.missing << " missing, " << verified.corrupt
                               << " corrupt, " << verified.unreadable << " unreadable";
  }

  // Each class wrote its own blobs: no id of one is an id of the other.
  const std::set<std::string> bulk_ids = AcknowledgedIds(bulk, (*results)[0]);
  for (const std::string& id : AcknowledgedIds(interactive, (*results)[1])) {
    EXPECT_EQ(bulk_ids.count(id), 0u) << id << " was written by both classes";
  }

  // Every acknowledged PUT held a write permit of its class's partition. The server counts a
  // permit when it is released, which may come after the answer: wait for the counts.
  const uint64_t bulk_puts = (*results)[0].acknowledged.size();
  const uint64_t interactive_puts = (*results)[1].acknowledged.size();
  EXPECT_TRUE(WaitFor([&] { return SuccessfulWrites("bulk") >= bulk_puts; }, 10s))
      << SuccessfulWrites("bulk") << " bulk writes counted, " << bulk_puts << " acknowledged";
  EXPECT_TRUE(WaitFor([&] { return SuccessfulWrites("interactive") >= interactive_puts; }, 10s))
      << SuccessfulWrites("interactive") << " interactive writes counted, " << interactive_puts
      << " acknowledged";
}

TEST_F(LoadClassesTest, LoadsAimedAtDifferentServersAreRefused) {
  LoadOptions here = Base();
  LoadOptions elsewhere = Base();
  elsewhere.port = static_cast<uint16_t>(here.port == 1 ? 2 : 1);
  StatusOr<std::vector<LoadResult>> results = RunLoads({here, elsewhere});
  EXPECT_EQ(results.status().code(), StatusCode::kInvalidArgument) << results.status().ToString();
}

}  // namespace
}  // namespace blobtune::load
