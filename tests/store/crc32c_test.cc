#include "crc32c.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "temp_dir.h"

namespace blobtune::store::crc32c {
namespace {

using testing::Bytes;
using testing::Pattern;

TEST(Crc32cTest, MatchesStandardCheckValue) {
  EXPECT_EQ(Value(Bytes("123456789")), 0xE3069283u);
  EXPECT_EQ(ExtendPortable(0, Bytes("123456789")), 0xE3069283u);
  if (HardwareAvailable()) {
    EXPECT_EQ(ExtendHardware(0, Bytes("123456789")), 0xE3069283u);
  }
}

TEST(Crc32cTest, MatchesKnownVectorsFromRfc3720) {
  std::vector<std::byte> zeros(32, std::byte{0});
  std::vector<std::byte> ones(32, std::byte{0xff});
  std::vector<std::byte> ascending(32);
  for (size_t i = 0; i < 32; ++i) ascending[i] = static_cast<std::byte>(i);
  EXPECT_EQ(Value(zeros), 0x8A9136AAu);
  EXPECT_EQ(Value(ones), 0x62A8AB43u);
  EXPECT_EQ(Value(ascending), 0x46DD794Eu);
  EXPECT_EQ(Value({}), 0u);
}

TEST(Crc32cTest, HardwareAndPortableAgreeOnEverySizeAndAlignment) {
  if (!HardwareAvailable()) GTEST_SKIP() << "no SSE4.2 on this CPU";
  const std::vector<std::byte> data = Pattern(3 * 8192 * 2 + 3 * 256 * 3 + 100, 7);
  for (size_t offset = 0; offset < 9; ++offset) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{3}, size_t{4}, size_t{5}, size_t{7},
                        size_t{8}, size_t{12}, size_t{28}, size_t{63}, size_t{767},
                        size_t{768}, size_t{769}, size_t{3 * 8192}, size_t{3 * 8192 + 5},
                        data.size() - offset}) {
      std::span<const std::byte> part(data.data() + offset, size);
      ASSERT_EQ(ExtendHardware(0, part), ExtendPortable(0, part))
          << "offset " << offset << " size " << size;
    }
  }
}

TEST(Crc32cTest, FoldAndPortableAgreeOnEverySizeAndAlignment) {
  if (!FoldAvailable()) GTEST_SKIP() << "no AVX-512 VPCLMULQDQ on this CPU";
  const std::vector<std::byte> data = Pattern(70000, 5);
  for (size_t offset = 0; offset < 9; ++offset) {
    for (size_t size = 0; size < 1200; size += (size < 300 ? 1 : 7)) {
      std::span<const std::byte> part(data.data() + offset, size);
      ASSERT_EQ(ExtendFold(0x12345678u, part), ExtendPortable(0x12345678u, part))
          << "offset " << offset << " size " << size;
    }
    for (size_t size : {size_t{4096}, size_t{10240}, size_t{65536 + 17}, data.size() - offset}) {
      std::span<const std::byte> part(data.data() + offset, size);
      ASSERT_EQ(ExtendFold(0, part), ExtendPortable(0, part))
          << "offset " << offset << " size " << size;
    }
  }
}

TEST(Crc32cTest, ExtendCopyCopiesAndChecksumsInOnePass) {
  const std::vector<std::byte> data = Pattern(40000 + 9, 13);
  for (size_t offset : {size_t{0}, size_t{3}, size_t{8}}) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{15}, size_t{255}, size_t{256}, size_t{257},
                        size_t{1000}, size_t{16384}, size_t{16385}, size_t{40000}}) {
      std::span<const std::byte> part(data.data() + offset, size);
      const uint32_t want = ExtendPortable(7, part);
      std::vector<std::byte> out(size + 2, std::byte{0xAA});
      EXPECT_EQ(ExtendCopy(7, out.data() + 1, part), want) << size;
      EXPECT_TRUE(std::equal(part.begin(), part.end(), out.begin() + 1)) << size;
      EXPECT_EQ(out.front(), std::byte{0xAA});
      EXPECT_EQ(out.back(), std::byte{0xAA}) << "wrote past the end, size " << size;
      std::fill(out.begin(), out.end(), std::byte{0xAA});
      EXPECT_EQ(ExtendCopyChunked(7, out.data() + 1, part), want) << size;
      EXPECT_TRUE(std::equal(part.begin(), part.end(), out.begin() + 1)) << size;
      if (FoldAvailable()) {
        std::fill(out.begin(), out.end(), std::byte{0xAA});
        EXPECT_EQ(ExtendCopyFold(7, out.data() + 1, part), want) << size;
        EXPECT_TRUE(std::equal(part.begin(), part.end(), out.begin() + 1)) << size;
        EXPECT_EQ(out.back(), std::byte{0xAA}) << "wrote past the end, size " << size;
      }
    }
  }
}

TEST(Crc32cTest, ExtendEqualsValueOfConcatenation) {
  const std::vector<std::byte> data = Pattern(100000, 3);
  std::span<const std::byte> all(data);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{4096}, size_t{50001}, data.size()}) {
    EXPECT_EQ(Extend(Value(all.first(cut)), all.subspan(cut)), Value(all)) << cut;
  }
}

TEST(Crc32cTest, DetectsASingleFlippedBit) {
  std::vector<std::byte> data = Pattern(1 << 20, 11);
  const uint32_t before = Value(data);
  data[123457] ^= std::byte{0x10};
  EXPECT_NE(Value(data), before);
}

}  // namespace
}  // namespace blobtune::store::crc32c
