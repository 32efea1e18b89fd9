// RadosStatus: the Status of a failed librados call (a negative errno).
//
// Thread-safety: a pure function.
#ifndef BLOBTUNE_STORE_SRC_RADOS_STATUS_H_
#define BLOBTUNE_STORE_SRC_RADOS_STATUS_H_

#include <string>
#include <string_view>

#include "blobtune/base/status.h"

namespace blobtune::store::internal {

// `rc` is what librados returned (< 0); `what` names the operation for the message, e.g.
// "read of blob 'x' in namespace 'y'". ENOENT is NOT_FOUND, ETIMEDOUT DEADLINE_EXCEEDED,
// connection failures UNAVAILABLE, EINVAL INVALID_ARGUMENT, ENOSPC/EDQUOT/EFBIG
// RESOURCE_EXHAUSTED, the rest INTERNAL.
Status RadosStatus(int rc, std::string_view what);

// "Connection timed out (errno 110)" for rc = -ETIMEDOUT.
std::string ErrnoText(int rc);

}  // namespace blobtune::store::internal

#endif  // BLOBTUNE_STORE_SRC_RADOS_STATUS_H_
