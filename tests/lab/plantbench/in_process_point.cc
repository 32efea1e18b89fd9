#include "in_process_point.h"

#include <thread>

#include "timeline.h"

namespace blobtune::plantbench {

StatusOr<std::unique_ptr<InProcessPoint>> InProcessPoint::Create(const PointSpec& spec) {
  std::unique_ptr<InProcessPoint> point(new InProcessPoint());
  StatusOr<std::unique_ptr<tuner::Limiter>> limiter =
      MakePointLimiter(spec.algorithm, &point->meter_);
  if (!limiter.ok()) return limiter.status();
  point->limiter_ = *std::move(limiter);
  return point;
}

PointResult InProcessPoint::Run(const PointSpec& spec) {
  std::thread io_thread([this] { io_.run(); });
  Timeline timeline = RunTimeline(
      spec,
      [this] {
        AccessMeter::Totals totals = meter_.totals();
        return PlantGauge{.limit = static_cast<double>(limiter_->limit()),
                          .inflight = static_cast<double>(limiter_->inflight()),
                          .successes = totals.successes,
                          .timed_weight = totals.timed_weight,
                          .latency_sum_ms = totals.latency_sum_ms};
      },
      [this] { meter_.OpenWindow(); }, [this] { meter_.CloseWindow(); });
  stopping_.store(true, std::memory_order_relaxed);
  limiter_->CancelWaiters();
  io_thread.join();

  AccessMeter::Window window = meter_.window();
  PointResult result;
  result.measured_s = timeline.measured_s;
  result.successes = window.successes;
  result.refused = window.refused;
  result.attempts = window.attempts;
  result.goodput =
      timeline.measured_s > 0.0 ? static_cast<double>(window.successes) / timeline.measured_s : 0.0;
  result.p99_ms = window.p99_ms;
  result.mean_limit = timeline.mean_limit;
  result.series = std::move(timeline.series);
  return result;
}

}  // namespace blobtune::plantbench
