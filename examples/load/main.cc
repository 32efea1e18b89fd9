// blobtune-load: closed- or open-loop HTTP load against blobtune-server on loopback; prints
// throughput, answers by status and latency quantiles, and with --verify reads back every
// acknowledged PUT. With --class it runs several classes of load at once over one measured
// window (an interactive client beside a bulk sync, each in its own partition) and reports each.
//
//   build/bin/blobtune-load --port 8080 --mode closed --connections 32 --seconds 10
//   build/bin/blobtune-load --port 8080 --mode open --rate 4000 --seconds 60 --verify
//   build/bin/blobtune-load --port 8080 --verify-port 8081   # read back through another server
//   build/bin/blobtune-load --port 8080 --seconds 30   # one command line:
//     --class 'interactive: mode=open rate=20 put-fraction=0.5 size=16K partition=interactive'
//     --class 'bulk: mode=closed connections=64 put-fraction=1 size=64K partition=bulk'
//
// Exit status: 0; 1 if --verify found a lost or corrupt blob or --max-ok-p99-ms was exceeded
// (in any class); 2 for bad flags; 3 if the server could not be reached; 4 if no request
// succeeded (no 2xx answer in the measured window, in some class).
#include <utility>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "common/command_line.h"
#include "common/resolve_host.h"
#include "load_class.h"
#include "load_flags.h"
#include "load_generator.h"

