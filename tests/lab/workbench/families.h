// The families GenerateWorkloads draws from (generator.h), one function each. A family draws a
// Sketch: the stages, clients and steps of one workload, its phase plan and, in words, what it
// drew. docs/WORKLOADS.md ("Generated workloads") documents each family's ranges; keep the two in
// step.
//
//   Draw draw(StreamSeed(seed, "k_servers-3"));
//   Sketch sketch = KServersFamily(draw);
//
// Thread-safety: pure functions of the Draw they are given.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_FAMILIES_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_FAMILIES_H_

#include <string>

#include "draw.h"

namespace blobtune::workbench {

// One drawn workload before it becomes a file.
struct Sketch {
  Scale scale;              // The target L* and unloaded round trip it was built for.
  std::string description;  // What was drawn, in words, without a final full stop.
  OrderedJson stages = OrderedJson::array();
  OrderedJson clients = OrderedJson::array();
  OrderedJson steps = OrderedJson::array();
  OrderedJson partitions = OrderedJson::array();  // Empty: each client has its own limiter.
  Timeline timeline;
  int max_limit = 64;
};

// Steady plants under a backlog (families.cc).
Sketch DelayFamily(Draw& draw);
Sketch KServersFamily(Draw& draw);
Sketch ContentionFamily(Draw& draw);
Sketch GroupCommitFamily(Draw& draw);
Sketch HeavyTailFamily(Draw& draw);

// Loads and plants that change over the run (stepped_families.cc).
Sketch OpenRampFamily(Draw& draw);
Sketch StaggeredFamily(Draw& draw);
Sketch PartitionedFamily(Draw& draw);
Sketch ChurnFamily(Draw& draw);
Sketch StepsFamily(Draw& draw);
Sketch ErrorStormFamily(Draw& draw);
Sketch HangsFamily(Draw& draw);

// "1 job", "96 jobs".
std::string Jobs(int concurrency);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_FAMILIES_H_
