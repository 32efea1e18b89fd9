// cached_get_10k: reads of cached 10 KiB blobs on the store's read path: AsyncBlobStore::AsyncGet
// through a read limiter, the reads on an asio::thread_pool of 2 threads, 64 callers in a closed
// loop on one io thread, each reading random ids. Per point a fresh store is filled with 1,000
// blobs and read through once (neither measured) so the reads that count hit a warm map.

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <future>
#include <random>

#include "blobtune/store/async_blob_store.h"
#include "in_process_point.h"
#include "plants.h"
#include "scratch_store.h"

namespace blobtune::plantbench {
namespace {

namespace asio = boost::asio;

constexpr int kCallers = 64;
constexpr int kReadThreads = 2;
constexpr size_t kBlobs = 1'000;
constexpr size_t kBlobBytes = 10 * 1024;

std::string BlobId(size_t index) { return "blob-" + std::to_string(index); }

// Writes the blobs in one go (group commit makes that a few transactions), then reads each once.
Status Populate(store::BlobStore& store, uint64_t seed) {
  const std::string ns(ScratchStore::kNamespace);
  std::independent_bits_engine<std::mt19937_64, 8, uint16_t> bytes(seed);
  std::vector<std::promise<Status>> done(kBlobs);
  for (size_t i = 0; i < kBlobs; ++i) {
    std::vector<std::byte> blob(kBlobBytes);
    for (std::byte& b : blob) b = static_cast<std::byte>(bytes());
    std::promise<Status>* promise = &done[i];
    Status submitted = store.SubmitWrite(store::WriteOp::Put(ns, BlobId(i), std::move(blob)),
                                         [promise](Status s) { promise->set_value(std::move(s)); });
    if (!submitted.ok()) promise->set_value(submitted);
  }
  Status first_error;
  for (std::promise<Status>& promise : done) {
    Status s = promise.get_future().get();
    if (!s.ok() && first_error.ok()) first_error = s;
  }
  if (!first_error.ok()) return first_error;
  std::vector<std::byte> out;
  for (size_t i = 0; i < kBlobs; ++i) {
    if (Status s = store.Get(ns, BlobId(i), &out, nullptr); !s.ok()) return s;
  }
  return Status();
}

asio::awaitable<void> GetCaller(store::AsyncBlobStore& blobs, uint64_t seed,
                                const InProcessPoint& point) {
  const std::string ns(ScratchStore::kNamespace);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, kBlobs - 1);
  while (!point.stopping()) {
    std::string id = BlobId(pick(rng));
    StatusOr<std::vector<std::byte>> got = co_await blobs.AsyncGet(
        ns, std::move(id), InProcessPoint::AcquireDeadline(), asio::use_awaitable);
    (void)got;
  }
}

// The cached_get_10k plant. Thread-safety: RealPlant's (one RunPoint at a time).
class CachedGetPlant final : public RealPlant {
 public:
  std::string_view name() const override { return "cached_get_10k"; }
  int demand() const override { return kCallers; }

  StatusOr<PointResult> RunPoint(const PointSpec& spec) override {
    StatusOr<std::unique_ptr<InProcessPoint>> point = InProcessPoint::Create(spec);
    if (!point.ok()) return point.status();
    StatusOr<std::unique_ptr<ScratchStore>> scratch = ScratchStore::Open(name());
    if (!scratch.ok()) return scratch.status();
    if (Status s = Populate((*scratch)->store(), spec.seed); !s.ok()) {
      return s.WithContext("filling the store");
    }
    InProcessPoint& p = **point;
    asio::thread_pool reads(kReadThreads);
    store::AsyncBlobStore blobs((*scratch)->store(), p.io().get_executor(), reads.get_executor(),
                                &p.limiter(), /*write_limiter=*/nullptr);
    for (int i = 0; i < kCallers; ++i) {
      asio::co_spawn(p.io(), GetCaller(blobs, spec.seed * 1'000 + i, p), asio::detached);
    }
    PointResult result = p.Run(spec);
    reads.join();
    return result;
  }
};

}  // namespace

std::unique_ptr<RealPlant> MakeCachedGetPlant() { return std::make_unique<CachedGetPlant>(); }

}  // namespace blobtune::plantbench
