// Runs every file of a fuzzer's seed corpus (BLOBTUNE_FUZZ_CORPUS_DIR) through its
// LLVMFuzzerTestOneInput, so that each build, sanitizers included, checks the corpus without
// clang. Linked into NAME_corpus_test by blobtune_add_fuzzer (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

TEST(FuzzCorpus, EverySeedRunsClean) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(BLOBTUNE_FUZZ_CORPUS_DIR)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
              0)
        << entry.path();
    ++files;
  }
  EXPECT_GE(files, 8) << "a seed corpus this small is likely the wrong directory";
}

}  // namespace
