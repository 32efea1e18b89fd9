// AsyncBlobStore: the non-template parts. The operations themselves are templates on the
// completion token and live in the header.
#include "blobtune/store/async_blob_store.h"

namespace blobtune::store {
namespace internal {

void ReportAccess(tuner::Permit& permit, const Status& status, uint64_t bytes) noexcept {
  if (!permit.valid()) return;
  if (status.ok()) {
    permit.Success(bytes);
  } else if (IsOverload(status)) {
    permit.Dropped();
  } else {
    permit.Ignore();  // NOT_FOUND, INVALID_ARGUMENT, DATA_LOSS, ...: not a measure of the load.
  }
}

}  // namespace internal

AsyncBlobStore::AsyncBlobStore(BlobStore& store, boost::asio::any_io_executor io,
                               boost::asio::any_io_executor reads, tuner::Limiter* read_limiter,
                               tuner::Limiter* write_limiter)
    : store_(store),
      io_(std::move(io)),
      reads_(std::move(reads)),
      read_limiter_(read_limiter),
      write_limiter_(write_limiter) {}

}  // namespace blobtune::store
