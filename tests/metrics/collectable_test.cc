// The registry as a prometheus-cpp Collectable: the same families as the text exposition, with
// constant labels first on every series, and names that cannot be constant labels refused.
#include "blobtune/metrics/collectable.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <chrono>
#include <sstream>
#include <string>

#include "blobtune/metrics/registry.h"
#include "blobtune/tuner/limiter.h"

namespace blobtune::metrics {
namespace {

using ::testing::HasSubstr;

std::string Text(const prometheus::Collectable& collectable) {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, collectable.Collect());
  return out.str();
}

TEST(CollectableTest, WithoutLabelsItIsTheTextExposition) {
  MetricsRegistry registry;
  tuner::LimiterOptions options;
  options.observer = registry.AddLimiter("put").value();
  auto limiter = tuner::Limiter::Create(std::move(options)).value();
  limiter->TryAcquire()->Success();
  registry.AddHttpServer().value()->Record("PUT", 201, std::chrono::milliseconds(2));
  auto collectable = MakeCollectable(registry).value();
  EXPECT_EQ(Text(*collectable), registry.TextExposition());
}

TEST(CollectableTest, PutsTheConstantLabelsFirstOnEverySeries) {
  MetricsRegistry registry;
  tuner::LimiterOptions options;
  options.observer = registry.AddLimiter("put").value();
  auto limiter = tuner::Limiter::Create(std::move(options)).value();
  auto collectable =
      MakeCollectable(registry, {{"instance", "mail-1"}, {"service", "mail"}}).value();
  const std::vector<prometheus::MetricFamily> families = collectable->Collect();
  ASSERT_FALSE(families.empty());
  for (const prometheus::MetricFamily& family : families) {
    for (const prometheus::ClientMetric& metric : family.metric) {
      ASSERT_GE(metric.label.size(), 2u) << family.name;
      EXPECT_EQ(metric.label[0].name, "instance") << family.name;
      EXPECT_EQ(metric.label[0].value, "mail-1") << family.name;
      EXPECT_EQ(metric.label[1].name, "service") << family.name;
    }
  }
  EXPECT_THAT(Text(*collectable),
              HasSubstr("blobtune_limiter_limit{instance=\"mail-1\",service=\"mail\","
                        "limiter=\"put\"} "));
}

TEST(CollectableTest, RefusesLabelsThatAreNotLabelNamesOrAreBlobtunesOwn) {
  MetricsRegistry registry;
  for (const char* bad : {"", "1st", "with-dash", "__reserved", "limiter", "store", "le", "version",
                          "code", "method"}) {
    EXPECT_EQ(MakeCollectable(registry, {{bad, "x"}}).status().code(), StatusCode::kInvalidArgument)
        << bad;
  }
  EXPECT_TRUE(MakeCollectable(registry, {{"_shard", "7"}, {"zone_2", "a"}}).ok());
}

}  // namespace
}  // namespace blobtune::metrics
