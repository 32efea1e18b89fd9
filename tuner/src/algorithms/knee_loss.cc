// The knee algorithm's lost demand (see "Refusals" and "Expiries" in knee.h): where callers
// shed instead of waiting, demand the limit turns away is lost, and the limit is set from the
// refused fraction instead of Little's law alone; where callers that wait give up, a higher
// limit may serve them. The windows and the control law are in knee.cc.
#include <algorithm>
#include <cmath>

#include "blobtune/tuner/algorithms/knee.h"
#include "knee_internal.h"

namespace blobtune::tuner {

using namespace knee_internal;

namespace {

// Adds a window's counts to recent ones that forget at the rate of kLossMemory arrivals.
// Returns the factor the recent counts were scaled by (1 if none).
double AddRecent(double lost, double arrivals, double& recent_lost, double& recent_arrivals) {
  recent_lost += lost;
  recent_arrivals += arrivals;
  if (recent_arrivals <= kLossMemory) return 1;
  const double forget = kLossMemory / recent_arrivals;
  recent_lost *= forget;
  recent_arrivals *= forget;
  return forget;
}

// More lost than kRefusedFraction of the arrivals by kRefusalZ standard errors (binomial).
bool SignificantlyMany(double lost, double arrivals) {
  const double allowed = kRefusedFraction * arrivals;
  return lost > allowed + kRefusalZ * std::sqrt(allowed);
}

// Recent losses that no longer matter: below kLossEndFraction of the allowance over at least
// half the memory.
bool NegligiblyFew(double recent_lost, double recent_arrivals) {
  return recent_arrivals >= 0.5 * kLossMemory &&
         recent_lost < kLossEndFraction * kRefusedFraction * recent_arrivals;
}

}  // namespace

void KneeLimit::CountArrival(const Sample& sample, double weight) {
  // From the first refusal on (before it, nobody sheds), until loss mode ends.
  if (!loss_mode_ && sample.refused == 0 && demand_.empty()) return;
  // The permits each arrival needed (Poisson arrivals see time averages): an admitted one those
  // in flight with itself, a refused one more than the limit.
  auto count = [this](int concurrency, double n) {
    const size_t at = static_cast<size_t>(std::clamp(concurrency, 1, kMaxConcurrencyBucket));
    if (demand_.size() <= at) demand_.resize(at + 1, 0.0);
    demand_[at] += n;
  };
  count(sample.inflight, weight);
  if (sample.refused > 0) count(limit_ + 1, sample.refused);
}

bool KneeLimit::CountRefusals(const Window& w, int window_limit) {
  const double arrivals = w.refused + w.served + w.slow_drops + w.fast_drops;
  if (window_limit != counted_limit_) {
    counted_limit_ = window_limit;
    limit_refused_ = 0;
    limit_arrivals_ = 0;
  }
  limit_refused_ += w.refused;
  limit_arrivals_ += arrivals;
  const double forget = AddRecent(w.refused, arrivals, recent_refused_, recent_arrivals_);
  if (forget < 1) {
    for (double& n : demand_) n *= forget;
  }
  const bool refusing = SignificantlyMany(limit_refused_, limit_arrivals_);
  if (refusing) loss_mode_ = true;
  if (loss_mode_ && NegligiblyFew(recent_refused_, recent_arrivals_)) {
    loss_mode_ = false;
    demand_.clear();
  }
  return refusing;
}

void KneeLimit::CountExpiries(const Window& w) {
  AddRecent(w.expired, w.expired + w.served + w.slow_drops + w.fast_drops, recent_expired_,
            recent_waiting_arrivals_);
  if (SignificantlyMany(recent_expired_, recent_waiting_arrivals_)) expiring_ = true;
  if (expiring_ && NegligiblyFew(recent_expired_, recent_waiting_arrivals_)) expiring_ = false;
}

double KneeLimit::LossTarget(double goodput) const {
  const double p = recent_arrivals_ > 0 ? recent_refused_ / recent_arrivals_ : 0.0;
  if (p <= 0) return options_.max_limit;
  // Idle permits of a saturated loss system: geometric, mean (1 - p) / p, variance that / p.
  const double idle = (1 - p) / p;
  const double busy = goodput * BaselineFor(RecentBytes()) + setup_holding_;
  return busy + Headroom() * std::sqrt(busy + idle / p) + idle + drop_holding_;
}

double KneeLimit::DemandQuantile() const {
  double arrivals = 0;
  for (double n : demand_) arrivals += n;
  const double allowed = kRefusedFraction * arrivals;
  const double significantly_fewer = allowed - kRefusalZ * std::sqrt(allowed);
  if (significantly_fewer <= 0) return limit_;
  // The smallest limit k that would have refused significantly fewer: the arrivals that needed
  // more than k permits.
  double needed_more = 0;
  for (size_t k = demand_.size(); k-- > 1;) {
    needed_more += demand_[k];
    if (needed_more > significantly_fewer) return static_cast<double>(k);
  }
  return 1;
}

}  // namespace blobtune::tuner
