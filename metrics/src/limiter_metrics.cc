#include "blobtune/metrics/limiter_metrics.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

namespace blobtune::metrics {
namespace {

uint64_t Nanos(Duration d) noexcept { return d.count() > 0 ? static_cast<uint64_t>(d.count()) : 0; }

std::optional<double> Seconds(const std::optional<Duration>& d) {
  if (!d) return std::nullopt;
  return std::chrono::duration<double>(*d).count();
}

}  // namespace

std::string_view PermitEndName(PermitEnd end) noexcept {
  switch (end) {
    case PermitEnd::kSuccess:
      return "success";
    case PermitEnd::kDropped:
      return "dropped";
    case PermitEnd::kIgnored:
      return "ignored";
    case PermitEnd::kRejected:
      return "rejected";
    case PermitEnd::kTimeout:
      return "timeout";
    case PermitEnd::kCancelled:
      return "cancelled";
    case PermitEnd::kQueueFull:
      return "queue_full";
  }
  return "unknown";
}

LimiterMetrics::LimiterMetrics(std::string name)
    : name_(std::move(name)),
      success_latency_(LatencyBucketsNanos()),
      dropped_latency_(LatencyBucketsNanos()),
      queue_wait_(LatencyBucketsNanos()) {}

LimiterMetrics::PartitionHistograms::PartitionHistograms()
    : success_latency(LatencyBucketsNanos()), queue_wait(LatencyBucketsNanos()) {}

void LimiterMetrics::OnLimiterCreated(const tuner::Limiter& limiter) {
  MutexLock lock(link_mu_);
  limiter_ = &limiter;
  if (limiter.has_partitions()) {
    partition_names_.clear();
    for (uint32_t p = 0; p < limiter.partition_count(); ++p) {
      partition_names_.push_back(limiter.partition(tuner::PartitionId{p}).options.name);
    }
    if (partition_permits_owner_ == nullptr) {
      partition_permits_owner_ =
          std::make_unique<PerThreadCounters>(tuner::Limiter::kMaxPartitions * kPermitEndCount);
      partition_permits_.store(partition_permits_owner_.get(), std::memory_order_relaxed);
    }
    for (uint32_t p = 0; p < limiter.partition_count(); ++p) {
      if (partition_histograms_[p].load(std::memory_order_relaxed) != nullptr) continue;
      partition_histograms_owner_.push_back(std::make_unique<PartitionHistograms>());
      partition_histograms_[p].store(partition_histograms_owner_.back().get(),
                                     std::memory_order_relaxed);
    }
  }
}

void LimiterMetrics::OnLimiterDestroyed(const tuner::Limiter& limiter) {
  // Waits for a scrape that is reading the limiter: from here on, nothing touches it.
  MutexLock lock(link_mu_);
  if (limiter_ == &limiter) limiter_ = nullptr;
}

void LimiterMetrics::OnGranted(tuner::PartitionId partition, Duration queue_wait) {
  // The check comes first and the partitioned case is a tail call: for limiters without
  // partitions this stays a leaf function that saves no registers (which would cost about half a
  // nanosecond per permit).
  if (partition_permits_.load(std::memory_order_relaxed) != nullptr) [[unlikely]] {
    return OnPartitionGranted(partition, queue_wait);
  }
  queue_wait_.Observe(Nanos(queue_wait));
}

void LimiterMetrics::OnPartitionGranted(tuner::PartitionId partition, Duration queue_wait) {
  queue_wait_.Observe(Nanos(queue_wait));
  if (PartitionHistograms* h =
          partition_histograms_[partition.index].load(std::memory_order_relaxed)) {
    h->queue_wait.Observe(Nanos(queue_wait));
  }
}

void LimiterMetrics::OnAcquireFailed(tuner::PartitionId partition, tuner::AcquireFailure why) {
  switch (why) {
    case tuner::AcquireFailure::kRejected:
      return Count(partition, PermitEnd::kRejected);
    case tuner::AcquireFailure::kTimeout:
      return Count(partition, PermitEnd::kTimeout);
    case tuner::AcquireFailure::kCancelled:
      return Count(partition, PermitEnd::kCancelled);
    case tuner::AcquireFailure::kQueueFull:
      return Count(partition, PermitEnd::kQueueFull);
  }
}

void LimiterMetrics::OnReleased(tuner::PartitionId partition, tuner::PermitOutcome outcome,
                                const tuner::Sample* sample) {
  // The first three PermitEnds are the PermitOutcomes, in the same order.
  static_assert(static_cast<size_t>(PermitEnd::kSuccess) ==
                    static_cast<size_t>(tuner::PermitOutcome::kSuccess) &&
                static_cast<size_t>(PermitEnd::kDropped) ==
                    static_cast<size_t>(tuner::PermitOutcome::kDropped) &&
                static_cast<size_t>(PermitEnd::kIgnored) ==
                    static_cast<size_t>(tuner::PermitOutcome::kIgnored));
  // Most permits are untimed at high rates: for them this stays a leaf function.
  if (sample != nullptr) [[unlikely]] return OnTimedRelease(partition, outcome, *sample);
  Count(partition, static_cast<PermitEnd>(outcome));
}

void LimiterMetrics::OnTimedRelease(tuner::PartitionId partition, tuner::PermitOutcome outcome,
                                    const tuner::Sample& sample) {
  Count(partition, static_cast<PermitEnd>(outcome));
  switch (outcome) {
    case tuner::PermitOutcome::kSuccess:
      if (PartitionHistograms* h =
              partition_histograms_[partition.index].load(std::memory_order_relaxed)) {
        h->success_latency.Observe(Nanos(sample.latency), sample.weight);
      }
      return success_latency_.Observe(Nanos(sample.latency), sample.weight);
    case tuner::PermitOutcome::kDropped:
      return dropped_latency_.Observe(Nanos(sample.latency), sample.weight);
    case tuner::PermitOutcome::kIgnored:
      return;  // Ignored permits carry no sample.
  }
}

void LimiterMetrics::OnLimitChanged(int old_limit, int new_limit,
                                    const tuner::AlgorithmEstimates& /*estimates*/) {
  // The estimates are read from the attached limiter at scrape time instead: pushing them here
  // would need a lock (the state is a string) for a value nobody reads between scrapes.
  if (new_limit > old_limit) {
    limit_increases_.fetch_add(1, std::memory_order_relaxed);
  } else if (new_limit < old_limit) {
    limit_decreases_.fetch_add(1, std::memory_order_relaxed);
  }
}

LimiterSnapshot LimiterMetrics::Snapshot() const {
  LimiterSnapshot s;
  s.name = name_;
  const std::vector<uint64_t> permits = permits_.Read();
  std::copy(permits.begin(), permits.end(), s.permits.begin());
  s.limit_increases = limit_increases_.load(std::memory_order_relaxed);
  s.limit_decreases = limit_decreases_.load(std::memory_order_relaxed);
  s.success_latency = success_latency_.Snapshot();
  s.dropped_latency = dropped_latency_.Snapshot();
  s.queue_wait = queue_wait_.Snapshot();

  MutexLock lock(link_mu_);
  if (const PerThreadCounters* by_partition = partition_permits_.load(std::memory_order_relaxed)) {
    const std::vector<uint64_t> counts = by_partition->Read();
    for (size_t p = 0; p < partition_names_.size(); ++p) {
      PartitionSnapshot partition;
      partition.name = partition_names_[p];
      std::copy_n(counts.begin() + static_cast<std::ptrdiff_t>(p * kPermitEndCount),
                  kPermitEndCount, partition.permits.begin());
      if (const PartitionHistograms* h = partition_histograms_[p].load(std::memory_order_relaxed)) {
        partition.success_latency = h->success_latency.Snapshot();
        partition.queue_wait = h->queue_wait.Snapshot();
      }
      if (limiter_ != nullptr) {
        partition.status = limiter_->partition(tuner::PartitionId{static_cast<uint32_t>(p)});
      }
      s.partitions.push_back(std::move(partition));
    }
  }
  if (limiter_ != nullptr) {
    LimiterGauges g;
    g.limit = limiter_->limit();
    g.min_limit = limiter_->min_limit();
    g.max_limit = limiter_->max_limit();
    g.inflight = limiter_->inflight();
    g.queue_length = limiter_->queue_length();
    g.sample_stride = limiter_->sample_stride();
    g.lost_samples = limiter_->lost_samples();
    g.algorithm = std::string(limiter_->algorithm_name());
    const tuner::AlgorithmEstimates e = limiter_->estimates();
    g.baseline_latency_seconds = Seconds(e.baseline_latency);
    g.recent_latency_seconds = Seconds(e.recent_latency);
    g.max_throughput = e.max_throughput;
    g.state = std::string(e.state);
    s.gauges = std::move(g);
  }
  return s;
}

}  // namespace blobtune::metrics
