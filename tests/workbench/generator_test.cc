// Generated workloads: deterministic, dealt over every family, always valid, and drawn from the
// ranges docs/WORKLOADS.md ("Generated workloads") gives for each family.
#include "generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "oracle.h"
#include "workload.h"

namespace blobtune::workbench {
namespace {

// Every draw is rounded to 3 significant digits before it is written.
constexpr double kRounding = 0.01;

std::vector<GeneratedWorkload> Generate(int count, uint64_t seed, std::string_view family = "") {
  StatusOr<std::vector<GeneratedWorkload>> generated = GenerateWorkloads(count, seed, family);
  EXPECT_TRUE(generated.ok()) << generated.status();
  return generated.ok() ? *std::move(generated) : std::vector<GeneratedWorkload>{};
}

Workload Parse(const GeneratedWorkload& g) {
  StatusOr<Workload> w = ParseWorkload(g.json, g.name);
  EXPECT_TRUE(w.ok()) << w.status() << "\n" << g.json;
  return w.ok() ? *std::move(w) : Workload{};
}

TEST(GeneratorTest, SameSeedGivesTheSameWorkloads) {
  std::vector<GeneratedWorkload> a = Generate(40, 7);
  std::vector<GeneratedWorkload> b = Generate(40, 7);
  std::vector<GeneratedWorkload> c = Generate(40, 8);
  ASSERT_EQ(a.size(), 40u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].json, b[i].json) << a[i].name;
    EXPECT_EQ(a[i].name, c[i].name);
    EXPECT_NE(a[i].json, c[i].json) << a[i].name;
  }
}

TEST(GeneratorTest, AWorkloadDoesNotDependOnTheCountOrTheFamilyFilter) {
  std::vector<GeneratedWorkload> few = Generate(13, 3);
  std::vector<GeneratedWorkload> many = Generate(57, 3);
  for (size_t i = 0; i < few.size(); ++i) EXPECT_EQ(few[i].json, many[i].json) << few[i].name;
  std::map<std::string, std::string> by_name;
  for (const GeneratedWorkload& g : many) by_name[g.name] = g.json;
  for (const GeneratedWorkload& g : Generate(5, 3, "steps")) {
    ASSERT_TRUE(by_name.contains(g.name)) << g.name;
    EXPECT_EQ(g.json, by_name[g.name]);
  }
}

TEST(GeneratorTest, FamiliesAreDealtRoundRobinAndNamedByFamilyAndNumber) {
  std::vector<std::string_view> families = WorkloadFamilies();
  ASSERT_GE(families.size(), 10u);
  EXPECT_EQ(std::set<std::string_view>(families.begin(), families.end()).size(), families.size());
  // A population deals out the first families only; the others are drawn by name.
  ASSERT_LE(PopulationFamilyCount(), families.size());
  families.resize(PopulationFamilyCount());
  std::vector<GeneratedWorkload> population = Generate(static_cast<int>(2 * families.size()), 1);
  for (size_t i = 0; i < population.size(); ++i) {
    std::string family(families[i % families.size()]);
    std::string name = family + "-" + std::to_string(i / families.size());
    EXPECT_EQ(population[i].family, family);
    EXPECT_EQ(population[i].name, name);
    Workload w = Parse(population[i]);
    EXPECT_EQ(w.name, name);
    EXPECT_EQ(w.family, family);
    EXPECT_FALSE(w.description.empty());
  }
  for (const GeneratedWorkload& g : Generate(4, 1, "hangs")) EXPECT_EQ(g.family, "hangs");
}

TEST(GeneratorTest, BadArgumentsAreInvalid) {
  EXPECT_EQ(GenerateWorkloads(-1, 1, "").status().code(), StatusCode::kInvalidArgument);
  StatusOr<std::vector<GeneratedWorkload>> unknown = GenerateWorkloads(3, 1, "no_such_family");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("k_servers"), std::string::npos);  // Lists them.
  EXPECT_TRUE(Generate(0, 1).empty());
}

TEST(GeneratorTest, ThousandsOfDrawsAllParse) {
  for (const GeneratedWorkload& g : Generate(3000, 11)) {
    StatusOr<Workload> w = ParseWorkload(g.json, g.name);
    ASSERT_TRUE(w.ok()) << w.status() << "\n" << g.json;
  }
}

// What a test can read back from a drawn workload.
class Drawn {
 public:
  explicit Drawn(const GeneratedWorkload& g) : g_(g), w_(Parse(g)) {}

