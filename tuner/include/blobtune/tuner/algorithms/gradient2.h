// Gradient2Limit: delay-based limit from the ratio of a long-term to the current latency, a port
// of Netflix concurrency-limits' Gradient2Limit (concurrency-limits-core/.../limit/
// Gradient2Limit.java), with the optional sample window of its WindowedLimit wrapper
// (.../limit/WindowedLimit.java and window/ImmutableAverageSampleWindow.java).
//
// For resources whose latency rises before they fail: the limit shrinks while the current latency
// exceeds the long-term average by more than the tolerance, and grows by up to `queue_size` per
// update otherwise.
//
//   StatusOr<Gradient2Limit> g2 =
//       Gradient2Limit::Create({.limits = {.min_limit = 4, .max_limit = 256}});
//   if (!g2.ok()) return g2.status();
//   int limit = g2->Update(sample);
//
// Rule, per update, with rtt the sample latency (or the window's average), L the real-valued
// estimate and long_rtt an exponential average of rtt:
//   long_rtt = mean of the first 10 rtts, then long_rtt += (rtt - long_rtt) * 2 / (long_window+1)
//   if long_rtt / rtt > 2:   long_rtt *= 0.95        (recover quickly after a long overload)
//   if inflight < L / 2:     stop                    (app-limited: do not grow)
//   gradient = clamp(rtt_tolerance * long_rtt / rtt, 0.5, 1.0)   (long_rtt before the decay)
//   L' = (1 - smoothing) * L + smoothing * (L * gradient + queue_size)
//   L' = clamp(L', min_limit, max_limit); the limit in force is floor(L'), never below 1.
//
// Sampling: with window_size = 0 (default) every sample is one update, exactly as Gradient2Limit
// on its own. With window_size > 0 samples are pooled as WindowedLimit does, timed by sample end
// times instead of a clock: samples faster than min_rtt_threshold are ignored; a window closes on
// the first sample that ends after the deadline, and the next deadline is that end plus
// clamp(2 * window min latency, min_window_time, max_window_time). A closed window holding at
// least window_size samples feeds one update with its average latency and maximum inflight.
//
// Defaults: those of Netflix's Gradient2Limit.Builder, and of WindowedLimit for the window
// fields, except that the window is off: Gradient2Limit.newDefault() has none, and LMDB reads
// often finish below WindowedLimit's 100 us threshold.
//
// Sample::weight: without a window, a sample of weight w is replayed as w identical samples (at
// most 1024); in a window it counts w times towards the sample count and the average. Sample::
// dropped: ignored, as in Netflix, whose Gradient2 reads only latency and inflight; a drop's
// latency is averaged in like any other. Samples with latency <= 0 are skipped (Netflix would
// divide by zero).
//
// Thread-safety: none; driven by one thread at a time.
#ifndef BLOBTUNE_TUNER_ALGORITHMS_GRADIENT2_H_
#define BLOBTUNE_TUNER_ALGORITHMS_GRADIENT2_H_

#include <chrono>
#include <cstdint>
#include <string_view>

#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"
#include "blobtune/tuner/algorithms/algorithm_base.h"
#include "blobtune/tuner/sample.h"

namespace blobtune::tuner {

struct Gradient2Options {
  // Default: initial 20, min 20, max 200 accesses (max: Netflix's maxConcurrency).
  LimitBounds<20, 20, 200> limits;
  // Weight of the new estimate in each update. Default: 0.2. REQUIRES: 0 < smoothing <= 1.
  double smoothing = 0.2;
  // Accesses the limit may grow by per update while latency is low. Default: 4.
  // REQUIRES: 0 <= queue_size <= 1000000.
  int queue_size = 4;
  // Span of the long-term latency average, in updates. Default: 600. REQUIRES: >= 1.
  int long_window = 600;
  // How much slower than the long-term average the current latency may be before the limit
  // shrinks (2.0 tolerates a doubling). Default: 1.5. REQUIRES: 1 <= rtt_tolerance <= 100.
  double rtt_tolerance = 1.5;

  // Samples a window needs to produce an update; 0 disables the window. Default: 0 (Netflix's
  // WindowedLimit uses 10). REQUIRES: >= 0.
  int window_size = 0;
  // Shortest window. Default: 1 s. REQUIRES: > 0.
  Duration min_window_time = std::chrono::seconds(1);
  // Longest window. Default: 1 s. REQUIRES: min_window_time <= max_window_time <= 1 h.
  Duration max_window_time = std::chrono::seconds(1);
  // Windowed samples faster than this are ignored. Default: 100 us. REQUIRES: >= 0.
  Duration min_rtt_threshold = std::chrono::microseconds(100);

  Status Validate() const;
};

class Gradient2Limit final : public AlgorithmBase<Gradient2Limit, Gradient2Options> {
 public:
  static constexpr std::string_view kName = "gradient2";

  int Update(const Sample& sample) override;
  // baseline_latency: the long-term average; recent_latency: the latency of the last update.
  AlgorithmEstimates estimates() const override;

  // The real-valued estimate behind limit(), for tests and plots.
  double estimated_limit() const noexcept { return estimated_limit_; }

 private:
  // Netflix's ExpAvgMeasurement(long_window, 10): an arithmetic mean over the first 10 values,
  // then an exponential average with factor 2 / (window + 1).
  struct LongRtt {
    double value = 0;
    double sum = 0;
    int count = 0;
  };

  // WindowedLimit's ImmutableAverageSampleWindow.
  struct Window {
    Duration min_rtt = Duration::max();
    double rtt_sum_ns = 0;
    uint64_t count = 0;
    int max_inflight = 0;
  };

  using AlgorithmBase::AlgorithmBase;

  // One Gradient2Limit._update() with the latency in nanoseconds.
  void Step(double rtt_ns, int inflight);
  void AddToWindow(const Sample& sample);

  double estimated_limit_ = options_.limits.initial_limit;
  double last_rtt_ns_ = 0;
  LongRtt long_rtt_;
  Window window_;
  TimePoint next_window_end_ = TimePoint::min();
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_ALGORITHMS_GRADIENT2_H_
