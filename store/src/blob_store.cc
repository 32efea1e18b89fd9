// What every BlobStore shares, whichever backend opened it: the write operations, the base
// SubmitRead and the observer's operation names.
#include "blobtune/store/blob_store.h"

#include <string>
#include <utility>

#include "blobtune/store/store_observer.h"
#include "crc32c.h"

namespace blobtune::store {

void BlobStore::SubmitRead(std::string ns, std::string id, ReadCallback done) {
  Blob blob;
  if (Status s = Get(ns, id, &blob.bytes, &blob.info); !s.ok()) return done(std::move(s));
  done(std::move(blob));
}

uint32_t BlobChecksum(std::span<const std::byte> bytes) noexcept { return crc32c::Value(bytes); }

std::string_view StoreOpName(StoreOp op) noexcept {
  switch (op) {
    case StoreOp::kPut: return "put";
    case StoreOp::kErase: return "erase";
    case StoreOp::kGet: return "get";
    case StoreOp::kView: return "view";
    case StoreOp::kStat: return "stat";
    case StoreOp::kExists: return "exists";
    case StoreOp::kList: return "list";
  }
  return "unknown";
}

WriteOp WriteOp::Put(std::string ns, std::string id, std::vector<std::byte> bytes,
                     uint32_t user_flags) {
  WriteOp op;
  op.kind_ = Kind::kPut;
  op.ns_ = std::move(ns);
  op.id_ = std::move(id);
  op.owned_bytes_ = std::move(bytes);
  op.user_flags_ = user_flags;
  return op;
}

WriteOp WriteOp::PutBorrowed(std::string ns, std::string id, std::span<const std::byte> bytes,
                             uint32_t user_flags) {
  WriteOp op;
  op.kind_ = Kind::kPut;
  op.ns_ = std::move(ns);
  op.id_ = std::move(id);
  op.borrowed_bytes_ = bytes;
  op.borrowed_ = true;
  op.user_flags_ = user_flags;
  return op;
}

WriteOp WriteOp::Erase(std::string ns, std::string id) {
  WriteOp op;
  op.kind_ = Kind::kErase;
  op.ns_ = std::move(ns);
  op.id_ = std::move(id);
  return op;
}

}  // namespace blobtune::store
