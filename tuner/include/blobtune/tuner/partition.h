// Partitions: callers of one limiter that are not alike, such as a person opening a message and a
// background sync of thousands of blobs. They share one tuned limit, and the limiter decides who
// gets a freed permit.
//
// Each partition has a share of the limit and a priority.
//   - A partition is guaranteed floor(share x limit) permits. While it holds fewer, it gets a
//     permit at once, even if the limit is reached because other partitions borrowed its idle
//     share: a lent permit comes back as soon as its owner asks, and the borrowers get no new
//     permit until they are back under the limit. The guarantees add up to at most the limit,
//     so the permits in flight exceed the limit only while borrowed permits drain.
//   - A permit that is free while nobody waits goes to whoever asks: a partition may borrow
//     what the others leave idle. A partition without a share borrows only.
//   - When a permit frees up and acquirers wait, it goes
//     1. to a partition holding fewer permits than share x limit (fractions included) before
//        any partition at or over it, whatever the priorities;
//     2. then to the higher priority;
//     3. then, among partitions of equal standing, to the one that got the fewest permits for
//        its share so far (stride scheduling: each permit handed to a waiter of partition p
//        advances p's pass by 1 / share), so that saturating partitions split the permits in
//        proportion to their shares even where the limit cannot be split evenly;
//     and within the partition to its first waiter (LimiterOptions::queue_order).
//
//   LimiterOptions options;
//   options.partitions = {{.name = "reader", .share = 0.2, .priority = 1},
//                         {.name = "sync", .share = 0.8}};
//   auto limiter = Limiter::Create(std::move(options)).value();
//   PartitionId reader = limiter->FindPartition("reader").value();
//   StatusOr<Permit> permit = limiter->Acquire(reader, std::chrono::milliseconds(50));
//
// Use partitions when callers share one resource: one limit is learned from all their samples
// and divided among them. Use separate limiters when they use different resources.
//
// Thread-safety: plain values.
#ifndef BLOBTUNE_TUNER_PARTITION_H_
#define BLOBTUNE_TUNER_PARTITION_H_

#include <cstdint>
#include <string>

namespace blobtune::tuner {

struct PartitionOptions {
  // Names it in FindPartition(), metrics and logs. Non-empty and unique within a limiter.
  std::string name;
  // The fraction of the limit guaranteed to it while it asks, in [0, 1]. The shares of a
  // limiter's partitions add up to at most 1.
  double share = 0.0;
  // Higher is served first, after the shares' guarantees.
  int priority = 0;
};

// One partition of a limiter: its index in LimiterOptions::partitions. The default, 0, is the
// first partition, or the whole limiter when it has none.
struct PartitionId {
  uint32_t index = 0;
  friend bool operator==(PartitionId, PartitionId) = default;
};

// A partition as it is now (Limiter::partition()).
struct PartitionStatus {
  PartitionOptions options;
  int inflight = 0;   // Permits it holds.
  size_t waiting = 0;  // Its acquirers in the queue.
  int guaranteed = 0;  // floor(share x the current limit): the permits it is sure to get.
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_PARTITION_H_
