// ClosedLoop: a deterministic, saturated closed loop for the limit algorithm tests, on a fake
// time line (no clock, no sleeping).
//
// The loop keeps `limit` accesses in flight in front of a resource where every access takes
//   max(w0, fixed + inflight * service)
// With fixed = 0 that is a resource that holds w0 / service accesses without queueing and
// queues past that knee (goodput flat at 1 / service); its completions are spread evenly over
// a round. GroupCommit() makes w0 = 0 and fixed > 0: one batch of all accesses in flight, a
// fixed cost per batch and `service` per access, so goodput inflight / (fixed + inflight *
// service) keeps rising with the limit; a round's completions all end at once. Time advances
// by one latency per round of `limit` completions. With a jitter j, accesses alternately take
// (1 - j) and (1 + j) times that (a cv of j); with a gap jitter g, the gaps between a round's
// completions alternate between (1 - g) and (1 + g) times their mean. RunShared() puts several
// limiters in front of the same resource. In Run(), set_others(n) keeps n accesses of other
// clients in flight on the resource too, and set_expired_per_round(n) makes the first sample of
// every round report n callers that gave up waiting (Sample::expired). set_thrash(t) makes a
// resource whose goodput falls past its knee: every access beyond it slows all by t.
//
// Thread-safety: none; a test's local.
#ifndef BLOBTUNE_TESTS_TUNER_ALGORITHMS_CLOSED_LOOP_H_
#define BLOBTUNE_TESTS_TUNER_ALGORITHMS_CLOSED_LOOP_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>

#include "blobtune/base/clock.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "sample_maker.h"

namespace blobtune::tuner::testing {

class ClosedLoop {
 public:
  ClosedLoop(Duration w0, Duration service) : w0_(w0), service_(service) {}

  // Group commit: `commit` per batch of every access in flight, plus `per_access` each.
  static ClosedLoop GroupCommit(Duration commit, Duration per_access) {
    ClosedLoop loop(Duration::zero(), per_access);
    loop.fixed_ = commit;
    loop.batched_ = true;
    return loop;
  }

  Duration LatencyAt(int inflight) const {
    const Duration latency = std::max(w0_, fixed_ + inflight * service_);
    if (thrash_ <= 0 || service_ <= Duration::zero()) return latency;
    // Past the knee every access in flight beyond it slows all of them by `thrash`.
    const int64_t past_knee = std::max<int64_t>(0, inflight - w0_ / service_);
    return std::chrono::duration_cast<Duration>(latency * (1 + thrash_ * past_knee));
  }

  // Runs `rounds` rounds; returns the largest limit seen.
  int Run(LimitAlgorithm& algorithm, int rounds) {
    int max_limit = algorithm.limit();
    for (int r = 0; r < rounds; ++r) {
      const int limit = algorithm.limit();
      const Duration latency = LatencyAt(limit + others_);
      for (int i = 0; i < limit; ++i) {
        // Completions spread over the round (or all at its end); each was granted one latency
        // before it ended. The (i + 1)th is i + 1 gaps in, of which (i + 1) % 2 are short.
        Duration end = now_ + latency * (i + 1) / limit;
        if (gap_jitter_ > 0) {
          end -=
              std::chrono::duration_cast<Duration>(latency * gap_jitter_ * ((i + 1) % 2) / limit);
        }
        if (batched_) end = now_ + latency;
        const double factor = i % 2 == 0 ? 1 - jitter_ : 1 + jitter_;
        const Duration taken = std::chrono::duration_cast<Duration>(latency * factor);
        Sample sample = Success(end - taken, taken, limit);
        if (i == 0) sample.expired = expired_per_round_;
        algorithm.Update(sample);
        max_limit = std::max(max_limit, algorithm.limit());
      }
      now_ += latency;
    }
    return max_limit;
  }

  // Runs `rounds` rounds of several limiters that share the resource: each keeps its limit in
  // flight, and every access takes the latency at their total (with GroupCommit(), one batch of
  // all of them). A limiter joins in round `joins_at[i]` (from this call's first round, 0 if
  // absent); returns the largest total limit seen.
  int RunShared(std::span<LimitAlgorithm* const> algorithms, int rounds,
                std::span<const int> joins_at = {}) {
    int max_total = 0;
    for (int r = 0; r < rounds; ++r) {
      auto joined = [&](size_t a) { return a >= joins_at.size() || r >= joins_at[a]; };
      int total = 0;
      for (size_t a = 0; a < algorithms.size(); ++a) {
        if (joined(a)) total += algorithms[a]->limit();
      }
      max_total = std::max(max_total, total);
      const Duration latency = LatencyAt(total);
      for (size_t a = 0; a < algorithms.size(); ++a) {
        if (!joined(a)) continue;
        const int limit = algorithms[a]->limit();
        for (int i = 0; i < limit; ++i) {
          const Duration end = batched_ ? now_ + latency : now_ + latency * (i + 1) / limit;
          algorithms[a]->Update(Success(end - latency, latency, limit));
        }
      }
      now_ += latency;
    }
    return max_total;
  }

  void set_w0(Duration w0) { w0_ = w0; }
  void set_service(Duration service) { service_ = service; }
  void set_jitter(double jitter) { jitter_ = jitter; }
  void set_gap_jitter(double gap_jitter) { gap_jitter_ = gap_jitter; }
  void set_batched(bool batched) { batched_ = batched; }
  void set_expired_per_round(uint32_t expired) { expired_per_round_ = expired; }
  void set_others(int others) { others_ = others; }
  // A resource that thrashes: see LatencyAt().
  void set_thrash(double thrash) { thrash_ = thrash; }
  Duration now() const { return now_; }

 private:
  Duration w0_;
  Duration service_;
  Duration fixed_ = Duration::zero();
  bool batched_ = false;
  double jitter_ = 0;
  double gap_jitter_ = 0;
  uint32_t expired_per_round_ = 0;
  int others_ = 0;
  double thrash_ = 0;
  Duration now_ = std::chrono::seconds(1);
};

}  // namespace blobtune::tuner::testing

#endif  // BLOBTUNE_TESTS_TUNER_ALGORITHMS_CLOSED_LOOP_H_
