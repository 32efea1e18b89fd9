// KneeLimit: blobtune's own limit algorithm. It estimates the knee of the throughput curve, the
// smallest concurrency at which the resource is (nearly) saturated, from the measured goodput
// and the no-load latency, and keeps the limit there plus a queue allowance that grows with the
// square root of the knee.
//
// For any resource behind a limiter: a server thread, LMDB's single writer, a disk of depth k, a
// network round trip. Unlike the latency-gradient algorithms it needs no latency tolerance: by
// Little's law, the accesses a resource can hold without queueing are its goodput times its
// no-load latency, whatever that latency is. How much queue it takes to keep the resource busy
// depends on how variable its service is, so the allowance above the knee grows with the
// latency's coefficient of variation, or with the spread of the gaps between completions
// where a round trip makes up most of the latency. See docs/KNEE.md for how it scores.
//
//   StatusOr<KneeLimit> knee = KneeLimit::Create({.max_limit = 256});
//   if (!knee.ok()) return knee.status();
//   int limit = knee->Update(sample);
//
// Samples are pooled into windows of at least window_rtts times the baseline latency plus the
// mean setup (see s below) and min(min_window_samples, max(8, 4 * limit)) served accesses; a
// window opens when the previous one closes (or at the first access after an idle gap) and
// closes at most max_window_time later.
// The first window, one access in flight at a time, measures the first baseline: it takes 96
// accesses unless half a second passes or an access is dropped first (clients that share a
// resource cannot measure it again once the others queue, and their shares go with it cubed).
// Per window, with W the mean latency and X the rate (per second) of the accesses the resource
// served (successes, and drops that took about as long: between half the baseline and three
// times the usual latency, e.g. a deadline that passed while waiting for a permit):
//   W0  baseline (no-load latency): the least mean latency of a block of >= 64 accesses
//       measured under one limit (a mean, never one lucky sample); windows in which only one
//       access was ever in flight are pooled (over their last 64 accesses) and set it outright;
//       a probe (below) resets it. A fresh baseline (the first one, or one a probe set) rests
//       on a few accesses: until 64 accesses back it, every slow-start window that shows no
//       queue is pooled with it and the pool's mean replaces it, up or down.
//   x   = sum(served) / sum(durations), both averaged over windows with weight smoothing
//         (a ratio of averages: per-window rates are noisy and biased upwards).
//   cv  = slow average (weight 0.05) of the coefficient of variation of latency within windows.
//   d   = average of slow-drop rate * slow-drop latency: the permits that timed-out or hung
//         accesses hold (Little's law).
//   s   = average of the sum of the accesses' setup (Sample::setup) / duration: the permits
//         held before accesses started, e.g. while a request body arrived (Little's law);
//         scaled with x whenever x restarts (the setup per access stays).
//   B   = x * W0 + s                                permits in use at the knee (W0 for the
//                                                   accesses' size: see Sizes below)
//   h   = min(max_headroom, max(headroom + headroom_per_cv * cv,
//                               headroom_per_gap_deviation * min(Dg, x * D0)))
//         (D0, Dg: see k below). The second term is the bottleneck's own spread: where a
//         round trip makes up most of the latency, cv is mostly the round trip's, which takes
//         no allowance (how a delay varies does not change the throughput curve of a closed
//         loop); one exponential server behind a 20 ms round trip of cv 0.3 reads cv 0.27 and
//         Dg 0.73. Gaps that vary more than latency did at no load (x * D0 = k * Dg) vary with
//         the arrivals, not the service. It counts once D0 is measured, while Dg >= 0.01 and
//         completions do not come in batches.
//   k   = servers of the bottleneck, estimated as x * D0 / Dg: D0 the mean absolute deviation
//         of the first window's latencies (no load), Dg a slow average (weight 0.05) of the
//         mean absolute deviation of x * gap between consecutive completions, in windows of
//         >= 8 gaps whose permits were >= 80% busy. At saturation k servers complete one access
//         every S / k on average (S: their service time), so gaps spread like S / k and the
//         no-load latency like S; a round trip that varies inflates the estimate, so
//         c = max(1, k - 0.5) counts (one server behind a variable round trip reads 1.4-1.6).
//   f   = max(0.5, min(1, c^(-2/3) * (B - c) / (B - 1)))  if c > 1 and B > 1; else 1 (also
//         until D0 and Dg are measured, and while Dg < 0.01: gaps that never vary)
//   target = B + h * sqrt(f * B) + d                knee plus a queue allowance
//   binds:    some access found the limit full and, by Little's law, X * W plus the permits
//             held in setup >= limit / 2.
//   app-limited: while the limit does not bind, it does not grow.
//   slow start: until the first window that shows a queue (W > (1 + growth_tolerance) * W0
//             + growth_tolerance * the window's mean setup, plus, while W0 is fresh, its
//             standard error cv * W0 / sqrt(accesses behind it), twice that after a shallow
//             probe, whose few accesses are the first to complete, short ones first),
//             and again after a probe or an app-limited spell, a window in which the limit
//             binds sets target = max(target, limit * growth_factor).
//   bounded:  limit' = max(round(target), ceil(limit * max_decrease)), within
//             [min_limit, max_limit] and never below 1.
//   hysteresis: while slow starting, any change applies at once; otherwise a cut of at least
//             max(2, 20% of the limit) applies at once, and any other move only when two
//             windows in a row propose it, rising by at most 10% of the limit (at least 1).
// Drops: a drop faster than half the baseline is an error, not overload, and is ignored. Drops
// slower than three times the usual latency (timeouts, hangs) count in d, never in W or X.
// Probes. The baseline is too low only if the resource got slower; it is too high only if a
// probe raised it and the resource got faster again. Three rules, none on a schedule while the
// baseline is one the resource showed under load, so a stable resource is never probed:
//   sudden slowdown: a window (tracking or app-limited) with W > 3 * typical latency (an
//             average of window latencies, weight 0.1) and X < x / 2. Our own queue cannot do
//             that: it raises latency at the same goodput. The limit and the averages hold for
//             that window; if the next window shows it too, a shallow probe halves the limit
//             for one window of 8 accesses granted inside it (where s >= 1, granted once as
//             many earlier accesses as the limit held have finished, or after 4 W_s plus the
//             mean setup: earlier ones still in setup would queue ahead of the probe's at the
//             resource). Its latency W_p against the latency W_s that showed the slowdown
//             (each divided by W0 for its window's sizes, see Sizes below; without sizes as
//             they are):
//               W_p >= 0.8 * W_s: half the concurrency, the same latency, so none of it was our
//                 queue: the resource's round trip grew and its knee may have moved far up.
//                 W0 = W_p (fresh, see above), and slow start resumes from the limit before.
//               W_p <  0.8 * W_s: our queue; the resource lost capacity and W0 holds. x
//                 restarts from the higher goodput of the two windows, and the limit is cut to
//                 round(target), by at most max_decrease.
//   impossible latency: while tracking, W > limit * W0 * 2.5 (at most limit - 1 of ours ahead,
//             each served in less than W0) in three windows in a row that are no sudden slowdown,
//             while completions do not come in batches with the climb on (see below).
//             Then the limit is pinned to min_limit for one window of min_window_samples
//             accesses granted inside it; W0 becomes its mean latency and slow start resumes
//             from the target. The margin is wide because other clients of the resource queue
//             ahead of ours too; a probe that measured their queue would inflate our baseline
//             and make us unfair to them.
//   re-check: while W0 is above 1.5x the lowest baseline ever measured (a probe raised it),
//             our queue can hide that the resource got fast again (latency = limit / x at
//             any W0 below it). A shallow probe halves the limit for one window of 32
//             accesses granted inside it (a short window closes while its slow accesses are
//             still in flight, and reads low) as soon as a block lowers W0 by more than 5%
//             (latency fell without a move of ours: part of it is our queue) or a window of
//             >= 16 accesses has a latency cv below 0.45x the usual one (the rms cv of the
//             windows since W0 was set, if >= 0.15 over >= 20 windows: waiting behind many
//             accesses of ours is regular), and otherwise every 1024 windows. While
//             W_p < 0.8 * W0: W0 = W_p (fresh) and the next probe halves the limit again at
//             once; once a re-check lowered W0 and latency stops falling, slow start resumes
//             from that probe's limit (and the timer restarts at 1024). A re-check that
//             lowers nothing doubles the interval (at most 8192).
//
// Throughput climb (Options::climb). Some resources serve more per second the more accesses
// wait: a writer that commits every queued write in one transaction (group commit) does the same
// two flushes for one write or a hundred, so goodput keeps rising long past the knee above, at
// the cost of latency. Such a resource gives itself away: it releases a batch of accesses at
// once, so most gaps between consecutive completions are far shorter than the mean gap
// (batched: over 35% of the gaps below 0.05 / x, on average over windows of >= 8 gaps;
// independent completions have about 5%; or over 20% below 0.005 / x on a slow average, weight
// 0.02, as when several limiters share the batches). By default (kWhenBatched) the climb runs
// while completions are batched (or callers give up waiting: see "Expiries"). While tracking with a
// binding limit, a trial holds the limit L for a reference span, then moves it by a step s = max(1,
// round(0.25 * L)) for a trial span (one window in between to settle); each span is 8 blocks of
// max(32, 4 * L) accesses. The higher of the two limits is kept only if its goodput is higher by at
// least 1.5%, and for a step up also by at least two standard errors of the difference (from the
// spread of the blocks' rates), so that noise cannot carry the limit up, nor wear a real climb
// away. The limit then stays where the trial left it:
//   c   = max(0, L_kept - target(x_kept))   the climb, added to every later target
// (x restarts from the kept span's goodput). A step up that paid off is followed at once by
// the next one, of s = max(1, round(0.5 * L)) if it gained 10% or more while completions come
// in batches (far below the batch's peak: faster there); otherwise the next trial waits 16
// windows, doubling to 512, and goes down (towards the knee, never below L - c) while c > 0. A
// probe that finds the knee moved (the deep probe; a shallow one that finds a longer round trip
// or a faster resource) forgets c, as do slow start after an app-limited spell and completions
// that stop coming in batches; a limit that stops binding ends a trial.
// Clients that share one resource through limiters of their own cannot tell the climb's gain
// from taking each other's share: raising one's limit on a saturated resource shared with
// n - 1 others raises one's goodput by nearly a 1 - 1/n fraction of the step, more than group
// commit gives near its peak, so each would keep climbing. Batched completions rule that out
// for resources that do not batch (a FIFO server, a disk). For a batching resource that
// several limiters feed, the latency they all see ends it (docs/KNEE.md has the measurements):
//   cap:      a climb ends where W > 9 * W0: the climb turns shared, whoever's accesses took
//             W there (a limiter cannot tell its own step from the others' when they step
//             together). So does W > limit * W0 (more than our own accesses, each served within
//             W0, can explain) in three windows in a row: other limiters climb there too.
//   shared:   no more trials (each would take the others' share). Per window, over its
//             duration / W round trips,
//               dc/dRTT = 1 - 0.004 * (W / W0) * c           c settles at W0 / (0.004 * W)
//             and W > 9 * W0 halves c (at most once in 3 windows). The limiters see the same W,
//             so they settle at the same c and, since B + h * sqrt(f * B) is then about equal
//             too, at about the same limit. The climb stays shared until it is forgotten (above).
// Both apply while completions come in batches, whatever Options::climb says. There, the
// impossible-latency probe does not run either (it would take the others' queue for our
// baseline): that latency turns the climb shared instead.
//
// Refusals. Callers that shed instead of waiting (TryAcquire) lose what the limit turns away
// (Sample::refused), and then permits sit idle while requests are lost: a permit that a
// completion frees waits for the next arrival. By Little's law such a limit does not bind, and
// the target above keeps it far too low (at 85% of a server's capacity, knee refused a fifth of
// the requests). Counting arrivals (admitted or refused), over the last 2000 and since the
// limit last changed:
//   p   the refused fraction of the last arrivals; a = 3% of arrivals may be refused (the
//       oracle's own allowance: L* reaches 97% of the peak goodput).
//   refusing: since the limit changed, refusals exceed a by two standard errors (binomial).
//   loss mode: from the first refusing window until p < a / 4 over at least 1000 arrivals.
//       In it the limit binds (slow start doubles it only while refusing: a resource of pure
//       delay never shows a queue), and
//         target = B + h * sqrt(B + (1 - p) / p^2) + (1 - p) / p + d
//       the knee plus the idle permits of a saturated loss system: completions free permits at
//       rate x, arrivals take them at rate x / (1 - p), so their number is geometric with mean
//       (1 - p) / p and variance (1 - p) / p^2; the mean joins B, the variance B's in the
//       allowance. While not refusing the target is also at most the limit and the demand's
//       quantile: the least limit k for which the arrivals that needed more than k permits
//       (those in flight at grant, counting themselves; more than the limit for a refused one)
//       are fewer than a by two standard errors. So the limit rises while it refuses more than
//       a, falls where the demand needs less, and a saturated resource caps it. (A caller that
//       polls TryAcquire() counts every failed poll: p near 1 keeps the target near the knee.)
//
// Expiries. Callers that wait (Acquire) and give up at their deadline (Sample::expired) lost
// demand too, but a queue keeps every permit busy, so the limit binds and Little's law holds:
// nothing above says whether more permits would serve them. Where the resource is ours alone,
// they would not (it is saturated, or the target grows by itself); where other clients queue
// on it, ours takes its share with its limit, and a client whose target rounds a little lower
// than the others' (its allowance differs with its own arrivals) starves: an open-loop client
// at 2 beside two batch clients at 3 and 4 served 227 of its 300 requests a second. So while
// expiries exceed 3% of the arrivals of callers that wait by two standard errors (over the last
// 2000, until they fall below a quarter of that, as for refusals), the throughput climb may run
// as if completions came in batches, but a trial starts only from a window whose latency
// exceeds limit * W0 (more than our own accesses, each served within W0, can explain): its
// higher limit then stays only if its goodput confirms it. Climb::kNever turns this off too.
//
// States (estimates().state): "startup" (no window yet), "growing" (slow start), "tracking",
// "app_limited", "probing" (any of the three probes), "climbing" (a throughput trial).
//
// Sizes. A resource that spends time per byte (a disk, a network link) has a no-load latency
// that follows the size of the accesses: W0 above is measured on accesses of some mean size m0,
// and the knee of a mix of larger ones lies higher (blobs ten times larger: a knee at 3 where
// the small blobs' W0 put it at 2). With Sample::bytes set,
//   b     = latency per byte: a slow average (weight 0.05) of the covariance of latency and
//           size within each window over a slow average of size's variance within windows
//           (each window centred on its own means: its accesses wait behind about the same
//           queue, whatever their own size, so the queue hardly biases the slope; under load
//           it still reads low: about 2 ms per MiB where blob_size_x10's stages spend 2.5),
//           at least 0.
//   W0(m) = max(W0 + b * (m - m0), W0 / 4)   the baseline for accesses of mean size m
// Every pool behind W0 (the first window, one access at a time, blocks, a fresh baseline,
// a probe's window) keeps its accesses' mean size as m0 with it. A window's latency is judged
// against W0 at its own mean size (slow start's queue test, the impossible latency, the
// sudden slowdown's probe, the re-check's probe, a block that may lower W0; a raised W0 and
// the lowest one are compared at one size), and B = x * W0(m), where m is the mean size of
// the accesses in x, averaged the same way. Without sizes (all 0), W0(m) = W0.
//
// Sample::weight counts in every sum. Samples with latency <= 0 count as successes of zero
// latency.
//
// Thread-safety: none; driven by one thread at a time.
#ifndef BLOBTUNE_TUNER_ALGORITHMS_KNEE_H_
#define BLOBTUNE_TUNER_ALGORITHMS_KNEE_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "blobtune/tuner/clock.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "blobtune/tuner/sample.h"
#include "blobtune/tuner/status.h"
#include "blobtune/tuner/status_or.h"

