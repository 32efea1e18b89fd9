// Workload files: a valid file parses to what it says; a malformed one names the bad field.
#include "workload.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <string>

namespace blobtune::workbench {
namespace {

constexpr const char* kValid = R"({
  "name": "w", "duration_s": 30, "seed": 3,
  "stages": [
    {"name": "net", "kind": "delay", "service_ms": 1},
    {"name": "server", "kind": "queue", "servers": 2,
     "service_ms": {"type": "exponential", "mean": 45},
     "contention": {"threshold": 4, "slowdown": 0.1}}
  ],
  "clients": [{"name": "a", "load": {"type": "closed", "concurrency": 10, "total_jobs": 50},
               "requests_per_job": 3, "size_bytes": 4096}],
  "steps": [{"at_s": 20, "set": {"stage.server.servers": 1}},
            {"at_s": 10, "set": {"client.*.size_scale": 10, "stage.net.scale": 5}}]
})";

// Replaces the first occurrence of `from` in `text` (kValid by default) with `to`.
std::string Edit(const std::string& from, const std::string& to, std::string text = kValid) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

// kValid with its first stage ("net") a batch stage, with `fields` (", ..." or "") added.
std::string AsBatch(const std::string& fields = "") {
  return Edit(R"("kind": "delay")", R"("kind": "batch")" + fields);
}

std::string ErrorOf(const std::string& text) {
  StatusOr<Workload> w = ParseWorkload(text, "w.json");
  EXPECT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kInvalidArgument);
  return std::string(w.status().message());
}

TEST(WorkloadTest, ParsesAValidFile) {
  StatusOr<Workload> w = ParseWorkload(kValid, "w.json");
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->stages.size(), 2u);
  EXPECT_EQ(w->stages[1].servers, 2);
  EXPECT_EQ(w->stages[1].contention_threshold, 4);
  EXPECT_EQ(w->clients[0].path, (std::vector<int>{0, 1}));
  EXPECT_EQ(w->clients[0].total_jobs, 50);
  ASSERT_EQ(w->steps.size(), 2u);
  EXPECT_EQ(w->steps[0].at_s, 10.0);  // Sorted by time.
  EXPECT_EQ(w->steps[0].changes.size(), 2u);
  EXPECT_EQ(PhaseBounds(*w), (std::vector<double>{0, 10, 20, 30}));
}

TEST(WorkloadTest, SeveralKindsOfRequestEachHaveAPath) {
  StatusOr<Workload> w = ParseWorkload(
      Edit(R"("requests_per_job": 3)",
           R"("requests_per_job": 3, "paths": [{"weight": 1, "path": ["server"]},
                                               {"weight": 3, "path": ["net", "server"]}])"),
      "w.json");
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->clients[0].paths.size(), 2u);
  EXPECT_EQ(w->clients[0].paths[0].weight, 1.0);
  EXPECT_EQ(w->clients[0].paths[1].path, (std::vector<int>{0, 1}));
}

TEST(WorkloadTest, MalformedFilesNameTheField) {
  EXPECT_NE(ErrorOf(Edit(R"("servers": 2)", R"("servers": "two")")).find("stages[1].servers"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("duration_s": 30, )", "")).find("duration_s: is required"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("concurrency": 10)", R"("concurency": 10)"))
                .find("clients[0].load.concurrency: is required"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("kind": "delay")", R"("kind": "pipe")")).find("stages[0].kind"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("mean": 45)", R"("mean": -45)")).find("stages[1].service_ms.mean"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("stage.server.servers")", R"("stage.disk.servers")"))
                .find("steps[0].set.stage.disk.servers: no stage is named \"disk\""),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("at_s": 20)", R"("at_s": 99)")).find("steps[0].at_s: must be inside"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("seed": 3,)", R"("seed": 3, "sede": 4,)")).find("sede: is not a known"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("requests_per_job": 3)", R"("requests_per_job": 3, "path": ["x"])"))
                .find("clients[0].path[0]"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"name": "w", )").find("w.json: not valid JSON"), std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("requests_per_job": 3)",
                         R"("requests_per_job": 3, "path": ["net"], "paths": [])"))
                .find("clients[0].paths: give either"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("requests_per_job": 3)",
                         R"("requests_per_job": 3, "paths": [{"weight": 1, "path": ["x"]}])"))
                .find("clients[0].paths[0].path[0]: must name a stage"),
            std::string::npos);
}

