#include "oracle_cache.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include <unistd.h>

namespace blobtune::workbench {
namespace {

using json = nlohmann::json;

// FNV-1a over the bytes of each part, with a separator so that parts cannot run together.
uint64_t Fingerprint(const std::vector<std::string>& parts) {
  uint64_t hash = 14695981039346656037ull;
  for (const std::string& part : parts) {
    for (unsigned char c : part) hash = (hash ^ c) * 1099511628211ull;
    hash = (hash ^ 0xff) * 1099511628211ull;
  }
  return hash;
}

// JSON has no infinity: a window noise that saw no window keeps its infinite goodput as null.
json Number(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }
double NumberOf(const json& value) {
  return value.is_null() ? std::numeric_limits<double>::infinity() : value.get<double>();
}

json NoiseJson(const WindowNoise& noise) {
  return {{"low_goodput", Number(noise.low_goodput)}, {"high_p99_ms", noise.high_p99_ms}};
}
WindowNoise NoiseOf(const json& j) {
  return {NumberOf(j.at("low_goodput")), j.at("high_p99_ms").get<double>()};
}

json PhaseJson(const PhaseOracle& phase) {
  json sweep = json::array();
  for (const SweepPoint& point : phase.sweep) {
    sweep.push_back({{"limit", point.limit},
                     {"throughput", point.throughput},
                     {"p50_ms", point.p50_ms},
                     {"p99_ms", point.p99_ms},
                     {"client_throughput", point.client_throughput},
                     {"window_noise", NoiseJson(point.window_noise)}});
  }
  return {{"start_s", phase.start_s},
          {"end_s", phase.end_s},
          {"limit", phase.limit},
          {"throughput", phase.throughput},
          {"p50_ms", phase.p50_ms},
          {"p99_ms", phase.p99_ms},
          {"client_throughput", phase.client_throughput},
          {"window_noise", NoiseJson(phase.window_noise)},
          {"sweep", std::move(sweep)}};
}

PhaseOracle PhaseOf(const json& j) {
  PhaseOracle phase;
  phase.start_s = j.at("start_s").get<double>();
  phase.end_s = j.at("end_s").get<double>();
  phase.limit = j.at("limit").get<int>();
  phase.throughput = j.at("throughput").get<double>();
  phase.p50_ms = j.at("p50_ms").get<double>();
  phase.p99_ms = j.at("p99_ms").get<double>();
  phase.client_throughput = j.at("client_throughput").get<std::vector<double>>();
  phase.window_noise = NoiseOf(j.at("window_noise"));
  for (const json& p : j.at("sweep")) {
    SweepPoint& point = phase.sweep.emplace_back();
    point.limit = p.at("limit").get<int>();
    point.throughput = p.at("throughput").get<double>();
    point.p50_ms = p.at("p50_ms").get<double>();
    point.p99_ms = p.at("p99_ms").get<double>();
    point.client_throughput = p.at("client_throughput").get<std::vector<double>>();
    point.window_noise = NoiseOf(p.at("window_noise"));
  }
  return phase;
}

}  // namespace

std::string OracleCache::PathOf(const Workload& workload, const OracleOptions& options) const {
  std::ostringstream settings;
  settings.precision(17);
  settings << workload.seed << ' ' << options.warmup_s << ' ' << options.measure_s << ' '
           << options.max_successes << ' ' << options.knee_fraction;
  char key[17];
  std::snprintf(key, sizeof key, "%016llx",
                static_cast<unsigned long long>(Fingerprint({workload.text, settings.str()})));
  return (std::filesystem::path(directory_) / (workload.name + "-" + key + ".json")).string();
}

std::optional<std::vector<PhaseOracle>> OracleCache::Find(const Workload& workload,
                                                          const OracleOptions& options) const {
  if (workload.text.empty()) return std::nullopt;  // Built in code: nothing to key it by.
  std::ifstream in(PathOf(workload, options));
  if (!in) return std::nullopt;
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_array()) return std::nullopt;
  std::vector<PhaseOracle> oracle;
  try {
    for (const json& phase : j) oracle.push_back(PhaseOf(phase));
  } catch (const json::exception&) {
    return std::nullopt;  // An entry of another format: computed again and replaced.
  }
  return oracle;
}

Status OracleCache::Store(const Workload& workload, const OracleOptions& options,
                          const std::vector<PhaseOracle>& oracle) const {
  if (workload.text.empty()) return Status::Ok();
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error) return Status::Internal("oracle cache " + directory_ + ": " + error.message());
  json j = json::array();
  for (const PhaseOracle& phase : oracle) j.push_back(PhaseJson(phase));
  std::string path = PathOf(workload, options);
  std::string partial = path + ".partial." + std::to_string(getpid());
  {
    std::ofstream out(partial, std::ios::trunc);
    out << j.dump();
    if (!out.flush()) return Status::Internal("oracle cache: cannot write " + partial);
  }
  std::filesystem::rename(partial, path, error);
  if (error) return Status::Internal("oracle cache: cannot write " + path + ": " + error.message());
  return Status::Ok();
}

}  // namespace blobtune::workbench
