#include "bench_rounds.h"

#include <algorithm>
#include <memory>

#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#if BLOBTUNE_HAVE_RADOS
#include "blobtune/store/rados_blob_store.h"
#endif
#include "blobtune/tuner/algorithm_registry.h"

namespace blobtune::delivery {
namespace {

namespace fs = std::filesystem;

StatusOr<std::unique_ptr<tuner::LimitAlgorithm>> MakeLimitAlgorithm(const BenchConfig& config,
                                                                    const std::string& c) {
  if (c != "auto") {
    return tuner::MakeAlgorithm({.name = "fixed", .params = {{"limit", std::stod(c)}}});
  }
  if (config.algorithm.empty()) return tuner::MakeDefaultAlgorithm();
  return tuner::MakeAlgorithmFromText(config.algorithm);
}

const std::vector<std::string>& Namespaces() {
  static const std::vector<std::string> names = {kIncoming, kPayload, kDocuments};
  return names;
}

// Erases every blob of the delivery's namespaces (a RADOS pool outlives the run).
Status EmptyNamespaces(store::BlobStore& store) {
  for (const std::string& ns : Namespaces()) {
    for (;;) {
      StatusOr<std::vector<store::ListEntry>> page = store.List(ns, "", 1000);
      if (!page.ok()) return page.status().WithContext("emptying " + ns);
      if (page->empty()) break;
      for (const store::ListEntry& entry : *page) {
        Status erased = store.Erase(ns, entry.id);
        if (!erased.ok() && erased.code() != StatusCode::kNotFound) return erased;
      }
    }
  }
  return Status::Ok();
}

// The run's store: a fresh LMDB store in `dir`, or the RADOS pool emptied of earlier runs.
StatusOr<std::unique_ptr<store::BlobStore>> OpenRunStore(const BenchConfig& config,
                                                         SizePoint point, const fs::path& dir,
                                                         const BenchParts& parts) {
  if (config.store == "rados") {
#if BLOBTUNE_HAVE_RADOS
    store::RadosStoreOptions options;
    options.conf_file = config.rados_conf;
    options.pool = config.rados_pool;
    options.namespaces = Namespaces();
    options.max_blob_size_bytes = std::max<size_t>(point.size, 1 << 20);
    StatusOr<std::unique_ptr<store::BlobStore>> store = store::OpenRadosBlobStore(options);
    if (!store.ok()) return store.status();
    if (Status emptied = EmptyNamespaces(**store); !emptied.ok()) return emptied;
    return store;
#else
    return Status::InvalidArgument("this build has no RADOS store");
#endif
  }
  fs::remove_all(dir);
  store::LmdbStoreOptions options;
  options.directory = dir.string();
  options.namespaces = Namespaces();
  options.durability = config.durable ? store::Durability::kDurable : store::Durability::kNoSync;
  options.max_blob_size_bytes = std::max<size_t>(point.size, 1 << 20);
  // This process is all delivery: keeping freed heap resident spares LMDB's dirty pages the
  // slow first touch of fresh memory (docs/LMDB.md).
  options.keep_heap_resident = true;
  options.observer = parts.store_observer;
  return store::OpenLmdbBlobStore(options);
}

// One delivery in a fresh store; checks that nothing was lost.
StatusOr<RunResult> RunOnce(const BenchConfig& config, SizePoint point, const std::string& mode,
                            tuner::Limiter* limiter, const BenchParts& parts) {
  MailServer& server = *parts.server;
  const fs::path dir = parts.data_dir / "run";
  server.Reset();
  auto store = OpenRunStore(config, point, dir, parts);
  if (!store.ok()) return store.status();
  metrics::Attachment store_link = metrics::AttachTo(parts.exporter, "delivery", **store);
  DeliveryOptions run_options{.messages = point.messages,
                              .message_size = point.size,
                              .seed = config.seed,
                              .time_scale = config.time_scale,
                              .reader_rate = config.reader_rate};
  RunResult result = mode == "legacy"
                         ? RunLegacyPath(run_options, server.port(), **store)
                         : RunBlobPath(run_options, server.port(), **store, *limiter);
  if (!result.status.ok()) return result.status;
  Status verified = VerifyDelivered(run_options, **store);
  if (!verified.ok()) return verified;
  MailServerReport report = server.Report();
  if (report.remaining != 0) {
    return Status::Internal(std::to_string(report.remaining) + " messages not deleted upstream");
  }
  for (const auto& [id, deletes] : report.applied_deletes) {
    if (deletes != 1) {
      return Status::Internal(id + " deleted upstream " + std::to_string(deletes) + " times");
    }
  }
  store_link.Reset();
  if (config.store == "rados") {
    if (Status emptied = EmptyNamespaces(**store); !emptied.ok()) return emptied;
  }
  store->reset();
  fs::remove_all(dir);
  return result;
}

}  // namespace

void RoundsProgress::Enter(std::string configuration, const tuner::Limiter* limiter) {
  MutexLock lock(mutex_);
  configuration_ = std::move(configuration);
  limiter_ = limiter;
}

void RoundsProgress::RoundDone() {
  MutexLock lock(mutex_);
  ++done_;
}

std::string RoundsProgress::Text() const {
  MutexLock lock(mutex_);
  std::string text = "rounds " + std::to_string(done_) + "/" + std::to_string(total_);
  if (!configuration_.empty()) text += " | " + configuration_;
  if (limiter_ != nullptr) text += " | limit " + std::to_string(limiter_->limit());
  return text;
}

int ConfigurationsPerPoint(const BenchConfig& config) {
  return (config.mode != "blobs" ? 1 : 0) +
         (config.mode != "legacy" ? static_cast<int>(config.concurrency.size()) : 0);
}

Status RunConfigurations(const BenchConfig& config, SizePoint point, const BenchParts& parts,
                         std::vector<Row>* rows) {
  std::vector<std::pair<std::string, std::string>> plan;  // (mode, concurrency)
  if (config.mode != "blobs") plan.emplace_back("legacy", "-");
  if (config.mode != "legacy") {
    for (const std::string& c : config.concurrency) plan.emplace_back("blobs", c);
  }
  const std::string where =
      std::to_string(point.messages) + " x " + SizeLabel(point.size);
  for (const auto& [mode, concurrency] : plan) {
    Row row{.point = point, .mode = mode, .concurrency = concurrency};
    // One limiter per configuration, kept across its rounds as an application keeps it: the
    // warm-up round is where an auto-tuned limiter first learns.
    std::unique_ptr<tuner::Limiter> limiter;
    const std::string limiter_name = "blobs_c" + concurrency;
    if (mode == "blobs") {
      auto algorithm = MakeLimitAlgorithm(config, concurrency);
      if (!algorithm.ok()) return algorithm.status();
      tuner::LimiterOptions options{
          .algorithm = *std::move(algorithm),
          .observer = metrics::LimiterObserverOf(parts.exporter, limiter_name),
          // Every message starts at once and waits for its permit, as in the original
          // client: the queue holds them all.
          .max_queue = std::max<size_t>(1024, point.messages)};
      if (config.reader_partition) {
        options.partitions = {{.name = "delivery", .share = 0.75},
                              {.name = "reader", .share = 0.25, .priority = 1}};
      }
      auto created = tuner::Limiter::Create(std::move(options));
      if (!created.ok()) return created.status();
      limiter = *std::move(created);
    }
    const std::string configuration =
        mode + " " + where + (mode == "blobs" ? " concurrency " + concurrency : "");
    Status failed;
    for (int round = 0; round <= config.rounds && !*parts.interrupted; ++round) {
      parts.progress->Enter(configuration + (round == 0 ? " (warm-up)" : ""), limiter.get());
      StatusOr<RunResult> result = RunOnce(config, point, mode, limiter.get(), parts);
      parts.progress->RoundDone();
      if (!result.ok()) {
        failed = result.status().WithContext(configuration);
        break;
      }
      if (round > 0) {
        row.seconds.push_back(result->seconds);
        row.last_trace = std::move(result->trace);
        row.read_ms.insert(row.read_ms.end(), result->read_ms.begin(), result->read_ms.end());
      }
      if (mode == "blobs" && concurrency == "auto") row.settled_limit = result->final_limit;
    }
    parts.progress->Leave();  // Before the limiter goes.
    if (!row.seconds.empty()) {
      rows->push_back(std::move(row));
      if (parts.on_row) parts.on_row(*rows);
    }
    if (!failed.ok()) return failed;
    if (*parts.interrupted) break;
  }
  return Status();
}

}  // namespace blobtune::delivery
