// Exposition: turns limiter and store snapshots into prometheus-cpp metric families, the one
// place that knows the exported metric names, types, help texts, labels and base units.
//
// Thread-safety: pure functions of their arguments.
#ifndef BLOBTUNE_METRICS_SRC_EXPOSITION_H_
#define BLOBTUNE_METRICS_SRC_EXPOSITION_H_

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

#include "blobtune/metrics/limiter_metrics.h"
#include "blobtune/metrics/store_metrics.h"

namespace blobtune::metrics::internal {

// Families in a fixed order; a family with no series (e.g. gauges while nothing is attached) is
// left out.
std::vector<prometheus::MetricFamily> ToMetricFamilies(const std::vector<LimiterSnapshot>& limiters,
                                                       const std::vector<StoreSnapshot>& stores);

// The families in the text exposition format 0.0.4.
std::string ToText(const std::vector<prometheus::MetricFamily>& families);

}  // namespace blobtune::metrics::internal

#endif  // BLOBTUNE_METRICS_SRC_EXPOSITION_H_
