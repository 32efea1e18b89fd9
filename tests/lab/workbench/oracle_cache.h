// OracleCache: keeps the oracle's sweeps of workloads on disk, so that runs which change only the
// algorithms (the usual loop when developing one) skip the sweeps, which take most of the time.
//
// An entry is keyed by what the sweep depends on in its inputs: the workload's text, its seed and
// the oracle's options; any change to them is a miss. The simulator's own code is not in the
// key: after changing the workbench, start a new directory. A cached oracle is the computed one,
// number for number.
//
//   OracleCache cache("/tmp/oracles");
//   std::optional<std::vector<PhaseOracle>> oracle = cache.Find(workload, options);
//   if (!oracle) { oracle = ComputeOracle(workload, options).value(); cache.Store(...); }
//
// Thread-safety: none needed; entries are separate files, written whole and renamed into place.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_ORACLE_CACHE_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_ORACLE_CACHE_H_

#include <optional>
#include <string>
#include <vector>

#include "blobtune/base/status.h"
#include "oracle.h"
#include "workload.h"

namespace blobtune::workbench {

class OracleCache {
 public:
  // Entries live in `directory`, created on the first Store().
  explicit OracleCache(std::string directory) : directory_(std::move(directory)) {}

  // The cached oracle of `workload` under `options`, or std::nullopt (no entry, or one that
  // does not read back).
  std::optional<std::vector<PhaseOracle>> Find(const Workload& workload,
                                               const OracleOptions& options) const;
  Status Store(const Workload& workload, const OracleOptions& options,
               const std::vector<PhaseOracle>& oracle) const;

 private:
  std::string PathOf(const Workload& workload, const OracleOptions& options) const;

  std::string directory_;
};

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_ORACLE_CACHE_H_
