// PlateauLimit: finds the smallest limit past which goodput stops rising, by measuring it.
//
// For any resource behind a limiter whose goodput grows with concurrency up to some point and
// then flattens (a pool of k servers, a disk's queue, a group-committed writer whose batches
// keep growing): it asks the resource directly, one short experiment at a time, whether a
// higher limit pays, instead of inferring the knee from latency. That holds where latency
// misleads (a batch writer's latency rises with the batch while goodput still grows).
//
//   StatusOr<PlateauLimit> plateau = PlateauLimit::Create({.max_limit = 256});
//   if (!plateau.ok()) return plateau.status();
//   int limit = plateau->Update(sample);
//
// The law. Samples are pooled into windows, one limit per window. After a change of the limit
// the accesses that end within two mean latencies W are skipped (the added permits' first round
// ends in a burst); a window then counts the completions in [start, end) until it spans
// window_rtts * W and holds window_samples * v accesses (v below). It yields the goodput X
// (served accesses per second; drops are not goodput, whatever their cause) and W. Windows at
// limits a < b compare by the evidence that the higher limit pays:
//   E = (ln(X_b / X_a) - min_elasticity * ln(b / a)) / sqrt(v / n_a + v / n_b)
// the gain beyond min_elasticity of the increase, in standard errors (n: the windows' served
// accesses; v: the variance of a window's ln X times its accesses, measured from successive
// windows of each hold, 1 (Poisson) until then, and at least 1 where it sizes a window;
// bursty completions, such as a writer's batches, raise it).
// A comparison window ends early if |E| >= 3 after 32 v accesses (a plain gain or loss), else
// at its full size; the higher limit pays if E >= confidence.
//   startup: from initial_limit, double the limit each window while the limit binds (an access
//            found it full) and the doubling pays. The first doubling that does not returns to
//            the last limit and probes down.
//   hold:    keep the limit for probe_interval windows, pooled into the base (L, X) and v.
//   probe up (if the limit bound in the hold's last window): L' = max(L + 1,
//            round(L * (1 + step))). Kept if it binds and pays (demand that did not fill it
//            cannot have raised goodput); then the next probe up follows at once. Otherwise a
//            probe down from L follows.
//   probe down: L' = min(L - 1, round(L / (1 + step))). Kept unless L pays over L' (the
//            accesses it removed brought little goodput); then the next probe down follows at
//            once. Otherwise back to L, and hold.
//   bounds: the limit stays within [min_limit, max_limit], never below 1.
// So the limit settles where a step up no longer pays: on a sharp knee within one step above
// it; on a curve that flattens slowly where its elasticity falls to min_elasticity plus what
// the noise hides, confidence standard errors of a comparison (see the Options below).
// A gain within the noise does not pay, so noise pulls the limit down rather than up.
//
// What probing costs a steady plant: every probe_interval windows, one window up (latency up
// to 1 + step times higher) and, at a sharp knee, one down (goodput down by up to
// step / (1 + step)); nothing else moves the limit of a steady plant.
//
// Sample::weight counts as that many accesses; Sample::refused and Sample::expired mark the
// window as binding (demand found the limit full).
//
// Thread-safety: none; driven by one thread at a time.
#ifndef BLOBTUNE_TUNER_ALGORITHMS_PLATEAU_H_
#define BLOBTUNE_TUNER_ALGORITHMS_PLATEAU_H_

#include <memory>
#include <string_view>
#include <vector>

#include "blobtune/tuner/clock.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "blobtune/tuner/sample.h"
#include "blobtune/tuner/status.h"
#include "blobtune/tuner/status_or.h"

