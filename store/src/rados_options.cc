#include <string>

#include "blob_format.h"
#include "blobtune/store/rados_blob_store.h"

namespace blobtune::store {

Status RadosStoreOptions::Validate() const {
  auto invalid = [](const std::string& what) { return Status::InvalidArgument(what); };
  if (conf_file.empty()) return invalid("RadosStoreOptions::conf_file is empty");
  if (client_id.empty()) return invalid("RadosStoreOptions::client_id is empty");
  if (pool.empty()) return invalid("RadosStoreOptions::pool is empty");
  if (Status s = internal::ValidateNamespaces("RadosStoreOptions", namespaces); !s.ok()) return s;
  if (max_blob_size_bytes == 0) return invalid("max_blob_size_bytes must be at least 1");
  if (op_timeout <= Duration::zero()) return invalid("op_timeout must be positive");
  return Status::Ok();
}

}  // namespace blobtune::store