namespace blobtune::tuner {

class KneeLimit final : public LimitAlgorithm {
 public:
  struct Options {
    // The limit before any window closes. Default: 1 access (slow start doubles it).
    // REQUIRES: min_limit <= initial_limit <= max_limit.
    int initial_limit = 1;
    // Floor of the limit; also the limit of a baseline probe. Default: 1. REQUIRES: >= 1.
    int min_limit = 1;
    // Ceiling of the limit. Default: 1000. REQUIRES: <= 1000000.
    int max_limit = 1000;
    // Queue allowed above the knee, in units of sqrt(B) accesses: headroom + headroom_per_cv *
    // cv, where cv is the coefficient of variation of latency within windows, or
    // headroom_per_gap_deviation * min(Dg, x * D0) if more (how much the gaps between
    // completions vary, see above), at most max_headroom. Defaults: 0.5, 3, 1.9, 3.
    // REQUIRES: 0 <= headroom <= max_headroom <= 100, 0 <= headroom_per_cv <= 100,
    // 0 <= headroom_per_gap_deviation <= 100.
    double headroom = 0.5;
    double headroom_per_cv = 3;
    double headroom_per_gap_deviation = 1.9;
    double max_headroom = 3;
    // Weight of a new window in the goodput average. Default: 0.15. REQUIRES: 0 < x <= 1.
    double smoothing = 0.15;
    // Shortest window, in baseline latencies. Default: 2. REQUIRES: 0 < window_rtts <= 1000.
    double window_rtts = 2;
    // Successes a window needs (capped at 4 * limit). Default: 16. REQUIRES: 1 <= x <= 100000.
    int min_window_samples = 16;
    // Longest window; a window this old closes on its next sample. Default: 1 s.
    // REQUIRES: 0 < max_window_time <= 1 h.
    Duration max_window_time = std::chrono::seconds(1);
    // Smallest factor one window may cut the limit by. Default: 0.5. REQUIRES: 0 < x < 1.
    double max_decrease = 0.5;
    // Factor the limit grows by per window while latency shows no queue. Default: 2.
    // REQUIRES: 1 <= growth_factor <= 10.
    double growth_factor = 2;
    // Latency above the baseline still read as "no queue", as a fraction. Default: 0.1.
    // REQUIRES: 0 <= growth_tolerance <= 10.
    double growth_tolerance = 0.1;
    // When to climb past the knee while goodput confirms each step (see "Throughput climb"
    // above): never, while completions come in batches (or callers give up waiting, see
    // "Expiries"), or always. Default: kWhenBatched.
    enum class Climb { kNever, kWhenBatched, kAlways };
    Climb climb = Climb::kWhenBatched;

