#include "timeline.h"

#include <chrono>
#include <thread>

namespace blobtune::plantbench {
namespace {

using SteadyClock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kTick{10};
constexpr int kTicksPerPoint = 10;

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

SteadyClock::duration FromSeconds(double s) {
  return std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

Timeline RunTimeline(const PointSpec& spec, const std::function<PlantGauge()>& read_gauge,
                     const std::function<void()>& open_window,
                     const std::function<void()>& close_window) {
  Timeline timeline;
  const SteadyClock::time_point start = SteadyClock::now();
  const SteadyClock::time_point window_start = start + FromSeconds(spec.warmup_s);
  const SteadyClock::time_point window_end = window_start + FromSeconds(spec.measure_s);
  auto interrupted = [&] {
    return spec.interrupted != nullptr && spec.interrupted->load(std::memory_order_relaxed);
  };

  // One series point's accumulators; each gauge reading stands for the tick that ends with it.
  PlantGauge bucket_start = read_gauge();
  SteadyClock::time_point bucket_from = start, last_tick = start;
  double limit_time = 0.0, inflight_time = 0.0;
  int ticks = 0;
  double window_limit_time = 0.0, window_time = 0.0;
  SteadyClock::time_point opened_at{};
  bool open = false;

  for (SteadyClock::time_point next = start + kTick;; next += kTick) {
    // Open exactly at window_start, between ticks if the warm-up is not a multiple of a tick.
    if (!open && next >= window_start) {
      std::this_thread::sleep_until(window_start);
      open_window();
      opened_at = SteadyClock::now();
      open = true;
    }
    if (next > window_end) next = window_end;
    std::this_thread::sleep_until(next);
    const SteadyClock::time_point now = SteadyClock::now();
    const PlantGauge gauge = read_gauge();
    const double dt = Seconds(now - last_tick);
    last_tick = now;
    limit_time += gauge.limit * dt;
    inflight_time += gauge.inflight * dt;
    if (open) {
      window_limit_time += gauge.limit * dt;
      window_time += dt;
    }
    const bool done = now >= window_end || interrupted();
    if (++ticks == kTicksPerPoint || done) {
      const double span = Seconds(now - bucket_from);
      workbench::SeriesPoint point;
      point.end_s = Seconds(now - start);
      if (span > 0.0) {
        point.mean_limit = limit_time / span;
        point.mean_inflight = inflight_time / span;
        point.throughput = static_cast<double>(gauge.successes - bucket_start.successes) / span;
      }
      const uint64_t timed = gauge.timed_weight - bucket_start.timed_weight;
      if (timed > 0) {
        point.mean_latency_ms =
            (gauge.latency_sum_ms - bucket_start.latency_sum_ms) / static_cast<double>(timed);
      }
      timeline.series.push_back(point);
      bucket_start = gauge;
      bucket_from = now;
      limit_time = inflight_time = 0.0;
      ticks = 0;
    }
    if (done) break;
  }
  if (!open) {  // Interrupted during the warm-up: an empty window.
    open_window();
    opened_at = SteadyClock::now();
  }
  close_window();
  timeline.measured_s = Seconds(SteadyClock::now() - opened_at);
  timeline.mean_limit = window_time > 0.0 ? window_limit_time / window_time : 0.0;
  return timeline;
}

}  // namespace blobtune::plantbench
