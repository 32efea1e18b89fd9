// RealPlant: one real resource of blobtune (a store, a server, the delivery's mail server) under
// a closed-loop demand far above its best limit, measured in real time for one limit algorithm.
//
// A RealPlant describes a plant; every RunPoint() builds a fresh instance of it (a new limiter
// from the spec, a new server or store; the put plants keep one store for all points), runs the
// demand for a warm-up that is not measured and then for the measured window, and tears it
// down again.
//
//   std::unique_ptr<RealPlant> plant = MakePlant("lmdb_put_1k").value();
//   StatusOr<PointResult> point = plant->RunPoint({.algorithm = "fixed:limit=8"});
//   if (point.ok()) std::cout << point->goodput << "/s, p99 " << point->p99_ms << " ms\n";
//
// The plants (docs/PLANTS.md): lmdb_put_64k, lmdb_put_1k, wait_then_put_100k, cached_get_10k,
// server_mixed_16k, delivery_auth.
//
// Thread-safety: RunPoint() runs its own threads and joins them before it returns; call it from
// one thread at a time (the plants compete for the same cores and disk anyway).
#ifndef BLOBTUNE_TESTS_LAB_PLANTBENCH_REAL_PLANT_H_
#define BLOBTUNE_TESTS_LAB_PLANTBENCH_REAL_PLANT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/base/status_or.h"
#include "blobtune/tuner/limiter.h"
#include "blobtune/tuner/limiter_observer.h"
#include "simulator.h"  // workbench::SeriesPoint

namespace blobtune::plantbench {

struct PointSpec {
  // The limit algorithm as a registry spec ("marginal", "fixed:limit=8"), built with the
  // algorithm's own defaults for what the spec leaves out.
  std::string algorithm;
  // Seconds run before measuring, then seconds measured. REQUIRES: >= 0 and > 0.
  double warmup_s = 1.0;
  double measure_s = 2.0;
  // Seeds the plant's random choices (ids read, client work).
  uint64_t seed = 1;
  // When set and true, the measured window ends early (Ctrl-C); the point is then incomplete.
  const std::atomic<bool>* interrupted = nullptr;
};

struct PointResult {
  double goodput = 0.0;  // Successful accesses per second in the measured window.
  double p99_ms = 0.0;   // p99 access latency of those successes.
  uint64_t successes = 0;
  uint64_t refused = 0;     // Accesses refused for load (no permit in time, 503).
  uint64_t attempts = 0;    // Every access that ended in the window, refused ones included.
  double mean_limit = 0.0;  // Time-weighted over the window.
  double measured_s = 0.0;
  // About every 100 ms of the window: limit, in flight, goodput and mean latency; end_s counts
  // from the window's start.
  std::vector<workbench::SeriesPoint> series;
};

class RealPlant {
 public:
  RealPlant() = default;
  RealPlant(const RealPlant&) = delete;
  RealPlant& operator=(const RealPlant&) = delete;
  virtual ~RealPlant() = default;

  virtual std::string_view name() const = 0;
  // Concurrent callers (connections): a limit above this cannot bind.
  virtual int demand() const = 0;
  // One point on a fresh instance of the plant. INVALID_ARGUMENT for a bad algorithm spec;
  // otherwise the error of whatever could not be set up (a store, a server).
  virtual StatusOr<PointResult> RunPoint(const PointSpec& spec) = 0;
};

// The plant names, in the order the bench runs them.
std::vector<std::string> PlantNames();

// NOT_FOUND (listing the valid names) for an unknown name.
StatusOr<std::unique_ptr<RealPlant>> MakePlant(std::string_view name);

// OK if `spec` builds an algorithm; otherwise the registry's INVALID_ARGUMENT.
Status CheckAlgorithmSpec(const std::string& spec);

// A limiter for one point: the spec's algorithm (tuner::MakeAlgorithm, its own defaults),
// reporting to `observer`, otherwise the limiter's default options.
StatusOr<std::unique_ptr<tuner::Limiter>> MakePointLimiter(const std::string& spec,
                                                           tuner::LimiterObserver* observer);

}  // namespace blobtune::plantbench

#endif  // BLOBTUNE_TESTS_LAB_PLANTBENCH_REAL_PLANT_H_