namespace {

using namespace blobtune;

// The exit status of a run in which no request succeeded (in some class).
constexpr int kNoSuccess = 4;

struct Flags {
  load::LoadOptions load;
  std::vector<load::LoadClass> classes;  // Empty without --class.
  bool verify = false;
  uint16_t verify_port = 0;  // 0: read back through --port.
  bool json = false;
  std::optional<double> max_ok_p99_ms;  // Nothing or 0: no check.
};

constexpr const char* kAbout =
    "blobtune-load: HTTP load against blobtune-server: closed loop (N connections, one request\n"
    "each at a time) or open loop (Poisson arrivals at --rate, whatever the answers).\n"
    "PUTs go to new ids, GETs to ids already acknowledged. With --class, several classes of load\n"
    "run at once (an interactive client beside a bulk sync), each reported on its own.\n";

constexpr const char* kEpilogue =
    "A class: --class 'bulk: mode=closed connections=64 put-fraction=1 partition=bulk'\n\n"
    "Exit status: 0; 1 if --verify found a lost or corrupt blob or --max-ok-p99-ms was exceeded\n"
    "(in any class); 2 for bad flags; 3 if the server could not be reached; 4 if no request\n"
    "succeeded (no 2xx answer in the measured window, in some class: the lines "
    "'N first said: ...'\nunder 'by status' tell why).\n";

// Exit code 2 with a message for bad flags, 0 after --help or --version, -1 to go on.
int ParseFlags(int argc, char** argv, Flags* flags) {
  using examples::Range;
  using load::LoadOptions;
  LoadOptions& o = flags->load;
  std::string mode = "closed";
  examples::ByteSize size{o.size};
  examples::ByteSize expect_continue{o.expect_continue_bytes};
  double upload_ms = o.upload_time.count();
  int64_t timeout_ms = o.timeout.count();
  std::vector<std::string> class_specs;
  examples::CommandLine cli("blobtune-load", kAbout, kEpilogue);
  cli.Add({
      {"host", &o.host, "HOST", "server address or name (resolved once at startup, IPv4 first)"},
      {"port", &o.port, "PORT", "server port", LoadOptions::kPortRange},
      {"mode", &mode, "MODE", "closed or open"},
      {"connections", &o.connections, "N", "closed loop: concurrent connections",
       LoadOptions::kConnectionsRange},
      {"rate", &o.rate, "R", "open loop: requests per second", LoadOptions::kRateRange},
      {"max-connections", &o.max_connections, "N",
       "open loop: most connections the client opens; a request finding none free is unsent",
       LoadOptions::kMaxConnectionsRange},
      {"seconds", &o.seconds, "S", "measured duration", LoadOptions::kSecondsRange},
      {"warmup", &o.warmup_seconds, "S", "seconds run before measuring",
       LoadOptions::kWarmupSecondsRange},
      {"put-fraction", &o.put_fraction, "F", "share of PUTs; the rest are GETs",
       LoadOptions::kPutFractionRange},
      {"size", &size, "BYTES", "PUT body, bytes with optional K/M/G suffix",
       LoadOptions::kSizeRange},
      {"expect-continue", &expect_continue, "BYTES",
       "PUT bodies of at least BYTES ask first (Expect: 100-continue) and are not sent if "
       "refused (0: never)"},
      {"upload-ms", &upload_ms, "MS",
       "send each PUT body over this many milliseconds (0: at once), as a client on a slow link",
       LoadOptions::kUploadTimeRange},
      {"namespace", &o.ns, "NS", "blob namespace"},
      {"partition", &o.partition, "NAME",
       "the server's partition the requests wait in (sent as Blobtune-Partition)"},
      {"id-prefix", &o.id_prefix, "PREFIX", "ids are PREFIX-N; use a new prefix per run"},
      {"timeout-ms", &timeout_ms, "MS", "per-request timeout", LoadOptions::kTimeoutRange},
      {"seed", &o.seed, "N", "random seed (each class derives its own from it)"},
      {"class", &class_specs, "'NAME: KEY=VALUE ...'",
       "a class of load run at once with the others (repeatable): NAME (letters, digits, _ and "
       "-) and the flags above that are its own, without --: " +
           load::PerClassFlagList() +
           "; the others are shared. Its ids are PREFIX-NAME-N (example below)"},
      {"verify", &flags->verify, "", "read back every acknowledged PUT afterwards"},
      {"verify-port", &flags->verify_port, "PORT",
       "read them back through the server on this port of --host instead (another server on "
       "the same store, such as a Ceph pool); implies --verify"},
      {"max-ok-p99-ms", &flags->max_ok_p99_ms, "MS",
       "exit 1 if the p99 latency of 2xx answers (of any class) is above this", Range::AtLeast(0)},
      {"json", &flags->json, "", "also print one JSON line with the figures (one per class)"},
  });
  if (int code = cli.Parse(argc, argv); code >= 0) return code;
  // A host name (localhost) is resolved here, once: one that names nothing is a bad flag.
  StatusOr<boost::asio::ip::address> address = examples::ResolveHost(o.host);
  if (!address.ok()) return cli.UsageError("--host: " + std::string(address.status().message()));
  o.host = address->to_string();
  if (Status set = load::SetLoadFlag("mode", mode, o); !set.ok()) {
    return cli.UsageError("--" + std::string(set.message()));
  }
  o.size = size.bytes;
  o.expect_continue_bytes = expect_continue.bytes;
  o.upload_time = std::chrono::duration<double, std::milli>(upload_ms);
  o.timeout = std::chrono::milliseconds(timeout_ms);
  // The table checked every range; whatever else Validate() refuses is a bad flag too.
  if (Status valid = o.Validate(); !valid.ok()) {
    return cli.UsageError(load::InFlagWords(valid, o, "--"));
  }
  StatusOr<std::vector<load::LoadClass>> classes = load::ParseLoadClasses(class_specs, o);
  if (!classes.ok()) return cli.UsageError("--class: " + std::string(classes.status().message()));
  flags->classes = *std::move(classes);
  if (flags->verify_port != 0) flags->verify = true;
  return -1;
}

// "NAME: " before a class's lines; nothing for the one load of a run without --class.
std::string Label(const load::LoadClass& run) { return run.name.empty() ? "" : run.name + ": "; }

uint64_t Answered(const load::LoadResult& result) {
  uint64_t answered = 0;
  for (const auto& [status, count] : result.by_status) answered += count;
  return answered;
}

// What the run is about to do, before it starts.
void PrintHeader(const load::LoadClass& run) {
  const load::LoadOptions& o = run.options;
  const std::string label = Label(run);
  if (o.mode == load::LoadMode::kClosed) {
    std::printf("blobtune-load: %sclosed loop, %d connections, %.0f s (+%.0f s warm-up) against "
                "%s:%u, %.0f%% PUT of %zu bytes\n",
                label.c_str(), o.connections, o.seconds, o.warmup_seconds, o.host.c_str(), o.port,
                o.put_fraction * 100, o.size);
  } else {
    std::printf("blobtune-load: %sopen loop, %.0f requests/s, %.0f s (+%.0f s warm-up) against "
                "%s:%u, %.0f%% PUT of %zu bytes\n",
                label.c_str(), o.rate, o.seconds, o.warmup_seconds, o.host.c_str(), o.port,
                o.put_fraction * 100, o.size);
  }
}

void PrintLatency(const char* name, const load::LatencySummary& s) {
  std::printf("  %-6s %9llu %9.2f %9.2f %9.2f %9.2f\n", name,
              static_cast<unsigned long long>(s.count), s.p50_ms, s.p90_ms, s.p99_ms, s.max_ms);
}

// The measured window's answers and latencies; a class's headed by its name.
void PrintResult(const load::LoadClass& run, const load::LoadResult& result) {
  if (!run.name.empty()) std::printf("%s:\n", run.name.c_str());
  const uint64_t answered = Answered(result);
  std::printf("  answered %llu (%.0f/s), 2xx %.0f/s, transport errors %llu, unsent %llu, "
              "connections opened %d\n",
              static_cast<unsigned long long>(answered),
              static_cast<double>(answered) / result.measured_seconds, result.ok_per_second,
              static_cast<unsigned long long>(result.transport_errors),
              static_cast<unsigned long long>(result.unsent), result.connections_opened);
  std::printf("  by status:");
  for (const auto& [status, count] : result.by_status) {
    std::printf(" %u=%llu", status, static_cast<unsigned long long>(count));
  }
  // What each status's first answer said: why the 400s were 400s.
  for (const auto& [status, text] : result.first_answer) {
    std::printf("\n    %u first said: %s", status, text.c_str());
  }
  std::printf("\n  %-6s %9s %9s %9s %9s %9s   (ms)\n", "", "count", "p50", "p90", "p99", "max");
  PrintLatency("2xx", result.ok);
  PrintLatency("503", result.unavailable);
  if (run.options.mode == load::LoadMode::kOpen) PrintLatency("lag", result.send_lag);
}

void PrintVerified(const load::VerifyResult& verified, uint16_t through_port) {
  if (through_port != 0) std::printf("  verify through port %u:\n", through_port);
  std::printf("  verify: %llu acknowledged PUTs, %llu intact, %llu missing, %llu corrupt, "
              "%llu unreadable\n",
              static_cast<unsigned long long>(verified.checked),
              static_cast<unsigned long long>(verified.intact),
              static_cast<unsigned long long>(verified.missing),
              static_cast<unsigned long long>(verified.corrupt),
              static_cast<unsigned long long>(verified.unreadable));
}

// One JSON line of figures; a class's begins with "class":"NAME" (names need no escaping).
void PrintJson(const load::LoadClass& run, const load::LoadResult& result,
               const load::VerifyResult& verified) {
  const std::string class_field = run.name.empty() ? "" : "\"class\":\"" + run.name + "\",";
  std::printf("{%s\"answered_per_s\":%.1f,\"ok_per_s\":%.1f,\"ok\":%llu,\"unavailable\":%llu,"
              "\"ok_p50_ms\":%.3f,\"ok_p99_ms\":%.3f,\"ok_max_ms\":%.3f,\"unavailable_p99_ms\":"
              "%.3f,\"transport_errors\":%llu,\"unsent\":%llu,\"send_lag_p99_ms\":%.3f,"
              "\"acknowledged\":%zu,"
              "\"verified_intact\":%llu,\"verified_checked\":%llu}\n",
              class_field.c_str(), static_cast<double>(Answered(result)) / result.measured_seconds,
              result.ok_per_second, static_cast<unsigned long long>(result.ok.count),
              static_cast<unsigned long long>(result.unavailable.count), result.ok.p50_ms,
              result.ok.p99_ms, result.ok.max_ms, result.unavailable.p99_ms,
              static_cast<unsigned long long>(result.transport_errors),
              static_cast<unsigned long long>(result.unsent), result.send_lag.p99_ms,
              result.acknowledged.size(), static_cast<unsigned long long>(verified.intact),
              static_cast<unsigned long long>(verified.checked));
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (int code = ParseFlags(argc, argv, &flags); code >= 0) return code;
  // Without --class, the one load is a class without a name, reported as it always was.
  std::vector<load::LoadClass> runs = flags.classes;
  if (runs.empty()) runs.push_back({.name = "", .options = flags.load});
  std::vector<load::LoadOptions> loads;
  for (const load::LoadClass& run : runs) {
    PrintHeader(run);
    loads.push_back(run.options);
  }
  std::fflush(stdout);
  StatusOr<std::vector<load::LoadResult>> results = load::RunLoads(loads);
  if (!results.ok()) {
    std::cerr << "blobtune-load: " << results.status().ToString() << "\n";
    return 3;
  }
  int exit_code = 0;
  bool no_success = false;
  std::vector<load::VerifyResult> verified(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    const load::LoadResult& result = (*results)[i];
    PrintResult(runs[i], result);
    if (flags.verify) {
      load::LoadOptions read_back = runs[i].options;
      if (flags.verify_port != 0) read_back.port = flags.verify_port;
      verified[i] = load::VerifyPuts(read_back, result.acknowledged);
      PrintVerified(verified[i], flags.verify_port);
      if (!verified[i].ok()) exit_code = 1;
    }
    if (result.ok.count == 0) {
      std::printf("  FAIL: %sno request succeeded (no 2xx answer in the measured window)\n",
                  Label(runs[i]).c_str());
      no_success = true;
    }
    const double max_ok_p99_ms = flags.max_ok_p99_ms.value_or(0);
    if (max_ok_p99_ms > 0 && result.ok.p99_ms > max_ok_p99_ms) {
      std::printf("  FAIL: %s2xx p99 %.2f ms is over --max-ok-p99-ms %.2f\n",
                  Label(runs[i]).c_str(), result.ok.p99_ms, max_ok_p99_ms);
      exit_code = 1;
    }
  }
  if (flags.json) {
    for (size_t i = 0; i < runs.size(); ++i) PrintJson(runs[i], (*results)[i], verified[i]);
  }
  return no_success ? kNoSuccess : exit_code;
}
