#include "blobtune/tuner/algorithms/plateau.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <vector>

#include "algorithm_internal.h"
#include "option_table.h"

namespace blobtune::tuner {

namespace internal = algorithms_internal;

namespace {

// A comparison's early look, after this many (Poisson-equivalent) accesses, ends it if the
// evidence either way is at least kEarlyLookEvidence standard errors. The largest effect a
// probe measures is a doubling, ln 2 in ln(rate); n Poisson accesses know ln(rate) to
// 1 / sqrt(n), so 32 show a doubling at ln 2 / sqrt(2 / 32) = 2.8 standard errors, and chance
// alone reaches 3 at one look in 0.1% of comparisons.
constexpr double kEarlyLookAccesses = 32;
constexpr double kEarlyLookEvidence = 3;

// A floor under the measured variance of rates, so that a plant whose completions come like
// clockwork still leaves comparisons a finite standard error.
constexpr double kMinRateVariance = 1e-4;

// Startup doubles the limit: the largest step that still tells a knee from a plateau in one
// comparison (a doubling below the knee doubles goodput), as TCP's slow start and BBR's
// start-up grow their windows.
constexpr double kStartupFactor = 2;

// A changed limit settles for this many mean latencies before its window counts: the permits
// it adds (or removes) all start (or stop) at once, and their first round ends in a burst (or
// a gap) that would bias a short window's rate.
constexpr int kSettleLatencies = 2;

}  // namespace

namespace algorithms_internal {

// The options as the registry's text names them (option_table.h).
template <>
OptionTable<PlateauLimit::Options> OptionsOf<PlateauLimit::Options>() {
  using O = PlateauLimit::Options;
  static constexpr std::array kRows = {
      Option<&O::step>("step", Closed(0.05, 1), "a probe moves the limit by this fraction"),
      Option<&O::min_elasticity>(
          "min_elasticity", Open(0, 1),
          "share of a higher limit that must come back as goodput to keep it"),
      Option<&O::window_rtts>("window_rtts", Closed(1, 1e6),
                              "a window spans at least this many mean latencies"),
      Option<&O::window_samples>("window_samples", AtLeast(8),
                                 "... and at least this many Poisson-equivalent accesses"),
      Option<&O::confidence>("confidence", Closed(0.5, 5),
                             "standard errors by which a gain must clear min_elasticity"),
      Option<&O::probe_interval>("probe_interval", AtLeast(1),
                                 "windows held between two probe cycles of a steady plant"),
  };
  static constexpr auto kOptions = Concat(LimitRows<O>(), kRows);
  return kOptions;
}

}  // namespace algorithms_internal

Status PlateauLimit::Options::Validate() const {
  return internal::CheckOptions("plateau", *this);
}

StatusOr<PlateauLimit> PlateauLimit::Create(const Options& options) {
  if (Status status = options.Validate(); !status.ok()) return status;
  return PlateauLimit(options);
}

PlateauLimit::PlateauLimit(const Options& options)
    : options_(options), limit_(options.initial_limit) {}

void PlateauLimit::Measure::Add(const Measure& other) {
  served += other.served;
  seconds += other.seconds;
  latency_sum += other.latency_sum;
}

int PlateauLimit::Update(const Sample& sample) {
  const TimePoint end = sample.end();
  if (!window_open_) {
    window_open_ = true;
    counting_start_ = end;
    window_.limit = limit_;
  }
  if (end < counting_start_) return limit_;  // Ran mostly under the previous limit.
  // The window counts the completions from its first one up to, not including, the one that
  // closes it (which opens the next): whole gaps between completions, so that its rate is
  // unbiased even when it holds a few batches, which it never splits.
  if (window_.served + drops_ > 0 && end > last_end_) {
    window_.seconds = std::chrono::duration<double>(end - first_end_).count();
    if (WindowComplete()) {
      CloseWindow(end);
      if (end < counting_start_) return limit_;
    }
  }
  if (window_.served + drops_ == 0) first_end_ = end;
  last_end_ = end;

  const double weight = sample.weight;
  if (sample.dropped) {
    drops_ += weight;  // Not goodput, whatever the reason.
  } else {
    window_.served += weight;
    window_.latency_sum += weight * std::chrono::duration<double>(sample.latency).count();
  }

  binds_ = binds_ || sample.inflight >= limit_ || sample.refused > 0 || sample.expired > 0;
  return limit_;
}

bool PlateauLimit::WindowComplete() const {
  const double min_seconds =
      options_.window_rtts * std::chrono::duration<double>(mean_latency_).count();
  if (window_.seconds < min_seconds || window_.seconds <= 0) return false;
  // A window holds as many accesses as window_samples Poisson completions would take to show
  // the rate as precisely: more where completions come in bursts (batches).
  const double variance = std::max(1.0, rate_variance_);
  const double accesses = window_.served + drops_;
  const bool compares = phase_ == Phase::kProbeUp || phase_ == Phase::kProbeDown ||
                        (phase_ == Phase::kStartup && base_.served > 0);
  if (!compares) return accesses >= options_.window_samples * variance;
  // A comparison looks twice, so that chance alone rarely decides it: early, where the gain
  // or loss is plain, and once at its full size.
  if (accesses >= options_.window_samples * variance) return true;
  if (accesses < kEarlyLookAccesses * variance) return false;
  const double evidence =
      phase_ == Phase::kProbeDown ? Evidence(window_, base_) : Evidence(base_, window_);
  return std::abs(evidence) >= kEarlyLookEvidence;
}

void PlateauLimit::CloseWindow(TimePoint end) {
  const Measure here = window_;
  if (here.served > 0) {
    mean_latency_ = Duration(std::llround(1e9 * here.latency_sum / here.served));
  }
  auto hold = [&](int limit) {
    phase_ = Phase::kHold;
    hold_left_ = options_.probe_interval;
    base_ = Measure{};  // The hold measures the base afresh: the plant may have drifted.
    hold_log_rates_.clear();
    StartWindow(limit, end);
  };
  auto probe_down_from = [&](int limit) {
    const int lower = StepDown(limit);
    if (lower == limit) return hold(limit);
    phase_ = Phase::kProbeDown;
    StartWindow(lower, end);
  };
  auto climb = [&](double factor) {  // `here` was kept: go on up.
    base_ = here;
    const int higher = StepUp(limit_, factor);
    if (higher == limit_) return hold(limit_);
    StartWindow(higher, end);
  };

  switch (phase_) {
    case Phase::kStartup:
      if (base_.served == 0 || here.limit == base_.limit) {  // Nothing to compare with yet.
        base_ = here;
        return binds_ ? climb(kStartupFactor) : StartWindow(limit_, end);
      }
      if (binds_ && Evidence(base_, here) >= options_.confidence) return climb(kStartupFactor);
      return probe_down_from(base_.limit);
    case Phase::kHold:
      base_.limit = here.limit;
      base_.Add(here);
      if (here.Rate() > 0) hold_log_rates_.push_back(std::log(here.Rate()));
      if (--hold_left_ > 0) return StartWindow(limit_, end);
      MeasureRateVariance();
      if (binds_ && StepUp(limit_, 1 + options_.step) != limit_) {
        phase_ = Phase::kProbeUp;
        return StartWindow(StepUp(limit_, 1 + options_.step), end);
      }
      return probe_down_from(limit_);
    case Phase::kProbeUp:
      if (binds_ && Evidence(base_, here) >= options_.confidence) {
        return climb(1 + options_.step);
      }
      return probe_down_from(base_.limit);
    case Phase::kProbeDown:
      if (Evidence(here, base_) >= options_.confidence) return hold(base_.limit);
      base_ = here;
      return probe_down_from(limit_);
  }
}

void PlateauLimit::MeasureRateVariance() {
  const size_t windows = hold_log_rates_.size();
  if (windows < 3) return;
  // From the squared differences of successive windows, whose median is 2 * 0.455 times the
  // variance of normal noise: a trend or one step of the plant within the hold barely moves it.
  std::vector<double> squares;
  for (size_t i = 1; i < windows; ++i) {
    const double difference = hold_log_rates_[i] - hold_log_rates_[i - 1];
    squares.push_back(difference * difference);
  }
  std::nth_element(squares.begin(), squares.begin() + squares.size() / 2, squares.end());
  const double window_variance = squares[squares.size() / 2] / (2 * 0.455);
  const double accesses_per_window = base_.served / static_cast<double>(windows);
  // Averaged with the previous estimate: one hold's few windows say little on their own.
  rate_variance_ = (rate_variance_ + window_variance * accesses_per_window) / 2;
}

void PlateauLimit::StartWindow(int limit, TimePoint now) {
  counting_start_ = limit == limit_ ? now : now + kSettleLatencies * mean_latency_;
  limit_ = limit;
  window_ = Measure{};
  window_.limit = limit;
  drops_ = 0;
  binds_ = false;
}

double PlateauLimit::Evidence(const Measure& low, const Measure& high) const {
  if (low.served <= 0 || high.served <= 0) return high.Rate() > low.Rate() ? 1e9 : -1e9;
  const double gain = std::log(high.Rate() / low.Rate());
  const double threshold =
      options_.min_elasticity * std::log(static_cast<double>(high.limit) / low.limit);
  const double variance = std::max(rate_variance_, kMinRateVariance);
  const double error = std::sqrt(variance / low.served + variance / high.served);
  return (gain - threshold) / error;
}

int PlateauLimit::StepUp(int limit, double factor) const {
  const double raised = std::max(limit + 1.0, std::round(limit * factor));
  return internal::ClampLimit(raised, options_.min_limit, options_.max_limit);
}

int PlateauLimit::StepDown(int limit) const {
  const double lowered = std::min(limit - 1.0, std::round(limit / (1 + options_.step)));
  return internal::ClampLimit(lowered, options_.min_limit, options_.max_limit);
}

AlgorithmEstimates PlateauLimit::estimates() const {
  AlgorithmEstimates estimates;
  if (mean_latency_ > Duration::zero()) estimates.recent_latency = mean_latency_;
  if (base_.served > 0) estimates.max_throughput = base_.Rate();
  constexpr std::string_view kNames[] = {"startup", "hold", "probe up", "probe down"};
  estimates.state = kNames[static_cast<int>(phase_)];
  return estimates;
}

std::unique_ptr<LimitAlgorithm> PlateauLimit::Clone() const {
  return std::make_unique<PlateauLimit>(*this);
}

}  // namespace blobtune::tuner
