#include "score.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "recovery.h"

namespace blobtune::workbench {
namespace {

using LimitSteps = std::vector<std::pair<double, int>>;

// Calls span(limit, seconds) for each stretch of [from, to) that the step function holds a limit.
template <typename Span>
void ForEachSpan(const LimitSteps& steps, double from, double to, Span span) {
  for (size_t i = 0; i < steps.size(); ++i) {
    double begin = std::max(from, steps[i].first);
    double end = std::min(to, i + 1 < steps.size() ? steps[i + 1].first : to);
    if (end > begin) span(static_cast<double>(steps[i].second), end - begin);
  }
}

// Time-weighted sum of limit and limit^2 over [from, to) of a step function.
void Integrate(const LimitSteps& steps, double from, double to, double& sum, double& sum_sq) {
  ForEachSpan(steps, from, to, [&](double limit, double seconds) {
    sum += limit * seconds;
    sum_sq += limit * limit * seconds;
  });
}

// Fraction of [from, to) during which the limit lay within [lo, hi].
double FractionInBand(const LimitSteps& steps, double from, double to, double lo, double hi) {
  double inside = 0.0;
  ForEachSpan(steps, from, to, [&](double limit, double seconds) {
    if (limit >= lo && limit <= hi) inside += seconds;
  });
  return to > from ? inside / (to - from) : 0.0;
}

// The limits that count as L*: within +-kRecoveryBand of it, and at least +-1.
std::pair<double, double> Band(double target) {
  return {std::min(target * (1 - kRecoveryBand), target - 1),
          std::max(target * (1 + kRecoveryBand), target + 1)};
}

// The fraction of phase p that the limit spent in its band (the lowest client's).
double InBandAfterStep(const std::vector<PhaseOracle>& oracle, const SimulationResult& run,
                       size_t p) {
  const PhaseStats& phase = run.phases[p];
  if (phase.end_s <= phase.start_s) return 0.0;
  const auto [lo, hi] = Band(oracle[p].limit);
  double lowest = 1.0;
  for (const LimitSteps& steps : run.limit_changes) {
    lowest = std::min(lowest, FractionInBand(steps, phase.start_s, phase.end_s, lo, hi));
  }
  return lowest;
}

bool Demands(const ClientSpec& client) {
  return client.load == ClientSpec::Load::kClosed ? client.concurrency > 0 : client.rate_per_s > 0;
}

// Score::takeovers: each client whose demand a step drops to 0.
std::vector<Takeover> Takeovers(const Workload& workload, const std::vector<PhaseOracle>& oracle,
                                const SimulationResult& run) {
  std::vector<Takeover> takeovers;
  if (workload.clients.size() < 2) return takeovers;
  for (size_t p = 1; p < run.phases.size() && p < oracle.size(); ++p) {
    const Workload before = PhaseWorkload(workload, p - 1), during = PhaseWorkload(workload, p);
    const PhaseStats& phase = run.phases[p];
    for (size_t c = 0; c < workload.clients.size(); ++c) {
      if (!Demands(before.clients[c]) || Demands(during.clients[c])) continue;
      Takeover t{.client = static_cast<int>(c), .idle_s = phase.start_s};
      for (const Completion& done : run.completions) {  // Its requests already waiting finish.
        if (done.client == t.client && done.end_s < phase.end_s) {
          t.idle_s = std::max(t.idle_s, done.end_s);
        }
      }
      t.rtts = TakeoverRtts(run.completions, t.client, t.idle_s, phase.end_s, oracle[p],
                            kTakeoverFraction);
      takeovers.push_back(t);
    }
  }
  return takeovers;
}

}  // namespace

Score ScoreRun(const Workload& workload, const std::vector<PhaseOracle>& oracle,
               const SimulationResult& run) {
  Score score;
  double weight = 0.0, p99_weight = 0.0, all_time = 0.0;
  double cv_sum = 0.0, cv_weight = 0.0, limit_sum = 0.0;
  size_t clients = workload.clients.size();
  std::vector<double> client_x(clients, 0.0), client_x_star(clients, 0.0);
  for (size_t p = 0; p < run.phases.size(); ++p) {
    const PhaseStats& phase = run.phases[p];
    const PhaseOracle& best = oracle[p];
    double w = phase.end_s - phase.start_s;
    if (w <= 0.0) continue;
    all_time += w;
    score.throughput += phase.throughput() * w;
    score.p99_ms += phase.latency.QuantileMs(0.99) * w;
    for (size_t c = 0; c < clients; ++c) {
      client_x[c] += static_cast<double>(phase.successes_by_client[c]);
      client_x_star[c] += best.client_throughput[c] * w;
    }
    for (const LimitSteps& steps : run.limit_changes) {
      double sum = 0.0, sum_sq = 0.0, mid = (phase.start_s + phase.end_s) / 2;
      Integrate(steps, phase.start_s, phase.end_s, limit_sum, sum_sq);
      sum_sq = 0.0;
      Integrate(steps, mid, phase.end_s, sum, sum_sq);
      double half = phase.end_s - mid;
      double mean = sum / half;
      double variance = std::max(0.0, sum_sq / half - mean * mean);
      if (mean > 0.0) {
        cv_sum += std::sqrt(variance) / mean * half;
        cv_weight += half;
      }
    }
    if (best.throughput <= 0.0) continue;
    double x_ratio = phase.throughput() / best.throughput;
    weight += w;
    score.throughput_ratio += w * x_ratio;
    double latency_excess = 0.0;
    if (phase.successes > 0 && best.p99_ms > 0.0) {
      double p99_ratio = phase.latency.QuantileMs(0.99) / best.p99_ms;
      score.p99_ratio += w * p99_ratio;
      p99_weight += w;
      latency_excess = std::max(0.0, std::log2(p99_ratio));
    }
    score.regret += w * (std::max(0.0, 1.0 - x_ratio) + kRegretLatencyWeight * latency_excess);
  }
  if (weight > 0.0) {
    score.throughput_ratio /= weight;
    score.regret /= weight;
  }
  if (p99_weight > 0.0) score.p99_ratio /= p99_weight;
  if (all_time > 0.0) {
    score.throughput /= all_time;
    score.p99_ms /= all_time;
    score.mean_limit = limit_sum / all_time / static_cast<double>(std::max<size_t>(1, clients));
  }
  if (cv_weight > 0.0) score.limit_cv = cv_sum / cv_weight;
  for (size_t p = 1; p < oracle.size(); ++p) {
    const PhaseStats& phase = run.phases[p];
    std::optional<StepService> service =
        ServiceAfterStep(run.completions, phase.start_s, phase.end_s, oracle[p]);
    if (!service) continue;
    score.step_recovery_rtts.push_back(service->recovery_rtts);
    score.step_service_in_band.push_back(service->in_band);
    score.step_limit_in_band.push_back(InBandAfterStep(oracle, run, p));
    if (!service->recovery_rtts) {
      score.recovery_rtts.reset();
    } else if (score.recovery_rtts) {
      score.recovery_rtts = std::max(*score.recovery_rtts, *service->recovery_rtts);
    }
    score.service_in_band = std::min(score.service_in_band, service->in_band);
  }
  if (clients > 1) {
    double sum = 0.0, sum_sq = 0.0;
    int n = 0;
    for (size_t c = 0; c < clients; ++c) {
      if (client_x_star[c] <= 0.0) continue;
      double x = client_x[c] / client_x_star[c];
      sum += x;
      sum_sq += x * x;
      ++n;
    }
    if (n > 0 && sum_sq > 0.0) score.fairness = sum * sum / (n * sum_sq);
  }
  score.takeovers = Takeovers(workload, oracle, run);
  return score;
}

}  // namespace blobtune::workbench
