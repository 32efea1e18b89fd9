#include "blobtune/store/lmdb_blob_store.h"

#include <string>

#include "blob_format.h"

namespace blobtune::store {

Status LmdbStoreOptions::Validate() const {
  auto invalid = [](const std::string& what) { return Status::InvalidArgument(what); };
  if (directory.empty()) return invalid("LmdbStoreOptions::directory is empty");
  if (Status s = internal::ValidateNamespaces("LmdbStoreOptions", namespaces); !s.ok()) return s;
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

}  // namespace blobtune::store
