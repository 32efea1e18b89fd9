// The request fuzzer's checks (request_fuzzer.cc) on every prefix of one request, cut in its
// request line, a header or its body.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

TEST(RequestFuzzer, EveryPrefixOfARequestRunsClean) {
  const std::string request =
      "PUT /blobs/default/a%41b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
  for (size_t n = 0; n <= request.size(); ++n) {
    EXPECT_EQ(LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(request.data()), n), 0);
  }
}

}  // namespace
