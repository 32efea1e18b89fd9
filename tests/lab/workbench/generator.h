// GenerateWorkloads: populations of workloads drawn at random from documented families, so that an
// algorithm is judged on workloads nobody tuned it to.
//
// A family is a kind of plant and load (delay-dominated plants, k-server queues, group commit,
// error storms, ...). Each draws a target best limit L* and an unloaded round trip log-uniformly
// (over 1..500 and 0.05..200 ms, goodput kept below about 20,000/s so a run stays cheap), derives
// the plant's servers and service times from them, and writes an ordinary workload file (JSON, see
// docs/WORKLOADS.md) whose `family` names the family and whose `description` says in words what was
// drawn. docs/WORKLOADS.md ("Generated workloads") lists the families and the ranges they draw
// from.
//
//   StatusOr<std::vector<GeneratedWorkload>> population = GenerateWorkloads(300, /*seed=*/1, "");
//   if (!population.ok()) return population.status();
//   for (const GeneratedWorkload& g : *population) {
//     StatusOr<Workload> w = ParseWorkload(g.json, g.name);  // always parses
//   }
//
// Workload k of family f is named "<f>-<k>" and drawn from Rng(StreamSeed(seed, name)) alone, so a
// seed gives the same workloads on every machine, whatever the count.
//
// Thread-safety: pure functions.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_GENERATOR_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_GENERATOR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/base/status_or.h"

namespace blobtune::workbench {

struct GeneratedWorkload {
  std::string family;
  std::string name;  // "<family>-<k>"; also the workload's `name`.
  std::string json;  // The workload file's text.
  // What the draw aimed at (the oracle's L* lies near, not on, the target).
  double target_limit = 0.0;
  double round_trip_ms = 0.0;  // Unloaded, before any step.
};

// The families, in the order GenerateWorkloads deals them out.
std::vector<std::string_view> WorkloadFamilies();
// How many of WorkloadFamilies(), the first ones, a population deals out; the rest (`churn`) are
// drawn by name only, so that a seed's population stays the one earlier figures were measured on.
size_t PopulationFamilyCount();

// `count` workloads, dealt round-robin over the population's families (workload i is number
// i / F of family i % F, F = PopulationFamilyCount()), or all of `family` if it is not empty. INVALID_ARGUMENT for a negative count or an
// unknown family.
StatusOr<std::vector<GeneratedWorkload>> GenerateWorkloads(int count, uint64_t seed,
                                                           std::string_view family);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_GENERATOR_H_
