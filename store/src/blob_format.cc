#include "blob_format.h"

#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>

#include "crc32c.h"

namespace blobtune::store::internal {
namespace {

template <typename T>
void Store(std::byte* p, T v) {
  static_assert(std::endian::native == std::endian::little, "the format is little-endian");
  std::memcpy(p, &v, sizeof v);
}

template <typename T>
T Load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string Hex(uint32_t v) {
  char buf[11];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::string Quoted(std::string_view id) {
  std::string out = "blob '";
  out.append(id.substr(0, 64));
  if (id.size() > 64) out += "...";
  out += "'";
  return out;
}

}  // namespace

int64_t WallClockNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Status ValidateNamespaces(std::string_view options, const std::vector<std::string>& namespaces) {
  if (namespaces.empty()) {
    return Status::InvalidArgument(std::string(options) +
                                   "::namespaces is empty: declare at least one");
  }
  std::set<std::string_view> seen;
  for (const std::string& ns : namespaces) {
    if (ns.empty() || ns.size() > 255 || ns.find('\0') != std::string::npos) {
      return Status::InvalidArgument("namespace name '" + ns +
                                     "' must be 1..255 bytes without NUL");
    }
    if (!seen.insert(ns).second) {
      return Status::InvalidArgument("namespace '" + ns + "' is declared twice");
    }
  }
  return Status::Ok();
}

StatusOr<size_t> CheckBlobName(const std::vector<std::string>& namespaces, std::string_view ns,
                               std::string_view id, size_t max_id_bytes,
                               std::string_view id_limit_reason) {
  size_t index = 0;
  for (; index < namespaces.size(); ++index) {
    if (namespaces[index] == ns) break;
  }
  if (index == namespaces.size()) {
    std::string declared;
    for (const std::string& n : namespaces) declared += (declared.empty() ? "" : ", ") + n;
    return Status::InvalidArgument("unknown namespace '" + std::string(ns) +
                                   "' (declared at open: " + declared + ")");
  }
  if (id.empty()) return Status::InvalidArgument("blob id is empty");
  if (id.size() > max_id_bytes) {
    return Status::InvalidArgument("blob id is " + std::to_string(id.size()) + " bytes long; " +
                                   std::string(id_limit_reason) + " hold at most " +
                                   std::to_string(max_id_bytes) + " bytes");
  }
  return index;
}

std::string BlobName(std::string_view ns, std::string_view id) {
  std::string out = Quoted(id);
  out += " in namespace '";
  out.append(ns);
  out += "'";
  return out;
}

EncodedHeader EncodeHeader(std::span<const std::byte> payload, uint32_t user_flags,
                           int64_t created_unix_nanos) {
  EncodedHeader h{};
  h[0] = std::byte{kFormatVersion};
  h[1] = std::byte{kHeaderSize};
  Store<uint32_t>(&h[4], user_flags);
  Store<uint64_t>(&h[8], payload.size());
  Store<int64_t>(&h[16], created_unix_nanos);
  Store<uint32_t>(&h[24], crc32c::Value(payload));
  Store<uint32_t>(&h[28], crc32c::Value(std::span<const std::byte>(h.data(), 28)));
  return h;
}

Status DecodeHeader(std::span<const std::byte> header, std::string_view id, BlobInfo* info) {
  if (header.size() < kHeaderSize) {
    return Status::DataLoss(Quoted(id) + " is corrupt: its record has " +
                            std::to_string(header.size()) + " bytes, less than the " +
                            std::to_string(kHeaderSize) + "-byte header");
  }
  const std::byte* h = header.data();
  const uint32_t stored_header_crc = Load<uint32_t>(h + 28);
  const uint32_t header_crc = crc32c::Value(header.first(28));
  if (stored_header_crc != header_crc) {
    return Status::DataLoss(Quoted(id) + " is corrupt: header checksum " + Hex(header_crc) +
                            " != stored " + Hex(stored_header_crc));
  }
  const auto version = static_cast<uint8_t>(h[0]);
  const auto header_size = static_cast<uint8_t>(h[1]);
  if (version != kFormatVersion || header_size != kHeaderSize) {
    return Status::DataLoss(Quoted(id) + " has record format version " + std::to_string(version) +
                            " (header " + std::to_string(header_size) +
                            " bytes); this build reads version " +
                            std::to_string(kFormatVersion));
  }
  info->format_version = version;
  info->user_flags = Load<uint32_t>(h + 4);
  info->size_bytes = Load<uint64_t>(h + 8);
  info->created_unix_nanos = Load<int64_t>(h + 16);
  info->crc32c = Load<uint32_t>(h + 24);
  return Status::Ok();
}

Status DecodeRecord(std::span<const std::byte> record, std::string_view id, BlobInfo* info,
                    std::span<const std::byte>* payload) {
  BlobInfo decoded;
  if (Status s = DecodeHeader(record, id, &decoded); !s.ok()) return s;
  if (decoded.size_bytes != record.size() - kHeaderSize) {
    return Status::DataLoss(Quoted(id) + " is corrupt: header says " +
                            std::to_string(decoded.size_bytes) + " bytes, record holds " +
                            std::to_string(record.size() - kHeaderSize));
  }
  *info = decoded;
  *payload = record.subspan(kHeaderSize);
  return Status::Ok();
}

Status VerifyPayload(std::span<const std::byte> payload, const BlobInfo& info,
                     std::string_view id) {
  return CheckPayloadChecksum(crc32c::Value(payload), payload.size(), info, id);
}

Status CheckPayloadChecksum(uint32_t computed, size_t size, const BlobInfo& info,
                            std::string_view id) {
  if (computed != info.crc32c) {
    return Status::DataLoss(Quoted(id) + " is corrupt: CRC32C of its " + std::to_string(size) +
                            " bytes is " + Hex(computed) + ", header says " + Hex(info.crc32c));
  }
  return Status::Ok();
}

}  // namespace blobtune::store::internal