    Status Validate() const;
  };

  static StatusOr<KneeLimit> Create(const Options& options);

  KneeLimit(const KneeLimit&) = default;
  KneeLimit& operator=(const KneeLimit&) = default;
  KneeLimit(KneeLimit&&) = default;
  KneeLimit& operator=(KneeLimit&&) = default;
  ~KneeLimit() override = default;

  std::string_view name() const noexcept override { return "knee"; }
  int limit() const noexcept override { return limit_; }
  int min_limit() const noexcept override { return options_.min_limit; }
  int max_limit() const noexcept override { return options_.max_limit; }
  int Update(const Sample& sample) override;
  // baseline_latency: W0(m) for the recent accesses' size (W0 without sizes); recent_latency:
  // the last window's W; max_throughput: x (the goodput average); state: see above.
  AlgorithmEstimates estimates() const override;
  std::unique_ptr<LimitAlgorithm> Clone() const override;

  const Options& options() const noexcept { return options_; }
  // The resource's knee x * W0(m) in accesses (B without setup), once known (for tests and
  // plots).
  std::optional<double> knee() const noexcept;

 private:
  enum class State { kStartup, kGrowing, kTracking, kAppLimited, kProbing };
  // A throughput trial (knee_climb.cc): idle, measuring the reference, or measuring the step.
  enum class ClimbPhase { kIdle, kReference, kTrial };

