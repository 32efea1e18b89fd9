// InProcessPoint: the frame every in-process plant's point shares: an AccessMeter, a limiter
// built from the point's spec that reports to it, an io_context where the closed-loop callers
// run (one thread), and the flag that tells the callers to stop.
//
//   StatusOr<std::unique_ptr<InProcessPoint>> point = InProcessPoint::Create(spec);
//   if (!point.ok()) return point.status();
//   ... objects that use (*point)->io() and (*point)->limiter(), declared after it ...
//   for (int i = 0; i < callers; ++i) asio::co_spawn((*point)->io(), Caller(...), asio::detached);
//   return (*point)->Run(spec);   // warm-up, window, stop, drain
//
// A caller loops while !stopping(): one access per turn, the next as soon as the last ended.
// Run() starts the io thread, runs the timeline (timeline.h) on the calling thread, then sets
// stopping(), fails every waiting acquirer (Limiter::CancelWaiters) and joins the io thread,
// which returns once every access in flight has finished. Declare what the callers use after
// the point, so that it is destroyed first.
//
// Thread-safety: Create and Run from one thread; stopping() from any (the callers' io thread).
#ifndef BLOBTUNE_TESTS_LAB_PLANTBENCH_IN_PROCESS_POINT_H_
#define BLOBTUNE_TESTS_LAB_PLANTBENCH_IN_PROCESS_POINT_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>

#include "access_meter.h"
#include "blobtune/base/clock.h"
#include "blobtune/base/status_or.h"
#include "blobtune/tuner/limiter.h"
#include "real_plant.h"

namespace blobtune::plantbench {

class InProcessPoint {
 public:
  // INVALID_ARGUMENT for a bad algorithm spec.
  static StatusOr<std::unique_ptr<InProcessPoint>> Create(const PointSpec& spec);

  InProcessPoint(const InProcessPoint&) = delete;
  InProcessPoint& operator=(const InProcessPoint&) = delete;
  ~InProcessPoint() = default;

  boost::asio::io_context& io() noexcept { return io_; }
  tuner::Limiter& limiter() noexcept { return *limiter_; }
  bool stopping() const noexcept { return stopping_.load(std::memory_order_relaxed); }

  // How long a caller waits for a permit: far longer than any queue of the demand takes to
  // drain, so that a closed loop waits instead of being refused.
  static TimePoint AcquireDeadline() { return Clock::Steady().Now() + std::chrono::seconds(60); }

  // REQUIRES: the callers are spawned. Blocks for the warm-up and the window, then drains.
  PointResult Run(const PointSpec& spec);

 private:
  InProcessPoint() = default;

  AccessMeter meter_;                        // Outlives the limiter it observes.
  std::unique_ptr<tuner::Limiter> limiter_;  // Outlives the io_context's operations.
  boost::asio::io_context io_{1};
  std::atomic<bool> stopping_{false};
};

}  // namespace blobtune::plantbench

#endif  // BLOBTUNE_TESTS_LAB_PLANTBENCH_IN_PROCESS_POINT_H_
