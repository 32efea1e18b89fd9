// AlgorithmState: what a limit algorithm has learned, as a few named numbers, so that another
// instance of the same algorithm can start where this one is instead of searching again: a
// program that restarts (blobtune-server keeps its limiters' states in its data directory)
// begins at the limit it had.
//
//   AlgorithmState saved = limiter->SaveAlgorithmState();
//   WriteFile(path, saved.ToText());
//   ...   // after the restart
//   StatusOr<AlgorithmState> state = AlgorithmState::FromText(ReadFile(path));
//   std::unique_ptr<LimitAlgorithm> algorithm = MakeDefaultAlgorithm();
//   if (state.ok() && state->version == blobtune::kVersion) {
//     Status restored = algorithm->RestoreState(*state);   // not OK: starts afresh
//   }
//
// The text is one "key value" pair a line, after a first line that names the format:
//   blobtune-algorithm-state 1
//   version 0.1.0          (of blobtune, which saved it)
//   algorithm marginal
//   limit 87
//   ...                    (the algorithm's own numbers)
//
// Thread-safety: a plain value.
#ifndef BLOBTUNE_TUNER_ALGORITHM_STATE_H_
#define BLOBTUNE_TUNER_ALGORITHM_STATE_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blobtune/base/status_or.h"

namespace blobtune::tuner {

struct AlgorithmState {
  std::string version;    // blobtune's version when it was saved (blobtune::kVersion).
  std::string algorithm;  // The registry name of the algorithm that saved it.
  // In the order the algorithm added them; names are lowercase words with '_'.
  std::vector<std::pair<std::string, double>> values;

  // The value named `name`, if there is one.
  std::optional<double> Find(std::string_view name) const;

  std::string ToText() const;
  // INVALID_ARGUMENT naming the line that is not "key value", a number that is not finite, a
  // missing first line, version or algorithm, or a value named twice.
  static StatusOr<AlgorithmState> FromText(std::string_view text);
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_ALGORITHM_STATE_H_
