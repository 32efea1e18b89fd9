// LoadGenerator: drives blobtune-server with a closed-loop load (N connections, each sending its
// next request when the last is answered) or an open-loop one (requests at a fixed Poisson rate
// whatever the answers, from a pool of keep-alive connections), records every answer's status
// and latency, and can read back every acknowledged PUT to check that none was lost. Several
// loads (an interactive client beside a bulk sync, each in its own partition) can run at once
// over the same measured window.
//
//   LoadOptions options{.port = 8080, .mode = LoadMode::kOpen, .rate = 2000, .seconds = 10};
//   StatusOr<LoadResult> result = RunLoad(options);
//   VerifyResult verified = VerifyPuts(options, result->acknowledged);
//
//   LoadOptions bulk = options;
//   bulk.mode = LoadMode::kClosed;
//   bulk.id_prefix = "load-bulk";  // Ids of their own, so that each load verifies its PUTs.
//   StatusOr<std::vector<LoadResult>> both = RunLoads({options, bulk});
//
// Latency in open loop runs from the request's scheduled time, not its send time, so a client
// that falls behind does not hide the server's queueing (no coordinated omission).
//
// Thread-safety: RunLoads, RunLoad and VerifyPuts run their own io_context on the calling
// thread; calls are independent.
#ifndef BLOBTUNE_EXAMPLES_LOAD_LOAD_GENERATOR_H_
#define BLOBTUNE_EXAMPLES_LOAD_LOAD_GENERATOR_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/base/status_or.h"
#include "common/range.h"

namespace blobtune::load {

enum class LoadMode { kClosed, kOpen };

struct LoadOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;
  LoadMode mode = LoadMode::kClosed;
  // Closed loop: connections, each with one request outstanding. Default: 16.
  int connections = 16;
  // Open loop: requests per second (Poisson arrivals), and the most connections the pool may
  // open; a request finding none free is counted as unsent. Defaults: 1000/s, 256.
  double rate = 1000;
  int max_connections = 256;
  // Measured seconds, after `warmup_seconds` that are run but not counted. Defaults: 10, 1.
  double seconds = 10;
  double warmup_seconds = 1;
  // Share of PUTs (new ids); the rest GET a random acknowledged id. Default: 0.5.
  double put_fraction = 0.5;
  // PUT body size in bytes. Default: 4096.
  size_t size = 4096;
  // Each PUT body is sent over this long (a client on a slow link); 0: at once. Fractional
  // milliseconds, as --upload-ms is typed, so that Validate() judges the value as given.
  // Default: 0.
  std::chrono::duration<double, std::milli> upload_time{0};
  // PUT bodies of at least this many bytes ask first with "Expect: 100-continue", so that a
  // refused one is never sent (HttpClientOptions::expect_continue_bytes); 0: never. Default: 0.
  uint64_t expect_continue_bytes = 0;
  std::string ns = "default";
  // Sent as the Blobtune-Partition header: the server's partition the requests wait in.
  // Default: "" (no header).
  std::string partition;
  // Ids are "<id_prefix>-<n>"; give each run its own prefix. Default: "load".
  std::string id_prefix = "load";
  // Per-request socket timeout. Default: 10 s.
  std::chrono::milliseconds timeout{10'000};
  uint64_t seed = 1;

  // The values each bounded field takes: Validate() checks them, and blobtune-load's flag
  // table states them in --help and checks them under the flags' names. Times in milliseconds,
  // the unit of their flags; kSizeRange in bytes, stated as sizes ("0..64M").
  using Range = examples::Range;
  static constexpr Range kPortRange = Range::Closed(1, 65'535);
  static constexpr Range kConnectionsRange = Range::Closed(1, 10'000);
  static constexpr Range kRateRange = Range::LeftOpen(0, 1'000'000);
  static constexpr Range kMaxConnectionsRange = Range::Closed(1, 10'000);
  static constexpr Range kSecondsRange = Range::LeftOpen(0, 86'400);
  static constexpr Range kWarmupSecondsRange = Range::Closed(0, 3'600);
  static constexpr Range kPutFractionRange = Range::Closed(0, 1);
  static constexpr Range kSizeRange = Range::Closed(0, 64 << 20);
  static constexpr Range kTimeoutRange = Range::AtLeast(1);
  static constexpr Range kUploadTimeRange = Range::Closed(0, 60'000);

  // OK, or INVALID_ARGUMENT whose message begins with the field out of range
  // ("rate must be in (0, 1000000]"); load_flags.h says it with the flag's name.
  Status Validate() const;
};

// LoadResult::first_answer keeps at most this many bytes of an answer's first line.
inline constexpr size_t kAnswerTextBytes = 120;

// An answer's body as LoadResult::first_answer keeps it: a text body's first line (bytes outside
// printable ASCII as '?'), cut to kAnswerTextBytes; for any other body, "(N bytes, TYPE)".
std::string AnswerText(std::string_view content_type, std::string_view body);

// One class of answers (e.g. all 2xx) in the measured window.
struct LatencySummary {
  uint64_t count = 0;
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
};

struct LoadResult {
  double measured_seconds = 0;
  std::map<unsigned, uint64_t> by_status;  // HTTP status -> answers, measured window.
  // HTTP status -> what the first answer with it in the measured window said: its body's first
  // line, made printable and cut to kAnswerTextBytes ("..." marks a cut), or for a body that is
  // not text its size and type. Why a run's 400s were 400s, without a packet capture.
  std::map<unsigned, std::string> first_answer;
  uint64_t transport_errors = 0;           // No answer (reset, timeout), measured window.
  uint64_t unsent = 0;                     // Open loop: no connection free, measured window.
  LatencySummary ok;                       // 2xx.
  LatencySummary unavailable;              // 503.
  // Open loop: how late requests left the client after their scheduled time (a client that
  // cannot keep up adds this to every latency; large values mean the figures are the client's).
  LatencySummary send_lag;
  double ok_per_second = 0;
  // Every PUT answered 201 or 200 (warm-up included): the sequence numbers of their ids.
  std::vector<uint64_t> acknowledged;
  int connections_opened = 0;
};

struct VerifyResult {
  uint64_t checked = 0, intact = 0, missing = 0, corrupt = 0, unreadable = 0;
  bool ok() const noexcept { return intact == checked; }
};

// The id and the body of the PUT with sequence number `n`.
std::string LoadBlobId(const LoadOptions& options, uint64_t n);
std::string LoadBlobBody(const LoadOptions& options, uint64_t n);

// Runs every load at once, each its own closed or open loop, on one io_context on the calling
// thread, from one common start: each load's warm-up and measured window count from it, so that
// loads with equal warmup_seconds and seconds measure the same window. The results are in the
// loads' order. INVALID_ARGUMENT if there is no load, if one fails Validate() or if they name
// different servers; UNAVAILABLE if the server cannot be reached at all (one probe, with the
// first load's timeout).
StatusOr<std::vector<LoadResult>> RunLoads(const std::vector<LoadOptions>& loads);

// RunLoads of the one load.
StatusOr<LoadResult> RunLoad(const LoadOptions& options);

// GETs every acknowledged PUT (retrying 503s; in the load's partition) and compares it with what
// was sent.
VerifyResult VerifyPuts(const LoadOptions& options, const std::vector<uint64_t>& acknowledged);

}  // namespace blobtune::load

#endif  // BLOBTUNE_EXAMPLES_LOAD_LOAD_GENERATOR_H_
