#include "blobtune/metrics/status_sampler.h"

namespace blobtune::metrics {

StatusSampler::StatusSampler(const MetricsRegistry& registry, StatusPage& page,
                             std::chrono::milliseconds interval, const Clock& clock)
    : registry_(registry),
      page_(page),
      interval_(interval > std::chrono::milliseconds(0) ? interval : std::chrono::seconds(1)),
      clock_(clock),
      start_(clock.Now()) {
  // The first record is taken before the constructor returns, so the page shows every limiter
  // and store registered by then from the first request on.
  Record();
  thread_ = std::thread([this] { Run(); });
}

void StatusSampler::Record() {
  const double t = std::chrono::duration<double>(clock_.Now() - start_).count();
  page_.Record(t, registry_.LimiterSnapshots(), registry_.StoreSnapshots());
}

StatusSampler::~StatusSampler() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  stop_cv_.NotifyAll();
  thread_.join();
}

void StatusSampler::Run() {
  for (;;) {
    {
      MutexLock lock(mu_);
      if (stop_cv_.WaitFor(lock, interval_, [this]() BLOBTUNE_REQUIRES(mu_) { return stop_; }))
        return;
    }
    Record();
  }
}

}  // namespace blobtune::metrics
