#include "workload.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "blobtune/tuner/limiter.h"
#include "json_fields.h"

namespace blobtune::workbench {
namespace {

using nlohmann::json;

std::string Indexed(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// Parses the distribution at `key` of `r` into `out` (left alone when absent and optional).
void ReadDistribution(FieldReader& r, std::string_view key, bool required, Distribution& out) {
  const json* value = r.Get(key);
  if (value == nullptr) {
    if (required) r.Fail(key, "is required");
    return;
  }
  StatusOr<Distribution> parsed = ParseDistribution(*value, r.PathOf(key));
  if (!parsed.ok()) {
    r.Fail(parsed.status());
    return;
  }
  out = *std::move(parsed);
}

StageSpec ParseStage(const json& j, const std::string& path, FieldReader& parent) {
  FieldReader r(j, path);
  StageSpec stage;
  stage.name = r.String("name");
  std::string kind = r.String("kind");
  if (kind == "delay") {
    stage.kind = StageSpec::Kind::kDelay;
  } else if (kind == "queue") {
    stage.kind = StageSpec::Kind::kQueue;
  } else if (kind == "batch") {
    stage.kind = StageSpec::Kind::kBatch;
  } else if (r.ok()) {
    r.Fail("kind", "must be \"delay\", \"queue\" or \"batch\", got \"" + kind + "\"");
  }
  if (stage.kind == StageSpec::Kind::kQueue) {
    stage.servers = static_cast<int>(r.Int("servers", 1, 1, 1'000'000));
  } else if (r.Has("servers")) {
    r.Fail("servers", stage.kind == StageSpec::Kind::kBatch
                          ? "applies to \"queue\" stages only (a batch stage has one writer)"
                          : "applies to \"queue\" stages only (a delay stage has no servers)");
  }
  if (stage.kind == StageSpec::Kind::kBatch) {
    stage.max_batch = static_cast<int>(r.Int("max_batch", stage.max_batch, 1, 1'000'000));
    stage.per_request_ms = r.Number("per_request_ms", 0.0, 0.0);
    stage.refill_wait_ms = r.Number("refill_wait_ms", 0.0, 0.0);
  } else {
    for (std::string_view key : {"max_batch", "per_request_ms", "refill_wait_ms"}) {
      if (r.Has(key)) r.Fail(key, "applies to \"batch\" stages only");
    }
  }
  ReadDistribution(r, "service_ms", /*required=*/true, stage.service_ms);
  stage.per_mib_ms = r.Number("per_mib_ms", 0.0, 0.0);
  stage.per_wait_ms = r.Number("per_wait_ms", 0.0, 0.0);
  stage.scale = r.Number("scale", 1.0, 1e-9);
  if (const json* contention = r.Get("contention")) {
    FieldReader c(*contention, r.PathOf("contention"));
    stage.contention_threshold = static_cast<int>(c.Int("threshold", std::nullopt, 0, 1'000'000));
    stage.contention_slowdown = c.Number("slowdown", std::nullopt, 0.0, 100.0);
    c.RejectUnknownFields();
    r.Fail(c.status());
  }
  r.RejectUnknownFields();
  parent.Fail(r.status());
  return stage;
}

void ParseLoad(const json& j, const std::string& path, ClientSpec& client, FieldReader& parent) {
  FieldReader r(j, path);
  std::string type = r.String("type");
  if (type == "closed") {
    client.load = ClientSpec::Load::kClosed;
    // 0: the client starts when a step raises its concurrency.
    client.concurrency = static_cast<int>(r.Int("concurrency", std::nullopt, 0, 1'000'000));
    if (r.Has("total_jobs")) client.total_jobs = r.Int("total_jobs", std::nullopt, 1);
  } else if (type == "open") {
    client.load = ClientSpec::Load::kOpen;
    client.rate_per_s = r.Number("rate_per_s", std::nullopt, 0.0, 1e7);
  } else if (r.ok()) {
    r.Fail("type", "must be \"closed\" or \"open\", got \"" + type + "\"");
  }
  r.RejectUnknownFields();
  parent.Fail(r.status());
}

void ParseFailures(const json& j, const std::string& path, FailureSpec& failures,
                   FieldReader& parent) {
  FieldReader r(j, path);
  failures.error_fraction = r.Number("error_fraction", 0.0, 0.0, 1.0);
  ReadDistribution(r, "error_ms", /*required=*/false, failures.error_ms);
  failures.hang_fraction = r.Number("hang_fraction", 0.0, 0.0, 1.0);
  failures.hang_ms = r.Number("hang_ms", failures.hang_ms, 0.0);
  if (r.ok() && failures.error_fraction + failures.hang_fraction > 1.0) {
    r.Fail("hang_fraction", "error_fraction + hang_fraction must be <= 1");
  }
  r.RejectUnknownFields();
  parent.Fail(r.status());
}

int StageIndex(const std::vector<StageSpec>& stages, std::string_view name) {
  for (size_t i = 0; i < stages.size(); ++i) {
    if (stages[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// The stage indices of a path (a non-empty array of stage names); failures go to `r`.
std::vector<int> ParsePath(const json& j, const std::string& path,
                           const std::vector<StageSpec>& stages, FieldReader& r) {
  std::vector<int> indices;
  if (!j.is_array() || j.empty()) {
    r.Fail(Status::InvalidArgument(path + ": must be a non-empty array of stage names, " +
                                   Describe(j)));
    return indices;
  }
  for (size_t i = 0; i < j.size() && r.ok(); ++i) {
    const json& name = j.at(i);
    int stage = name.is_string() ? StageIndex(stages, name.get<std::string>()) : -1;
    if (stage < 0) {
      r.Fail(Status::InvalidArgument(Indexed(path, i) + ": must name a stage, " +
                                     Describe(name)));
    }
    indices.push_back(stage);
  }
  return indices;
}

// The partitions of a shared limiter, and the one each client names (read after the clients,
// whose "partition" field is kept in `partition_names`).
void ParsePartitions(const json& j, Workload& w, FieldReader& parent) {
  if (!j.is_array() || j.empty()) {
    parent.Fail("partitions", "must be a non-empty array of {\"name\", \"share\", \"priority\"}, " +
                                  Describe(j));
    return;
  }
  for (size_t i = 0; parent.ok() && i < j.size(); ++i) {
    FieldReader r(j[i], Indexed("partitions", i));
    tuner::PartitionOptions p;
    p.name = r.String("name");
    p.share = r.Number("share", 0.0, 0.0, 1.0);
    p.priority = static_cast<int>(r.Int("priority", 0, -1000, 1000));
    r.RejectUnknownFields();
    parent.Fail(r.status());
    w.partitions.push_back(std::move(p));
  }
  if (!parent.ok()) return;
  tuner::LimiterOptions options;
  options.partitions = w.partitions;
  if (Status valid = options.Validate(); !valid.ok()) {
    parent.Fail(valid.WithContext("partitions"));
    return;
  }
  for (size_t c = 0; c < w.clients.size(); ++c) {
    ClientSpec& client = w.clients[c];
    for (size_t p = 0; p < w.partitions.size(); ++p) {
      if (w.partitions[p].name == client.partition_name) client.partition = static_cast<int>(p);
    }
    if (client.partition < 0) {
      parent.Fail(Status::InvalidArgument(
          Indexed("clients", c) + ".partition: " +
          (client.partition_name.empty() ? std::string("is required with \"partitions\"")
                                         : "no partition named \"" + client.partition_name + "\"")));
      return;
    }
  }
}

ClientSpec ParseClient(const json& j, const std::string& path, size_t index,
                       const std::vector<StageSpec>& stages, FieldReader& parent) {
  FieldReader r(j, path);
  ClientSpec client;
  client.name = r.String("name", "client" + std::to_string(index));
  client.partition_name = r.String("partition", "");
  if (const json* load = r.Get("load")) {
    ParseLoad(*load, r.PathOf("load"), client, r);
  } else {
    r.Fail("load", "is required ({\"type\": \"closed\", ...} or {\"type\": \"open\", ...})");
  }
  if (r.Has("deadline_ms")) client.deadline_ms = r.Number("deadline_ms", std::nullopt, 1e-6);
  std::string order = r.String("queue_order", "fifo");
  if (order != "fifo" && order != "lifo") {
    r.Fail("queue_order", "must be \"fifo\" or \"lifo\", got \"" + order + "\"");
  }
  client.lifo = order == "lifo";
  if (r.Has("max_queue")) {
    client.max_queue = r.Int("max_queue", std::nullopt, 0);
    // A closed-loop job that is rejected would start again at once, forever.
    if (r.ok() && client.load != ClientSpec::Load::kOpen) {
      r.Fail("max_queue", "applies to open-loop clients only");
    }
  }
  client.requests_per_job = static_cast<int>(r.Int("requests_per_job", 1, 1, 1000));
  if (r.Has("work_ms")) {
    Distribution work;
    ReadDistribution(r, "work_ms", /*required=*/true, work);
    client.work_ms = work;
  }
  if (r.Has("setup_ms")) {
    Distribution setup;
    ReadDistribution(r, "setup_ms", /*required=*/true, setup);
    client.setup_ms = setup;
  }
  ReadDistribution(r, "size_bytes", /*required=*/false, client.size_bytes);
  client.size_scale = r.Number("size_scale", 1.0, 0.0);
  if (const json* failures = r.Get("failures")) {
    ParseFailures(*failures, r.PathOf("failures"), client.failures, r);
  }
  if (const json* path_json = r.Get("path")) {
    client.path = ParsePath(*path_json, r.PathOf("path"), stages, r);
    if (r.Has("paths")) r.Fail("paths", "give either \"path\" or \"paths\", not both");
  } else if (const json* paths = r.Get("paths")) {
    if (!paths->is_array() || paths->empty()) {
      r.Fail("paths", "must be a non-empty array of {\"weight\": w, \"path\": [...]}, " +
                          Describe(*paths));
    }
    for (size_t i = 0; r.ok() && i < paths->size(); ++i) {
      FieldReader p(paths->at(i), Indexed(r.PathOf("paths"), i));
      ClientSpec::WeightedPath kind;
      kind.weight = p.Number("weight", std::nullopt, 1e-9);
      if (const json* kind_path = p.Get("path")) {
        kind.path = ParsePath(*kind_path, p.PathOf("path"), stages, p);
      } else {
        p.Fail("path", "is required");
      }
      p.RejectUnknownFields();
      r.Fail(p.status());
      client.paths.push_back(std::move(kind));
    }
    if (r.ok()) client.path = client.paths.front().path;
  } else {
    for (size_t i = 0; i < stages.size(); ++i) client.path.push_back(static_cast<int>(i));
  }
  r.RejectUnknownFields();
  parent.Fail(r.status());
  return client;
}

struct ParamName {
  std::string_view name;
  bool is_stage;
  ParamChange::Param param;
};
constexpr ParamName kParams[] = {
    {"servers", true, ParamChange::Param::kServers},
    {"scale", true, ParamChange::Param::kScale},
    {"per_mib_ms", true, ParamChange::Param::kPerMibMs},
    {"per_request_ms", true, ParamChange::Param::kPerRequestMs},
    {"rate_per_s", false, ParamChange::Param::kRatePerS},
    {"size_scale", false, ParamChange::Param::kSizeScale},
    {"error_fraction", false, ParamChange::Param::kErrorFraction},
    {"hang_fraction", false, ParamChange::Param::kHangFraction},
    {"concurrency", false, ParamChange::Param::kConcurrency},
};

// "stage.<name>.<param>" or "client.<name|*>.<param>" with a value.
Status ParseChange(const std::string& target, const json& value, const std::string& path,
                   const Workload& w, ParamChange& change) {
  auto fail = [&](const std::string& what) {
    return Status::InvalidArgument(path + ": " + what);
  };
  size_t first = target.find('.');
  size_t last = target.rfind('.');
  if (first == std::string::npos || first == last) {
    return fail("must look like \"stage.<name>.<param>\" or \"client.<name>.<param>\"");
  }
  std::string kind = target.substr(0, first);
  std::string name = target.substr(first + 1, last - first - 1);
  std::string param = target.substr(last + 1);
  if (kind != "stage" && kind != "client") return fail("must start with \"stage.\" or \"client.\"");
  change.is_stage = kind == "stage";
  change.target = target;
  const ParamName* found = nullptr;
  for (const ParamName& p : kParams) {
    if (p.name == param && p.is_stage == change.is_stage) found = &p;
  }
  if (found == nullptr) {
    return fail(change.is_stage
                    ? "a stage's steppable parameters are servers, scale, per_mib_ms, "
                      "per_request_ms"
                    : "a client's steppable parameters are rate_per_s, size_scale, "
                      "error_fraction, hang_fraction, concurrency");
  }
  change.param = found->param;
  if (change.is_stage) {
    int stage = StageIndex(w.stages, name);
    if (stage < 0) return fail("no stage is named \"" + name + "\"");
    StageSpec::Kind stage_kind = w.stages[static_cast<size_t>(stage)].kind;
    if (change.param == ParamChange::Param::kServers && stage_kind != StageSpec::Kind::kQueue) {
      return fail("stage \"" + name + "\" is a " +
                  (stage_kind == StageSpec::Kind::kBatch ? "batch stage and has one writer"
                                                         : "delay stage and has no servers"));
    }
    if (change.param == ParamChange::Param::kPerRequestMs &&
        stage_kind != StageSpec::Kind::kBatch) {
      return fail("stage \"" + name + "\" is not a batch stage and has no per_request_ms");
    }
    change.indices.push_back(stage);
  } else {
    for (size_t i = 0; i < w.clients.size(); ++i) {
      if (name == "*" || w.clients[i].name == name) change.indices.push_back(static_cast<int>(i));
    }
    if (change.indices.empty()) return fail("no client is named \"" + name + "\"");
    if (change.param == ParamChange::Param::kConcurrency) {
      for (int client : change.indices) {
        const ClientSpec& spec = w.clients[static_cast<size_t>(client)];
        if (spec.load != ClientSpec::Load::kClosed) {
          return fail("client \"" + spec.name + "\" is open-loop and has no concurrency");
        }
      }
    }
  }
  bool fraction = change.param == ParamChange::Param::kErrorFraction ||
                  change.param == ParamChange::Param::kHangFraction;
  bool concurrency = change.param == ParamChange::Param::kConcurrency;
  bool integral = change.param == ParamChange::Param::kServers || concurrency;
  double min = change.param == ParamChange::Param::kServers ? 1.0 : 0.0;
  double max = fraction ? 1.0 : integral ? 1'000'000.0 : std::numeric_limits<double>::infinity();
  if (!value.is_number() || value.get<double>() < min || value.get<double>() > max ||
      (integral && value.get<double>() != std::floor(value.get<double>()))) {
    return fail(std::string("must be ") +
                (concurrency ? "an integer in [0, 1000000]"
                 : integral  ? "an integer in [1, 1000000]"
                 : fraction  ? "a number in [0, 1]"
                             : "a number >= 0") +
                ", " + Describe(value));
  }
  change.value = value.get<double>();
  return Status::Ok();
}

void ParseSteps(const json& j, const std::string& path, Workload& w, FieldReader& parent) {
  if (!j.is_array()) {
    parent.Fail("steps", "must be an array, " + Describe(j));
    return;
  }
  for (size_t i = 0; i < j.size() && parent.ok(); ++i) {
    FieldReader r(j[i], Indexed(path, i));
    StepSpec step;
    step.at_s = r.Number("at_s", std::nullopt, 0.0);
    if (r.ok() && !(step.at_s > 0.0 && step.at_s < w.duration_s)) {
      r.Fail("at_s", "must be inside (0, duration_s), " + Describe(j[i]["at_s"]));
    }
    const json* set = r.Get("set");
    if (set == nullptr || !set->is_object() || set->empty()) {
      r.Fail("set", "must be a non-empty object of {\"stage.<name>.<param>\": value}");
    } else {
      for (const auto& [target, value] : set->items()) {
        ParamChange change;
        Status s = ParseChange(target, value, r.PathOf("set") + "." + target, w, change);
        if (!s.ok()) {
          r.Fail(s);
          break;
        }
        step.changes.push_back(std::move(change));
      }
    }
    r.RejectUnknownFields();
    parent.Fail(r.status());
    w.steps.push_back(std::move(step));
  }
  std::stable_sort(w.steps.begin(), w.steps.end(),
                   [](const StepSpec& a, const StepSpec& b) { return a.at_s < b.at_s; });
}

}  // namespace

StatusOr<Workload> ParseWorkload(std::string_view json_text, std::string_view origin) {
  json j = json::parse(json_text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (j.is_discarded()) {
    // Parse again with exceptions for the position of the error; the message stays local.
    std::string where;
    try {
      [[maybe_unused]] json reparsed = json::parse(json_text, nullptr, true, true);
    } catch (const json::parse_error& e) {
      where = e.what();
    }
    return Status::InvalidArgument(std::string(origin) + ": not valid JSON: " + where);
  }
  Workload w;
  FieldReader r(j, "");
  w.name = r.String("name");
  w.description = r.String("description", "");
  w.family = r.String("family", "");
  w.duration_s = r.Number("duration_s", std::nullopt, 0.001, 86400.0);
  w.seed = static_cast<uint64_t>(r.Int("seed", 1, 0));
  w.max_limit = static_cast<int>(r.Int("max_limit", 1000, 1, 100'000));
  w.initial_limit = static_cast<int>(r.Int("initial_limit", 0, 0, 100'000));
  const json* stages = r.Get("stages");
  if (r.ok() && (stages == nullptr || !stages->is_array() || stages->empty())) {
    r.Fail("stages", "must be a non-empty array of stages");
  }
  std::set<std::string> names;
  for (size_t i = 0; r.ok() && i < stages->size(); ++i) {
    w.stages.push_back(ParseStage(stages->at(i), Indexed("stages", i), r));
    if (r.ok() && !names.insert(w.stages.back().name).second) {
      r.Fail(Status::InvalidArgument(Indexed("stages", i) + ".name: \"" + w.stages.back().name +
                                     "\" is used twice"));
    }
  }
  const json* clients = r.Get("clients");
  if (r.ok() && (clients == nullptr || !clients->is_array() || clients->empty())) {
    r.Fail("clients", "must be a non-empty array of clients");
  }
  names.clear();
  for (size_t i = 0; r.ok() && i < clients->size(); ++i) {
    w.clients.push_back(ParseClient(clients->at(i), Indexed("clients", i), i, w.stages, r));
    if (r.ok() && !names.insert(w.clients.back().name).second) {
      r.Fail(Status::InvalidArgument(Indexed("clients", i) + ".name: \"" + w.clients.back().name +
                                     "\" is used twice"));
    }
  }
  if (r.ok()) {
    if (const json* partitions = r.Get("partitions")) ParsePartitions(*partitions, w, r);
  }
  for (size_t c = 0; r.ok() && w.partitions.empty() && c < w.clients.size(); ++c) {
    if (!w.clients[c].partition_name.empty()) {
      r.Fail(Status::InvalidArgument(Indexed("clients", c) +
                                     ".partition: names a partition, but the workload has no "
                                     "\"partitions\""));
    }
  }
  if (r.ok()) {
    if (const json* steps = r.Get("steps")) ParseSteps(*steps, "steps", w, r);
  }
  r.RejectUnknownFields();
  if (!r.ok()) return r.status().WithContext(origin);
  w.text = json_text;
  return w;
}

StatusOr<Workload> LoadWorkload(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::NotFound(file + ": cannot open the workload file");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseWorkload(text.str(), file);
}

void ApplyChange(const ParamChange& change, std::vector<StageSpec>& stages,
                 std::vector<ClientSpec>& clients) {
  for (int index : change.indices) {
    auto i = static_cast<size_t>(index);
    switch (change.param) {
      case ParamChange::Param::kServers:
        stages[i].servers = static_cast<int>(change.value);
        break;
      case ParamChange::Param::kScale:
        stages[i].scale = change.value;
        break;
      case ParamChange::Param::kPerMibMs:
        stages[i].per_mib_ms = change.value;
        break;
      case ParamChange::Param::kPerRequestMs:
        stages[i].per_request_ms = change.value;
        break;
      case ParamChange::Param::kRatePerS:
        clients[i].rate_per_s = change.value;
        break;
      case ParamChange::Param::kSizeScale:
        clients[i].size_scale = change.value;
        break;
      case ParamChange::Param::kErrorFraction:
        clients[i].failures.error_fraction = change.value;
        break;
      case ParamChange::Param::kHangFraction:
        clients[i].failures.hang_fraction = change.value;
        break;
      case ParamChange::Param::kConcurrency:
        clients[i].concurrency = static_cast<int>(change.value);
        break;
    }
  }
}

std::vector<double> PhaseBounds(const Workload& workload) {
  std::vector<double> bounds = {0.0};
  for (const StepSpec& step : workload.steps) {
    if (step.at_s > bounds.back()) bounds.push_back(step.at_s);
  }
  bounds.push_back(workload.duration_s);
  return bounds;
}

}  // namespace blobtune::workbench
