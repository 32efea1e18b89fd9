// Exposition: turns what a MetricsRegistry holds into prometheus-cpp metric families, the one
// place that knows the exported metric names, types, help texts, labels and base units.
//
// Thread-safety: pure functions of their arguments.
#ifndef BLOBTUNE_METRICS_SRC_EXPOSITION_H_
#define BLOBTUNE_METRICS_SRC_EXPOSITION_H_

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

#include "blobtune/metrics/collectable.h"
#include "blobtune/metrics/registry.h"

namespace blobtune::metrics::internal {

// The registry's families in a fixed order (build information, limiters, stores, the HTTP
// server, the process), `labels` first on every series; a family with no series (e.g. limiter
// gauges while no limiter exists) is left out. REQUIRES: `labels` passed ValidateLabels.
std::vector<prometheus::MetricFamily> ToMetricFamilies(const MetricsRegistry& registry,
                                                       const ConstantLabels& labels);

// OK, or INVALID_ARGUMENT naming the first constant label that is not a valid label name or is
// one of kReservedLabelNames.
Status ValidateLabels(const ConstantLabels& labels);

// The families in the text exposition format 0.0.4.
std::string ToText(const std::vector<prometheus::MetricFamily>& families);

}  // namespace blobtune::metrics::internal

#endif  // BLOBTUNE_METRICS_SRC_EXPOSITION_H_
