// StatusSampler: a background thread that records a registry's snapshots into a StatusPage at
// a fixed interval, so that the page has a history however often it is viewed.
//
//   metrics::StatusPage page;
//   metrics::StatusSampler sampler(registry, page, std::chrono::seconds(1));
//   ... GET /status answers page.Html() ...
//
// Sampling: the thread only reads snapshots (the same reads as a /metrics scrape), never a hook
// on the permit path. It records once in the constructor (so the page shows what is registered
// by then from the start), then every `interval`.
//
// Lifetime: `registry`, `page` and `clock` must outlive the sampler; destroying it stops and joins
// the thread promptly (it does not wait out the interval).
//
// Thread-safety: construction and destruction on one thread; the object has no other methods.
#ifndef BLOBTUNE_METRICS_STATUS_SAMPLER_H_
#define BLOBTUNE_METRICS_STATUS_SAMPLER_H_

#include <chrono>
#include <thread>

#include "blobtune/base/clock.h"
#include "blobtune/base/mutex.h"
#include "blobtune/metrics/registry.h"
#include "blobtune/metrics/status_page.h"

namespace blobtune::metrics {

class StatusSampler {
 public:
  // REQUIRES: interval > 0.
  StatusSampler(const MetricsRegistry& registry, StatusPage& page,
                std::chrono::milliseconds interval, const Clock& clock = Clock::Steady());
  StatusSampler(const StatusSampler&) = delete;
  StatusSampler& operator=(const StatusSampler&) = delete;
  ~StatusSampler();

 private:
  void Run() BLOBTUNE_EXCLUDES(mu_);
  void Record();

  const MetricsRegistry& registry_;
  StatusPage& page_;
  const std::chrono::milliseconds interval_;
  const Clock& clock_;
  const TimePoint start_;
  Mutex mu_;
  CondVar stop_cv_;
  bool stop_ BLOBTUNE_GUARDED_BY(mu_) = false;
  std::thread thread_;  // Started in the constructor's body, once everything above is built.
};

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_STATUS_SAMPLER_H_