  const GeneratedWorkload& g() const { return g_; }
  const Workload& w() const { return w_; }
  double limit() const { return g_.target_limit; }
  double round_trip() const { return g_.round_trip_ms; }

  const StageSpec* Stage(std::string_view name) const {
    for (const StageSpec& s : w_.stages) {
      if (s.name == name) return &s;
    }
    return nullptr;
  }
  double MeanMs(std::string_view stage) const {
    const StageSpec* s = Stage(stage);
    return s == nullptr ? 0.0 : s->service_ms.Mean();
  }
  // The server's knee, servers * round trip / mean service: where the draw put L*.
  double Knee() const {
    const StageSpec* server = Stage("server");
    double service =
        MeanMs("server") + server->per_mib_ms * w_.clients[0].size_bytes.Mean() / 1048576.0;
    return server->servers * round_trip() / service;
  }
  double Capacity() const { return Stage("server")->servers * 1000.0 / MeanMs("server"); }
  // The values a client's parameter takes over the run, starting with its own.
  std::vector<double> Values(size_t client, ParamChange::Param param, double initial) const {
    std::vector<double> values = {initial};
    for (const StepSpec& step : w_.steps) {
      for (const ParamChange& change : step.changes) {
        if (!change.is_stage && change.param == param &&
            std::find(change.indices.begin(), change.indices.end(), client) !=
                change.indices.end()) {
          values.push_back(change.value);
        }
      }
    }
    return values;
  }
  double Most(const std::vector<double>& values) const {
    return *std::max_element(values.begin(), values.end());
  }

 private:
  GeneratedWorkload g_;
  Workload w_;
};

bool Within(double x, double lo, double hi) {
  return x >= lo * (1 - kRounding) && x <= hi * (1 + kRounding);
}

