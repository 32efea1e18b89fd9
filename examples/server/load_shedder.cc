#include "load_shedder.h"

#include <algorithm>
#include <cstddef>

namespace blobtune::server {

Status LoadShedder::Admit(TimePoint now, tuner::PartitionId partition) {
  if (limiter_ == nullptr) return Status::Ok();
  const PartitionState& state = partitions_[partition.index];
  if (!state.slow || !state.last_timeout || now - *state.last_timeout > window_) {
    return Status::Ok();
  }
  const size_t waiting = partitions_.size() == 1 ? limiter_->queue_length()
                                                 : limiter_->partition(partition).waiting;
  const int limit = std::max(1, limiter_->limit());
  if (waiting < static_cast<size_t>(limit)) return Status::Ok();
  // TryAcquire fails while anyone waits (unless the partition is under its guaranteed share); a
  // permit freed meanwhile is given back at once, for this request to take in its turn.
  if (std::optional<tuner::Permit> freed = limiter_->TryAcquire(partition)) return Status::Ok();
  return Status::Unavailable("overloaded: " + std::to_string(waiting) + " " + what_ +
                             " already wait for the " + std::to_string(limit) + " " + what_ +
                             " that may run at once");
}

void LoadShedder::Observe(const Status& status, TimePoint started, TimePoint now,
                          TimePoint deadline, tuner::PartitionId partition) {
  PartitionState& state = partitions_[partition.index];
  if (status.ok()) {
    state.slow = now - started >= (deadline - started) / 2;
  } else if (status.code() == StatusCode::kDeadlineExceeded && now >= deadline) {
    state.last_timeout = now;  // A wait the limiter cut short says nothing new.
    state.slow = true;
  }
}

}  // namespace blobtune::server
