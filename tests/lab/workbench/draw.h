// Draw: the random choices of a generated workload, and the building blocks its families share
// (generator.h): the joint draw of a target L* and round trip, a network in front of k servers
// sized to that target, the phase plan, and the workload file's text.
//
//   Draw draw(StreamSeed(seed, "k_servers-3"));
//   Scale scale = draw.ScaleOf({.min_limit = 1});  // target L* and unloaded round trip
//   QueuePlant plant = DrawQueuePlant(draw, scale, {.max_servers = 64});
//
// Every number that goes into a file is rounded to 3 significant digits first (Round3), so the
// description, the file and the simulation agree on it.
//
// Thread-safety: a Draw is used by one thread; the functions are pure.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_DRAW_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_DRAW_H_

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "random.h"

namespace blobtune::workbench {

using OrderedJson = nlohmann::ordered_json;

// The population's bounds (docs/WORKLOADS.md, "Generated workloads").
inline constexpr double kMinRoundTripMs = 0.05;
inline constexpr double kMaxRoundTripMs = 200.0;
inline constexpr double kMaxTargetLimit = 500.0;
inline constexpr double kMaxGoodput = 20'000.0;  // Per second: bounds a run's cost.
// Open loops in overload pay for every arrival, up to 2.5 times the goodput.
inline constexpr double kMaxOpenGoodput = 8'000.0;

// x rounded to 3 significant digits (the nearest double to its 3-digit decimal form).
double Round3(double x);
// x as a description shows it: 3 significant digits, whole numbers from 100 up ("0.123", "45.6",
// "12345").
std::string Num(double x);

// A target L* and the unloaded round trip of the plant built for it.
struct Scale {
  double limit = 1.0;
  double round_trip_ms = 1.0;
  double goodput() const { return limit * 1000.0 / round_trip_ms; }  // Per second.
};

struct ScaleBounds {
  double min_limit = 1.0;
  double max_limit = kMaxTargetLimit;
  double max_goodput = kMaxGoodput;
};

class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}

  Draw(const Draw&) = delete;
  Draw& operator=(const Draw&) = delete;
  ~Draw() = default;

  double Uniform(double lo, double hi) { return lo + (hi - lo) * rng_.Uniform(); }
  double LogUniform(double lo, double hi) { return lo * std::pow(hi / lo, rng_.Uniform()); }
  // An integer in [lo, hi], each equally likely.
  int Int(int lo, int hi);
  // An integer in [lo, hi], log-uniform: as likely in [1, 2) as in [32, 64).
  int LogInt(int lo, int hi);
  bool Chance(double p) { return rng_.Uniform() < p; }
  uint64_t Seed() { return 1 + static_cast<uint64_t>(rng_.Uniform() * 2147483647.0); }

  // L* and round trip log-uniform over [min_limit, max_limit] x [0.05, 200] ms where
  // L* / round trip <= max_goodput (the rest of the rectangle is redrawn).
  Scale ScaleOf(const ScaleBounds& bounds);

 private:
  Rng rng_;
};

// Distributions as workload files write them (docs/WORKLOADS.md).
OrderedJson Exponential(double mean);
OrderedJson Lognormal(double mean, double cv);

// A service time of mean `mean_ms` (already rounded) with a drawn shape: constant (1/6),
// exponential (1/3) or lognormal with cv log-uniform in [0.25, 2] (1/2). `words` says which.
OrderedJson ServiceShape(Draw& draw, double mean_ms, std::string& words);

// A network delay (lognormal, cv uniform in [0.05, 0.5]) in front of `servers` FIFO servers whose
// knee servers * round_trip / service sits at the target L*:
//   servers log-uniform in [min_servers, min(max_servers, L* (1 - min_network))],
//   service = servers * round_trip / L*, network = round_trip - service
// (no network stage when it would be under 1% of the round trip, and min_network is 0).
struct QueuePlantBounds {
  int min_servers = 1;
  int max_servers = 64;
  double min_network = 0.0;  // Least fraction of the round trip spent in the network.
};
struct QueuePlant {
  int servers = 1;
  double service_ms = 1.0;
  double network_ms = 0.0;
  OrderedJson network;        // The "network" delay stage; null without one.
  OrderedJson server;         // The "server" queue stage.
  std::string network_words;  // "2.1 ms of network (lognormal, cv 0.3)"; empty without one.
  std::string shape;          // Of the service: "exponential", "lognormal, cv 0.5", ...
  double capacity() const { return servers * 1000.0 / service_ms; }  // Per second.
  OrderedJson Stages() const;
  // "2.1 ms of network (lognormal, cv 0.3), then 4 servers of 0.8 ms (exponential): capacity
  // 5000/s".
  std::string Words() const;
};
QueuePlant DrawQueuePlant(Draw& draw, const Scale& scale, const QueuePlantBounds& bounds);

// A closed-loop client of `concurrency` jobs, an open-loop one of `rate_per_s`.
OrderedJson ClosedClient(const std::string& name, int concurrency);
OrderedJson OpenClient(const std::string& name, double rate_per_s);
// A backlog well above L*: ceil(m * limit) + 2 jobs, m log-uniform in [2, 4].
int Backlog(Draw& draw, double limit);

// `phases` phases of equal length, each of at least 300 round trips and 3,000 completions, the
// whole run within [10, 120] s, rounded up to whole seconds; steps at tenths of a second.
struct Timeline {
  double duration_s = 10.0;
  std::vector<double> steps_s;  // phases - 1 step times.
};
Timeline PlanPhases(int phases, double round_trip_ms, double goodput_per_s);

// A step at `at_s` that sets `target` to `value`.
OrderedJson Step(double at_s, const std::string& target, const OrderedJson& value);

// max(64, 8 L*, every concurrency) rounded up to 2 significant digits: room above L* for the
// algorithms, and for the oracle's sweep up to the demand.
int MaxLimitFor(double limit, int concurrency);

// The workload file's text: one line per stage, client and step, as tests/workloads writes them.
std::string FormatWorkload(const OrderedJson& workload);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_DRAW_H_
