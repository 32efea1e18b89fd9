// CommandLine's flag tables (examples/common/command_line.h): what each kind of target makes of
// its flag, and a range stated in --help and refused in the words of the flag.
#include "common/command_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace blobtune::examples {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

class CommandLineTest : public ::testing::Test {
 protected:
  // cli.Parse of "prog ARGS...", with what it prints kept in out_ and err_.
  int Parse(CommandLine& cli, std::vector<std::string> args) {
    args.insert(args.begin(), "prog");
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    out_.str("");
    err_.str("");
    std::streambuf* out = std::cout.rdbuf(out_.rdbuf());
    std::streambuf* err = std::cerr.rdbuf(err_.rdbuf());
    const int code = cli.Parse(static_cast<int>(argv.size()), argv.data());
    std::cout.rdbuf(out);
    std::cerr.rdbuf(err);
    return code;
  }

  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(CommandLineTest, ARangeIsStatedInHelpAndRefusedBeforeHelpIsAnswered) {
  int count = 5;
  ByteSize size{4096};
  auto add = [&](CommandLine& cli) {
    cli.Add({
        {"count", &count, "N", "how many", Range::Closed(1, 10)},
        {"size", &size, "BYTES", "how big", Range::Closed(1, 64 << 20)},
    });
  };
  CommandLine help("prog", "about");
  add(help);
  EXPECT_EQ(Parse(help, {"--help"}), 0);
  EXPECT_THAT(out_.str(), HasSubstr("--count N (=5)"));
  EXPECT_THAT(out_.str(), HasSubstr("how many (1..10)"));
  EXPECT_THAT(out_.str(), HasSubstr("how big (1..64M)"));

  CommandLine refused("prog", "about");
  add(refused);
  EXPECT_EQ(Parse(refused, {"--count", "11", "--help"}), kBadFlags);
  EXPECT_EQ(out_.str(), "");
  EXPECT_EQ(err_.str(), "prog: --count: must be 1..10, got 11 (see --help)\n");

  count = 5;
  CommandLine refused_size("prog", "about");
  add(refused_size);
  EXPECT_EQ(Parse(refused_size, {"--size", "65M"}), kBadFlags);
  EXPECT_EQ(err_.str(), "prog: --size: must be 1..64M, got 65M (see --help)\n");
}

TEST_F(CommandLineTest, AnOptionalValueHasNoDefaultAndItsRangeHoldsOnlyWhenGiven) {
  std::optional<int> generate;
  std::optional<uint64_t> seed;
  auto add = [&](CommandLine& cli) {
    cli.Add({
        {"generate", &generate, "N", "workloads to draw", Range::Closed(1, 100)},
        {"seed", &seed, "S", "the draw's seed"},
    });
  };
  CommandLine absent("prog", "about");
  add(absent);
  EXPECT_EQ(Parse(absent, {}), -1);
  EXPECT_FALSE(generate.has_value());
  EXPECT_FALSE(seed.has_value());

  CommandLine given("prog", "about");
  add(given);
  EXPECT_EQ(Parse(given, {"--generate", "7", "--seed", "0"}), -1);
  EXPECT_EQ(generate, 7);
  EXPECT_EQ(seed, 0u);
  EXPECT_TRUE(given.Given("generate"));

  CommandLine help("prog", "about");
  add(help);
  EXPECT_EQ(Parse(help, {"--help"}), 0);
  EXPECT_THAT(out_.str(), HasSubstr("--generate N "));
  EXPECT_THAT(out_.str(), Not(HasSubstr("(=")));
  EXPECT_THAT(out_.str(), HasSubstr("workloads to draw (1..100)"));

  CommandLine refused("prog", "about");
  add(refused);
  EXPECT_EQ(Parse(refused, {"--generate", "0"}), kBadFlags);
  EXPECT_EQ(err_.str(), "prog: --generate: must be 1..100, got 0 (see --help)\n");

  CommandLine negative("prog", "about");
  add(negative);
  EXPECT_EQ(Parse(negative, {"--seed", "-1"}), kBadFlags);
  EXPECT_EQ(err_.str(), "prog: --seed: must not be negative, got -1 (see --help)\n");
}

TEST_F(CommandLineTest, AListTakesOneItemPerFlagUnlessItsRowTakesMany) {
  std::vector<std::string> tags;
  std::vector<std::string> files;
  bool json = false;
  auto add = [&](CommandLine& cli) {
    cli.Add({
        {"tag", &tags, "TAG", "a tag (repeatable)"},
        {"file", &files, "FILE...", "files", ListItems::kManyPerFlag},
        {"json", &json, "", "print JSON"},
    });
  };
  CommandLine lists("prog", "about");
  add(lists);
  EXPECT_EQ(Parse(lists, {"--file", "a", "b", "--tag", "x", "--json", "--tag", "y", "--file", "c"}),
            -1);
  EXPECT_THAT(files, ElementsAre("a", "b", "c"));
  EXPECT_THAT(tags, ElementsAre("x", "y"));
  EXPECT_TRUE(json);

  CommandLine stray("prog", "about");
  add(stray);
  EXPECT_EQ(Parse(stray, {"--tag", "x", "y"}), kBadFlags);
  EXPECT_THAT(err_.str(), HasSubstr("unexpected argument 'y'"));
}

}  // namespace
}  // namespace blobtune::examples
