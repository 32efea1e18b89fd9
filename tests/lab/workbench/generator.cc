#include "generator.h"

#include <iterator>

#include "draw.h"
#include "families.h"
#include "random.h"
#include "workload.h"

namespace blobtune::workbench {
namespace {

struct Family {
  std::string_view name;
  Sketch (*draw)(Draw&);
};

// The order of this table is the order GenerateWorkloads deals the families out in. A population
// deals out the first kPopulationFamilies; a family appended after them is drawn by name only, so
// that a seed's population stays the one every earlier figure was measured on.
constexpr Family kFamilies[] = {
    {"delay", DelayFamily},
    {"k_servers", KServersFamily},
    {"contention", ContentionFamily},
    {"group_commit", GroupCommitFamily},
    {"heavy_tail", HeavyTailFamily},
    {"open_ramp", OpenRampFamily},
    {"staggered", StaggeredFamily},
    {"steps", StepsFamily},
    {"error_storm", ErrorStormFamily},
    {"hangs", HangsFamily},
    {"partitioned", PartitionedFamily},
    {"churn", ChurnFamily},
};
constexpr size_t kPopulationFamilies = 11;
static_assert(kPopulationFamilies <= std::size(kFamilies));

StatusOr<GeneratedWorkload> Generate(const Family& family, int k, uint64_t seed) {
  GeneratedWorkload generated;
  generated.family = std::string(family.name);
  generated.name = generated.family + "-" + std::to_string(k);
  Draw draw(StreamSeed(seed, generated.name));
  uint64_t workload_seed = draw.Seed();
  Sketch sketch = family.draw(draw);
  generated.target_limit = Round3(sketch.scale.limit);
  generated.round_trip_ms = Round3(sketch.scale.round_trip_ms);
  OrderedJson w;
  w["name"] = generated.name;
  w["family"] = generated.family;
  w["description"] = sketch.description + ". Drawn for a best limit near " +
                     Num(generated.target_limit) + " at an unloaded round trip of " +
                     Num(generated.round_trip_ms) + " ms.";
  w["duration_s"] = sketch.timeline.duration_s;
  w["seed"] = workload_seed;
  w["max_limit"] = sketch.max_limit;
  w["stages"] = sketch.stages;
  w["clients"] = sketch.clients;
  if (!sketch.partitions.empty()) w["partitions"] = sketch.partitions;
  if (!sketch.steps.empty()) w["steps"] = sketch.steps;
  generated.json = FormatWorkload(w);
  // A family that writes what the parser refuses is a bug here, not the caller's problem.
  StatusOr<Workload> parsed = ParseWorkload(generated.json, generated.name);
  if (!parsed.ok()) {
    return Status::Internal("generated workload does not parse: " + parsed.status().ToString());
  }
  return generated;
}

}  // namespace

size_t PopulationFamilyCount() { return kPopulationFamilies; }

std::vector<std::string_view> WorkloadFamilies() {
  std::vector<std::string_view> names;
  for (const Family& family : kFamilies) names.push_back(family.name);
  return names;
}

StatusOr<std::vector<GeneratedWorkload>> GenerateWorkloads(int count, uint64_t seed,
                                                           std::string_view family) {
  if (count < 0) {
    return Status::InvalidArgument("the number of workloads must be >= 0, got " +
                                   std::to_string(count));
  }
  std::vector<const Family*> families;
  for (size_t i = 0; i < std::size(kFamilies); ++i) {
    const Family& f = kFamilies[i];
    if (family.empty() ? i < kPopulationFamilies : f.name == family) families.push_back(&f);
  }
  if (families.empty()) {
    std::string known;
    for (const Family& f : kFamilies) known += (known.empty() ? "" : ", ") + std::string(f.name);
    return Status::InvalidArgument("no workload family is named \"" + std::string(family) +
                                   "\" (families: " + known + ")");
  }
  std::vector<GeneratedWorkload> workloads;
  for (int i = 0; i < count; ++i) {
    const Family& f = *families[static_cast<size_t>(i) % families.size()];
    StatusOr<GeneratedWorkload> generated =
        Generate(f, i / static_cast<int>(families.size()), seed);
    if (!generated.ok()) return generated.status();
    workloads.push_back(*std::move(generated));
  }
  return workloads;
}

}  // namespace blobtune::workbench
