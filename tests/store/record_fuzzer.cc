// libFuzzer target over the on-disk record of a blob (store/src/blob_format.h), what a reader
// finds in LMDB or RADOS after a crash, a bad disk or another program's write. Checks that:
//   - any bytes, read as a record or as a header, are OK or DATA_LOSS, never a crash or a read
//     outside them; a record that decodes hands out exactly the bytes after its header;
//   - the input, written as a blob (its first 4 bytes the user flags), decodes to that blob;
//   - that record with any one byte changed is DATA_LOSS, never another blob: every byte is
//     under the header's checksum or the blob's, and CRC32C sees every change of 32 bits or
//     fewer.
//
// Built with clang -fsanitize=fuzzer by scripts/fuzz; store_record_fuzzer_corpus_test runs the
// seed corpus (record_fuzz_corpus/) through it in every build.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "blob_format.h"
#include "blobtune/base/status.h"
#include "blobtune/store/blob_store.h"

namespace {

namespace internal = blobtune::store::internal;
using blobtune::Status;
using blobtune::StatusCode;
using blobtune::store::BlobInfo;

void Require(bool condition) {
  if (!condition) std::abort();
}

void RequireDataLoss(const Status& status) { Require(status.code() == StatusCode::kDataLoss); }

// `bytes` as a record found on disk. True when it decodes and its blob's checksum holds.
bool ReadsAsABlob(std::span<const std::byte> bytes) {
  BlobInfo info;
  std::span<const std::byte> payload;
  const Status decoded = internal::DecodeRecord(bytes, "fuzzed", &info, &payload);
  if (!decoded.ok()) {
    RequireDataLoss(decoded);
    return false;
  }
  Require(bytes.size() >= internal::kHeaderSize);
  Require(payload.data() == bytes.data() + internal::kHeaderSize);
  Require(payload.size() == bytes.size() - internal::kHeaderSize);
  Require(info.size_bytes == payload.size());
  const Status verified = internal::VerifyPayload(payload, info, "fuzzed");
  if (!verified.ok()) RequireDataLoss(verified);
  return verified.ok();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);

  (void)ReadsAsABlob(input);
  BlobInfo header_info;
  const Status header = internal::DecodeHeader(input, "fuzzed", &header_info);
  if (!header.ok()) RequireDataLoss(header);

  // The input as a blob to write: 4 bytes of user flags, 2 that pick the byte to change, 1 the
  // bits to flip in it, then the blob's bytes.
  if (size < 7) return 0;
  uint32_t flags = 0;
  std::memcpy(&flags, data, sizeof(flags));
  const std::span<const std::byte> blob = input.subspan(7);
  const internal::EncodedHeader encoded = internal::EncodeHeader(blob, flags, 1'700'000'000);
  std::vector<std::byte> record(encoded.begin(), encoded.end());
  record.insert(record.end(), blob.begin(), blob.end());

  BlobInfo info;
  std::span<const std::byte> payload;
  Require(internal::DecodeRecord(record, "written", &info, &payload).ok());
  Require(internal::VerifyPayload(payload, info, "written").ok());
  Require(info.size_bytes == blob.size() && info.user_flags == flags);
  Require(info.created_unix_nanos == 1'700'000'000);
  Require(info.crc32c == blobtune::store::BlobChecksum(blob));
  Require(std::equal(payload.begin(), payload.end(), blob.begin(), blob.end()));

  const size_t at = (data[4] | size_t{data[5]} << 8) % record.size();
  record[at] ^= static_cast<std::byte>(data[6] == 0 ? 1 : data[6]);  // Never a change of nothing.
  Require(!ReadsAsABlob(record));
  return 0;
}
