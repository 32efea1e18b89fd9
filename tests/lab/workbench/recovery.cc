#include "recovery.h"

#include <algorithm>
#include <cmath>

#include "oracle.h"

namespace blobtune::workbench {
namespace {

// Most windows judged in one stretch: a phase of a million round trips is judged on a coarser
// grid, which moves its recovery by at most one grid step.
constexpr double kMaxWindows = 5000.0;

// The q-quantile by nearest rank of `values` (reordered). REQUIRES: not empty.
double NearestRank(std::vector<double>& values, double q) {
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  auto nth = values.begin() + static_cast<std::ptrdiff_t>(std::max<size_t>(rank, 1) - 1);
  std::nth_element(values.begin(), nth, values.end());
  return *nth;
}

// Calls judge(end_s, count, p99_ms) for each window of `window_s` that fits in [from_s, to_s),
// one every max(grid_s, span / kMaxWindows), with the successes that ended in it (p99 0 if none).
template <typename Judge>
void ForEachWindow(const std::vector<Completion>& completions, double from_s, double to_s,
                   double window_s, double grid_s, Judge judge) {
  if (window_s <= 0.0 || to_s - from_s < window_s) return;
  grid_s = std::max(grid_s, (to_s - from_s - window_s) / kMaxWindows);
  auto ends_before = [&](double t) {
    return std::lower_bound(completions.begin(), completions.end(), t,
                            [](const Completion& c, double time) { return c.end_s < time; });
  };
  std::vector<double> latencies;
  const auto windows = static_cast<int64_t>(std::floor((to_s - from_s - window_s) / grid_s)) + 1;
  for (int64_t k = 0; k < windows; ++k) {
    double start = from_s + static_cast<double>(k) * grid_s;
    auto first = ends_before(start), last = ends_before(start + window_s);
    latencies.clear();
    for (auto it = first; it != last; ++it) latencies.push_back(it->latency_ms);
    double p99 = latencies.empty() ? 0.0 : NearestRank(latencies, 0.99);
    judge(start + window_s, static_cast<double>(latencies.size()), p99);
  }
}

}  // namespace

WindowNoise NoiseOfWindows(const std::vector<Completion>& completions, double from_s, double to_s,
                           double window_s) {
  std::vector<double> goodputs, p99s;
  ForEachWindow(completions, from_s, to_s, window_s, window_s / kServiceWindowRtts,
                [&](double, double count, double p99_ms) {
                  goodputs.push_back(count / window_s);
                  p99s.push_back(p99_ms);
                });
  if (goodputs.empty()) return {};
  return {.low_goodput = NearestRank(goodputs, kServiceNoiseQuantile),
          .high_p99_ms = NearestRank(p99s, 1.0 - kServiceNoiseQuantile)};
}

std::optional<StepService> ServiceAfterStep(const std::vector<Completion>& completions,
                                            double start_s, double end_s,
                                            const PhaseOracle& oracle) {
  const double rtt_s = oracle.p50_ms / 1000.0;
  const double window_s = kServiceWindowRtts * rtt_s;
  if (oracle.throughput <= 0.0 || rtt_s <= 0.0 || end_s - start_s < window_s) return std::nullopt;
  const double min_count =
      std::min(kServiceGoodputFraction * oracle.throughput, oracle.window_noise.low_goodput) *
      window_s;
  const double max_p99_ms =
      std::max(kServiceP99Factor * oracle.p99_ms, oracle.window_noise.high_p99_ms);

  std::optional<double> recovered_at;
  int windows_after = 0, in_service_after = 0;
  ForEachWindow(completions, start_s, end_s, window_s, rtt_s,
                [&](double window_end_s, double count, double p99_ms) {
                  bool in_service = count >= min_count && p99_ms <= max_p99_ms;
                  if (!recovered_at && in_service) recovered_at = window_end_s;
                  if (recovered_at) {
                    ++windows_after;
                    in_service_after += in_service;
                  }
                });
  StepService service;
  if (recovered_at) {
    service.recovery_rtts = (*recovered_at - start_s) / rtt_s;
    service.in_band = static_cast<double>(in_service_after) / windows_after;
  }
  return service;
}

std::optional<double> TakeoverRtts(const std::vector<Completion>& completions, int idle_client,
                                   double idle_s, double end_s, const PhaseOracle& oracle,
                                   double fraction) {
  const double rtt_s = oracle.p50_ms / 1000.0;
  if (oracle.throughput <= 0.0 || rtt_s <= 0.0) return std::nullopt;
  std::vector<Completion> others;
  for (const Completion& c : completions) {
    if (c.client != idle_client) others.push_back(c);
  }
  const double window_s = kServiceWindowRtts * rtt_s;
  std::optional<double> reached_at;
  ForEachWindow(others, idle_s, end_s, window_s, rtt_s,
                [&](double window_end_s, double count, double /*p99_ms*/) {
                  if (!reached_at && count >= fraction * oracle.throughput * window_s) {
                    reached_at = window_end_s;
                  }
                });
  if (!reached_at) return std::nullopt;
  return (*reached_at - idle_s) / rtt_s;
}

std::optional<double> TimeToHoldGoodput(const std::vector<SeriesPoint>& series, double target,
                                        double hold_s) {
  // Bucket i spans (series[i - 1].end_s, series[i].end_s], the first one from 0.
  double successes = 0;  // In the span (from_s, series[i].end_s] of buckets first..i.
  size_t first = 0;
  for (size_t i = 0; i < series.size(); ++i) {
    const auto begin = [&series](size_t k) { return k == 0 ? 0.0 : series[k - 1].end_s; };
    successes += series[i].throughput * (series[i].end_s - begin(i));
    // Drop whole buckets while the span stays at least hold_s long without them.
    while (first < i && series[i].end_s - begin(first + 1) >= hold_s) {
      successes -= series[first].throughput * (series[first].end_s - begin(first));
      ++first;
    }
    const double span = series[i].end_s - begin(first);
    if (span >= hold_s && successes >= target * span) return series[i].end_s;
  }
  return std::nullopt;
}

}  // namespace blobtune::workbench
