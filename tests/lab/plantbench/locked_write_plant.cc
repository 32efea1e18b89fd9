// locked_write_64k: each access takes a permit (tuner::AsyncAcquire) and, on a pool of 8
// worker threads, writes a 64 KiB blob into a shared in-memory table under one fair spin lock
// (a ticket lock: a copy and a checksum of the blob, as a store's writer does); 64 callers in a
// closed loop on one io thread. With more workers waiting than the machine has cores, the
// scheduler preempts the worker whose turn is next while the others spin out their time
// slices: past a few concurrent accesses every extra permit costs goodput itself, not only
// latency.

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <array>
#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "blobtune/tuner/async_acquire.h"
#include "in_process_point.h"
#include "local_work.h"
#include "plants.h"

namespace blobtune::plantbench {
namespace {

namespace asio = boost::asio;

constexpr int kCallers = 64;
constexpr int kWorkers = 8;
constexpr size_t kBlobBytes = 64 * 1024;
constexpr size_t kTableSlots = 64;
constexpr int kSpinsBeforeYield = 100000;

// A table of blobs behind one ticket lock: writers enter in the order they arrived. Thread-safety:
// Write() from any thread.
class LockedTable {
 public:
  LockedTable() : slots_(kTableSlots, std::vector<std::byte>(kBlobBytes)) {}

  // Copies `blob` into slot `n` and keeps its checksum (FNV-1a over 64-bit words) beside it.
  void Write(uint64_t n, const std::vector<std::byte>& blob) {
    const uint64_t ticket = next_ticket_.fetch_add(1, std::memory_order_relaxed);
    // Spin a while, then give the core away between looks, as adaptive locks do.
    for (int spins = 0; serving_.load(std::memory_order_acquire) != ticket; ++spins) {
      if (spins >= kSpinsBeforeYield) std::this_thread::yield();
    }
    std::vector<std::byte>& slot = slots_[n % kTableSlots];
    std::memcpy(slot.data(), blob.data(), blob.size());
    uint64_t sum = 14695981039346656037ull;
    for (size_t i = 0; i + sizeof(uint64_t) <= slot.size(); i += sizeof(uint64_t)) {
      uint64_t word;
      std::memcpy(&word, slot.data() + i, sizeof word);
      sum = (sum ^ word) * 1099511628211ull;
    }
    sums_[n % kTableSlots] = sum;
    serving_.store(ticket + 1, std::memory_order_release);
  }

 private:
  std::atomic<uint64_t> next_ticket_{0};
  std::atomic<uint64_t> serving_{0};
  std::vector<std::vector<std::byte>> slots_;  // Written by the holder of the serving ticket.
  std::array<uint64_t, kTableSlots> sums_{};    // Likewise.
};

asio::awaitable<void> LockedWriteCaller(LockedTable& table, asio::thread_pool& workers,
                                        const std::vector<std::byte>& blob, uint64_t& next,
                                        InProcessPoint& point) {
  while (!point.stopping()) {
    StatusOr<tuner::Permit> permit =
        co_await tuner::AsyncAcquire(point.limiter(), point.io().get_executor(),
                                     InProcessPoint::AcquireDeadline(), asio::use_awaitable);
    if (!permit.ok()) continue;  // The meter counted it; a cancel at the end stops the loop.
    const uint64_t n = next++;
    Status written = co_await delivery::OnPool(workers, [&] {
      table.Write(n, blob);
      return Status::Ok();
    });
    if (written.ok()) permit->Success(blob.size());
  }
}

// The locked_write_64k plant. Thread-safety: RealPlant's (one RunPoint at a time).
class LockedWritePlant final : public RealPlant {
 public:
  std::string_view name() const override { return "locked_write_64k"; }
  int demand() const override { return kCallers; }

  StatusOr<PointResult> RunPoint(const PointSpec& spec) override {
    StatusOr<std::unique_ptr<InProcessPoint>> point = InProcessPoint::Create(spec);
    if (!point.ok()) return point.status();
    InProcessPoint& p = **point;
    LockedTable table;
    asio::thread_pool workers(kWorkers);  // After the point and the table: joined first.
    std::vector<std::byte> blob(kBlobBytes);
    std::independent_bits_engine<std::mt19937_64, 8, uint16_t> bytes(spec.seed);
    for (std::byte& b : blob) b = static_cast<std::byte>(bytes());
    uint64_t next = 0;
    for (int i = 0; i < kCallers; ++i) {
      asio::co_spawn(p.io(), LockedWriteCaller(table, workers, blob, next, p), asio::detached);
    }
    PointResult result = p.Run(spec);
    workers.join();
    return result;
  }
};

}  // namespace

std::unique_ptr<RealPlant> MakeLockedWritePlant() { return std::make_unique<LockedWritePlant>(); }

}  // namespace blobtune::plantbench
