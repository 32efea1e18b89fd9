// server_mixed_16k: server::BlobServer in this process on 127.0.0.1:0, with the point's
// algorithm for both its read and its write limiter (ServerOptions::algorithm) and a fresh data
// directory, loaded over loopback HTTP by load::RunLoad: closed loop, 64 connections, 16 KiB
// PUTs to new ids and GETs of acknowledged ones, half each.
//
// Goodput is 2xx answers per second; a 503 (no permit in time) is refused: it counts against
// goodput and in the refused fraction. Latency is the client's p99 of the 2xx answers. The time
// series and the mean limit come from the server's limiters: the limit is the mean of the read
// and the write limit, goodput the permits that succeeded per second (both limiters).
#include <thread>

#include "blob_server.h"
#include "load_generator.h"
#include "plants.h"
#include "scratch_store.h"
#include "timeline.h"

namespace blobtune::plantbench {
namespace {

constexpr int kConnections = 64;
constexpr size_t kBlobBytes = 16 * 1024;

PlantGauge ServerGauge(const server::BlobServer& server) {
  PlantGauge gauge;
  int limiters = 0;
  for (const metrics::LimiterSnapshot& limiter : server.LimiterSnapshots()) {
    if (limiter.gauges) {
      gauge.limit += limiter.gauges->limit;
      gauge.inflight += limiter.gauges->inflight;
      ++limiters;
    }
    gauge.successes += limiter.permits[static_cast<size_t>(metrics::PermitEnd::kSuccess)];
    gauge.timed_weight += limiter.success_latency.count;
    gauge.latency_sum_ms += static_cast<double>(limiter.success_latency.sum) / 1e6;
  }
  if (limiters > 0) {
    gauge.limit /= limiters;
    gauge.inflight /= limiters;
  }
  return gauge;
}

// The server_mixed_16k plant. Thread-safety: RealPlant's (one RunPoint at a time).
class ServerPlant final : public RealPlant {
 public:
  std::string_view name() const override { return "server_mixed_16k"; }
  int demand() const override { return kConnections; }

  StatusOr<PointResult> RunPoint(const PointSpec& spec) override {
    StatusOr<std::unique_ptr<ScratchDir>> dir = ScratchDir::Create(name());
    if (!dir.ok()) return dir.status();
    server::ServerOptions options;
    options.data_dir = (*dir)->Sub("data");
    options.algorithm = spec.algorithm;
    StatusOr<std::unique_ptr<server::BlobServer>> started = server::BlobServer::Start(options);
    if (!started.ok()) return started.status();
    server::BlobServer& server = **started;

    load::LoadOptions load;
    load.port = server.port();
    load.mode = load::LoadMode::kClosed;
    load.connections = kConnections;
    load.warmup_seconds = spec.warmup_s;
    load.seconds = spec.measure_s;
    load.put_fraction = 0.5;
    load.size = kBlobBytes;
    load.seed = spec.seed;
    // The load measures the window itself; the timeline only samples the server's limiters.
    StatusOr<load::LoadResult> loaded = Status::Internal("the load did not run");
    std::thread client([&] { loaded = load::RunLoad(load); });
    Timeline timeline = RunTimeline(
        spec, [&] { return ServerGauge(server); }, [] {}, [] {});
    client.join();
    server.Shutdown();
    server.Wait();
    if (!loaded.ok()) return loaded.status().WithContext("load on the server");

    PointResult result;
    result.measured_s = loaded->measured_seconds;
    result.successes = loaded->ok.count;
    result.goodput = loaded->ok_per_second;
    result.p99_ms = loaded->ok.p99_ms;
    result.attempts = loaded->transport_errors;
    for (const auto& [status, count] : loaded->by_status) {
      result.attempts += count;
      if (status == 503) result.refused += count;
    }
    result.mean_limit = timeline.mean_limit;
    result.series = std::move(timeline.series);
    return result;
  }
};

}  // namespace

std::unique_ptr<RealPlant> MakeServerPlant() { return std::make_unique<ServerPlant>(); }

}  // namespace blobtune::plantbench
