// The rounds of blobtune-delivery: for one (messages, size) point, every configuration (the
// legacy path, the blob path at each concurrency) for one warm-up and the measured rounds, each
// delivery in a fresh store and checked for loss.
//
//   std::vector<Row> rows;
//   Status s = RunConfigurations(config, {100, 100 << 10}, parts, &rows);
//
// Thread-safety: RunConfigurations from one thread; RoundsProgress::Text from any.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_BENCH_ROUNDS_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_BENCH_ROUNDS_H_

#include <csignal>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench_flags.h"
#include "blobtune/base/mutex.h"
#include "blobtune/metrics/exporter.h"
#include "blobtune/store/store_observer.h"
#include "blobtune/tuner/limiter.h"
#include "delivery_run.h"
#include "mail_server.h"

namespace blobtune::delivery {

// The measured rounds of one configuration at one point.
struct Row {
  SizePoint point;
  std::string mode;         // "legacy" or "blobs"
  std::string concurrency;  // "-" for legacy
  std::vector<double> seconds;
  std::optional<int> settled_limit;  // Auto: the limit at the end of the last round.
  std::vector<TracePoint> last_trace;  // Of the last measured round (blob path).
  std::vector<double> read_ms;         // Every measured round's reads (--reader-rate).
};

// What the progress line shows: rounds done of all, the configuration running and, while a
// blob path runs, its limiter's current limit.
class RoundsProgress {
 public:
  explicit RoundsProgress(int total_rounds) : total_(total_rounds) {}
  RoundsProgress(const RoundsProgress&) = delete;
  RoundsProgress& operator=(const RoundsProgress&) = delete;

  // `limiter` may be null; it must stay alive until the next Enter or Leave.
  void Enter(std::string configuration, const tuner::Limiter* limiter);
  void Leave() { Enter("", nullptr); }
  void RoundDone();
  // "rounds 7/48 | blobs 10 x 1m concurrency auto | limit 4"
  std::string Text() const;

 private:
  mutable Mutex mutex_;
  const int total_;
  int done_ BLOBTUNE_GUARDED_BY(mutex_) = 0;
  std::string configuration_ BLOBTUNE_GUARDED_BY(mutex_);
  const tuner::Limiter* limiter_ BLOBTUNE_GUARDED_BY(mutex_) = nullptr;
};

// What the rounds run against.
struct BenchParts {
  MailServer* server = nullptr;  // Started with the point's messages and size.
  metrics::Exporter* exporter = nullptr;        // May be null.
  store::StoreObserver* store_observer = nullptr;  // May be null.
  std::filesystem::path data_dir;  // Scratch room for each run's store.
  const volatile std::sig_atomic_t* interrupted = nullptr;  // Stops at the next round when set.
  RoundsProgress* progress = nullptr;
  // Called with all rows so far after each configuration's row is added; may be empty.
  std::function<void(const std::vector<Row>& rows)> on_row;
};

// The rounds of every configuration of `config` at `point`. Appends a Row per configuration
// that measured a round; returns the first failure, naming the configuration, after which it
// stops.
Status RunConfigurations(const BenchConfig& config, SizePoint point, const BenchParts& parts,
                         std::vector<Row>* rows);

// Configurations of `config` per point (legacy first, then each concurrency).
int ConfigurationsPerPoint(const BenchConfig& config);

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_BENCH_ROUNDS_H_
