// Distribution: a random quantity of a workload (a service time in ms, a blob size in bytes).
//
// Kinds: constant, exponential, lognormal (mean and coefficient of variation), Pareto (mean and
// tail index alpha, optionally capped), uniform, log-uniform (sizes spread over decades), and a
// weighted mix of others ("1% of requests 50x slower"). In JSON a bare number is a constant:
//
//   {"type": "lognormal", "mean": 45, "cv": 1.5}
//   {"type": "mix", "parts": [{"weight": 0.99, "of": {"type": "exponential", "mean": 2}},
//                             {"weight": 0.01, "of": {"type": "exponential", "mean": 100}}]}
//
// Sampling uses Rng (random.h) only, so a seed gives the same values everywhere.
// Thread-safety: a Distribution is an immutable value; Sample() mutates only the Rng.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_DISTRIBUTION_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_DISTRIBUTION_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "blobtune/base/status_or.h"
#include "random.h"

namespace blobtune::workbench {

class Distribution {
 public:
  enum class Kind { kConstant, kExponential, kLognormal, kPareto, kUniform, kLogUniform, kMix };

  // A constant 0.
  Distribution() = default;
  static Distribution Constant(double value);
  static Distribution Exponential(double mean);
  // REQUIRES: mean > 0, cv > 0.
  static Distribution Lognormal(double mean, double cv);
  // REQUIRES: mean > 0, alpha > 1; values above `cap` are clamped to it (0: no cap).
  static Distribution Pareto(double mean, double alpha, double cap = 0.0);
  // REQUIRES: 0 <= min <= max (log-uniform: 0 < min).
  static Distribution Uniform(double min, double max);
  static Distribution LogUniform(double min, double max);
  // REQUIRES: parts non-empty, weights > 0 (normalised here).
  static Distribution Mix(std::vector<std::pair<double, Distribution>> parts);

  Distribution(const Distribution&) = default;
  Distribution& operator=(const Distribution&) = default;
  Distribution(Distribution&&) noexcept = default;
  Distribution& operator=(Distribution&&) noexcept = default;
  ~Distribution() = default;

  Kind kind() const { return kind_; }
  double Sample(Rng& rng) const;
  // The expected value (of the capped distribution for a capped Pareto: computed exactly).
  double Mean() const;
  // Back to the JSON form it was parsed from (normalised).
  nlohmann::json ToJson() const;

 private:
  Kind kind_ = Kind::kConstant;
  double a_ = 0.0;  // constant: value; exponential: mean; lognormal: mu; pareto: x_min; uniform: min
  double b_ = 0.0;  // lognormal: sigma; pareto: alpha; uniform: max
  double c_ = 0.0;  // pareto: cap (0 none)
  std::vector<double> cumulative_;  // mix: cumulative normalised weights
  std::vector<Distribution> parts_;
};

// Parses a distribution; errors name `path` ("stages[0].service").
StatusOr<Distribution> ParseDistribution(const nlohmann::json& json, const std::string& path);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_DISTRIBUTION_H_