  // Goodput over a span of windows, in blocks of about `block_size` accesses, for the mean
  // rate and its standard error (the spread of the blocks' rates: batch means).
  struct RateBlocks {
    double block_size = 0;
    double served = 0;  // Of closed blocks.
    double duration_s = 0;
    int blocks = 0;
    double rate_sum = 0;
    double rate_sq_sum = 0;
    double open_served = 0;  // The block being filled.
    double open_duration_s = 0;

    void Add(double window_served, double window_duration_s);
    double Rate() const { return duration_s > 0 ? served / duration_s : 0.0; }
    double StandardError() const;
  };

  // The sums of the open window (see the header comment); weights included.
  struct Window {
    TimePoint open_at{};
    bool open = false;
    bool limit_reached = false;  // Some sample was granted with inflight >= the limit.
    double served = 0;           // Successes and drops served like them (see knee.cc).
    double latency_sum_s = 0;    // Of those.
    double latency_sq_sum_s2 = 0;
    double slow_drops = 0;
    double slow_drop_latency_sum_s = 0;
    double fast_drops = 0;
    double setup_sum_s = 0;  // Every sample's setup (Sample::setup).
    double refused = 0;      // Sample::refused.
    double expired = 0;      // Sample::expired.
    double gaps = 0;         // Between the ends of consecutive single-weight samples.
    double short_gaps = 0;   // Of those, far shorter than the mean gap (see knee_climb.cc).
    // Of those, shorter still: the two finished together.
    double coincident_gaps = 0;
    double gap_deviation = 0;  // Sum of |x * gap - 1| over the gaps.
    double bytes_sum = 0;      // Sample::bytes of the served ones,
    double bytes_sq_sum = 0;   // its square,
    double latency_bytes_sum = 0;  // and its product with their latency.
  };