namespace blobtune::tuner {

class PlateauLimit final : public LimitAlgorithm {
 public:
  struct Options {
    // The limit before any sample; startup doubles it from here. Default: 4.
    // REQUIRES: min_limit <= initial_limit <= max_limit.
    int initial_limit = 4;
    // Floor of the limit. Default: 1. REQUIRES: >= 1.
    int min_limit = 1;
    // Ceiling of the limit. Default: 1000. REQUIRES: <= 1000000.
    int max_limit = 1000;
    // A probe moves the limit by this fraction. Larger finds a moved knee sooner but costs a
    // steady plant more per probe and leaves the limit up to this fraction above a sharp knee.
    // Default: 0.25. REQUIRES: 0.05 <= step <= 1.
    double step = 0.25;
    // A higher limit is kept only if at least this share of the increase comes back as goodput.
    // Higher keeps latency lower at the cost of goodput on curves that flatten slowly.
    // Default: 0.05. REQUIRES: 0 < min_elasticity < 1.
    double min_elasticity = 0.05;
    // A window spans at least this many mean latencies. Default: 2. REQUIRES: >= 1.
    double window_rtts = 2;
    // ... and at least this many Poisson-equivalent accesses (this times v, see above), which
    // know the window's goodput to about 1 / sqrt(window_samples). Default: 100 (10%).
    // REQUIRES: >= 8.
    int window_samples = 100;
    // Standard errors by which a higher limit's gain must clear min_elasticity to pay. Higher
    // keeps fewer limits that chance made look better, and more that only look worse.
    // Default: 1. REQUIRES: 0.5 <= confidence <= 5.
    double confidence = 1;
    // Windows held between two probe cycles of a steady plant. Default: 8. REQUIRES: >= 1.
    int probe_interval = 8;

    Status Validate() const;
  };

  static StatusOr<PlateauLimit> Create(const Options& options);

  PlateauLimit(const PlateauLimit&) = default;
  PlateauLimit& operator=(const PlateauLimit&) = default;
  PlateauLimit(PlateauLimit&&) = default;
  PlateauLimit& operator=(PlateauLimit&&) = default;
  ~PlateauLimit() override = default;

  std::string_view name() const noexcept override { return "plateau"; }
  int limit() const noexcept override { return limit_; }
  int min_limit() const noexcept override { return options_.min_limit; }
  int max_limit() const noexcept override { return options_.max_limit; }
  int Update(const Sample& sample) override;
  AlgorithmEstimates estimates() const override;
  std::unique_ptr<LimitAlgorithm> Clone() const override;

  const Options& options() const noexcept { return options_; }

 private:
  enum class Phase { kStartup, kHold, kProbeUp, kProbeDown };

  // What the accesses that count in a window (or a hold's windows pooled) showed at one limit.
  struct Measure {
    int limit = 0;
    double served = 0;          // Accesses served (weighted).
    double seconds = 0;         // Time they were counted over.
    double latency_sum = 0;     // Of the served accesses, in seconds.
    double Rate() const { return seconds > 0 ? served / seconds : 0; }
    void Add(const Measure& other);
  };

  explicit PlateauLimit(const Options& options);

  // Whether the open window has measured enough to close.
  bool WindowComplete() const;
  // Closes the window that ends at `end` and decides the next limit.
  void CloseWindow(TimePoint end);
  // Updates rate_variance_ from the hold's windows.
  void MeasureRateVariance();
  // Starts a window under `limit` (changed or not) at `now`.
  void StartWindow(int limit, TimePoint now);
  // E of the law: by how many standard errors the goodput gain from `low` to `high` (a higher
  // limit) exceeds min_elasticity of the limit's increase.
  double Evidence(const Measure& low, const Measure& high) const;
  int StepUp(int limit, double factor) const;
  int StepDown(int limit) const;

  Options options_;
  int limit_;
  Phase phase_ = Phase::kStartup;
  int hold_left_ = 0;
  Measure base_;                // The limit probes return to, pooled over the hold.
  Duration mean_latency_{};     // Of the last window that served anything.
  // Variance of ln(rate) of a window times the accesses it served, so that a window of n has
  // variance rate_variance_ / n: 1 for Poisson completions until holds have measured it.
  double rate_variance_ = 1;
  std::vector<double> hold_log_rates_;  // ln(rate) of each window of the hold so far.

  // The open window.
  Measure window_;
  TimePoint counting_start_{};  // Accesses ending from here on count.
  TimePoint first_end_{};       // The first of them, and the last.
  TimePoint last_end_{};
  bool window_open_ = false;
  double drops_ = 0;
  bool binds_ = false;
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_ALGORITHMS_PLATEAU_H_
