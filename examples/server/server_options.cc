#include "server_options.h"

#include <string>

#include "common/rados_available.h"
#include "request_target.h"

namespace blobtune::server {

Status ServerOptions::Validate() const {
  if (store == StoreBackend::kLmdb && data_dir.empty()) {
    return Status::InvalidArgument("data_dir is empty");
  }
  if (store == StoreBackend::kRados) {
    if (!RadosAvailable()) {
      return Status::InvalidArgument("this build has no RADOS store (it needs librados-dev and "
                                     "libradospp-dev at build time)");
    }
    if (rados_conf.empty() || rados_pool.empty()) {
      return Status::InvalidArgument("a RADOS store needs rados_conf and rados_pool");
    }
  }
  if (namespaces.empty()) return Status::InvalidArgument("namespaces is empty");
  for (const std::string& ns : namespaces) {
    if (Status valid = ValidateNamespace(ns); !valid.ok()) {
      return Status::InvalidArgument("namespaces: '" + ns + "': " + std::string(valid.message()));
    }
  }
  if (max_blob_size_bytes == 0) return Status::InvalidArgument("max_blob_size_bytes must be > 0");
  if (max_connections == 0) return Status::InvalidArgument("max_connections must be > 0");
  if (header_timeout.count() <= 0 || body_timeout.count() <= 0 || write_timeout.count() <= 0) {
    return Status::InvalidArgument("header, body and write timeouts must be > 0");
  }
  if (wait_deadline.count() < 0) return Status::InvalidArgument("wait_deadline must be >= 0");
  if (shed_wait.count() < 0) return Status::InvalidArgument("shed_wait must be >= 0");
  if (retry_after_seconds < 0) return Status::InvalidArgument("retry_after_seconds must be >= 0");
  if (read_threads < 1 || read_threads > 256) {
    return Status::InvalidArgument("read_threads must be 1..256");
  }
  if (shutdown_grace.count() < 0) return Status::InvalidArgument("shutdown_grace must be >= 0");
  return Status();
}

bool RadosAvailable() noexcept { return examples::kRadosAvailable; }

}  // namespace blobtune::server
