// The knee algorithm's size model (see knee.h, "Sizes"): a baseline that follows the size of
// the accesses, for resources that spend time per byte. The windows and the control law are in
// knee.cc, the baseline and its probes in knee_baseline.cc.
#include <algorithm>

#include "blobtune/tuner/algorithms/knee.h"
#include "knee_internal.h"

namespace blobtune::tuner {

using namespace knee_internal;

void KneeLimit::UpdateSizeSlope(const Window& w) {
  if (w.served < 2) return;
  // Within one window the accesses wait behind about the same queue, whatever their own size:
  // their latency varies with size by what the resource spends per byte. Across windows the
  // queue varies too (and with the sizes ahead), so each window is centred on its own means.
  const double mean_bytes = w.bytes_sum / w.served;
  const double mean_latency_s = w.latency_sum_s / w.served;
  const double covariance =
      (w.latency_bytes_sum - w.served * mean_bytes * mean_latency_s) / w.served;
  const double variance = std::max(0.0, w.bytes_sq_sum / w.served - mean_bytes * mean_bytes);
  size_latency_covariance_ += kSizeSmoothing * (covariance - size_latency_covariance_);
  size_variance_ += kSizeSmoothing * (variance - size_variance_);
}

double KneeLimit::BaselineFor(double mean_bytes) const {
  const double baseline = baseline_s_.value_or(0.0);
  if (size_variance_ <= 0) return baseline;
  const double per_byte = std::max(0.0, size_latency_covariance_ / size_variance_);
  return std::max(kMinSizedBaselineRatio * baseline,
                  baseline + per_byte * (mean_bytes - baseline_bytes_));
}

double KneeLimit::SizeScale(double from_bytes, double to_bytes) const {
  const double from = BaselineFor(from_bytes);
  return from > 0 ? BaselineFor(to_bytes) / from : 1.0;
}

double KneeLimit::MeanBytes(const Window& w) const {
  return w.served > 0 ? w.bytes_sum / w.served : RecentBytes();
}

double KneeLimit::RecentBytes() const {
  return smoothed_served_ > 0 ? smoothed_bytes_ / smoothed_served_ : baseline_bytes_;
}

void KneeLimit::RestartGoodput(double served, double duration_s, double mean_bytes) {
  // The permits held in setup go with the rate at the same setup per access (Little's law):
  // after a probe that found lost capacity, the old rate's would keep the limit up for as long
  // as their average takes to forget it (slow_uploads: from 78 to 39 over 3.5 s, 45 round trips).
  if (goodput_ && *goodput_ > 0 && duration_s > 0) {
    setup_holding_ *= served / duration_s / *goodput_;
  }
  smoothed_served_ = served;
  smoothed_duration_s_ = duration_s;
  smoothed_bytes_ = served * mean_bytes;
  goodput_ = smoothed_served_ / smoothed_duration_s_;
}

void KneeLimit::NoteLowestBaseline() {
  if (!baseline_s_) return;
  // Compared at the size the lowest one was measured on.
  if (!lowest_baseline_s_ || BaselineFor(lowest_baseline_bytes_) < *lowest_baseline_s_) {
    lowest_baseline_s_ = baseline_s_;
    lowest_baseline_bytes_ = baseline_bytes_;
  }
}

}  // namespace blobtune::tuner
