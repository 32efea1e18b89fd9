// One delivery run of the benchmark, by either path, against a MailServer on loopback, storing
// into a real LMDB BlobStore.
//
// The blob path (RunBlobPath) is what blobtune tunes: every message's get, put and delete each
// pass through one shared Limiter. The legacy path (RunLegacyPath) is the old batched sync with
// no limiter, the baseline of the comparison.
//
// Thread-safety: each call runs its own event loop on the calling thread (plus a small thread
// pool for local work) and returns when the run is over; the store and limiter may be shared
// with other threads as their own contracts allow.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_DELIVERY_RUN_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_DELIVERY_RUN_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "blobtune/base/status.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/tuner/limiter.h"

namespace blobtune::delivery {

struct DeliveryOptions {
  size_t messages = 100;
  size_t message_size = 100 * 1024;
  uint64_t seed = 1;
  double time_scale = 1.0;
  // The client's own work per limited step (local writes, crypto, parsing: 77 ms per message in
  // the original, overlapping freely), lognormal with cv 0.5. The real local work of the step
  // counts towards it: the step's local part lasts max(real work, this). Default: 25.7 ms.
  std::chrono::microseconds client_work_mean{25'700};
  // The legacy path's local work per message, real store work included. Default: 42 ms.
  std::chrono::microseconds legacy_work_per_message{42'000};
  // The legacy path's batched download and upload: a fixed cost each, plus a cost per MiB of
  // documents downloaded, counted from the start of each request so that the real transfer is
  // part of it. docs/DELIVERY.md gives about 1.5 s + 42 ms per message + 0.71 s per MB; the
  // per-byte part is 0.655 s per MiB so that, with the 42 ms per message, 100 messages of
  // 100 KiB take the 12.1 s the seed benchmark measured.
  std::chrono::microseconds legacy_batch_cost{750'000};
  std::chrono::microseconds legacy_per_mib{655'000};
  // Longest wait for a permit before a step counts as failed. Default: 10 min.
  std::chrono::seconds permit_timeout{600};
  // A person reading mail while the blob path delivers: opens of a random delivered message
  // (a read of its payload under a permit), Poisson at this rate per second of unscaled time.
  // The reads wait in the limiter's partition named "reader" if it has one (the delivery's steps
  // then in "delivery"), else in the delivery's queue. Default: 0 (nobody reads).
  double reader_rate = 0;
};

// The limiter's state at one moment of a blob-path run.
struct TracePoint {
  double t_s = 0;          // Seconds since the run started.
  int limit = 0;
  int inflight = 0;
  double throughput = 0;   // Permits finished per second since the previous point.
};

struct RunResult {
  double seconds = 0;        // Wall time of the delivery, listing to final sync.
  size_t delivered = 0;      // Messages that went through every step.
  uint64_t retries = 0;      // HTTP requests retried (faults).
  int final_limit = 0;       // The limiter's limit at the end (blob path).
  Status status;             // The first failure, or OK.
  std::vector<TracePoint> trace;  // Blob path: one point per trace interval.
  // Blob path with DeliveryOptions::reader_rate: each open's time, from its start (its wait for
  // a permit included) to its payload read, in milliseconds.
  std::vector<double> read_ms;
};

// The names of the store's namespaces the runs use.
inline constexpr const char* kIncoming = "incoming";
inline constexpr const char* kPayload = "payload";
inline constexpr const char* kDocuments = "documents";

RunResult RunBlobPath(const DeliveryOptions& options, uint16_t server_port,
                      store::BlobStore& store, tuner::Limiter& limiter);
RunResult RunLegacyPath(const DeliveryOptions& options, uint16_t server_port,
                        store::BlobStore& store);

// After a run: every message is in `payload` with its original bytes (the store checks the
// checksum), and nothing is left in `incoming`. DATA_LOSS or NOT_FOUND naming the first message
// that is not.
Status VerifyDelivered(const DeliveryOptions& options, store::BlobStore& store);

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_DELIVERY_RUN_H_
