// Workload: what the workbench simulates, parsed and validated from a JSON file.
//
// A workload is a plant (stages a request passes through while it holds a permit), the clients
// that load it (each with its own limiter, or all with one limiter divided into partitions), and
// steps that change parameters at given times.
// docs/WORKLOADS.md documents the JSON format field by field.
//
//   StatusOr<Workload> w = LoadWorkload("tests/workloads/delivery_model.json");
//   if (!w.ok()) { std::cerr << w.status() << "\n"; return 2; }  // names the bad field
//
// Thread-safety: a Workload is a plain value.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_WORKLOAD_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_WORKLOAD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "blobtune/base/status_or.h"
#include "blobtune/tuner/partition.h"
#include "distribution.h"

namespace blobtune::workbench {

// One resource a request passes through.
struct StageSpec {
  enum class Kind {
    kDelay,  // Unlimited parallelism: a network round trip, client work that overlaps freely.
    kQueue,  // `servers` FIFO servers: a server thread, LMDB's single writer, a disk of depth k.
    kBatch,  // One writer serving everything waiting as one batch: LMDB group commit.
  };
  std::string name;
  Kind kind = Kind::kDelay;
  int servers = 1;              // kQueue only. Steppable.
  Distribution service_ms;      // Service time per request (kBatch: per batch), in milliseconds.
  double per_mib_ms = 0.0;      // Extra service time per MiB of the request's blob. Steppable.
  double per_request_ms = 0.0;  // kBatch only: what each member adds to its batch. Steppable.
  // Extra service time for a request that waited in its client's queue for its permit: the
  // work of the waiting path (a timer, a hand-off, a wake-up) on the thread this stage models.
  double per_wait_ms = 0.0;
  int max_batch = 1024;         // kBatch only: the most requests in one batch.
  // kBatch only: after a batch of n > 1, the idle writer waits up to this long for n requests
  // to be waiting before it starts a smaller batch (LmdbStoreOptions::batch_refill_wait).
  double refill_wait_ms = 0.0;
  double scale = 1.0;           // Multiplies the whole service time ("latency x10"). Steppable.
  // Contention: once more than `contention_threshold` requests are in the stage (waiting or in
  // service), each extra one slows a starting service by `contention_slowdown` (a fraction).
  int contention_threshold = 0;
  double contention_slowdown = 0.0;  // 0: no contention.
};

// Requests that fail without reaching the plant.
struct FailureSpec {
  double error_fraction = 0.0;     // Fail fast after `error_ms`; reported Dropped(). Steppable.
  Distribution error_ms = Distribution::Constant(1.0);
  double hang_fraction = 0.0;      // Hang until the deadline (or `hang_ms`); Dropped(). Steppable.
  double hang_ms = 10'000.0;       // How long a hang lasts when the client has no deadline.
};

struct ClientSpec {
  enum class Load {
    kClosed,  // `concurrency` jobs outstanding; the next starts when one ends.
    kOpen,    // Jobs arrive as a Poisson process of `rate_per_s`, whatever happens to them.
  };
  std::string name;
  Load load = Load::kClosed;
  // kClosed. Steppable; 0 is a client that has not started yet (a step raises it).
  int concurrency = 1;
  std::optional<int64_t> total_jobs;     // kClosed: stop after this many jobs (fixed work).
  double rate_per_s = 0.0;               // kOpen. Steppable.
  std::optional<double> deadline_ms;     // From a request's creation; late requests are dropped.
  // The client's own queue of requests waiting for a permit: its order, and the most requests
  // it holds (a request that finds it full is rejected at once and its job fails).
  bool lifo = false;
  std::optional<int64_t> max_queue;
  int requests_per_job = 1;              // Sequential requests per job, each with its own permit.
  std::optional<Distribution> work_ms;   // Work before each request, outside the limiter.
  // Time under the permit before a request enters the plant (a request body arriving): the
  // access's timing restarts after it (Permit::RestartTiming, reported as Sample::setup).
  std::optional<Distribution> setup_ms;
  Distribution size_bytes;               // Blob size of each request (default 0).
  double size_scale = 1.0;               // Multiplies sizes ("blob size x10"). Steppable.
  FailureSpec failures;
  std::vector<int> path;                 // Indices of the stages each request visits, in order.
  // Several kinds of request (a server's reads and writes): each request takes one of these
  // paths, drawn by weight, instead of `path`. Empty: every request takes `path`.
  struct WeightedPath {
    double weight = 1.0;
    std::vector<int> path;
  };
  std::vector<WeightedPath> paths;
  // With Workload::partitions: the partition it acquires in, by name and index (-1 otherwise).
  std::string partition_name;
  int partition = -1;
};

// One parameter change: `target` is "stage.<name>.<param>" or "client.<name|*>.<param>".
struct ParamChange {
  enum class Param {
    kServers, kScale, kPerMibMs, kPerRequestMs,           // stage
    kRatePerS, kSizeScale, kErrorFraction, kHangFraction, kConcurrency  // client
  };
  bool is_stage = true;
  std::vector<int> indices;  // Stages or clients it applies to.
  Param param = Param::kScale;
  double value = 0.0;
  std::string target;        // As written, for reports.
};

struct StepSpec {
  double at_s = 0.0;
  std::vector<ParamChange> changes;
};

struct Workload {
  std::string name;
  std::string description;
  std::string family;           // What population a generated workload comes from (generator.h).
  double duration_s = 60.0;
  uint64_t seed = 1;
  std::vector<StageSpec> stages;
  std::vector<ClientSpec> clients;
  std::vector<StepSpec> steps;  // Sorted by time, all within (0, duration_s).
  int max_limit = 1000;         // Bound of every limiter and of the oracle's sweep.
  int initial_limit = 0;        // Where algorithms start (0: each algorithm's own default).
  // Empty: each client has a limiter of its own. Otherwise every client acquires from one
  // limiter with these partitions, in the one its `partition` names.
  std::vector<tuner::PartitionOptions> partitions;
  std::string text;             // The JSON it was parsed from (keys the oracle cache).
};

// Parses and validates a workload; errors are INVALID_ARGUMENT naming the field
// ("clients[0].load.rate_per_s: must be a number >= 0, got -1").
StatusOr<Workload> ParseWorkload(std::string_view json_text, std::string_view origin);
// Reads and parses a file; the file name prefixes every error.
StatusOr<Workload> LoadWorkload(const std::string& file);

// Applies one parameter change to the mutable parameters of a plant and its clients.
void ApplyChange(const ParamChange& change, std::vector<StageSpec>& stages,
                 std::vector<ClientSpec>& clients);

// Phase boundaries: 0, each distinct step time, duration_s.
std::vector<double> PhaseBounds(const Workload& workload);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_WORKLOAD_H_
