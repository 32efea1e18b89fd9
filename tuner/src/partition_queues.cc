#include "partition_queues.h"

#include <algorithm>
#include <cassert>

#include "blobtune/tuner/limiter.h"

namespace blobtune::tuner::internal {
namespace {

// A partition without a share counts each permit it gets as one of the smallest share a limit
// can split (1 / Limiter::kMaxLimit): among partitions of its priority it gets what those with a
// share leave, and partitions without a share take turns.
constexpr double kNoShareStride = static_cast<double>(Limiter::kMaxLimit);

}  // namespace

PartitionQueues::PartitionQueues(std::span<const PartitionOptions> partitions)
    : queues_(partitions.size()), standing_(partitions.size()) {
  for (size_t p = 0; p < partitions.size(); ++p) {
    const double share = partitions[p].share;
    standing_[p] = {.share = share,
                    .priority = partitions[p].priority,
                    .stride = share > 0.0 ? 1.0 / share : kNoShareStride};
  }
}

void PartitionQueues::Push(Waiter* w, bool front) noexcept {
  assert(w->partition < queues_.size());
  WaitQueue& queue = queues_[w->partition];
  if (queue.empty()) {
    // Credit does not pile up while a partition does not wait.
    double& pass = standing_[w->partition].pass;
    pass = std::max(pass, virtual_time_);
  }
  queue.Push(w, front);
  ++size_;
}

void PartitionQueues::Remove(Waiter* w) noexcept {
  queues_[w->partition].Remove(w);
  --size_;
}

void PartitionQueues::Grant(Waiter* w) noexcept {
  Remove(w);
  double& pass = standing_[w->partition].pass;
  virtual_time_ = pass;
  pass += standing_[w->partition].stride;
  if (size_ == 0) {
    // Nobody waits: a new busy period starts from zero, so passes stay small.
    for (Standing& s : standing_) s.pass = 0.0;
    virtual_time_ = 0.0;
  }
}

}  // namespace blobtune::tuner::internal
