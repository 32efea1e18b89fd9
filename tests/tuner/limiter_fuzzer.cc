// libFuzzer target over the Limiter itself, driven from one thread on a fake clock: a sequence
// of grants, releases with every outcome and steps of time, with any registered algorithm and up
// to three partitions. Checks, after every step, what limiter.h and partition.h promise:
//   - TryAcquire() grants exactly when a slot is free (the permits held are fewer than the
//     limit) or the partition holds fewer than its guarantee, floor(share x limit); nobody
//     waits here, so nothing else may refuse it;
//   - Acquire() with a deadline already past grants when TryAcquire() would, and otherwise
//     fails at once with DEADLINE_EXCEEDED, without waiting;
//   - a permit's inflight_at_grant() counts every permit held, itself included;
//   - each partition's in-flight count is the permits it holds, and the limit stays within
//     [min_limit, max_limit].
//
// The input: [0] the algorithm (registry order), [1] partitions (0-3) and the sampling rate,
// [2..4] each partition's share and priority, then one byte a step (below).
//
// Built with clang -fsanitize=fuzzer by scripts/fuzz; tuner_limiter_fuzzer_corpus_test runs the
// seed corpus (limiter_fuzz_corpus/) through it in every build.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blobtune/base/status_or.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/limiter.h"
#include "blobtune/tuner/partition.h"
#include "common/fake_clock.h"

namespace {

using blobtune::FakeClock;
using blobtune::StatusCode;
using blobtune::StatusOr;
using namespace blobtune::tuner;

void Require(bool condition) {
  if (!condition) std::abort();
}

struct Held {
  Permit permit;
  uint32_t partition;
};

class Harness {
 public:
  Harness(std::unique_ptr<Limiter> limiter, std::vector<double> shares, FakeClock& clock)
      : limiter_(std::move(limiter)), shares_(std::move(shares)), clock_(clock) {}

  ~Harness() {
    held_.clear();  // Every permit back before the limiter goes.
  }

  // One step from one byte: bits 0-1 the kind, the rest its argument.
  void Step(uint8_t byte) {
    const unsigned arg = byte >> 2;
    switch (byte & 3) {
      case 0: Grant(arg, /*wait=*/false); break;
      case 1: Grant(arg, /*wait=*/true); break;
      case 2: Release(arg); break;
      case 3: clock_.Advance(std::chrono::nanoseconds(int64_t{1} << (arg % 34))); break;
    }
    Check();
  }

 private:
  uint32_t PartitionOf(unsigned arg) const {
    return static_cast<uint32_t>(arg % std::max<size_t>(1, shares_.size()));
  }

  int HeldBy(uint32_t partition) const {
    return static_cast<int>(std::count_if(held_.begin(), held_.end(), [&](const Held& h) {
      return h.partition == partition;
    }));
  }

  // What partition.h promises a partition that asks while nobody waits.
  bool ShouldGrant(uint32_t partition) const {
    const int limit = limiter_->limit();
    if (static_cast<int>(held_.size()) < limit) return true;
    if (shares_.empty()) return false;
    return HeldBy(partition) < static_cast<int>(std::floor(shares_[partition] * limit));
  }

  void Grant(unsigned arg, bool wait) {
    const uint32_t partition = PartitionOf(arg);
    const bool expected = ShouldGrant(partition);
    std::optional<Permit> permit;
    if (wait) {
      StatusOr<Permit> waited = limiter_->Acquire(PartitionId{partition},
                                                  clock_.Now() - std::chrono::nanoseconds(1));
      if (waited.ok()) {
        permit = std::move(*waited);
      } else {
        Require(waited.status().code() == StatusCode::kDeadlineExceeded);
      }
    } else {
      permit = limiter_->TryAcquire(PartitionId{partition});
    }
    Require(permit.has_value() == expected);
    if (!permit) return;
    Require(permit->partition().index == partition);
    held_.push_back({std::move(*permit), partition});
    Require(held_.back().permit.inflight_at_grant() == static_cast<int>(held_.size()));
  }

  // arg: bits 0-1 the outcome (success, dropped, ignored, none), the rest which permit.
  void Release(unsigned arg) {
    if (held_.empty()) return;
    const size_t which = (arg >> 2) % held_.size();
    Permit& permit = held_[which].permit;
    switch (arg & 3) {
      case 0: permit.Success(4096); break;
      case 1: permit.Dropped(); break;
      case 2: permit.Ignore(); break;
      case 3: break;  // Destroyed below, as ignored.
    }
    Require(!permit.valid() || (arg & 3) == 3);
    held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(which));
  }

  void Check() const {
    const int limit = limiter_->limit();
    Require(limit >= 1 && limit >= limiter_->min_limit() && limit <= limiter_->max_limit());
    Require(limiter_->queue_length() == 0);
    const size_t partitions = std::max<size_t>(1, shares_.size());
    for (uint32_t p = 0; p < partitions; ++p) {
      const PartitionStatus status = limiter_->partition(PartitionId{p});
      Require(status.inflight == (shares_.empty() ? static_cast<int>(held_.size()) : HeldBy(p)));
      Require(status.waiting == 0);
    }
  }

  std::unique_ptr<Limiter> limiter_;
  std::vector<double> shares_;  // Empty: no partitions.
  FakeClock& clock_;
  std::vector<Held> held_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  const std::vector<std::string_view> names = AlgorithmNames();
  StatusOr<std::unique_ptr<LimitAlgorithm>> algorithm =
      MakeAlgorithmFromText(names[data[0] % names.size()]);
  Require(algorithm.ok());

  FakeClock clock;
  LimiterOptions options;
  options.algorithm = std::move(*algorithm);
  options.clock = &clock;
  // Every permit timed, or one in a stride once completions pass 100 a second.
  options.full_sampling_rate = (data[1] & 4) != 0 ? 100.0 : 20000.0;
  std::vector<double> shares;
  const unsigned partitions = data[1] % 4;
  double left = 1.0;
  for (unsigned i = 0; i < partitions; ++i) {
    const double share = std::min(left, (data[2 + i] & 0x3f) / 63.0);
    left -= share;
    shares.push_back(share);
    options.partitions.push_back(
        {.name = "p" + std::to_string(i), .share = share, .priority = data[2 + i] >> 6});
  }
  StatusOr<std::unique_ptr<Limiter>> limiter = Limiter::Create(std::move(options));
  Require(limiter.ok());

  Harness harness(std::move(*limiter), std::move(shares), clock);
  for (size_t i = 5; i < size; ++i) harness.Step(data[i]);
  return 0;
}
