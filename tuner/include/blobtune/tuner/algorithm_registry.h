// Algorithm registry: builds a LimitAlgorithm from a short text spec, for flags, config files
// and the tuning workbench.
//
// A spec is `name` or `name:key=value,key=value`, e.g. `aimd:backoff_ratio=0.8,max_limit=64`.
// Values are numbers; a duration is given in the unit its parameter name ends with
// (`timeout_ms=500`, `min_rtt_threshold_ms=0.05`). Parameters left out keep the algorithm's
// defaults. Every mistake is an INVALID_ARGUMENT Status that says what is valid.
//
//   StatusOr<std::unique_ptr<LimitAlgorithm>> algorithm = MakeAlgorithmFromText(flag_value);
//   if (!algorithm.ok()) return algorithm.status();
//
// Names: AlgorithmNames(). The parameters of each are the fields of its Options
// (algorithms/<name>.h), durations suffixed with their unit; AlgorithmOptions() lists them with
// their defaults, the values they accept and what they mean, from the one table per algorithm
// that its Options::Validate() checks too. docs/TUNING.md holds AlgorithmOptionsReference().
//
// Thread-safety: all functions are safe to call from any thread; the registry is immutable.
#ifndef BLOBTUNE_TUNER_ALGORITHM_REGISTRY_H_
#define BLOBTUNE_TUNER_ALGORITHM_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "blobtune/base/status_or.h"
#include "blobtune/tuner/limit_algorithm.h"

namespace blobtune::tuner {

struct AlgorithmSpec {
  std::string name;
  std::map<std::string, double, std::less<>> params;

  friend bool operator==(const AlgorithmSpec&, const AlgorithmSpec&) = default;
};

// Parses `name` or `name:key=value,...`. Whitespace around names, keys and values is ignored.
// Fails on an empty name or key, a missing '=', a value that is not a finite number, or a key
// given twice. Does not check that the name or keys exist: MakeAlgorithm() does.
StatusOr<AlgorithmSpec> ParseAlgorithmSpec(std::string_view text);

// The canonical text of `spec` (keys sorted, shortest exact numbers), which ParseAlgorithmSpec()
// turns back into an equal spec.
std::string AlgorithmSpecToString(const AlgorithmSpec& spec);

// Builds the named algorithm with the given parameters over its defaults, then validates its
// Options. An unknown name or parameter is INVALID_ARGUMENT listing the valid ones; so is a
// fractional value for an integer parameter.
StatusOr<std::unique_ptr<LimitAlgorithm>> MakeAlgorithm(const AlgorithmSpec& spec);

// ParseAlgorithmSpec(text), then MakeAlgorithm: a flag's value straight to an algorithm, with
// the first error of either.
StatusOr<std::unique_ptr<LimitAlgorithm>> MakeAlgorithmFromText(std::string_view text);

// The registered names, in registry order.
std::vector<std::string_view> AlgorithmNames();

// One parameter of an algorithm, as the spec text names it.
struct AlgorithmOption {
  std::string_view name;      // e.g. "backoff_ratio", "timeout_ms".
  std::string default_value;  // The Options' default in the text's unit, e.g. "0.9", "5000".
  std::string range;          // What Validate() accepts, e.g. "in [0.5, 1)", "an integer >= 1".
  std::string_view meaning;   // One line.
};

// The parameters `algorithm` accepts, in the order of its table, or an empty list for an
// unknown name.
std::vector<AlgorithmOption> AlgorithmOptions(std::string_view algorithm);

// Every algorithm's parameters as Markdown: a heading, a line and a table per algorithm, in
// registry order.
std::string AlgorithmOptionsReference();

// The algorithm blobtune uses when none is configured: marginal with its defaults. This is the
// one place that says which; docs/TUNING.md says why, with the figures.
std::unique_ptr<LimitAlgorithm> MakeDefaultAlgorithm();

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_ALGORITHM_REGISTRY_H_
