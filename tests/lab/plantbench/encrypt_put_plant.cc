// encrypt_put_64k: each access takes a permit (tuner::AsyncAcquire), encrypts a 64 KiB blob with
// AES-256-GCM on a pool of two threads, as the mail client that blobtune started from encrypted
// every message, then puts the ciphertext durably through AsyncBlobStore::AsyncPut under that
// same permit; 128 callers in a closed loop on one io thread. The encryption pool and the
// store's writer share the machine's cores: past the point where the pool is always busy, more
// permits only queue at it, and take time from the writer.

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "blobtune/store/async_blob_store.h"
#include "blobtune/tuner/async_acquire.h"
#include "in_process_point.h"
#include "local_work.h"
#include "plants.h"
#include "scratch_store.h"

namespace blobtune::plantbench {
namespace {

namespace asio = boost::asio;

constexpr int kCallers = 128;
constexpr size_t kBlobBytes = 64 * 1024;
constexpr int kCryptoThreads = 2;

asio::awaitable<void> EncryptPutCaller(store::AsyncBlobStore& blobs, asio::thread_pool& crypto,
                                       const std::string& plaintext, uint64_t& next_id,
                                       InProcessPoint& point) {
  const std::string ns(ScratchStore::kNamespace);
  std::string ciphertext;
  while (!point.stopping()) {
    StatusOr<tuner::Permit> permit =
        co_await tuner::AsyncAcquire(point.limiter(), point.io().get_executor(),
                                     InProcessPoint::AcquireDeadline(), asio::use_awaitable);
    if (!permit.ok()) continue;  // The meter counted it; a cancel at the end stops the loop.
    std::string id = ScratchStore::PutId(next_id++);
    Status sealed = co_await delivery::OnPool(
        crypto, [&] { return delivery::EncryptPayload(id, plaintext, &ciphertext); });
    if (!sealed.ok()) {
      permit->Ignore();  // Never reached the store: says nothing about it.
      continue;
    }
    const std::span<const std::byte> sealed_bytes = delivery::Bytes(ciphertext);
    Status put = co_await blobs.AsyncPut(
        *std::move(permit), ns, std::move(id),
        std::vector<std::byte>(sealed_bytes.begin(), sealed_bytes.end()), asio::use_awaitable);
    (void)put;  // The permit reported it; the meter counts it.
  }
}

// The encrypt_put_64k plant. Thread-safety: RealPlant's (one RunPoint at a time).
class EncryptPutPlant final : public RealPlant {
 public:
  std::string_view name() const override { return "encrypt_put_64k"; }
  int demand() const override { return kCallers; }

  StatusOr<PointResult> RunPoint(const PointSpec& spec) override {
    StatusOr<std::unique_ptr<InProcessPoint>> point = InProcessPoint::Create(spec);
    if (!point.ok()) return point.status();
    if (Status s = ScratchStore::OpenOnce(name(), &scratch_); !s.ok()) return s;
    InProcessPoint& p = **point;
    asio::thread_pool crypto(kCryptoThreads);  // After the point: joined before it goes.
    store::AsyncBlobStore blobs(scratch_->store(), p.io().get_executor(), p.io().get_executor(),
                                /*read_limiter=*/nullptr, &p.limiter());
    std::string plaintext(kBlobBytes, '\0');
    std::independent_bits_engine<std::mt19937_64, 8, uint16_t> bytes(spec.seed);
    for (char& c : plaintext) c = static_cast<char>(bytes());
    uint64_t next_id = 0;
    for (int i = 0; i < kCallers; ++i) {
      asio::co_spawn(p.io(), EncryptPutCaller(blobs, crypto, plaintext, next_id, p),
                     asio::detached);
    }
    PointResult result = p.Run(spec);
    crypto.join();
    return result;
  }

 private:
  std::unique_ptr<ScratchStore> scratch_;  // One for every point (scratch_store.h).
};

}  // namespace

std::unique_ptr<RealPlant> MakeEncryptPutPlant() { return std::make_unique<EncryptPutPlant>(); }

}  // namespace blobtune::plantbench
