#include "blobtune/metrics/collectable.h"

#include <prometheus/metric_family.h>

#include <utility>
#include <vector>

#include "exposition.h"

namespace blobtune::metrics {
namespace {

class RegistryCollectable final : public prometheus::Collectable {
 public:
  RegistryCollectable(const MetricsRegistry& registry, ConstantLabels labels)
      : registry_(registry), labels_(std::move(labels)) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    return internal::ToMetricFamilies(registry_, labels_);
  }

 private:
  const MetricsRegistry& registry_;
  const ConstantLabels labels_;
};

}  // namespace

StatusOr<std::shared_ptr<prometheus::Collectable>> MakeCollectable(const MetricsRegistry& registry,
                                                                   ConstantLabels labels) {
  if (Status valid = internal::ValidateLabels(labels); !valid.ok()) return valid;
  return std::shared_ptr<prometheus::Collectable>(
      std::make_shared<RegistryCollectable>(registry, std::move(labels)));
}

}  // namespace blobtune::metrics
