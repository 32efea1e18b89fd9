#include "exposition.h"

#include <prometheus/client_metric.h>
#include <prometheus/metric_type.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

#include "blobtune/base/status.h"
#include "blobtune/base/version.h"
#include "blobtune/store/store_observer.h"
#include "process_stats.h"

namespace blobtune::metrics::internal {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

constexpr double kNanosToSeconds = 1e-9;

// Families in first-use order, each created with its help text and type; every series gets the
// constant labels first.
class FamilyList {
 public:
  explicit FamilyList(const ConstantLabels& constant) {
    for (const auto& [name, value] : constant) constant_.push_back({name, value});
  }

  MetricFamily& Get(std::string_view name, std::string_view help, MetricType type) {
    for (auto& f : families_) {
      if (f.name == name) return f;
    }
    MetricFamily f;
    f.name = std::string(name);
    f.help = std::string(help);
    f.type = type;
    families_.push_back(std::move(f));
    return families_.back();
  }

  void Counter(std::string_view name, std::string_view help, Labels labels, double value) {
    ClientMetric m;
    m.label = WithConstant(std::move(labels));
    m.counter.value = value;
    Get(name, help, MetricType::Counter).metric.push_back(std::move(m));
  }

  void Gauge(std::string_view name, std::string_view help, Labels labels, double value) {
    ClientMetric m;
    m.label = WithConstant(std::move(labels));
    m.gauge.value = value;
    Get(name, help, MetricType::Gauge).metric.push_back(std::move(m));
  }

  // `scale` converts the snapshot's unit to the metric's base unit.
  void Histogram(std::string_view name, std::string_view help, Labels labels,
                 const HistogramSnapshot& h, double scale) {
    ClientMetric m;
    m.label = WithConstant(std::move(labels));
    uint64_t cumulative = 0;
    for (size_t i = 0; i < h.counts.size(); ++i) {
      cumulative += h.counts[i];
      ClientMetric::Bucket b;
      b.cumulative_count = cumulative;
      b.upper_bound = i < h.upper_bounds.size() ? static_cast<double>(h.upper_bounds[i]) * scale
                                                : std::numeric_limits<double>::infinity();
      m.histogram.bucket.push_back(b);
    }
    m.histogram.sample_count = cumulative;
    m.histogram.sample_sum = static_cast<double>(h.sum) * scale;
    Get(name, help, MetricType::Histogram).metric.push_back(std::move(m));
  }

  std::vector<MetricFamily> Take() && {
    std::erase_if(families_, [](const MetricFamily& f) { return f.metric.empty(); });
    return std::move(families_);
  }

 private:
  Labels WithConstant(Labels labels) const {
    labels.insert(labels.begin(), constant_.begin(), constant_.end());
    return labels;
  }

