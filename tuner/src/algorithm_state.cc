#include "blobtune/tuner/algorithm_state.h"

#include "algorithms/algorithm_internal.h"
#include "blobtune/base/text.h"
#include "blobtune/base/version.h"
#include "blobtune/tuner/limit_algorithm.h"

namespace blobtune::tuner {
namespace {

constexpr std::string_view kFormatLine = "blobtune-algorithm-state 1";

Status LineError(size_t line, std::string_view what) {
  return Status::InvalidArgument("algorithm state, line " + std::to_string(line) + ": " +
                                 std::string(what));
}

}  // namespace

std::optional<double> AlgorithmState::Find(std::string_view name) const {
  for (const auto& [key, value] : values) {
    if (key == name) return value;
  }
  return std::nullopt;
}

std::string AlgorithmState::ToText() const {
  std::string text = std::string(kFormatLine) + "\nversion " + version + "\nalgorithm " +
                     algorithm + "\n";
  for (const auto& [key, value] : values) text += key + " " + FormatNumber(value) + "\n";
  return text;
}

StatusOr<AlgorithmState> AlgorithmState::FromText(std::string_view text) {
  AlgorithmState state;
  size_t line_number = 0;
  bool format_seen = false;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = Trim(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_number;
    if (line.empty()) continue;
    if (!format_seen) {
      if (line != kFormatLine) {
        return LineError(line_number, "expected '" + std::string(kFormatLine) + "'");
      }
      format_seen = true;
      continue;
    }
    const size_t space = line.find(' ');
    const std::string_view key = line.substr(0, space);
    const std::string_view rest =
        space == std::string_view::npos ? std::string_view() : Trim(line.substr(space + 1));
    if (!algorithms_internal::IsIdentifier(key) || rest.empty()) {
      return LineError(line_number, "expected 'key value'");
    }
    if (key == "version" || key == "algorithm") {
      std::string& field = key == "version" ? state.version : state.algorithm;
      if (!field.empty()) return LineError(line_number, std::string(key) + " given twice");
      field = std::string(rest);
      continue;
    }
    const std::optional<double> value = ParseFiniteNumber(rest);
    if (!value) return LineError(line_number, "'" + std::string(rest) + "' is not a finite number");
    if (state.Find(key)) return LineError(line_number, std::string(key) + " given twice");
    state.values.emplace_back(std::string(key), *value);
  }
  if (!format_seen) return Status::InvalidArgument("algorithm state is empty");
  if (state.version.empty() || state.algorithm.empty()) {
    return Status::InvalidArgument("algorithm state names no version or no algorithm");
  }
  return state;
}

AlgorithmState LimitAlgorithm::SaveState() const {
  return {.version = std::string(kVersion),
          .algorithm = std::string(name()),
          .values = {{"limit", static_cast<double>(limit())}}};
}

Status LimitAlgorithm::RestoreState(const AlgorithmState& /*state*/) {
  return Status::InvalidArgument(std::string(name()) + " cannot start from a saved state");
}

}  // namespace blobtune::tuner
