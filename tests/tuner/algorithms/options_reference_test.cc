// docs/TUNING.md lists every algorithm's options exactly as the option tables say
// (AlgorithmOptionsReference()).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "blobtune/tuner/algorithm_registry.h"

namespace blobtune::tuner {
namespace {

// docs/TUNING.md holds the reference between these lines. BLOBTUNE_WRITE_DOCS=1 rewrites it.
constexpr std::string_view kBegin = "<!-- algorithm options: begin -->\n";
constexpr std::string_view kEnd = "<!-- algorithm options: end -->\n";

TEST(AlgorithmOptionsReferenceTest, TheTuningGuideListsEveryOptionAsTheTablesSay) {
  const std::string path = std::string(BLOBTUNE_SOURCE_DIR) + "/docs/TUNING.md";
  std::stringstream read;
  read << std::ifstream(path).rdbuf();
  std::string doc = read.str();
  const size_t begin = doc.find(kBegin);
  const size_t end = doc.find(kEnd);
  ASSERT_NE(begin, std::string::npos) << path << " has no line " << kBegin;
  ASSERT_NE(end, std::string::npos) << path << " has no line " << kEnd;
  const size_t from = begin + kBegin.size();
  const std::string wanted = "\n" + AlgorithmOptionsReference();
  if (std::getenv("BLOBTUNE_WRITE_DOCS") != nullptr) {
    doc.replace(from, end - from, wanted);
    std::ofstream(path) << doc;
    return;
  }
  EXPECT_EQ(doc.substr(from, end - from), wanted)
      << path << " is out of date: run this test with BLOBTUNE_WRITE_DOCS=1 to rewrite it";
}

}  // namespace
}  // namespace blobtune::tuner