TEST(WorkloadTest, BatchStageParsesWithDefaults) {
  StatusOr<Workload> w = ParseWorkload(AsBatch(), "w.json");
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->stages[0].kind, StageSpec::Kind::kBatch);
  EXPECT_EQ(w->stages[0].max_batch, 1024);
  EXPECT_EQ(w->stages[0].per_request_ms, 0.0);
  w = ParseWorkload(Edit(R"("stage.net.scale": 5)", R"("stage.net.per_request_ms": 0.5)",
                         AsBatch(R"(, "max_batch": 16, "per_request_ms": 0.25)")),
                    "w.json");
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->stages[0].max_batch, 16);
  EXPECT_EQ(w->stages[0].per_request_ms, 0.25);
  EXPECT_EQ(w->steps[0].changes[1].param, ParamChange::Param::kPerRequestMs);
}

TEST(WorkloadTest, MalformedBatchStagesNameTheField) {
  EXPECT_NE(ErrorOf(AsBatch(R"(, "servers": 2)"))
                .find(R"(stages[0].servers: applies to "queue" stages only (a batch stage)"),
            std::string::npos);
  EXPECT_NE(ErrorOf(AsBatch(R"(, "max_batch": 0)"))
                .find("stages[0].max_batch: must be an integer in [1, 1000000], got 0"),
            std::string::npos);
  EXPECT_NE(ErrorOf(AsBatch(R"(, "per_request_ms": -1)"))
                .find("stages[0].per_request_ms: must be a number >= 0, got -1"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("servers": 2)", R"("servers": 2, "max_batch": 8)"))
                .find(R"(stages[1].max_batch: applies to "batch" stages only)"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("stage.server.servers")", R"("stage.net.servers")", AsBatch()))
                .find(R"(steps[0].set.stage.net.servers: stage "net" is a batch stage)"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("stage.net.scale")", R"("stage.server.per_request_ms")"))
                .find(R"(stage "server" is not a batch stage and has no per_request_ms)"),
            std::string::npos);
}

TEST(WorkloadTest, SetupParsesAndItsErrorsNameTheField) {
  StatusOr<Workload> w = ParseWorkload(
      Edit(R"("requests_per_job": 3)",
           R"("requests_per_job": 3, "setup_ms": {"type": "lognormal", "mean": 40, "cv": 0.5})"),
      "w.json");
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE(w->clients[0].setup_ms.has_value());
  EXPECT_NE(ErrorOf(Edit(R"("requests_per_job": 3)", R"("requests_per_job": 3, "setup_ms": -2)"))
                .find("clients[0].setup_ms"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("requests_per_job": 3)",
                         R"("requests_per_job": 3, "setup_ms": {"type": "weibull"})"))
                .find("clients[0].setup_ms.type"),
            std::string::npos);
}

TEST(WorkloadTest, ConcurrencyStepsAndAFamilyParse) {
  StatusOr<Workload> w =
      ParseWorkload(Edit(R"("stage.server.servers": 1)", R"("client.a.concurrency": 25)",
                         Edit(R"("concurrency": 10)", R"("concurrency": 0)",
                              Edit(R"("seed": 3,)", R"("seed": 3, "family": "k_servers",)"))),
                    "w.json");
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->family, "k_servers");
  EXPECT_EQ(w->clients[0].concurrency, 0);  // Starts when the step raises it.
  ASSERT_EQ(w->steps[1].changes.size(), 1u);
  EXPECT_EQ(w->steps[1].changes[0].param, ParamChange::Param::kConcurrency);
  EXPECT_EQ(w->steps[1].changes[0].value, 25.0);
  EXPECT_EQ(ParseWorkload(kValid, "w.json")->family, "");
}

TEST(WorkloadTest, MalformedConcurrencyStepsNameTheField) {
  EXPECT_NE(ErrorOf(Edit(R"("stage.server.servers": 1)", R"("client.a.concurrency": 2.5)"))
                .find("steps[0].set.client.a.concurrency: must be an integer in [0, 1000000], "
                      "got 2.5"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("stage.server.servers": 1)", R"("client.a.concurrency": -1)"))
                .find("must be an integer in [0, 1000000]"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("stage.server.servers": 1)", R"("client.*.concurrency": 4)",
                         Edit(R"("type": "closed", "concurrency": 10, "total_jobs": 50)",
                              R"("type": "open", "rate_per_s": 10)")))
                .find(R"(client "a" is open-loop and has no concurrency)"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("concurrency": 10)", R"("concurrency": -1)"))
                .find("clients[0].load.concurrency"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edit(R"("seed": 3,)", R"("seed": 3, "family": 7,)")).find("family"),
            std::string::npos);
}

TEST(WorkloadTest, EveryErrorStartsWithTheFileName) {
  EXPECT_EQ(ErrorOf(Edit(R"("servers": 2)", R"("servers": 0)")).rfind("w.json: ", 0), 0u);
}

TEST(WorkloadTest, MissingFileIsNotFound) {
  EXPECT_EQ(LoadWorkload("/nonexistent/w.json").status().code(), StatusCode::kNotFound);
}

TEST(WorkloadTest, ThePartitionWorkloadsParse) {
  const std::filesystem::path dir = std::filesystem::path(BLOBTUNE_WORKLOADS_DIR) / "partitions";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    StatusOr<Workload> w = LoadWorkload(entry.path().string());
    ASSERT_TRUE(w.ok()) << w.status();
    EXPECT_EQ(w->name, entry.path().stem().string());
    EXPECT_FALSE(w->partitions.empty()) << entry.path();
  }
  EXPECT_GE(files, 5);
}

TEST(WorkloadTest, PartitionsOfASharedLimiterAreNamedByTheClients) {
  const std::string base = R"({"name": "p", "duration_s": 10,
    "stages": [{"name": "s", "kind": "delay", "service_ms": 1}],
    PARTITIONS
    "clients": [{"name": "a", "partition": "x", "load": {"type": "closed", "concurrency": 1}},
                {"name": "b", "partition": "y", "load": {"type": "closed", "concurrency": 1}}]})";
  auto with = [&](const std::string& partitions) {
    std::string text = base;
    text.replace(text.find("PARTITIONS"), 10, partitions);
    return ParseWorkload(text, "p.json");
  };
  StatusOr<Workload> w = with(R"("partitions": [{"name": "x", "share": 0.7, "priority": 2},
                                                 {"name": "y", "share": 0.3}],)");
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->partitions.size(), 2u);
  EXPECT_EQ(w->partitions[0].priority, 2);
  EXPECT_EQ(w->clients[0].partition, 0);
  EXPECT_EQ(w->clients[1].partition, 1);

  EXPECT_NE(with(R"("partitions": [{"name": "x", "share": 0.7}],)").status().ToString().find(
                "clients[1].partition: no partition named \"y\""),
            std::string::npos);
  EXPECT_NE(with(R"("partitions": [{"name": "x", "share": 0.7}, {"name": "y", "share": 0.4}],)")
                .status()
                .ToString()
                .find("partitions: the partitions' shares add up to 1.1"),
            std::string::npos);
  EXPECT_NE(with(R"("partitions": [{"name": "x", "shre": 0.7}, {"name": "y"}],)")
                .status()
                .ToString()
                .find("partitions[0].shre"),
            std::string::npos);
  EXPECT_NE(with("").status().ToString().find(
                "clients[0].partition: names a partition, but the workload has no \"partitions\""),
            std::string::npos);
}

}  // namespace
}  // namespace blobtune::workbench
