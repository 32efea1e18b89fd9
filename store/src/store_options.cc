#include "blobtune/store/store_options.h"

#include <set>
#include <string>

#include "blobtune/store/blob_store.h"
#include "blobtune/store/store_observer.h"

namespace blobtune::store {

Status StoreOptions::Validate() const {
  auto invalid = [](const std::string& what) { return Status::InvalidArgument(what); };
  if (directory.empty()) return invalid("StoreOptions::directory is empty");
  if (namespaces.empty()) return invalid("StoreOptions::namespaces is empty: declare at least one");
  std::set<std::string> seen;
  for (const std::string& ns : namespaces) {
    if (ns.empty() || ns.size() > 255 || ns.find('\0') != std::string::npos) {
      return invalid("namespace name '" + ns + "' must be 1..255 bytes without NUL");
    }
    if (!seen.insert(ns).second) return invalid("namespace '" + ns + "' is declared twice");
  }
  if (initial_map_size_bytes < (size_t{1} << 20)) {
    return invalid("initial_map_size_bytes is " + std::to_string(initial_map_size_bytes) +
                   "; it must be at least 1 MiB");
  }
  if (max_map_size_bytes < initial_map_size_bytes) {
    return invalid("max_map_size_bytes (" + std::to_string(max_map_size_bytes) +
                   ") is below initial_map_size_bytes (" + std::to_string(initial_map_size_bytes) +
                   ")");
  }
  if (max_blob_size_bytes == 0) return invalid("max_blob_size_bytes must be at least 1");
  if (max_readers < 1) return invalid("max_readers must be at least 1");
  if (max_batch_operations < 1) return invalid("max_batch_operations must be at least 1");
  if (max_batch_bytes < 1) return invalid("max_batch_bytes must be at least 1");
  if (max_batch_delay < Duration::zero()) return invalid("max_batch_delay is negative");
  if (batch_refill_wait < Duration::zero()) return invalid("batch_refill_wait is negative");
  if (max_queued_writes < 1) return invalid("max_queued_writes must be at least 1");
  return Status::Ok();
}

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
