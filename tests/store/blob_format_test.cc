#include "blob_format.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "temp_dir.h"

namespace blobtune::store::internal {
namespace {

using testing::Bytes;

std::vector<std::byte> Record(std::span<const std::byte> payload, uint32_t flags, int64_t t) {
  EncodedHeader h = EncodeHeader(payload, flags, t);
  std::vector<std::byte> out(kHeaderSize + payload.size());
  std::memcpy(out.data(), h.data(), kHeaderSize);
  if (!payload.empty()) std::memcpy(out.data() + kHeaderSize, payload.data(), payload.size());
  return out;
}

TEST(BlobFormatTest, RoundTripsHeaderFields) {
  const auto payload = Bytes("hello, blob");
  const auto record = Record(payload, 0xA5A5u, 1'700'000'000'123'456'789);
  BlobInfo info;
  std::span<const std::byte> body;
  ASSERT_TRUE(DecodeRecord(record, "id", &info, &body).ok());
  EXPECT_EQ(info.size_bytes, payload.size());
  EXPECT_EQ(info.user_flags, 0xA5A5u);
  EXPECT_EQ(info.created_unix_nanos, 1'700'000'000'123'456'789);
  EXPECT_EQ(info.format_version, kFormatVersion);
  EXPECT_EQ(testing::String(body), "hello, blob");
  EXPECT_TRUE(VerifyPayload(body, info, "id").ok());
}

TEST(BlobFormatTest, EmptyBlobIsValid) {
  const auto record = Record({}, 0, 0);
  BlobInfo info;
  std::span<const std::byte> body;
  ASSERT_TRUE(DecodeRecord(record, "id", &info, &body).ok());
  EXPECT_TRUE(body.empty());
  EXPECT_TRUE(VerifyPayload(body, info, "id").ok());
}

TEST(BlobFormatTest, DecodeHeaderReadsTheHeaderAlone) {
  const auto payload = Bytes("only the header is read");
  const auto record = Record(payload, 7, 42);
  BlobInfo info;
  ASSERT_TRUE(DecodeHeader(std::span(record).first(kHeaderSize), "id", &info).ok());
  EXPECT_EQ(info.size_bytes, payload.size());
  EXPECT_EQ(info.user_flags, 7u);
  EXPECT_EQ(info.created_unix_nanos, 42);
  EXPECT_TRUE(VerifyPayload(payload, info, "id").ok());

  EXPECT_EQ(DecodeHeader(std::span(record).first(kHeaderSize - 1), "id", &info).code(),
            StatusCode::kDataLoss);
  auto damaged = record;
  damaged[9] ^= std::byte{0x01};  // The size field.
  EXPECT_EQ(DecodeHeader(std::span(damaged).first(kHeaderSize), "id", &info).code(),
            StatusCode::kDataLoss);
}

TEST(BlobFormatTest, FlippedPayloadByteIsDataLoss) {
  auto record = Record(Bytes("payload bytes"), 0, 0);
  record.back() ^= std::byte{1};
  BlobInfo info;
  std::span<const std::byte> body;
  ASSERT_TRUE(DecodeRecord(record, "id", &info, &body).ok());
  Status s = VerifyPayload(body, info, "id");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("CRC32C"), std::string_view::npos) << s;
}

TEST(BlobFormatTest, FlippedHeaderByteIsDataLoss) {
  for (size_t i = 0; i < kHeaderSize; ++i) {
    auto record = Record(Bytes("payload"), 0, 0);
    record[i] ^= std::byte{0x40};
    BlobInfo info;
    std::span<const std::byte> body;
    EXPECT_EQ(DecodeRecord(record, "id", &info, &body).code(), StatusCode::kDataLoss) << i;
  }
}

TEST(BlobFormatTest, TruncatedRecordIsDataLoss) {
  auto record = Record(Bytes("payload"), 0, 0);
  BlobInfo info;
  std::span<const std::byte> body;
  EXPECT_EQ(DecodeRecord(std::span(record).first(10), "id", &info, &body).code(),
            StatusCode::kDataLoss);
  record.pop_back();
  Status s = DecodeRecord(record, "id", &info, &body);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("header says 7 bytes"), std::string_view::npos) << s;
}

}  // namespace
}  // namespace blobtune::store::internal
