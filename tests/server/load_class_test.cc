// blobtune-load's --class values (load_class.h) and its per-load flags (load_flags.h): what a
// class takes from the run and what it sets itself, its own ids and seed, and the words of each
// refusal.
#include "load_class.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "load_flags.h"

namespace blobtune::load {
namespace {

using namespace std::chrono_literals;

// The message of the refusal of `specs` over the default options; a test failure if accepted.
std::string Refusal(const std::vector<std::string>& specs) {
  StatusOr<std::vector<LoadClass>> classes = ParseLoadClasses(specs, LoadOptions{});
  EXPECT_EQ(classes.status().code(), StatusCode::kInvalidArgument);
  return std::string(classes.status().message());
}

TEST(LoadClassTest, AClassStartsFromTheRunsOptionsAndSetsOnlyItsKeys) {
  LoadOptions base;
  base.port = 9000;
  base.seconds = 3;
  base.rate = 100;
  base.ns = "photos";
  StatusOr<std::vector<LoadClass>> classes = ParseLoadClasses(
      {"  bulk :  mode=open rate=20 size=16K upload-ms=2.5 expect-continue=1M partition=bulk "},
      base);
  ASSERT_TRUE(classes.ok()) << classes.status().ToString();
  ASSERT_EQ(classes->size(), 1u);
  const LoadClass& bulk = classes->front();
  EXPECT_EQ(bulk.name, "bulk");
  EXPECT_EQ(bulk.options.mode, LoadMode::kOpen);
  EXPECT_EQ(bulk.options.rate, 20);
  EXPECT_EQ(bulk.options.size, 16u * 1024);
  EXPECT_EQ(bulk.options.upload_time, 2.5ms);
  EXPECT_EQ(bulk.options.expect_continue_bytes, 1u << 20);
  EXPECT_EQ(bulk.options.partition, "bulk");
  EXPECT_EQ(bulk.options.port, 9000);
  EXPECT_EQ(bulk.options.seconds, 3);
  EXPECT_EQ(bulk.options.ns, "photos");
  EXPECT_EQ(bulk.options.connections, base.connections);
}

TEST(LoadClassTest, EachClassHasItsOwnIdPrefixAndSeed) {
  LoadOptions base;
  base.id_prefix = "run7";
  StatusOr<std::vector<LoadClass>> classes = ParseLoadClasses({"a:", "b-2: rate=5"}, base);
  ASSERT_TRUE(classes.ok()) << classes.status().ToString();
  const LoadOptions& a = (*classes)[0].options;
  const LoadOptions& b = (*classes)[1].options;
  EXPECT_EQ(LoadBlobId(a, 3), "run7-a-3");
  EXPECT_EQ(LoadBlobId(b, 3), "run7-b-2-3");
  EXPECT_NE(a.seed, b.seed);
  EXPECT_NE(a.seed, base.seed);
  EXPECT_NE(b.seed, base.seed);
}

TEST(LoadClassTest, NoSpecIsNoClass) {
  StatusOr<std::vector<LoadClass>> classes = ParseLoadClasses({}, LoadOptions{});
  ASSERT_TRUE(classes.ok());
  EXPECT_TRUE(classes->empty());
}

TEST(LoadClassTest, ARangeIsRefusedInTheWordsOfItsFlag) {
  EXPECT_EQ(Refusal({"bulk: rate=0"}), "bulk: rate: must be in (0, 1000000], got 0");
  LoadOptions flags;
  flags.rate = 0;
  EXPECT_EQ(InFlagWords(flags.Validate(), flags, "--"), "--rate: must be in (0, 1000000], got 0");
  EXPECT_EQ(Refusal({"bulk: connections=10001"}), "bulk: connections: must be 1..10000, got 10001");
  EXPECT_EQ(Refusal({"bulk: max-connections=0"}), "bulk: max-connections: must be 1..10000, got 0");
  EXPECT_EQ(Refusal({"bulk: put-fraction=1.5"}), "bulk: put-fraction: must be 0..1, got 1.5");
  EXPECT_EQ(Refusal({"bulk: size=65M"}), "bulk: size: must be 0..64M, got 65M");
  EXPECT_EQ(Refusal({"bulk: upload-ms=nan"}), "bulk: upload-ms: must be 0..60000, got nan");
}

// A class key's range is the range of its flag on the command line (LoadOptions' constants):
// a bound is taken, the value past it refused, both under the key's name.
TEST(LoadClassTest, AClassKeyTakesTheRangeOfItsFlag) {
  EXPECT_TRUE(ParseLoadClasses({"bulk: connections=10000 rate=1000000 put-fraction=0 size=64M "
                                "upload-ms=60000 max-connections=1"},
                               LoadOptions{})
                  .ok());
  EXPECT_EQ(
      Refusal({"bulk: size=67108865"}),
      "bulk: size: must be " + LoadOptions::kSizeRange.Rule(/*sizes=*/true) + ", got 67108865");
  EXPECT_EQ(Refusal({"bulk: rate=1000001"}),
            "bulk: rate: must be " + LoadOptions::kRateRange.Rule() + ", got 1000001");
}

TEST(LoadClassTest, BadSpecsAreRefusedSayingWhatIsWrong) {
  EXPECT_EQ(Refusal({"bulk mode=open"}), "must be 'NAME: KEY=VALUE ...', got 'bulk mode=open'");
  EXPECT_EQ(Refusal({": rate=5"}), "a class name must be letters, digits, '_' or '-', got ''");
  EXPECT_EQ(Refusal({"b.k: rate=5"}),
            "a class name must be letters, digits, '_' or '-', got 'b.k'");
  EXPECT_EQ(Refusal({"a: rate=5", "a: rate=6"}), "two classes are named 'a'");
  EXPECT_EQ(Refusal({"bulk: rate"}), "bulk: 'rate' is not KEY=VALUE");
  EXPECT_EQ(Refusal({"bulk: rate=5 rate=6"}), "bulk: rate is given twice");
  EXPECT_EQ(Refusal({"bulk: rate=fast"}), "bulk: rate: must be a number, got fast");
  EXPECT_EQ(Refusal({"bulk: mode=sideways"}), "bulk: mode: must be closed or open, got sideways");
  EXPECT_EQ(Refusal({"bulk: seconds=3"}),
            "bulk: seconds is shared by every class: set it with --seconds");
  EXPECT_EQ(
      Refusal({"bulk: colour=red"}).rfind("bulk: unknown key 'colour' (a class sets mode, ", 0),
      0u);
}

}  // namespace
}  // namespace blobtune::load
