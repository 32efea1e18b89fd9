#include "rados_status.h"

#include <cerrno>
#include <cstring>
#include <string>

namespace blobtune::store::internal {

std::string ErrnoText(int rc) {
  const int err = rc < 0 ? -rc : rc;
  return std::string(std::strerror(err)) + " (errno " + std::to_string(err) + ")";
}

Status RadosStatus(int rc, std::string_view what) {
  const int err = rc < 0 ? -rc : rc;
  const std::string message = std::string(what) + " failed: " + ErrnoText(rc);
  switch (err) {
    case ENOENT: return Status::NotFound(message);
    case ETIMEDOUT: return Status::DeadlineExceeded(message);
    case ECONNREFUSED:
    case ECONNRESET:
    case ENOTCONN:
    case ESHUTDOWN:
    case EHOSTUNREACH:
    case ENETUNREACH:
      return Status::Unavailable(message);
    case EINVAL:
    case ENAMETOOLONG:
      return Status::InvalidArgument(message);
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return Status::ResourceExhausted(message);
    case ECANCELED: return Status::Cancelled(message);
    default: return Status::Internal(message);
  }
}

}  // namespace blobtune::store::internal
