// Exporter: serves a MetricsRegistry at http://ADDRESS/metrics for Prometheus to scrape (its
// Collectable, collectable.h, on prometheus-cpp's civetweb-based Exposer), and a live status
// page for people at http://ADDRESS/status (status_page.h), on the same server, port and basic
// auth; a sampler thread records the page's history once a second. A program that has an
// Exposer of its own registers MakeCollectable(registry) with it instead.
//
// What an example program needs for `--metrics ADDR`:
//
//   std::unique_ptr<metrics::Exporter> exporter;
//   if (!flags.metrics.empty()) {
//     auto started = metrics::Exporter::Start(flags.metrics);   // "127.0.0.1:9464", ":9464"
//     if (!started.ok()) { std::cerr << started.status() << "\n"; return 1; }
//     exporter = *std::move(started);
//   }
//   tuner::LimiterOptions options;
//   options.observer = metrics::LimiterObserverOf(exporter.get(), "put");  // nullptr without
//   auto limiter = tuner::Limiter::Create(std::move(options)).value();     // exported whole
//
// Address: "HOST:PORT", "[IPV6]:PORT", or just "PORT" / ":PORT", which bind 127.0.0.1 (never all
// interfaces unless asked for with "0.0.0.0:PORT"). Port 0 picks a free port; port() says which.
//
// Lifetime: the exporter owns its registry, so it must outlive every limiter and store it
// observes (they call into it) and every Attachment; declare it first. Destroying it stops the
// server, which can take up to ~2 s while a scraper holds a keep-alive connection.
//
// Thread-safety: all methods may be called from any number of threads at once.
#ifndef BLOBTUNE_METRICS_EXPORTER_H_
#define BLOBTUNE_METRICS_EXPORTER_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"
#include "blobtune/metrics/attachment.h"
#include "blobtune/metrics/collectable.h"
#include "blobtune/metrics/limiter_metrics.h"
#include "blobtune/metrics/registry.h"
#include "blobtune/metrics/store_metrics.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/tuner/limiter.h"

namespace blobtune::metrics {

struct ExporterOptions {
  // The HTTP path served. REQUIRES: starts with '/'. Default: "/metrics".
  std::string path = "/metrics";
  // With a non-empty username, scrapes must send HTTP basic auth with these credentials (over
  // plain HTTP: keep the exporter on a trusted network). Default: none.
  std::string basic_auth_username;
  std::string basic_auth_password;
  // Threads serving HTTP requests. REQUIRES: >= 1. Default: 2.
  int threads = 2;
  // The path of the live status page, behind the same basic auth as `path`; empty: no page and
  // no sampler thread. REQUIRES: empty, or starts with '/' and differs from `path`.
  // Default: "/status".
  std::string status_path = "/status";
  // How often the status page's history is sampled. REQUIRES: > 0. Default: 1 s.
  std::chrono::milliseconds status_interval{1000};
  // Labels added to every series (collectable.h: valid names, none of kReservedLabelNames).
  // Default: none.
  ConstantLabels constant_labels;
  // Whether the process's own figures are served too (MetricsRegistry::AddProcessMetrics).
  // Default: true.
  bool process_metrics = true;

  // OK, or INVALID_ARGUMENT saying which field is wrong.
  Status Validate() const;
};

class Exporter {
 public:
  // The conventional port of Prometheus exporters embedded in applications, on loopback.
  static constexpr std::string_view kDefaultAddress = "127.0.0.1:9464";

  // Starts serving. INVALID_ARGUMENT for a malformed address or options, UNAVAILABLE when the
  // address cannot be bound (in use, not local).
  static StatusOr<std::unique_ptr<Exporter>> Start(std::string_view address = kDefaultAddress,
                                                   ExporterOptions options = {});

  Exporter(const Exporter&) = delete;
  Exporter& operator=(const Exporter&) = delete;
  ~Exporter();

  MetricsRegistry& registry() noexcept { return registry_; }
  // Shorthands for registry().AddLimiter / AddStore.
  StatusOr<LimiterMetrics*> AddLimiter(std::string name) {
    return registry_.AddLimiter(std::move(name));
  }
  StatusOr<StoreMetrics*> AddStore(std::string name) { return registry_.AddStore(std::move(name)); }

  // The bound port (the chosen one when the address asked for port 0).
  uint16_t port() const noexcept { return port_; }
  // "HOST:PORT" actually served, e.g. "127.0.0.1:40721".
  const std::string& address() const noexcept { return address_; }
  const std::string& path() const noexcept { return path_; }
  // The status page's path; empty when it is off.
  const std::string& status_path() const noexcept { return status_path_; }

 private:
  class Server;
  Exporter();

  MetricsRegistry registry_;  // Declared first: outlives the server that reads it.
  std::unique_ptr<Server> server_;
  uint16_t port_ = 0;
  std::string address_;
  std::string path_;
  std::string status_path_;
};

// Splits "HOST:PORT" / "[IPV6]:PORT" / "PORT" / ":PORT" into the civetweb listening address,
// defaulting the host to 127.0.0.1. INVALID_ARGUMENT for anything else.
StatusOr<std::string> NormalizeListenAddress(std::string_view address);

// Optional-exporter helpers for programs where metrics are a flag: with a null exporter they
// return nullptr / an empty Attachment, so the program needs no branches.
//
// The observer of the limiter (or store) named `name`, registered on first use; a limiter or
// store built again under a name its series continue. nullptr when `exporter` is null or the
// name is empty (the program then runs unobserved rather than failing). A limiter built with it
// is exported whole, gauges included, for as long as it exists; one at a time per name.
tuner::LimiterObserver* LimiterObserverOf(Exporter* exporter, std::string name);
store::StoreObserver* StoreObserverOf(Exporter* exporter, std::string name);
// Links the store registered as `name` for its scrape-time gauges (StoreMetrics::Attach).
[[nodiscard]] Attachment AttachTo(Exporter* exporter, std::string_view name,
                                  const store::BlobStore& store);

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_EXPORTER_H_
