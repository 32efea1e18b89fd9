// docs/METRICS.md, "Wiring it in": metrics as a flag. With --metrics ADDRESS the limiter is
// served there; without, the same code runs unobserved.
//
//   build/bin/blobtune-doc-optional-exporter [--metrics ADDRESS]
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "blobtune/metrics/exporter.h"
#include "blobtune/tuner/limiter.h"
#include "common/command_line.h"

using namespace blobtune;

struct Flags {
  std::string metrics;  // --metrics ADDRESS; empty: no metrics.
};

int main(int argc, char** argv) {
  Flags flags;
  examples::CommandLine cli("blobtune-doc-optional-exporter",
                            "usage: blobtune-doc-optional-exporter [--metrics ADDRESS]\n");
  cli.Add({{"metrics", &flags.metrics, "ADDRESS",
            "serve the limiter's metrics at ADDRESS (e.g. 127.0.0.1:9464)"}});
  if (int code = cli.Parse(argc, argv); code >= 0) return code;
  tuner::LimiterOptions options;

  // example: optional
  std::unique_ptr<metrics::Exporter> exporter;           // declared before limiters and stores
  if (!flags.metrics.empty()) {
    auto started = metrics::Exporter::Start(flags.metrics);
    if (!started.ok()) { std::cerr << started.status() << "\n"; return 1; }
    exporter = *std::move(started);
  }
  options.observer = metrics::LimiterObserverOf(exporter.get(), "put");   // nullptr without
  auto limiter = tuner::Limiter::Create(std::move(options)).value();
  // example end

  limiter->TryAcquire()->Success();
  std::printf("limit %d, metrics %s\n", limiter->limit(),
              exporter ? ("on " + exporter->address()).c_str() : "off");
  return 0;
}