  Labels constant_;
  std::vector<MetricFamily> families_;
};

Labels With(Labels base, std::string name, std::string value) {
  base.push_back({std::move(name), std::move(value)});
  return base;
}

double D(uint64_t v) { return static_cast<double>(v); }

void AddLimiter(FamilyList& out, const LimiterSnapshot& s) {
  const Labels base = {{"limiter", s.name}};

  // Gauges first (the order a person reading /metrics wants); only while attached.
  if (s.gauges) {
    const LimiterGauges& g = *s.gauges;
    out.Gauge("blobtune_limiter_limit",
              "Concurrency limit in force: permits that may be held at once.", base, g.limit);
    out.Gauge("blobtune_limiter_inflight", "Permits held now.", base, g.inflight);
    out.Gauge("blobtune_limiter_queue_length", "Acquirers waiting for a permit now.", base,
              D(g.queue_length));
    out.Gauge("blobtune_limiter_sample_stride",
              "Permits per timed permit (1 = every permit is timed).", base, g.sample_stride);
    out.Counter("blobtune_limiter_lost_samples_total",
                "Latency samples the algorithm never saw because its queue was full.", base,
                D(g.lost_samples));
    out.Gauge("blobtune_limiter_info", "The limiter's algorithm (value always 1).",
              With(base, "algorithm", g.algorithm), 1);
    if (!g.state.empty()) {
      out.Gauge("blobtune_limiter_algorithm_state",
                "The algorithm's current phase (value always 1).", With(base, "state", g.state), 1);
    }
    if (g.baseline_latency_seconds) {
      out.Gauge("blobtune_limiter_baseline_latency_seconds",
                "The algorithm's estimate of the no-load latency.", base,
                *g.baseline_latency_seconds);
    }
    // From the first scrape: 0 until the algorithm has decided on a latency (or for one that
    // decides on none), so that a dashboard shows a line instead of no data.
    out.Gauge("blobtune_limiter_recent_latency_seconds",
              "The latency the algorithm's last decision was based on (0 before its first).",
              base, g.recent_latency_seconds.value_or(0.0));
    if (g.max_throughput) {
      out.Gauge("blobtune_limiter_max_throughput",
                "The algorithm's estimate of the best throughput, in permits per second.",
                base, *g.max_throughput);
    }
    out.Gauge("blobtune_limiter_min_limit", "The lowest limit the algorithm may set.", base,
              g.min_limit);
    out.Gauge("blobtune_limiter_max_limit", "The highest limit the algorithm may set.", base,
              g.max_limit);
  }

  for (size_t i = 0; i < kPermitEndCount; ++i) {
    out.Counter("blobtune_limiter_permits_total",
                "Acquires by how they ended: released permits by outcome (success, dropped, "
                "ignored) and failed acquires by reason (rejected, timeout, cancelled, "
                "queue_full).",
                With(base, "outcome", std::string(PermitEndName(static_cast<PermitEnd>(i)))),
                D(s.permits[i]));
  }
  for (const PartitionSnapshot& p : s.partitions) {
    const Labels partition = With(base, "partition", p.name);
    if (p.status) {
      out.Gauge("blobtune_limiter_partition_inflight", "Permits the partition holds now.",
                partition, p.status->inflight);
      out.Gauge("blobtune_limiter_partition_queue_length",
                "The partition's acquirers waiting for a permit now.", partition,
                D(p.status->waiting));
      out.Gauge("blobtune_limiter_partition_guaranteed_permits",
                "Permits the partition is sure to get now: floor(share x limit).", partition,
                p.status->guaranteed);
      out.Gauge("blobtune_limiter_partition_share", "The partition's share of the limit.",
                partition, p.status->options.share);
      out.Gauge("blobtune_limiter_partition_priority", "The partition's priority (higher first).",
                partition, p.status->options.priority);
    }
    for (size_t i = 0; i < kPermitEndCount; ++i) {
      out.Counter("blobtune_limiter_partition_permits_total",
                  "The partition's acquires by how they ended (as blobtune_limiter_permits_total).",
                  With(partition, "outcome", std::string(PermitEndName(static_cast<PermitEnd>(i)))),
                  D(p.permits[i]));
    }
    out.Histogram("blobtune_limiter_partition_permit_duration_seconds",
                  "Time from grant to release of the partition's successful timed permits (as "
                  "blobtune_limiter_permit_duration_seconds).",
                  partition, p.success_latency, kNanosToSeconds);
    out.Histogram("blobtune_limiter_partition_queue_wait_seconds",
                  "Time the partition's granted permits waited (0 for immediate grants).",
                  partition, p.queue_wait, kNanosToSeconds);
  }
  constexpr std::string_view kChangesHelp = "Times the algorithm moved the limit, by direction.";
  out.Counter("blobtune_limiter_limit_changes_total", kChangesHelp,
              With(base, "direction", "increase"), D(s.limit_increases));
  out.Counter("blobtune_limiter_limit_changes_total", kChangesHelp,
              With(base, "direction", "decrease"), D(s.limit_decreases));

  constexpr std::string_view kLatencyHelp =
      "Time from grant to release of timed permits, by outcome (success, dropped); each sample "
      "counts with its weight.";
  out.Histogram("blobtune_limiter_permit_duration_seconds", kLatencyHelp,
                With(base, "outcome", "success"), s.success_latency, kNanosToSeconds);
  out.Histogram("blobtune_limiter_permit_duration_seconds", kLatencyHelp,
                With(base, "outcome", "dropped"), s.dropped_latency, kNanosToSeconds);
  out.Histogram("blobtune_limiter_queue_wait_seconds",
                "Time granted permits waited in the queue (0 for immediate grants).", base,
                s.queue_wait, kNanosToSeconds);
}

void AddStore(FamilyList& out, const StoreSnapshot& s) {
  const Labels base = {{"store", s.name}};

  if (s.map_size_bytes) {
    out.Gauge("blobtune_store_map_size_bytes", "Current LMDB map size.", base,
              D(*s.map_size_bytes));
  }
  if (s.map_used_bytes) {
    out.Gauge("blobtune_store_map_used_bytes", "Bytes of the map in use by pages.", base,
              D(*s.map_used_bytes));
  }
  if (s.map_max_bytes) {
    out.Gauge("blobtune_store_map_max_bytes", "Largest the map may grow (max_map_size_bytes).",
              base, D(*s.map_max_bytes));
  }
  if (s.queued_writes) {
    out.Gauge("blobtune_store_queued_writes", "Writes waiting for the writer thread.", base,
              D(*s.queued_writes));
  }

  for (const NamespaceSnapshot& n : s.namespaces) {
    for (size_t op = 0; op < kStoreOpCount; ++op) {
      const auto store_op = static_cast<store::StoreOp>(op);
      Labels labels =
          With(With(base, "op", std::string(store::StoreOpName(store_op))), "namespace", n.name);
      out.Counter("blobtune_store_operations_total", "Successful store operations.", labels,
                  D(n.operations[op]));
      if (store_op == store::StoreOp::kPut || store_op == store::StoreOp::kGet ||
          store_op == store::StoreOp::kView) {
        out.Counter("blobtune_store_blob_bytes_total",
                    "Blob bytes written (put) or read (get, view) by successful operations.",
                    std::move(labels), D(n.bytes[op]));
      }
    }
  }
  // Errors: every (op, code) pair from the first scrape, 0 until it occurs, so that a rate of
  // errors is 0 on a healthy server instead of no data.
  for (size_t op = 0; op < kStoreOpCount; ++op) {
    for (size_t code = 1; code < kStatusCodeCount; ++code) {
      out.Counter(
          "blobtune_store_errors_total",
          "Failed store operations by status code (NOT_FOUND included).",
          With(With(base, "op", std::string(store::StoreOpName(static_cast<store::StoreOp>(op)))),
               "code", std::string(StatusCodeName(static_cast<StatusCode>(code)))),
          D(s.errors[op][code]));
    }
  }
  constexpr std::string_view kCommitsHelp = "Write transactions (group commits), by result.";
  out.Counter("blobtune_store_commits_total", kCommitsHelp, With(base, "result", "ok"),
              D(s.commits_ok));
  out.Counter("blobtune_store_commits_total", kCommitsHelp, With(base, "result", "error"),
              D(s.commits_failed));
  out.Counter("blobtune_store_commit_retries_total",
              "Commit attempts beyond the first (the map grew and the batch was retried).", base,
              D(s.commit_retries));
  out.Counter("blobtune_store_committed_bytes_total",
              "Record bytes (headers included) written by successful commits.", base,
              D(s.committed_bytes));
  out.Histogram("blobtune_store_commit_duration_seconds",
                "Time from the start of a write transaction to the end of its sync.", base,
                s.commit_latency, kNanosToSeconds);
  out.Histogram("blobtune_store_commit_batch_size",
                "Puts and erases per write transaction (group-commit batch size).", base,
                s.batch_size, 1.0);
  out.Counter("blobtune_store_map_growths_total", "Times the map grew.", base, D(s.map_growths));
  out.Counter("blobtune_store_map_growth_wait_seconds_total",
              "Time the writer waited for reads to finish before growing the map.", base,
              D(s.map_growth_wait_nanos) * kNanosToSeconds);
}

void AddHttp(FamilyList& out, const HttpSnapshot& s) {
  for (const HttpSnapshot::Answers& a : s.answers) {
    out.Counter("blobtune_http_requests_total",
                "HTTP requests answered, by method and status code (refusals included).",
                {{"method", std::string(HttpMethodName(a.method))},
                 {"code", std::to_string(a.code)}},
                D(a.count));
  }
  for (size_t i = 0; i < kConnectionEndCount; ++i) {
    out.Counter("blobtune_http_connections_closed_total",
                "HTTP connections ended, by how: the client closed, a timeout, a refusal "
                "(framing_error, malformed, body_not_read, refused_over_cap), a shutdown, an "
                "error.",
                {{"reason", std::string(ConnectionEndName(static_cast<ConnectionEnd>(i)))}},
                D(s.connections_closed[i]));
  }
  for (size_t i = 0; i < kHttpTimeoutCount; ++i) {
    out.Counter("blobtune_http_timeouts_total",
                "Deadlines that passed on HTTP connections, by kind: idle (no request began), "
                "header, body, write.",
                {{"kind", std::string(HttpTimeoutName(static_cast<HttpTimeout>(i)))}},
                D(s.timeouts[i]));
  }
  for (size_t i = 0; i < kHttpGateCount; ++i) {
    out.Gauge("blobtune_http_requests_parked",
              "Requests waiting now, unread past their header, for room at the request gate of "
              "the limiter that will admit them.",
              {{"limiter", std::string(HttpGateName(static_cast<HttpGate>(i)))}},
              D(s.parked[i]));
  }
  for (size_t m = 0; m < kHttpMethodCount; ++m) {
    if (s.durations[m].count == 0) continue;
    out.Histogram("blobtune_http_request_duration_seconds",
                  "Time from a request's first byte in to its answer's last byte out, the wait "
                  "for a permit included.",
                  {{"method", std::string(HttpMethodName(m))}}, s.durations[m], kNanosToSeconds);
  }
}

// Names, types and units as Prometheus' own client libraries export them.
void AddProcess(FamilyList& out, const ProcessStats& s) {
  out.Counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
              {}, s.cpu_seconds);
  out.Gauge("process_resident_memory_bytes", "Resident memory size in bytes.", {},
            D(s.resident_memory_bytes));
  out.Gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", {},
            D(s.virtual_memory_bytes));
  out.Gauge("process_open_fds", "Number of open file descriptors.", {}, D(s.open_fds));
  out.Gauge("process_max_fds", "Maximum number of open file descriptors.", {}, D(s.max_fds));
  out.Gauge("process_start_time_seconds",
            "Start time of the process since unix epoch in seconds.", {}, s.start_time_seconds);
}

