// The on-disk record of one blob: a 32-byte header followed by the blob's bytes.
//
//   offset size field
//        0    1 format version (kFormatVersion)
//        1    1 header size in bytes (32), so a later version can grow the header
//        2    2 reserved, zero
//        4    4 user flags
//        8    8 blob size in bytes
//       16    8 creation time, nanoseconds since the Unix epoch (system clock)
//       24    4 CRC32C of the blob's bytes
//       28    4 CRC32C of header bytes 0..27
// All integers are little-endian. Decoding checks the version, the header checksum and that the
// record is exactly header + size bytes long; VerifyPayload checks the blob's checksum. Any
// mismatch is DATA_LOSS: a reader never sees bytes that fail their checksum.
//
// Thread-safety: pure functions on values.
#ifndef BLOBTUNE_STORE_SRC_BLOB_FORMAT_H_
#define BLOBTUNE_STORE_SRC_BLOB_FORMAT_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"
#include "blobtune/store/blob_store.h"

namespace blobtune::store::internal {

inline constexpr uint8_t kFormatVersion = 1;
inline constexpr size_t kHeaderSize = 32;

using EncodedHeader = std::array<std::byte, kHeaderSize>;

// The wall-clock time a put stamps into its header: ns since 1970 (system clock).
int64_t WallClockNanos();

// How messages name a blob: "blob 'ID' in namespace 'NS'" (the id cut at 64 bytes).
std::string BlobName(std::string_view ns, std::string_view id);

// The namespaces a store's options declare: at least one, each 1..255 bytes without NUL, no two
// alike; else INVALID_ARGUMENT naming `options` (e.g. "LmdbStoreOptions").
Status ValidateNamespaces(std::string_view options, const std::vector<std::string>& namespaces);

// The index of `ns` in `namespaces`, or INVALID_ARGUMENT for an unknown namespace or an id that
// is empty or longer than `max_id_bytes` (`id_limit_reason` says why the limit is there).
StatusOr<size_t> CheckBlobName(const std::vector<std::string>& namespaces, std::string_view ns,
                               std::string_view id, size_t max_id_bytes,
                               std::string_view id_limit_reason);

// Builds the header of a blob whose bytes are `payload`, computing its CRC32C.
EncodedHeader EncodeHeader(std::span<const std::byte> payload, uint32_t user_flags,
                           int64_t created_unix_nanos);

// Parses and checks a record's header alone (its first kHeaderSize bytes; more are ignored), e.g.
// for a stat that read only the header. The size is what the header says, unchecked.
Status DecodeHeader(std::span<const std::byte> header, std::string_view id, BlobInfo* info);

// Parses and checks the header of `record`; on success `*info` describes it and `*payload` is the
// blob's bytes inside `record` (not yet checksummed). `id` only names the blob in messages.
Status DecodeRecord(std::span<const std::byte> record, std::string_view id, BlobInfo* info,
                    std::span<const std::byte>* payload);

// Checks the blob's bytes against the checksum in `info`.
Status VerifyPayload(std::span<const std::byte> payload, const BlobInfo& info,
                     std::string_view id);

// The same for a CRC32C the caller computed (e.g. while copying) over `size` bytes.
Status CheckPayloadChecksum(uint32_t computed, size_t size, const BlobInfo& info,
                            std::string_view id);

}  // namespace blobtune::store::internal

#endif  // BLOBTUNE_STORE_SRC_BLOB_FORMAT_H_
