#include "blobtune/tuner/algorithm_registry.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <ratio>
#include <system_error>
#include <utility>

#include "blobtune/tuner/algorithms/aimd.h"
#include "blobtune/tuner/algorithms/fixed.h"
#include "blobtune/tuner/algorithms/gradient.h"
#include "blobtune/tuner/algorithms/gradient2.h"
#include "blobtune/tuner/algorithms/knee.h"
#include "blobtune/tuner/algorithms/marginal.h"
#include "blobtune/tuner/algorithms/plateau.h"
#include "blobtune/tuner/algorithms/vegas.h"

namespace blobtune::tuner {
namespace {

using ParamMap = std::map<std::string, double, std::less<>>;

// ---- Parameter setters: one numeric value into one Options field. ----

template <typename Options>
struct Param {
  std::string_view name;
  Status (*set)(Options& options, std::string_view name, double value);
};

std::string Quote(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string FormatNumber(double value) {
  std::array<char, 32> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return ec == std::errc() ? std::string(buffer.data(), end) : std::string("?");
}

Status SetInt(int& field, std::string_view name, double value) {
  if (std::trunc(value) != value || value < std::numeric_limits<int>::min() ||
      value > std::numeric_limits<int>::max()) {
    return Status::InvalidArgument("parameter " + Quote(name) + " must be an integer (got " +
                                   FormatNumber(value) + ")");
  }
  field = static_cast<int>(value);
  return Status::Ok();
}

Status SetDouble(double& field, std::string_view /*name*/, double value) {
  field = value;  // Range checks belong to Options::Validate().
  return Status::Ok();
}

// An enum class whose values are 0, 1, ..., count - 1 in declaration order.
template <typename Enum>
Status SetEnum(Enum& field, std::string_view name, double value, int count,
               std::string_view meanings) {
  if (std::trunc(value) != value || value < 0 || value >= count) {
    return Status::InvalidArgument("parameter " + Quote(name) + " must be one of " +
                                   std::string(meanings) + " (got " + FormatNumber(value) + ")");
  }
  field = static_cast<Enum>(static_cast<int>(value));
  return Status::Ok();
}

Status SetSeed(uint64_t& field, std::string_view name, double value) {
  constexpr double kMaxExact = 9007199254740992.0;  // 2^53: every integer below is exact.
  if (std::trunc(value) != value || value < 0 || value > kMaxExact) {
    return Status::InvalidArgument("parameter " + Quote(name) +
                                   " must be an integer in [0, 2^53] (got " + FormatNumber(value) +
                                   ")");
  }
  field = static_cast<uint64_t>(value);
  return Status::Ok();
}

// `value` counts `Unit`s (std::milli for a *_ms parameter).
template <typename Unit>
Status SetDuration(Duration& field, std::string_view name, double value) {
  const double nanos = value * (1e9 * Unit::num / Unit::den);
  // 9e18 ns is about 285 years; anything larger would overflow the 64-bit count.
  if (!(std::abs(nanos) < 9e18)) {
    return Status::InvalidArgument("parameter " + Quote(name) + " is out of range (got " +
                                   FormatNumber(value) + ")");
  }
  field = Duration(static_cast<Duration::rep>(std::llround(nanos)));
  return Status::Ok();
}

// ---- The parameters of each algorithm: its Options fields, durations suffixed by unit. ----

constexpr std::array<Param<FixedLimit::Options>, 1> kFixedParams{{
    {"limit", [](auto& o, auto n, double v) { return SetInt(o.limit, n, v); }},
}};

constexpr std::array<Param<AimdLimit::Options>, 5> kAimdParams{{
    {"initial_limit", [](auto& o, auto n, double v) { return SetInt(o.initial_limit, n, v); }},
    {"min_limit", [](auto& o, auto n, double v) { return SetInt(o.min_limit, n, v); }},
    {"max_limit", [](auto& o, auto n, double v) { return SetInt(o.max_limit, n, v); }},
    {"backoff_ratio", [](auto& o, auto n, double v) { return SetDouble(o.backoff_ratio, n, v); }},
    {"timeout_ms",
     [](auto& o, auto n, double v) { return SetDuration<std::milli>(o.timeout, n, v); }},
}};

constexpr std::array<Param<Gradient2Limit::Options>, 11> kGradient2Params{{
    {"initial_limit", [](auto& o, auto n, double v) { return SetInt(o.initial_limit, n, v); }},
    {"min_limit", [](auto& o, auto n, double v) { return SetInt(o.min_limit, n, v); }},
    {"max_limit", [](auto& o, auto n, double v) { return SetInt(o.max_limit, n, v); }},
    {"smoothing", [](auto& o, auto n, double v) { return SetDouble(o.smoothing, n, v); }},
    {"queue_size", [](auto& o, auto n, double v) { return SetInt(o.queue_size, n, v); }},
    {"long_window", [](auto& o, auto n, double v) { return SetInt(o.long_window, n, v); }},
    {"rtt_tolerance", [](auto& o, auto n, double v) { return SetDouble(o.rtt_tolerance, n, v); }},
    {"window_size", [](auto& o, auto n, double v) { return SetInt(o.window_size, n, v); }},
    {"min_window_time_ms",
     [](auto& o, auto n, double v) { return SetDuration<std::milli>(o.min_window_time, n, v); }},
    {"max_window_time_ms",
     [](auto& o, auto n, double v) { return SetDuration<std::milli>(o.max_window_time, n, v); }},
    {"min_rtt_threshold_ms",
     [](auto& o, auto n, double v) { return SetDuration<std::milli>(o.min_rtt_threshold, n, v); }},
}};

constexpr std::array<Param<VegasLimit::Options>, 9> kVegasParams{{
    {"initial_limit", [](auto& o, auto n, double v) { return SetInt(o.initial_limit, n, v); }},
    {"min_limit", [](auto& o, auto n, double v) { return SetInt(o.min_limit, n, v); }},
    {"max_limit", [](auto& o, auto n, double v) { return SetInt(o.max_limit, n, v); }},
    {"smoothing", [](auto& o, auto n, double v) { return SetDouble(o.smoothing, n, v); }},
    {"alpha_factor", [](auto& o, auto n, double v) { return SetDouble(o.alpha_factor, n, v); }},
    {"beta_factor", [](auto& o, auto n, double v) { return SetDouble(o.beta_factor, n, v); }},
    {"threshold_factor",
     [](auto& o, auto n, double v) { return SetDouble(o.threshold_factor, n, v); }},
    {"probe_multiplier",
     [](auto& o, auto n, double v) { return SetInt(o.probe_multiplier, n, v); }},
    {"seed", [](auto& o, auto n, double v) { return SetSeed(o.seed, n, v); }},
}};

constexpr std::array<Param<EnvoyGradientLimit::Options>, 11> kEnvoyGradientParams{{
    {"initial_limit", [](auto& o, auto n, double v) { return SetInt(o.initial_limit, n, v); }},
    {"min_limit", [](auto& o, auto n, double v) { return SetInt(o.min_limit, n, v); }},
    {"max_limit", [](auto& o, auto n, double v) { return SetInt(o.max_limit, n, v); }},
    {"concurrency_update_interval_ms",
     [](auto& o, auto n, double v) {
       return SetDuration<std::milli>(o.concurrency_update_interval, n, v);
     }},
    {"sample_aggregate_percentile",
     [](auto& o, auto n, double v) { return SetDouble(o.sample_aggregate_percentile, n, v); }},
    {"min_rtt_calc_interval_ms",
     [](auto& o, auto n, double v) {
       return SetDuration<std::milli>(o.min_rtt_calc_interval, n, v);
     }},
    {"min_rtt_request_count",
     [](auto& o, auto n, double v) { return SetInt(o.min_rtt_request_count, n, v); }},
    {"jitter_percent", [](auto& o, auto n, double v) { return SetDouble(o.jitter_percent, n, v); }},
    {"min_concurrency", [](auto& o, auto n, double v) { return SetInt(o.min_concurrency, n, v); }},
    {"buffer_percent", [](auto& o, auto n, double v) { return SetDouble(o.buffer_percent, n, v); }},
    {"seed", [](auto& o, auto n, double v) { return SetSeed(o.seed, n, v); }},
}};

constexpr std::array<Param<KneeLimit::Options>, 15> kKneeParams{{
    {"initial_limit", [](auto& o, auto n, double v) { return SetInt(o.initial_limit, n, v); }},
    {"min_limit", [](auto& o, auto n, double v) { return SetInt(o.min_limit, n, v); }},
    {"max_limit", [](auto& o, auto n, double v) { return SetInt(o.max_limit, n, v); }},
    {"headroom", [](auto& o, auto n, double v) { return SetDouble(o.headroom, n, v); }},
    {"headroom_per_cv",
     [](auto& o, auto n, double v) { return SetDouble(o.headroom_per_cv, n, v); }},
    {"headroom_per_gap_deviation",
     [](auto& o, auto n, double v) { return SetDouble(o.headroom_per_gap_deviation, n, v); }},
    {"max_headroom", [](auto& o, auto n, double v) { return SetDouble(o.max_headroom, n, v); }},
    {"smoothing", [](auto& o, auto n, double v) { return SetDouble(o.smoothing, n, v); }},
    {"window_rtts", [](auto& o, auto n, double v) { return SetDouble(o.window_rtts, n, v); }},
    {"min_window_samples",
     [](auto& o, auto n, double v) { return SetInt(o.min_window_samples, n, v); }},
    {"max_window_time_ms",
     [](auto& o, auto n, double v) { return SetDuration<std::milli>(o.max_window_time, n, v); }},
    {"max_decrease", [](auto& o, auto n, double v) { return SetDouble(o.max_decrease, n, v); }},
    {"growth_factor", [](auto& o, auto n, double v) { return SetDouble(o.growth_factor, n, v); }},
    {"growth_tolerance",
     [](auto& o, auto n, double v) { return SetDouble(o.growth_tolerance, n, v); }},
    {"climb",
     [](auto& o, auto n, double v) {
       return SetEnum(o.climb, n, v, 3, "0 (never), 1 (when batched), 2 (always)");
     }},
}};

constexpr std::array<Param<PlateauLimit::Options>, 9> kPlateauParams{{
    {"initial_limit", [](auto& o, auto n, double v) { return SetInt(o.initial_limit, n, v); }},
    {"min_limit", [](auto& o, auto n, double v) { return SetInt(o.min_limit, n, v); }},
    {"max_limit", [](auto& o, auto n, double v) { return SetInt(o.max_limit, n, v); }},
    {"step", [](auto& o, auto n, double v) { return SetDouble(o.step, n, v); }},
    {"min_elasticity",
     [](auto& o, auto n, double v) { return SetDouble(o.min_elasticity, n, v); }},
    {"window_rtts", [](auto& o, auto n, double v) { return SetDouble(o.window_rtts, n, v); }},
    {"window_samples", [](auto& o, auto n, double v) { return SetInt(o.window_samples, n, v); }},
    {"confidence", [](auto& o, auto n, double v) { return SetDouble(o.confidence, n, v); }},
    {"probe_interval", [](auto& o, auto n, double v) { return SetInt(o.probe_interval, n, v); }},
}};

constexpr std::array<Param<MarginalLimit::Options>, 9> kMarginalParams{{
    {"initial_limit", [](auto& o, auto n, double v) { return SetInt(o.initial_limit, n, v); }},
    {"min_limit", [](auto& o, auto n, double v) { return SetInt(o.min_limit, n, v); }},
    {"max_limit", [](auto& o, auto n, double v) { return SetInt(o.max_limit, n, v); }},
    {"threshold", [](auto& o, auto n, double v) { return SetDouble(o.threshold, n, v); }},
    {"probe", [](auto& o, auto n, double v) { return SetDouble(o.probe, n, v); }},
    {"cycle", [](auto& o, auto n, double v) { return SetInt(o.cycle, n, v); }},
    {"step", [](auto& o, auto n, double v) { return SetDouble(o.step, n, v); }},
    {"confidence", [](auto& o, auto n, double v) { return SetDouble(o.confidence, n, v); }},
    {"startup_gain", [](auto& o, auto n, double v) { return SetDouble(o.startup_gain, n, v); }},
}};

// ---- The registry: one row per algorithm. Add a row (and a parameter table) to register one. --

template <const auto& kParams>
std::vector<std::string_view> ParamNames() {
  std::vector<std::string_view> names;
  for (const auto& param : kParams) names.push_back(param.name);
  return names;
}

std::string Join(const std::vector<std::string_view>& names) {
  std::string joined;
  for (std::string_view name : names) {
    if (!joined.empty()) joined += ", ";
    joined += name;
  }
  return joined;
}

template <typename Algorithm, const auto& kParams>
StatusOr<std::unique_ptr<LimitAlgorithm>> Build(std::string_view algorithm,
                                                const ParamMap& values) {
  typename Algorithm::Options options;
  for (const auto& entry : values) {
    // Named references rather than a structured binding: clang 14 cannot capture bindings.
    const std::string& key = entry.first;
    const double value = entry.second;
    const auto* param = std::find_if(kParams.begin(), kParams.end(),
                                     [&key](const auto& p) { return p.name == key; });
    if (param == kParams.end()) {
      return Status::InvalidArgument(std::string(algorithm) + ": unknown parameter " + Quote(key) +
                                     "; valid: " + Join(ParamNames<kParams>()));
    }
    if (Status status = param->set(options, key, value); !status.ok()) {
      return status.WithContext(algorithm);
    }
  }
  StatusOr<Algorithm> built = Algorithm::Create(options);
  if (!built.ok()) return built.status();
  return std::unique_ptr<LimitAlgorithm>(std::make_unique<Algorithm>(std::move(*built)));
}

struct RegistryEntry {
  std::string_view name;
  StatusOr<std::unique_ptr<LimitAlgorithm>> (*build)(std::string_view, const ParamMap&);
  std::vector<std::string_view> (*param_names)();
};

constexpr std::array<RegistryEntry, 8> kRegistry{{
    {"fixed", &Build<FixedLimit, kFixedParams>, &ParamNames<kFixedParams>},
    {"aimd", &Build<AimdLimit, kAimdParams>, &ParamNames<kAimdParams>},
    {"gradient", &Build<EnvoyGradientLimit, kEnvoyGradientParams>,
     &ParamNames<kEnvoyGradientParams>},
    {"gradient2", &Build<Gradient2Limit, kGradient2Params>, &ParamNames<kGradient2Params>},
    {"vegas", &Build<VegasLimit, kVegasParams>, &ParamNames<kVegasParams>},
    {"knee", &Build<KneeLimit, kKneeParams>, &ParamNames<kKneeParams>},
    {"plateau", &Build<PlateauLimit, kPlateauParams>, &ParamNames<kPlateauParams>},
    {"marginal", &Build<MarginalLimit, kMarginalParams>, &ParamNames<kMarginalParams>},
}};

const RegistryEntry* FindEntry(std::string_view name) {
  for (const RegistryEntry& entry : kRegistry) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

// ---- Spec text. ----

std::string_view Trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\r";
  const size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

bool IsIdentifier(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

StatusOr<double> ParseNumber(std::string_view key, std::string_view text) {
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);  // from_chars has no '+'.
  double value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
      !std::isfinite(value)) {
    return Status::InvalidArgument("parameter " + Quote(key) + " has value " + Quote(text) +
                                   ", which is not a finite number");
  }
  return value;
}

}  // namespace

StatusOr<AlgorithmSpec> ParseAlgorithmSpec(std::string_view text) {
  const size_t colon = text.find(':');
  AlgorithmSpec spec;
  spec.name = std::string(Trim(text.substr(0, colon)));
  if (spec.name.empty()) {
    return Status::InvalidArgument("algorithm spec " + Quote(text) +
                                   " has an empty name; expected name or name:key=value,...");
  }
  if (!IsIdentifier(spec.name)) {
    return Status::InvalidArgument("algorithm name " + Quote(spec.name) +
                                   " may contain only a-z, 0-9 and '_'");
  }
  if (colon == std::string_view::npos) return spec;

  std::string_view rest = text.substr(colon + 1);
  if (Trim(rest).empty()) {
    return Status::InvalidArgument("algorithm spec " + Quote(text) +
                                   " has ':' but no parameters after it");
  }
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = Trim(rest.substr(0, comma));
    const size_t equals = item.find('=');
    if (item.empty()) {
      return Status::InvalidArgument("algorithm spec " + Quote(text) + " has an empty parameter");
    }
    if (equals == std::string_view::npos) {
      return Status::InvalidArgument("parameter " + Quote(item) + " has no '=value'");
    }
    const std::string_view key = Trim(item.substr(0, equals));
    if (!IsIdentifier(key)) {
      return Status::InvalidArgument("parameter name " + Quote(key) + " in " + Quote(text) +
                                     " must be non-empty and contain only a-z, 0-9 and '_'");
    }
    StatusOr<double> value = ParseNumber(key, Trim(item.substr(equals + 1)));
    if (!value.ok()) return value.status();
    if (!spec.params.emplace(std::string(key), *value).second) {
      return Status::InvalidArgument("parameter " + Quote(key) + " is given twice in " +
                                     Quote(text));
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return spec;
}

std::string AlgorithmSpecToString(const AlgorithmSpec& spec) {
  std::string text = spec.name;
  char separator = ':';
  for (const auto& [key, value] : spec.params) {
    text += separator;
    text += key;
    text += '=';
    text += FormatNumber(value);
    separator = ',';
  }
  return text;
}

StatusOr<std::unique_ptr<LimitAlgorithm>> MakeAlgorithm(const AlgorithmSpec& spec) {
  const RegistryEntry* entry = FindEntry(spec.name);
  if (entry == nullptr) {
    return Status::InvalidArgument("unknown limit algorithm " + Quote(spec.name) +
                                   "; valid: " + Join(AlgorithmNames()));
  }
  return entry->build(entry->name, spec.params);
}

std::vector<std::string_view> AlgorithmNames() {
  std::vector<std::string_view> names;
  for (const RegistryEntry& entry : kRegistry) names.push_back(entry.name);
  return names;
}

std::vector<std::string_view> AlgorithmParamNames(std::string_view algorithm) {
  const RegistryEntry* entry = FindEntry(algorithm);
  return entry == nullptr ? std::vector<std::string_view>{} : entry->param_names();
}

std::unique_ptr<LimitAlgorithm> MakeDefaultAlgorithm() {
  // The defaults are valid (a registry test checks it), so value() cannot fail here.
  return std::make_unique<MarginalLimit>(MarginalLimit::Create({}).value());
}

StatusOr<std::unique_ptr<LimitAlgorithm>> MakeAlgorithmFromText(std::string_view text) {
  StatusOr<AlgorithmSpec> spec = ParseAlgorithmSpec(text);
  if (!spec.ok()) return spec.status();
  return MakeAlgorithm(*spec);
}

}  // namespace blobtune::tuner