  explicit KneeLimit(const Options& options);

  void AddToWindow(const Sample& sample);
  bool WindowDue(TimePoint now) const;
  void CloseWindow(TimePoint now);
  // Probes (knee_baseline.cc). Returns true if the window started a probe or is held as a
  // possible sudden slowdown; the control law then skips it.
  bool StartProbeIfStale(TimePoint now, const Window& w, double duration_s, double latency_s,
                         int window_limit, int window_max_inflight);
  void CloseProbeWindow(TimePoint now, const Window& w, double duration_s,
                        std::optional<double> latency_s);
  void StartProbe(TimePoint now);
  void StartShallowProbe(TimePoint now, double reference_latency_s, bool recheck);
  // from_shallow_probe: the fresh baseline came from a shallow probe's few accesses.
  void StartFreshPool(const Window& w, bool from_shallow_probe);
  void SetBaseline(double latency_s, double mean_bytes);
  // Keeps lowest_baseline_s_ (compared at one size) after baseline_s_ changed.
  void NoteLowestBaseline();
  void UpdateBaseline(const Window& w, int window_limit, int window_max_inflight,
                      std::optional<double> latency_s);
  int MinWindowSamples() const;
  // The squared coefficient of variation of the window's latency (at least two accesses).
  static std::optional<double> LatencyCv2(const Window& w);
  // Whether the window's latency is far more regular than usual (knee_baseline.cc); averages
  // it into the usual spread.
  bool LatencyTurnedRegular(const Window& w);
  // The throughput climb (knee_climb.cc). Returns true while a trial holds the limit; the
  // control law then skips the window.
  bool HoldForClimb(const Window& w, double duration_s, double latency_s, int window_limit);
  // The climb may run (Options::climb, and completions that come in batches or expiries).
  bool ClimbAllowed() const;
  // Other limiters climb on the same resource: no more trials (see "shared" above).
  void ShareClimb();
  // The cap and the shared climb (see above), while completions come in batches. Returns true
  // if they decided the window (no trial then).
  bool ShareOrCapClimb(double duration_s, double latency_s);
  void StartClimbTrial();
  void FinishClimbTrial();
  void EndClimb(bool forget);
  // Completions that come in batches (knee_climb.cc).
  void CountCompletionGap(const Sample& sample);
  void UpdateBatchedFraction(const Window& w);
  bool CompletionsBatched() const;
  // B + h * sqrt(f * B) + d with B = goodput * W0 + s (see above).
  double Target(double goodput) const;
  // f: the part of B whose spread the allowance covers (see above; 1 until k is known).
  double SpreadFraction(double busy, double goodput) const;
  // The first window's latencies (until the first baseline), for D0.
  void CountNoLoadLatency(const Sample& sample, double latency_s);
  void SetNoLoadDeviation();
  // Dg, from a window whose permits were busy.
  void UpdateGapDeviation(const Window& w, double duration_s, std::optional<double> latency_s,
                          int window_limit);
  double Headroom() const;
  // Latency that grows with the size of the accesses (knee_size.cc).
  void UpdateSizeSlope(const Window& w);
  // W0 for accesses of this mean size: W0 + b * (bytes - the size behind W0).
  double BaselineFor(double mean_bytes) const;
  // W0(to) / W0(from): what a latency measured on one size would be on the other (1 without
  // a baseline).
  double SizeScale(double from_bytes, double to_bytes) const;
  // The mean size of the accesses in x, and of those a window served (in x's if none).
  double RecentBytes() const;
  // The mean setup per access, s / x (Little's law; 0 before x is known).
  double MeanSetupSeconds() const;
  double MeanBytes(const Window& w) const;
  // Restarts x (and the mean size that goes with it) from one span.
  void RestartGoodput(double served, double duration_s, double mean_bytes);
  // Refusals (knee_loss.cc). The permits an arrival needed, while refusals matter.
  void CountArrival(const Sample& sample, double weight);
  // Updates the counts and loss mode; true while the limit refuses significantly more than
  // kRefusedFraction of the arrivals.
  bool CountRefusals(const Window& w, int window_limit);
  // B + h * sqrt(B + (1 - p) / p^2) + (1 - p) / p + d (see above).
  double LossTarget(double goodput) const;
  // The least limit that would have refused significantly fewer than kRefusedFraction.
  double DemandQuantile() const;
  // Expiries (knee_loss.cc): updates the counts and expiring_.
  void CountExpiries(const Window& w);