bool ValidLabelName(std::string_view name) {
  if (name.empty() || name.starts_with("__")) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

}  // namespace

std::vector<MetricFamily> ToMetricFamilies(const MetricsRegistry& registry,
                                           const ConstantLabels& labels) {
  FamilyList out(labels);
  out.Gauge("blobtune_build_info", "The blobtune library this program runs (value always 1).",
            {{"version", std::string(kVersion)}}, 1);
  for (const LimiterSnapshot& s : registry.LimiterSnapshots()) AddLimiter(out, s);
  for (const StoreSnapshot& s : registry.StoreSnapshots()) AddStore(out, s);
  if (const HttpMetrics* http = registry.http_server()) AddHttp(out, http->Snapshot());
  if (registry.process_metrics()) {
    if (std::optional<ProcessStats> stats = ReadProcessStats()) AddProcess(out, *stats);
  }
  return std::move(out).Take();
}

Status ValidateLabels(const ConstantLabels& labels) {
  for (const auto& [name, value] : labels) {
    if (!ValidLabelName(name)) {
      return Status::InvalidArgument("constant label '" + name +
                                     "' is not a label name: [a-zA-Z_][a-zA-Z0-9_]*, not "
                                     "starting with __");
    }
    for (std::string_view reserved : kReservedLabelNames) {
      if (name == reserved) {
        return Status::InvalidArgument("constant label '" + name +
                                       "' is a label of blobtune's own series");
      }
    }
  }
  return Status::Ok();
}

std::string ToText(const std::vector<MetricFamily>& families) {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

}  // namespace blobtune::metrics::internal
