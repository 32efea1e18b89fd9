// ProcessStats: what Prometheus' conventions for process metrics export (process_cpu_seconds_total,
// process_resident_memory_bytes, ...), read from Linux's /proc for the calling process.
//
//   std::optional<internal::ProcessStats> stats = internal::ReadProcessStats();
//
// Thread-safety: reentrant (each call reads /proc afresh).
#ifndef BLOBTUNE_METRICS_SRC_PROCESS_STATS_H_
#define BLOBTUNE_METRICS_SRC_PROCESS_STATS_H_

#include <cstdint>
#include <optional>

namespace blobtune::metrics::internal {

struct ProcessStats {
  double cpu_seconds = 0;  // User and system time.
  uint64_t resident_memory_bytes = 0;
  uint64_t virtual_memory_bytes = 0;
  uint64_t open_fds = 0;
  uint64_t max_fds = 0;           // The soft limit on open file descriptors.
  double start_time_seconds = 0;  // Since the Unix epoch.
};

// The process's figures now; nullopt where /proc cannot be read (not Linux, no /proc mounted).
std::optional<ProcessStats> ReadProcessStats();

}  // namespace blobtune::metrics::internal

#endif  // BLOBTUNE_METRICS_SRC_PROCESS_STATS_H_
