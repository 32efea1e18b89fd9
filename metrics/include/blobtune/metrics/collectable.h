// MakeCollectable: a MetricsRegistry as a prometheus::Collectable, for a program that already
// serves its own metrics with prometheus-cpp: register it with that program's Exposer (or any
// code that collects Collectables) next to the program's own metrics, and one scrape shows both.
//
//   prometheus::Exposer exposer("127.0.0.1:9464");
//   auto own = std::make_shared<prometheus::Registry>();       // the program's own metrics
//   exposer.RegisterCollectable(own);
//   metrics::MetricsRegistry blobtune_metrics;                  // declared before the limiters
//   std::shared_ptr<prometheus::Collectable> collectable =
//       metrics::MakeCollectable(blobtune_metrics, {{"service", "mail"}}).value();
//   exposer.RegisterCollectable(collectable);   // the Exposer keeps a weak_ptr: keep this one
//
// The families, names, labels and values are those of MetricsRegistry::TextExposition(), with
// the constant labels added to every series (before its own labels). A constant label is
// typically the instance, service or shard a program runs as; it may not be named like a
// label blobtune's series carry themselves (limiter, store, outcome, ...: see
// kReservedLabelNames) and must be a valid Prometheus label name not starting with "__".
//
// Lifetime: the collectable reads `registry` whenever it is collected, so the registry must
// outlive every collection: declare it before the Exposer, so that the Exposer (and with it any
// scrape in progress) is gone first.
//
// Thread-safety: Collect() may be called from any number of threads at once.
#ifndef BLOBTUNE_METRICS_COLLECTABLE_H_
#define BLOBTUNE_METRICS_COLLECTABLE_H_

#include <prometheus/collectable.h>

#include <array>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "blobtune/base/status_or.h"
#include "blobtune/metrics/registry.h"

namespace blobtune::metrics {

// Labels added to every series: name -> value.
using ConstantLabels = std::map<std::string, std::string>;

// The label names blobtune's own series carry; a constant label may not take one.
inline constexpr std::array<std::string_view, 15> kReservedLabelNames = {
    "limiter", "store",  "outcome", "direction", "algorithm", "state",  "op",  "namespace",
    "code",    "result", "method",  "version",   "le",        "reason", "kind"};

// The registry's families with `labels` on every series. INVALID_ARGUMENT for a label name that
// is not valid or is reserved.
StatusOr<std::shared_ptr<prometheus::Collectable>> MakeCollectable(const MetricsRegistry& registry,
                                                                   ConstantLabels labels = {});

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_COLLECTABLE_H_