  Options options_;
  int limit_;
  State state_ = State::kStartup;
  Window window_;
  std::optional<double> baseline_s_;  // W0.
  double baseline_bytes_ = 0;         // The mean size of the accesses W0 was measured on.
  int block_limit_ = 0;               // The block of windows pooled for a baseline candidate.
  double block_served_ = 0;
  double block_latency_sum_s_ = 0;
  double block_bytes_sum_ = 0;
  double solo_served_ = 0;  // Pool of windows with one access in flight at a time.
  double solo_latency_sum_s_ = 0;
  double solo_bytes_sum_ = 0;
  double fresh_served_ = 0;  // Pool behind a fresh baseline (see above).
  double fresh_latency_sum_s_ = 0;
  double fresh_bytes_sum_ = 0;
  // b: averages of the covariance of latency and size within windows, and of size's variance.
  double size_latency_covariance_ = 0;
  double size_variance_ = 0;
  bool fresh_from_shallow_probe_ = false;
  std::optional<double> goodput_;  // x, per second.
  double smoothed_served_ = 0;     // x = smoothed_served_ / smoothed_duration_s_.
  double smoothed_duration_s_ = 0;
  double smoothed_bytes_ = 0;          // Of the accesses in smoothed_served_.
  double drop_holding_ = 0;            // d, accesses.
  double setup_holding_ = 0;           // s, accesses.
  std::optional<double> latency_cv2_;  // EWMA of the squared cv of latency within windows.
  std::optional<double> last_latency_s_;
  std::optional<TimePoint> last_end_;       // The latest end of a sample so far.
  std::optional<double> batched_fraction_;  // Average fraction of short gaps per window.
  std::vector<double> no_load_latencies_s_;    // The first window's, until D0 is set.
  std::optional<double> no_load_deviation_s_;  // D0.
  std::optional<double> gap_deviation_;        // Dg.
  // Slow average fraction of coincident gaps per window.
  std::optional<double> coincident_fraction_;
  int stale_windows_ = 0;                    // Consecutive windows with an impossible latency.
  std::optional<double> typical_latency_s_;  // EWMA of window latencies.
  int slowdown_windows_ = 0;                 // Consecutive windows of a sudden slowdown.
  bool shallow_probe_ = false;               // The probe halves the limit (not min_limit).
  double probe_reference_s_ = 0;             // Latency before a shallow probe.
  double probe_reference_served_ = 0;        // The window that showed the slowdown.
  double probe_reference_duration_s_ = 0;
  double probe_reference_bytes_ = 0;  // Its accesses' mean size.
  bool recheck_due_ = false;      // A block lowered a raised baseline noticeably.
  bool recheck_probe_ = false;    // The shallow probe re-checks a raised baseline.
  bool recheck_lowered_ = false;  // This re-check lowered the baseline; it halves again.
  double spread_cv2_ = 0;         // Average squared cv of windows since the baseline was set.
  int spread_windows_ = 0;        // Windows in it.
  int windows_since_check_ = 0;
  int recheck_interval_ = 1024;              // Windows between re-checks of a raised baseline.
  std::optional<double> lowest_baseline_s_;  // The lowest baseline ever measured,
  double lowest_baseline_bytes_ = 0;         // and the size it was measured on.
  int pending_direction_ = 0;                // Hysteresis: sign of the previous window's proposal.
  int window_limit_ = 0;                     // The limit when the open window opened.
  int window_max_inflight_ = 0;
  int limit_before_probe_ = 0;
  TimePoint probe_epoch_{};  // Samples granted before this are skipped in a probe.
  // Samples granted before the epoch that must finish before a probe measures (see
  // kDrainSetupPermits), and when it measures regardless.
  int probe_draining_ = 0;
  TimePoint probe_drain_deadline_{};
  // Throughput climb.
  double climb_ = 0;  // c: accesses added to the target.
  ClimbPhase climb_phase_ = ClimbPhase::kIdle;
  int climb_from_ = 0;       // The limit of the reference span.
  int climb_to_ = 0;         // The limit of the trial span.
  bool climb_up_ = true;     // Direction of the next trial.
  int climb_countdown_ = 0;  // Tracking windows until the next trial.
  int climb_settle_ = 0;     // Windows of the trial span not measured (the queue fills).
  int climb_interval_ = 0;   // Windows between trials that did not pay off.
  double last_climb_gain_ = 0;  // Of the last trial, if it kept a step up; else 0.
  RateBlocks climb_reference_;
  RateBlocks climb_trial_;
  bool climb_shared_ = false;    // Other limiters climb on the resource (see above).
  int climb_cut_countdown_ = 0;  // Windows until latency past the cap may cut c again.
  // Refusals: the counts since the limit last changed, and recent ones (forgetting).
  bool loss_mode_ = false;
  int counted_limit_ = 0;
  double limit_refused_ = 0;
  double limit_arrivals_ = 0;
  double recent_refused_ = 0;
  double recent_arrivals_ = 0;
  std::vector<double> demand_;  // Recent arrivals by the permits they needed (loss mode).
  // Expiries: recent arrivals of callers that wait, those of them that gave up, and whether
  // that is significant (see "Expiries" above).
  double recent_expired_ = 0;
  double recent_waiting_arrivals_ = 0;
  bool expiring_ = false;
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_ALGORITHMS_KNEE_H_
