// A program with thread-safety macros of its own, under the names LevelDB and Abseil's older
// headers use, defined before blobtune's public headers are included. blobtune's installed
// headers define and use only BLOBTUNE_-prefixed annotations, so they neither use nor redefine
// these: each expands to a token that is an error wherever an annotation stands, so a header
// that used one would not compile, and this file is built with -Werror, so a header that
// redefined one would not either.
#define CAPABILITY(x) not_an_annotation_of_blobtune
#define SCOPED_CAPABILITY not_an_annotation_of_blobtune
#define GUARDED_BY(x) not_an_annotation_of_blobtune
#define PT_GUARDED_BY(x) not_an_annotation_of_blobtune
#define REQUIRES(...) not_an_annotation_of_blobtune
#define EXCLUDES(...) not_an_annotation_of_blobtune
#define ACQUIRE(...) not_an_annotation_of_blobtune
#define RELEASE(...) not_an_annotation_of_blobtune
#define TRY_ACQUIRE(...) not_an_annotation_of_blobtune
#define NO_THREAD_SAFETY_ANALYSIS not_an_annotation_of_blobtune

#include <cstdio>
#include <optional>

#include "blobtune/base/clock.h"
#include "blobtune/base/mutex.h"
#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"
#include "blobtune/base/thread_annotations.h"
#include "blobtune/base/version.h"
#include "blobtune/metrics/collectable.h"
#include "blobtune/metrics/exporter.h"
#include "blobtune/metrics/limiter_metrics.h"
#include "blobtune/metrics/registry.h"
#include "blobtune/metrics/status_page.h"
#include "blobtune/metrics/status_sampler.h"
#include "blobtune/metrics/store_metrics.h"
#include "blobtune/store/async_blob_store.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/algorithms/marginal.h"
#include "blobtune/tuner/async_acquire.h"
#include "blobtune/tuner/limiter.h"
#include "blobtune/tuner/partition.h"

namespace {

// blobtune's own annotations, under their prefix, still work beside the program's names.
struct Tally {
  blobtune::Mutex mu;
  int permits BLOBTUNE_GUARDED_BY(mu) = 0;
};

}  // namespace

int main() {
  Tally tally;
  auto limiter = blobtune::tuner::Limiter::Create({});
  if (!limiter.ok()) return 1;
  if (std::optional<blobtune::tuner::Permit> permit = (*limiter)->TryAcquire()) {
    blobtune::MutexLock lock(tally.mu);
    ++tally.permits;
    permit->Success();
  }
  blobtune::MutexLock lock(tally.mu);
  std::printf("consumer (own annotations): %d permit, the program's GUARDED_BY untouched\n",
              tally.permits);
  return tally.permits == 1 ? 0 : 1;
}
