#include "blobtune/tuner/algorithm_registry.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "algorithm_internal.h"
#include "blobtune/base/text.h"
#include "option_table.h"

namespace blobtune::tuner {
namespace {

using ParamMap = std::map<std::string, double, std::less<>>;
using algorithms_internal::IsIdentifier;
using algorithms_internal::OptionRow;
using algorithms_internal::OptionsOf;

std::string Quote(std::string_view text) { return "'" + std::string(text) + "'"; }

// The names of `items`, comma-separated.
template <typename Items>
std::string JoinNames(const Items& items) {
  std::string joined;
  for (const auto& item : items) {
    if (!joined.empty()) joined += ", ";
    joined += item.name;
  }
  return joined;
}

// The parameters set over the defaults, each checked against its row (its range, then what its
// field's type holds), then Options::Validate().
template <typename Algorithm>
StatusOr<std::unique_ptr<LimitAlgorithm>> Build(std::string_view algorithm,
                                                const ParamMap& values) {
  using Options = typename Algorithm::Options;
  const algorithms_internal::OptionTable<Options> rows = OptionsOf<Options>();
  Options options;
  for (const auto& [key, value] : values) {
    const auto row = std::ranges::find(rows, key, &OptionRow<Options>::name);
    if (row == rows.end()) {
      return Status::InvalidArgument(std::string(algorithm) + ": unknown parameter " + Quote(key) +
                                     "; valid: " + JoinNames(rows));
    }
    if (Status s = algorithms_internal::CheckOption(algorithm, key, row->type, row->range, value);
        !s.ok()) {
      return s;
    }
    if (value < row->representable_min || value > row->representable_max) {
      return algorithms_internal::InvalidField(algorithm, key, "is out of range", value);
    }
    row->set(options, value);
  }
  StatusOr<Algorithm> built = Algorithm::Create(options);
  if (!built.ok()) return built.status();
  return std::unique_ptr<LimitAlgorithm>(std::make_unique<Algorithm>(std::move(*built)));
}

// The rows as the reference shows them, each default read from a default-constructed Options.
template <typename Algorithm>
std::vector<AlgorithmOption> Describe() {
  using Options = typename Algorithm::Options;
  const Options defaults;
  std::vector<AlgorithmOption> options;
  for (const OptionRow<Options>& row : OptionsOf<Options>()) {
    options.push_back({.name = row.name,
                       .default_value = FormatNumber(row.get(defaults)),
                       .range = algorithms_internal::DescribeOptionRange(row.type, row.range),
                       .meaning = row.meaning});
  }
  return options;
}

struct RegistryEntry {
  std::string_view name;
  std::string_view summary;  // For the reference.
  StatusOr<std::unique_ptr<LimitAlgorithm>> (*build)(std::string_view, const ParamMap&);
  std::vector<AlgorithmOption> (*describe)();
};

// ---- The registry: one row per algorithm; its options are its table (option_table.h). ----

template <typename Algorithm>
constexpr RegistryEntry Entry(std::string_view summary) {
  return {Algorithm::kName, summary, &Build<Algorithm>, &Describe<Algorithm>};
}

constexpr std::array<RegistryEntry, 6> kRegistry{{
    Entry<FixedLimit>("A constant limit"),
    Entry<AimdLimit>("Netflix's AIMD: additive increase, multiplicative decrease on drops"),
    Entry<EnvoyGradientLimit>("Envoy's gradient controller: minRTT windows"),
    Entry<Gradient2Limit>("Netflix's Gradient2: short against long latency average"),
    Entry<VegasLimit>("Netflix's Vegas: queue estimated from no-load latency"),
    Entry<MarginalLimit>("blobtune's marginal-gain controller (the default)"),
}};

const RegistryEntry* FindEntry(std::string_view name) {
  const auto entry = std::ranges::find(kRegistry, name, &RegistryEntry::name);
  return entry == kRegistry.end() ? nullptr : &*entry;
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
    const std::string_view number = Trim(item.substr(equals + 1));
    const std::optional<double> value =
        ParseFiniteNumber(number.starts_with('+') ? number.substr(1) : number);
    if (!value) {
      return Status::InvalidArgument("parameter " + Quote(key) + " has value " + Quote(number) +
                                     ", which is not a finite number");
    }
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
    text += separator + key + '=' + FormatNumber(value);
    separator = ',';
  }
  return text;
}

StatusOr<std::unique_ptr<LimitAlgorithm>> MakeAlgorithm(const AlgorithmSpec& spec) {
  const RegistryEntry* entry = FindEntry(spec.name);
  if (entry == nullptr) {
    return Status::InvalidArgument("unknown limit algorithm " + Quote(spec.name) +
                                   "; valid: " + JoinNames(kRegistry));
  }
  return entry->build(entry->name, spec.params);
}

std::vector<std::string_view> AlgorithmNames() {
  std::vector<std::string_view> names;
  for (const RegistryEntry& entry : kRegistry) names.push_back(entry.name);
  return names;
}

std::vector<AlgorithmOption> AlgorithmOptions(std::string_view algorithm) {
  const RegistryEntry* entry = FindEntry(algorithm);
  return entry == nullptr ? std::vector<AlgorithmOption>{} : entry->describe();
}

std::string AlgorithmOptionsReference() {
  std::string text;
  for (const RegistryEntry& entry : kRegistry) {
    text += "### " + std::string(entry.name) + "\n\n" + std::string(entry.summary) + ".\n\n";
    text += "| option | default | accepts | meaning |\n|---|---|---|---|\n";
    for (const AlgorithmOption& option : entry.describe()) {
      text += "| `" + std::string(option.name) + "` | " + option.default_value + " | " +
              option.range + " | " + std::string(option.meaning) + " |\n";
    }
    text += "\n";
  }
  return text;
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
