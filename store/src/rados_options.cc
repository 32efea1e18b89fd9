#include <set>
#include <string>

#include "blobtune/store/rados_blob_store.h"

namespace blobtune::store {

Status RadosStoreOptions::Validate() const {
  auto invalid = [](const std::string& what) { return Status::InvalidArgument(what); };
  if (conf_file.empty()) return invalid("RadosStoreOptions::conf_file is empty");
  if (client_id.empty()) return invalid("RadosStoreOptions::client_id is empty");
  if (pool.empty()) return invalid("RadosStoreOptions::pool is empty");
  if (namespaces.empty()) {
    return invalid("RadosStoreOptions::namespaces is empty: declare at least one");
  }
  std::set<std::string> seen;
  for (const std::string& ns : namespaces) {
    if (ns.empty() || ns.size() > 255 || ns.find('\0') != std::string::npos) {
      return invalid("namespace name '" + ns + "' must be 1..255 bytes without NUL");
    }
    if (!seen.insert(ns).second) return invalid("namespace '" + ns + "' is declared twice");
  }
  if (max_blob_size_bytes == 0) return invalid("max_blob_size_bytes must be at least 1");
  if (op_timeout <= Duration::zero()) return invalid("op_timeout must be positive");
  return Status::Ok();
}

}  // namespace blobtune::store
