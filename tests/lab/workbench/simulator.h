// Simulate: a discrete-event simulation of a workload in virtual time.
//
// Clients create requests (closed loop: a fixed number of jobs outstanding; open loop: Poisson
// arrivals). A request waits in its client's FIFO queue until the client's Admission (a static
// cap, or the real Limiter through a FakeClock) grants it, then fails fast, hangs, or walks the
// plant's stages. Its permit ends with success, or dropped: after a fast error, at the deadline
// for a hang, or when the plant finishes a request whose deadline passed meanwhile (work already
// in the plant cannot be called back, so its permit is held until the plant lets go; a request
// whose deadline passes while it queues for a permit just expires). Steps change parameters at
// their times. Events are ordered by (time, sequence number) and every random stream is seeded, so
// a seed gives the same result on every run; nothing sleeps. Batch stages start their batches after
// the last event of an instant (plant.h).
//
//   SimulationOptions options;
//   options.phase_bounds = PhaseBounds(workload);
//   options.make_admission = [](size_t, Clock&) { return std::make_unique<StaticCap>(4); };
//   StatusOr<SimulationResult> result = Simulate(workload, options);
//
// Latency everywhere is the access latency, from grant to end of the permit: what the limit
// controls; a request's latency counts in the phase it arrived in, and the requests granted
// when the run stops are followed to their end (nothing new starts then). Throughput is
// goodput: successful requests per second, counted in the phase where they end.
//
// Thread-safety: Simulate() is reentrant; run independent simulations on several threads.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_SIMULATOR_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "admission.h"
#include "blobtune/base/clock.h"
#include "blobtune/base/status_or.h"
#include "latency_histogram.h"
#include "workload.h"

namespace blobtune::workbench {

struct SimulationOptions {
  // Measurement windows: phase i is [bounds[i], bounds[i+1]). The run ends at the last bound
  // (or earlier, see below). REQUIRES: at least two increasing bounds.
  std::vector<double> phase_bounds;
  // Whether the workload's steps happen (the oracle holds one phase's parameters instead).
  bool apply_steps = true;
  // Closed-loop clients with total_jobs run an endless backlog instead (the oracle).
  bool backlog_instead_of_fixed_work = false;
  // Width of the time series buckets in seconds; 0 records no series.
  double bucket_s = 0.0;
  // Ends the run once the last phase has seen this many successes (0: never). Bounds long
  // oracle runs of fast plants without costing slow ones their precision.
  uint64_t stop_after_successes = 0;
  // Record every success in SimulationResult::completions (for the service windows of score.h).
  bool record_completions = false;
  // One admission per client, created at time 0 with the simulation's clock.
  std::function<StatusOr<std::unique_ptr<Admission>>(size_t client, Clock& clock)> make_admission;
};

struct PhaseStats {
  double start_s = 0.0;
  double end_s = 0.0;  // Where measuring stopped (earlier than the bound if the run ended).
  uint64_t successes = 0;
  uint64_t dropped = 0;    // Errors, hangs and deadline misses of granted requests.
  uint64_t expired = 0;    // Requests whose deadline passed while they queued for a permit.
  uint64_t rejected = 0;   // Requests that found their client's queue full.
  LatencyHistogram latency;  // Access latency of the successes that arrived in the phase.
  std::vector<uint64_t> successes_by_client;
  // Per client, the response time (from a request's creation, its wait for a permit included,
  // to its end) of the successes that arrived in the phase: what the client's caller sees.
  std::vector<LatencyHistogram> response_by_client;

  double throughput() const { return end_s > start_s ? successes / (end_s - start_s) : 0.0; }
};

// One time series bucket, ending at `end_s`.
struct SeriesPoint {
  double end_s = 0.0;
  double mean_limit = 0.0;     // Mean over clients of each one's limit at the bucket's end.
  double mean_inflight = 0.0;  // Mean over clients of each one's permits in flight at the end.
  double throughput = 0.0;     // Successes of all clients per second during the bucket.
  double mean_latency_ms = 0.0;
};

// One successful access, as record_completions keeps it.
struct Completion {
  double end_s = 0.0;       // When its permit ended.
  double latency_ms = 0.0;  // Its access latency.
  int client = 0;           // Index into Workload::clients.
};

struct SimulationResult {
  std::vector<PhaseStats> phases;
  // Every success of the run (not of the drain after it), in the order they ended; empty unless
  // SimulationOptions::record_completions.
  std::vector<Completion> completions;
  // Per client, every change of its limit as (time in s, new limit), starting at time 0.
  std::vector<std::vector<std::pair<double, int>>> limit_changes;
  std::vector<SeriesPoint> series;
  double end_s = 0.0;  // When the run ended.
  uint64_t events = 0;
};

StatusOr<SimulationResult> Simulate(const Workload& workload, const SimulationOptions& options);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_SIMULATOR_H_
