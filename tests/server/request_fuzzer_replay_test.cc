// Runs every file of the fuzzer's seed corpus (tests/server/fuzz_corpus) through
// LLVMFuzzerTestOneInput, so each build, sanitizers included, checks the corpus without clang.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

TEST(RequestFuzzerCorpus, EverySeedRunsClean) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(BLOBTUNE_FUZZ_CORPUS_DIR)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
              0)
        << entry.path();
    ++files;
  }
  EXPECT_GE(files, 8);
}

TEST(RequestFuzzerCorpus, EveryPrefixOfARequestRunsClean) {
  const std::string request =
      "PUT /blobs/default/a%41b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
  for (size_t n = 0; n <= request.size(); ++n) {
    EXPECT_EQ(LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(request.data()), n), 0);
  }
}

}  // namespace
