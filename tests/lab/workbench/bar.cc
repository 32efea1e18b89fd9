#include "bar.h"

namespace blobtune::workbench {

std::vector<std::string> MissesOfBar(const Score& score, const Bar& bar) {
  std::vector<std::string> misses;
  if (!(score.throughput_ratio >= bar.min_throughput_ratio)) misses.emplace_back("throughput_ratio");
  if (!(score.p99_ratio <= bar.max_p99_ratio)) misses.emplace_back("p99_ratio");
  if (!score.recovery_rtts || *score.recovery_rtts > bar.max_recovery_rtts) {
    misses.emplace_back("recovery_rtts");
  }
  if (!(score.service_in_band >= bar.min_service_in_band)) misses.emplace_back("service_in_band");
  if (score.fairness && *score.fairness < bar.min_fairness) misses.emplace_back("fairness");
  return misses;
}

}  // namespace blobtune::workbench
