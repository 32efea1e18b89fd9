// LimitAlgorithm: the interface every concurrency-limit algorithm implements.
//
// An algorithm is a value type that maps a stream of Samples to a concurrency limit. It holds no
// lock, timer, thread or clock: the Limiter owns concurrency and time and calls Update() with
// one sample at a time, in completion order, from one thread at a time. Window-based algorithms
// (Envoy's gradient controller, ours) aggregate samples by their timestamps themselves.
//
//   StatusOr<std::unique_ptr<LimitAlgorithm>> aimd =
//       MakeAlgorithmFromText("aimd");                           // algorithm_registry.h
//   int limit = (*aimd)->Update(sample);   // within [min_limit, max_limit], never below 1
//
// Thread-safety: none; an instance is driven by one thread at a time (the Limiter serialises).
#ifndef BLOBTUNE_TUNER_LIMIT_ALGORITHM_H_
#define BLOBTUNE_TUNER_LIMIT_ALGORITHM_H_

#include <memory>
#include <optional>
#include <string_view>

#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"
#include "blobtune/tuner/algorithm_state.h"
#include "blobtune/tuner/sample.h"

namespace blobtune::tuner {

// What an algorithm currently believes about the resource behind the limiter, for metrics and
// plots. Fields an algorithm does not estimate stay empty.
struct AlgorithmEstimates {
  std::optional<Duration> baseline_latency;  // No-load latency (minRTT, rtt_noload, long RTT).
  std::optional<Duration> recent_latency;    // The latency the last decision was based on.
  std::optional<double> max_throughput;      // Accesses per second at the knee, if estimated.
  std::string_view state;                    // Phase of a state machine ("probing", ...).
};

class LimitAlgorithm {
 public:
  LimitAlgorithm() = default;
  virtual ~LimitAlgorithm() = default;

  // Short registry name: "fixed", "aimd", "gradient", "gradient2", "vegas", ...
  virtual std::string_view name() const noexcept = 0;

  // The limit in force now. Always within [min_limit(), max_limit()] and >= 1.
  virtual int limit() const noexcept = 0;

  // The bounds the limit stays within, as configured in the algorithm's options; they never
  // change. 1 <= min_limit() <= max_limit(). An algorithm whose limit never moves reports that
  // limit as both.
  virtual int min_limit() const noexcept = 0;
  virtual int max_limit() const noexcept = 0;

  // Feeds one finished access; returns the limit to use from now on (same as limit() after).
  virtual int Update(const Sample& sample) = 0;

  virtual AlgorithmEstimates estimates() const { return {}; }

  // A copy of this algorithm in its current state (value semantics through the interface).
  virtual std::unique_ptr<LimitAlgorithm> Clone() const = 0;

  // What the algorithm has learned (algorithm_state.h), for another instance of it to start
  // from. Default: the limit alone.
  virtual AlgorithmState SaveState() const;
  // Starts from `state`, as SaveState() of an instance of this algorithm gave it: the limit,
  // clamped to this instance's bounds, and what the law needs to go on from there. Before the
  // first Update(). INVALID_ARGUMENT, with the instance unchanged, for another algorithm's state,
  // one that lacks what this algorithm needs, or (the default) an algorithm that always starts
  // afresh.
  virtual Status RestoreState(const AlgorithmState& state);

 protected:
  LimitAlgorithm(const LimitAlgorithm&) = default;
  LimitAlgorithm& operator=(const LimitAlgorithm&) = default;
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_LIMIT_ALGORITHM_H_