// The ranges every family shares: the population's bounds, and demand well above capacity.
void ExpectCommonRanges(const Drawn& d) {
  const Workload& w = d.w();
  SCOPED_TRACE(d.g().name + "\n" + d.g().json);
  EXPECT_TRUE(Within(d.limit(), 1.0, 500.0));
  EXPECT_TRUE(Within(d.round_trip(), 0.05, 200.0));
  EXPECT_LE(d.limit() / d.round_trip() * 1000.0, 20'000.0 * (1 + 2 * kRounding));
  EXPECT_GE(w.duration_s, 10.0);
  EXPECT_LE(w.duration_s, 120.0);
  EXPECT_LE(PhaseBounds(w).size(), 8u);  // At most 7 phases.
  for (size_t c = 0; c < w.clients.size(); ++c) {
    const ClientSpec& client = w.clients[c];
    if (client.load == ClientSpec::Load::kClosed) {
      double most = d.Most(d.Values(c, ParamChange::Param::kConcurrency, client.concurrency));
      EXPECT_GE(most, 2.0 * d.limit());
      EXPECT_GE(w.max_limit, most);
    } else if (d.Stage("server") != nullptr) {
      double most = d.Most(d.Values(c, ParamChange::Param::kRatePerS, client.rate_per_s));
      EXPECT_GE(most, 1.1 * d.Capacity() * (1 - kRounding));
    }
  }
}

void ExpectFamilyRanges(const Drawn& d) {
  const Workload& w = d.w();
  const std::string& family = d.g().family;
  SCOPED_TRACE(d.g().name + "\n" + d.g().json);
  const StageSpec* server = d.Stage("server");
  if (family == "group_commit") {
    const StageSpec* writer = d.Stage("writer");
    ASSERT_NE(writer, nullptr);
    EXPECT_EQ(writer->kind, StageSpec::Kind::kBatch);
    EXPECT_TRUE(Within(d.MeanMs("writer") / d.round_trip(), 0.02, 0.3));
    EXPECT_NEAR(d.MeanMs("network") + d.MeanMs("writer"), d.round_trip(),
                2 * kRounding * d.round_trip());
    EXPECT_GT(writer->per_request_ms, 0.0);
    EXPECT_TRUE(w.steps.empty());
    return;
  }
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(server->kind, StageSpec::Kind::kQueue);
  EXPECT_NEAR(d.Knee(), d.limit(), 3 * kRounding * d.limit());  // Where the draw put L*.
  const ClientSpec& client = w.clients[0];
  if (family == "delay") {
    EXPECT_TRUE(Within(server->servers, 1, 4));
    EXPECT_GE(d.MeanMs("network"), 0.7 * d.round_trip());
    EXPECT_TRUE(w.steps.empty());
  } else if (family == "k_servers") {
    EXPECT_TRUE(Within(server->servers, 1, std::min(64.0, std::max(1.0, d.limit()))));
    EXPECT_TRUE(w.steps.empty());
  } else if (family == "contention") {
    EXPECT_TRUE(Within(server->servers, 1, 16));
    EXPECT_GE(server->contention_threshold, server->servers);
    EXPECT_LE(server->contention_threshold,
              server->servers + (d.limit() - server->servers) / 4 + 1);
    EXPECT_TRUE(Within(server->contention_slowdown * d.limit(), 0.5, 4.0));
  } else if (family == "heavy_tail") {
    EXPECT_TRUE(Within(server->servers, 1, 16));
    nlohmann::json sizes = client.size_bytes.ToJson();
    std::string type = sizes["type"];
    double least = type == "pareto"
                       ? sizes["mean"].get<double>() * (sizes["alpha"].get<double>() - 1) /
                             sizes["alpha"].get<double>()
                       : sizes["min"].get<double>();
    EXPECT_TRUE(Within(least, 512.0, 16384.0));
    EXPECT_NEAR(sizes["max"].get<double>() / least, 1e4, 1e4 * 2 * kRounding);  // 4 decades.
    if (type == "pareto") {
      EXPECT_TRUE(Within(sizes["alpha"].get<double>(), 1.1, 2.0));
    }
    double per_byte = server->per_mib_ms * client.size_bytes.Mean() / 1048576.0;
    EXPECT_TRUE(Within(per_byte / (per_byte + d.MeanMs("server")), 0.5, 0.95));
  } else if (family == "open_ramp") {
    std::vector<double> rates = d.Values(0, ParamChange::Param::kRatePerS, client.rate_per_s);
    EXPECT_TRUE(Within(rates.size(), 3, 7));
    EXPECT_TRUE(Within(rates.front() / d.Capacity(), 0.3, 0.8));
    EXPECT_TRUE(Within(d.Most(rates) / d.Capacity(), 1.2, 2.5));
    EXPECT_EQ(rates.back(), rates.front());
    EXPECT_TRUE(Within(*client.deadline_ms / d.round_trip(), 5.0, 50.0));
    EXPECT_TRUE(client.lifo || client.max_queue.has_value());  // Never FIFO without a bound.
    if (client.max_queue) {
      EXPECT_LE(*client.max_queue, std::ceil(d.limit()));
    }
  } else if (family == "staggered" || family == "partitioned") {
    EXPECT_TRUE(Within(w.clients.size(), 2, 4));
    EXPECT_GT(client.concurrency, 0);
    EXPECT_TRUE(Within(w.steps.size(), w.clients.size() - 1, w.clients.size()));
    for (size_t c = 1; c < w.clients.size(); ++c) {
      std::vector<double> levels =
          d.Values(c, ParamChange::Param::kConcurrency, w.clients[c].concurrency);
      ASSERT_EQ(levels.size(), 2u);
      EXPECT_LT(levels[0], levels[1]);
    }
    if (family == "staggered") {
      EXPECT_TRUE(w.partitions.empty());
      return;
    }
    // One partition per client, shares of weights 1..4 in hundredths rounded down.
    ASSERT_EQ(w.partitions.size(), w.clients.size());
    double shares = 0.0;
    for (size_t c = 0; c < w.clients.size(); ++c) {
      EXPECT_EQ(w.clients[c].partition, static_cast<int>(c));
      EXPECT_TRUE(Within(w.partitions[c].share, 0.07, 0.8));
      EXPECT_TRUE(Within(w.partitions[c].priority, 0, c == 0 ? 1 : 0));  // Only `a`'s may be 1.
      shares += w.partitions[c].share;
    }
    EXPECT_TRUE(Within(shares, 0.95, 1.0));
  } else if (family == "churn") {
    // a from the start, the others joining from 0; one client leaves for a phase and comes back
    // to its backlog, and a last step may take another one away for good.
    EXPECT_TRUE(Within(w.clients.size(), 2, 4));
    EXPECT_TRUE(w.partitions.empty());
    EXPECT_GT(client.concurrency, 0);
    EXPECT_TRUE(Within(w.steps.size(), w.clients.size() + 1, w.clients.size() + 2));
    int rejoined = -1, gone_for_good = -1;
    for (size_t c = 0; c < w.clients.size(); ++c) {
      std::vector<double> levels =
          d.Values(c, ParamChange::Param::kConcurrency, w.clients[c].concurrency);
      if (c > 0) {
        ASSERT_GE(levels.size(), 2u);
        EXPECT_EQ(levels[0], 0.0);
        levels.erase(levels.begin());  // The join.
      }
      const double backlog = levels[0];
      EXPECT_GT(backlog, 0.0);
      if (levels.size() >= 3) {  // Leaves and rejoins, at its own backlog.
        EXPECT_EQ(rejoined, -1);
        rejoined = static_cast<int>(c);
        EXPECT_EQ(levels[1], 0.0);
        EXPECT_EQ(levels[2], backlog);
        levels.erase(levels.begin() + 1, levels.begin() + 3);
      }
      if (levels.size() == 2) {  // Leaves for good.
        EXPECT_EQ(gone_for_good, -1);
        gone_for_good = static_cast<int>(c);
        EXPECT_EQ(levels[1], 0.0);
      }
      EXPECT_LE(levels.size(), 2u);
    }
    EXPECT_GE(rejoined, 0);
    EXPECT_NE(gone_for_good, rejoined);
    EXPECT_EQ(gone_for_good >= 0, w.steps.size() == w.clients.size() + 2);
  } else if (family == "steps") {
    ASSERT_TRUE(Within(w.steps.size(), 1, 2));
    const ParamChange& step = w.steps[0].changes[0];
    double before = step.param == ParamChange::Param::kServers       ? server->servers
                    : step.param == ParamChange::Param::kConcurrency ? client.concurrency
                                                                     : 1.0;
    double factor = std::max(step.value / before, before / step.value);
    // Servers and backlogs are whole numbers: their factor is rounded.
    if (step.param == ParamChange::Param::kScale || step.param == ParamChange::Param::kSizeScale) {
      EXPECT_TRUE(Within(factor, 2.0, 10.0));
    } else {
      EXPECT_GE(factor, 1.5);
    }
    if (w.steps.size() == 2) {
      EXPECT_EQ(w.steps[1].changes[0].value, before);
    }
  } else if (family == "error_storm") {
    std::vector<double> fractions =
        d.Values(0, ParamChange::Param::kErrorFraction, client.failures.error_fraction);
    ASSERT_EQ(fractions.size(), 3u);
    EXPECT_TRUE(fractions[0] == 0.0 || Within(fractions[0], 0.001, 0.02));
    EXPECT_TRUE(Within(fractions[1], 0.2, 0.9));
    EXPECT_EQ(fractions[2], fractions[0]);
    EXPECT_TRUE(Within(client.failures.error_ms.Mean() / d.round_trip(), 0.01, 1.0));
  } else if (family == "hangs") {
    std::vector<double> fractions =
        d.Values(0, ParamChange::Param::kHangFraction, client.failures.hang_fraction);
    EXPECT_TRUE(fractions.size() == 1u || fractions.size() == 3u);
    EXPECT_TRUE(Within(d.Most(fractions), 0.002, 0.2));
    EXPECT_TRUE(Within(*client.deadline_ms / d.round_trip(), 3.0, 20.0));
    if (client.load == ClientSpec::Load::kClosed) {
      EXPECT_TRUE(client.lifo);
    }
  } else {
    ADD_FAILURE() << "no ranges checked for family " << family;
  }
}

TEST(GeneratorTest, EachFamilyDrawsFromItsDocumentedRanges) {
  for (std::string_view family : WorkloadFamilies()) {
    for (const GeneratedWorkload& g : Generate(150, 5, family)) {
      Drawn d(g);
      ExpectCommonRanges(d);
      ExpectFamilyRanges(d);
    }
  }
}

TEST(GeneratorTest, TheOracleFindsLStarNearTheTarget) {
  // The target is the knee of a plant whose service varies, so L* lies near it, a little above.
  OracleOptions options;
  options.warmup_s = 1.0;
  options.measure_s = 20.0;
  options.max_successes = 5'000;
  for (const GeneratedWorkload& g : Generate(4, 2, "k_servers")) {
    StatusOr<std::vector<PhaseOracle>> oracle = ComputeOracle(Parse(g), options);
    ASSERT_TRUE(oracle.ok()) << oracle.status();
    double limit = (*oracle)[0].limit;
    EXPECT_GE(limit, 0.5 * g.target_limit) << g.json;
    EXPECT_LE(limit, 3.0 * g.target_limit + 2) << g.json;
  }
}

}  // namespace
}  // namespace blobtune::workbench
