// wait_then_put_100k: each access takes a permit (tuner::AsyncAcquire), waits 2 ms on an asio
// timer (the network), then puts 100 KiB durably through AsyncBlobStore::AsyncPut under that
// same permit; 64 callers in a closed loop on one io thread. The permit's latency is the wait
// plus the commit. With one put per commit the knee would sit at (wait + commit) / commit
// accesses in flight; group commit puts more puts in each commit as more are in flight, which
// moves the knee up.

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <random>

#include "blobtune/store/async_blob_store.h"
#include "blobtune/tuner/async_acquire.h"
#include "in_process_point.h"
#include "plants.h"
#include "scratch_store.h"

namespace blobtune::plantbench {
namespace {

namespace asio = boost::asio;

constexpr int kCallers = 64;
constexpr size_t kBlobBytes = 100 * 1024;
constexpr std::chrono::milliseconds kNetworkWait{2};

asio::awaitable<void> WaitThenPutCaller(store::AsyncBlobStore& blobs,
                                        const std::vector<std::byte>& blob, uint64_t& next_id,
                                        InProcessPoint& point) {
  const std::string ns(ScratchStore::kNamespace);
  asio::steady_timer network(point.io());
  while (!point.stopping()) {
    StatusOr<tuner::Permit> permit =
        co_await tuner::AsyncAcquire(point.limiter(), point.io().get_executor(),
                                     InProcessPoint::AcquireDeadline(), asio::use_awaitable);
    if (!permit.ok()) continue;  // The meter counted it; a cancel at the end stops the loop.
    network.expires_after(kNetworkWait);
    boost::system::error_code ignored;
    co_await network.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    std::string id = ScratchStore::PutId(next_id++);
    Status put =
        co_await blobs.AsyncPut(*std::move(permit), ns, std::move(id), blob, asio::use_awaitable);
    (void)put;
  }
}

// The wait_then_put_100k plant. Thread-safety: RealPlant's (one RunPoint at a time).
class WaitThenPutPlant final : public RealPlant {
 public:
  std::string_view name() const override { return "wait_then_put_100k"; }
  int demand() const override { return kCallers; }

  StatusOr<PointResult> RunPoint(const PointSpec& spec) override {
    StatusOr<std::unique_ptr<InProcessPoint>> point = InProcessPoint::Create(spec);
    if (!point.ok()) return point.status();
    if (Status s = ScratchStore::OpenOnce(name(), &scratch_); !s.ok()) return s;
    InProcessPoint& p = **point;
    store::AsyncBlobStore blobs(scratch_->store(), p.io().get_executor(), p.io().get_executor(),
                                /*read_limiter=*/nullptr, &p.limiter());
    std::vector<std::byte> blob(kBlobBytes);
    std::independent_bits_engine<std::mt19937_64, 8, uint16_t> bytes(spec.seed);
    for (std::byte& b : blob) b = static_cast<std::byte>(bytes());
    uint64_t next_id = 0;
    for (int i = 0; i < kCallers; ++i) {
      asio::co_spawn(p.io(), WaitThenPutCaller(blobs, blob, next_id, p), asio::detached);
    }
    return p.Run(spec);
  }

 private:
  std::unique_ptr<ScratchStore> scratch_;  // One for every point (scratch_store.h).
};

}  // namespace

std::unique_ptr<RealPlant> MakeWaitThenPutPlant() { return std::make_unique<WaitThenPutPlant>(); }

}  // namespace blobtune::plantbench
