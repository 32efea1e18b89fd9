// Stress of an observed limiter: waves of threads take permits in every way the limiter offers
// and end them in every way there is (success, dropped, ignored; rejected, timed out, cancelled,
// refused for a full queue) while the limit moves, waiters are cancelled and scrapes run. The
// exported totals must match what the threads were handed out, exactly: no count lost to a
// thread that exited, none counted twice. Run under TSan in CI.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <latch>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "blobtune/metrics/limiter_metrics.h"
#include "blobtune/metrics/registry.h"
#include "blobtune/tuner/limiter.h"
#include "common/fake_clock.h"
#include "common/stop_board.h"
#include "test_support.h"

namespace blobtune::metrics {
namespace {

using std::chrono::microseconds;
using testing::SteeredAlgorithm;

// Every series of an exposition text, by name with labels: "name{labels}" -> value.
std::map<std::string, double> ParseExposition(const std::string& text) {
  std::map<std::string, double> series;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    series[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return series;
}

std::string PermitsSeries(PermitEnd end) {
  return "blobtune_limiter_permits_total{limiter=\"stress\",outcome=\"" +
         std::string(PermitEndName(end)) + "\"}";
}

// What the workers were handed, counted by the workers themselves.
struct Tally {
  void Count(PermitEnd end) { ends[static_cast<size_t>(end)].fetch_add(1); }
  uint64_t Of(PermitEnd end) const { return ends[static_cast<size_t>(end)].load(); }
  std::array<std::atomic<uint64_t>, kPermitEndCount> ends{};
  std::atomic<uint64_t> granted{0};
};

class LimiterMetricsStressTest : public ::testing::Test {
 protected:
  static constexpr int kWaves = 3;           // Threads that exit leave their counts behind.
  static constexpr int kThreadsPerWave = 8;
  static constexpr int kIterations = 1000;   // Per thread.

  // One worker: acquires in a random way, holds a while, ends the permit in a random way.
  void Work(tuner::Limiter& limiter, int index) {
    std::mt19937_64 rng(1000 + index);
    for (int i = 0; i < kIterations; ++i) {
      std::optional<tuner::Permit> permit;
      switch (rng() % 4) {
        case 0:
          permit = limiter.TryAcquire();
          if (!permit) tally_.Count(PermitEnd::kRejected);
          break;
        case 1:
          permit = Granted(limiter.Acquire(clock_.Now() + microseconds(rng() % 200)));
          break;
        default:
          permit = Granted(limiter.Acquire(clock_.Now() + microseconds(500),
                                           stops_.Fresh(static_cast<size_t>(index))));
          break;
      }
      if (permit) Hold(std::move(*permit), rng);
      clock_.Advance(microseconds(1));
    }
  }

  std::optional<tuner::Permit> Granted(StatusOr<tuner::Permit> p) {
    if (p.ok()) return *std::move(p);
    switch (p.status().code()) {
      case StatusCode::kDeadlineExceeded:
        tally_.Count(PermitEnd::kTimeout);
        break;
      case StatusCode::kCancelled:
        tally_.Count(PermitEnd::kCancelled);
        break;
      case StatusCode::kResourceExhausted:
        tally_.Count(PermitEnd::kQueueFull);
        break;
      default:
        ADD_FAILURE() << "unexpected acquire failure: " << p.status();
    }
    return std::nullopt;
  }

  void Hold(tuner::Permit permit, std::mt19937_64& rng) {
    tally_.granted.fetch_add(1);
    clock_.Advance(microseconds(rng() % 50));
    if (rng() % 4 == 0) std::this_thread::yield();
    switch (rng() % 4) {
      case 0:
        permit.Dropped();
        tally_.Count(PermitEnd::kDropped);
        break;
      case 1:
        permit.Ignore();
        tally_.Count(PermitEnd::kIgnored);
        break;
      case 2: {
        tuner::Permit moved = std::move(permit);  // Ignored by its destructor.
        tally_.Count(PermitEnd::kIgnored);
        break;
      }
      default:
        permit.Success(rng() % 4096);
        tally_.Count(PermitEnd::kSuccess);
        break;
    }
  }

  FakeClock clock_;
  MetricsRegistry registry_;
  Tally tally_;
  StopBoard stops_{kWaves * kThreadsPerWave};
};

TEST_F(LimiterMetricsStressTest, ExportedTotalsMatchThePermitsHandedOut) {
  auto target = std::make_shared<std::atomic<int>>(3);
  tuner::LimiterOptions options;
  options.algorithm = std::make_unique<SteeredAlgorithm>(target);
  options.clock = &clock_;
  options.observer = registry_.AddLimiter("stress").value();
  options.max_queue = 2;  // Small, so that some acquirers find it full.
  // Every permit timed, so that the latency histograms count every success and drop.
  options.full_sampling_rate = 1e15;
  auto limiter = tuner::Limiter::Create(std::move(options)).value();

  std::atomic<bool> done{false};
  // Scrapes while permits come and go: no total ever goes down.
  std::thread scraper([&] {
    std::map<std::string, double> last;
    int scrapes = 0;
    while (!done.load() || scrapes < 10) {
      for (const auto& [name, value] : ParseExposition(registry_.TextExposition())) {
        const bool monotonic = name.find("_total{") != std::string::npos ||
                               name.find("_count{") != std::string::npos;
        if (!monotonic) continue;
        EXPECT_GE(value, last[name]) << name;
        last[name] = value;
      }
      ++scrapes;
    }
  });
  // Cancels waiters and moves the limit over [1, 6].
  std::thread canceller([&] {
    std::mt19937_64 rng(99);
    while (!done.load()) {
      if (rng() % 8 == 0) {
        limiter->CancelWaiters();
      } else {
        stops_.Stop(rng() % (kWaves * kThreadsPerWave));
      }
      if (rng() % 4 == 0) target->store(1 + static_cast<int>(rng() % 6));
      clock_.Advance(microseconds(20));
      std::this_thread::yield();
    }
  });
  for (int wave = 0; wave < kWaves; ++wave) {
    std::latch start(kThreadsPerWave);
    std::vector<std::thread> workers;
    for (int t = 0; t < kThreadsPerWave; ++t) {
      workers.emplace_back([&, index = wave * kThreadsPerWave + t] {
        start.arrive_and_wait();
        Work(*limiter, index);
      });
    }
    for (auto& w : workers) w.join();
  }
  done = true;
  canceller.join();
  scraper.join();

  ASSERT_EQ(limiter->inflight(), 0);
  const std::string text = registry_.TextExposition();
  const testing::CommandResult promtool = testing::PromtoolCheckMetrics(text);
  EXPECT_EQ(promtool.exit_code, 0) << promtool.output;
  std::map<std::string, double> series = ParseExposition(text);
  uint64_t failed = 0;
  for (size_t i = 0; i < kPermitEndCount; ++i) {
    const auto end = static_cast<PermitEnd>(i);
    EXPECT_EQ(series[PermitsSeries(end)], static_cast<double>(tally_.Of(end)))
        << PermitEndName(end);
    // Every way to end shows up, or the test does not test it.
    EXPECT_GT(tally_.Of(end), 0u) << PermitEndName(end);
    if (i >= static_cast<size_t>(PermitEnd::kRejected)) failed += tally_.Of(end);
  }
  const uint64_t released = tally_.Of(PermitEnd::kSuccess) + tally_.Of(PermitEnd::kDropped) +
                            tally_.Of(PermitEnd::kIgnored);
  EXPECT_EQ(released, tally_.granted.load());
  EXPECT_EQ(released + failed, uint64_t{kWaves} * kThreadsPerWave * kIterations);
  EXPECT_EQ(series["blobtune_limiter_queue_wait_seconds_count{limiter=\"stress\"}"],
            static_cast<double>(tally_.granted.load()));
  EXPECT_EQ(series["blobtune_limiter_permit_duration_seconds_count{limiter=\"stress\","
                   "outcome=\"success\"}"],
            static_cast<double>(tally_.Of(PermitEnd::kSuccess)));
  EXPECT_EQ(series["blobtune_limiter_permit_duration_seconds_count{limiter=\"stress\","
                   "outcome=\"dropped\"}"],
            static_cast<double>(tally_.Of(PermitEnd::kDropped)));
  // The snapshot the status page reads agrees with the text.
  const LimiterSnapshot snapshot = registry_.LimiterSnapshots().at(0);
  EXPECT_EQ(snapshot.permits[static_cast<size_t>(PermitEnd::kSuccess)],
            tally_.Of(PermitEnd::kSuccess));
  EXPECT_EQ(snapshot.queue_wait.count, tally_.granted.load());
  EXPECT_GT(snapshot.limit_increases + snapshot.limit_decreases, 0u);
}

}  // namespace
}  // namespace blobtune::metrics
