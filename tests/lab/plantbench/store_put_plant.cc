// lmdb_put_64k and lmdb_put_1k: durable puts of one blob size through store::AsyncBlobStore
// (group commit) with a write limiter, 128 concurrent callers in a closed loop on one io thread;
// puts replace blobs among 1,024 ids in one scratch store for all points (scratch_store.h).
// rados_put_64k: the same against a RADOS store on a throwaway single-node Ceph cluster (one
// monitor, one in-memory OSD on loopback), each put one acknowledged RADOS write.

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <random>

#include "blobtune/store/async_blob_store.h"
#include "in_process_point.h"
#include "plants.h"
#include "scratch_store.h"

namespace blobtune::plantbench {
namespace {

namespace asio = boost::asio;

constexpr int kCallers = 128;

// One caller: the next put as soon as the last is durable (or failed: the meter counts it).
asio::awaitable<void> PutCaller(store::AsyncBlobStore& blobs, const std::vector<std::byte>& blob,
                                uint64_t& next_id, const InProcessPoint& point) {
  const std::string ns(ScratchStore::kNamespace);
  while (!point.stopping()) {
    std::string id = ScratchStore::PutId(next_id++);
    Status put = co_await blobs.AsyncPut(ns, std::move(id), blob, InProcessPoint::AcquireDeadline(),
                                         asio::use_awaitable);
    (void)put;
  }
}

// The lmdb_put_64k, lmdb_put_1k or rados_put_64k plant. Thread-safety: RealPlant's (one RunPoint at a time).
class StorePutPlant final : public RealPlant {
 public:
  StorePutPlant(std::string name, size_t blob_bytes, bool rados)
      : name_(std::move(name)), blob_bytes_(blob_bytes), rados_(rados) {}

  std::string_view name() const override { return name_; }
  int demand() const override { return kCallers; }

  StatusOr<PointResult> RunPoint(const PointSpec& spec) override {
    StatusOr<std::unique_ptr<InProcessPoint>> point = InProcessPoint::Create(spec);
    if (!point.ok()) return point.status();
    if (!scratch_) {
      StatusOr<std::unique_ptr<ScratchStore>> scratch =
          rados_ ? ScratchStore::OpenRados(name_) : ScratchStore::Open(name_);
      if (!scratch.ok()) return scratch.status();
      scratch_ = *std::move(scratch);
    }
    InProcessPoint& p = **point;
    store::AsyncBlobStore blobs(scratch_->store(), p.io().get_executor(), p.io().get_executor(),
                                /*read_limiter=*/nullptr, &p.limiter());
    std::vector<std::byte> blob(blob_bytes_);
    std::independent_bits_engine<std::mt19937_64, 8, uint16_t> bytes(spec.seed);
    for (std::byte& b : blob) b = static_cast<std::byte>(bytes());
    uint64_t next_id = 0;
    for (int i = 0; i < kCallers; ++i) {
      asio::co_spawn(p.io(), PutCaller(blobs, blob, next_id, p), asio::detached);
    }
    return p.Run(spec);
  }

 private:
  const std::string name_;
  const size_t blob_bytes_;
  const bool rados_;
  std::unique_ptr<ScratchStore> scratch_;  // One for every point (scratch_store.h).
};

}  // namespace

std::unique_ptr<RealPlant> MakeStorePutPlant(std::string name, size_t blob_bytes) {
  return std::make_unique<StorePutPlant>(std::move(name), blob_bytes, /*rados=*/false);
}

std::unique_ptr<RealPlant> MakeRadosPutPlant(std::string name, size_t blob_bytes) {
  return std::make_unique<StorePutPlant>(std::move(name), blob_bytes, /*rados=*/true);
}

}  // namespace blobtune::plantbench
