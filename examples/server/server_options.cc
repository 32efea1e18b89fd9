#include "server_options.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
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
  if (read_threads < 1 || read_threads > kMaxReadThreads) {
    return Status::InvalidArgument("read_threads must be 1.." + std::to_string(kMaxReadThreads));
  }
  if (shutdown_grace.count() < 0) return Status::InvalidArgument("shutdown_grace must be >= 0");
  if (state_save_interval.count() < 0) {
    return Status::InvalidArgument("state_save_interval must be >= 0");
  }
  tuner::LimiterOptions limiter;
  limiter.partitions = partitions;
  if (Status valid = limiter.Validate(); !valid.ok()) return valid;
  for (const auto& mapping : namespace_partitions) {
    const std::string& ns = mapping.first;
    const std::string& partition = mapping.second;
    if (std::find(namespaces.begin(), namespaces.end(), ns) == namespaces.end()) {
      return Status::InvalidArgument("namespace_partitions: the server has no namespace '" + ns +
                                     "'");
    }
    if (std::none_of(partitions.begin(), partitions.end(),
                     [&](const tuner::PartitionOptions& p) { return p.name == partition; })) {
      return Status::InvalidArgument("namespace_partitions: there is no partition '" + partition +
                                     "' for namespace '" + ns + "'");
    }
  }
  return Status();
}

StatusOr<tuner::PartitionOptions> ParsePartitionSpec(std::string_view text) {
  const size_t equals = text.find('=');
  if (equals == std::string_view::npos || equals == 0) {
    return Status::InvalidArgument("must be NAME=SHARE[:PRIORITY], got '" + std::string(text) +
                                   "'");
  }
  tuner::PartitionOptions partition;
  partition.name = std::string(text.substr(0, equals));
  std::string_view rest = text.substr(equals + 1);
  std::string_view priority;
  if (const size_t colon = rest.find(':'); colon != std::string_view::npos) {
    priority = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  const std::string share(rest);
  char* end = nullptr;
  partition.share = std::strtod(share.c_str(), &end);
  if (share.empty() || end != share.c_str() + share.size() || !(partition.share >= 0.0) ||
      partition.share > 1.0) {
    return Status::InvalidArgument("the share of '" + partition.name +
                                   "' must be a number in [0, 1], got '" + share + "'");
  }
  if (!priority.empty() || text.back() == ':') {
    auto [ptr, ec] =
        std::from_chars(priority.data(), priority.data() + priority.size(), partition.priority);
    if (priority.empty() || ec != std::errc() || ptr != priority.data() + priority.size()) {
      return Status::InvalidArgument("the priority of '" + partition.name +
                                     "' must be an integer, got '" + std::string(priority) + "'");
    }
  }
  return partition;
}

bool RadosAvailable() noexcept { return examples::kRadosAvailable; }

}  // namespace blobtune::server
