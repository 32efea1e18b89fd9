// libFuzzer target over what the tuner reads from outside and what its algorithms are fed: an
// algorithm spec (a flag's value), a saved AlgorithmState (a file in a server's data directory,
// possibly damaged), and a stream of samples no real access would produce.
//
// The input is a spec on its first line, then a state's text up to a line "samples", then
// samples, 8 bytes each (below). Checks that:
//   - a spec either parses, prints as text that parses back to it, and builds an algorithm or
//     fails with INVALID_ARGUMENT, and a state either parses and round-trips through its text or
//     fails with INVALID_ARGUMENT, never anything else;
//   - restoring a state either works or is refused with INVALID_ARGUMENT; what a restored
//     algorithm saves restores a fresh one to the same limit;
//   - every algorithm's limit stays within [min_limit, max_limit] and >= 1 after every step, and
//     its estimates are finite and not negative;
//   - nothing crashes or is undefined (ASan and UBSan, float-to-int overflow included).
//
// Built with clang -fsanitize=fuzzer by scripts/fuzz; tuner_algorithm_fuzzer_corpus_test runs
// the seed corpus (fuzz_corpus/) through it in every build.
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <utility>

#include "blobtune/base/status_or.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/algorithm_state.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "blobtune/tuner/sample.h"

namespace {

using blobtune::StatusCode;
using blobtune::StatusOr;
using blobtune::TimePoint;
using namespace blobtune::tuner;

void Require(bool condition) {
  if (!condition) std::abort();
}

void RequireInvalidArgument(const blobtune::Status& status) {
  Require(status.code() == StatusCode::kInvalidArgument);
}

void CheckInvariants(const LimitAlgorithm& algorithm) {
  const int limit = algorithm.limit();
  Require(algorithm.min_limit() >= 1 && algorithm.min_limit() <= algorithm.max_limit());
  Require(limit >= algorithm.min_limit() && limit <= algorithm.max_limit());
  const AlgorithmEstimates estimates = algorithm.estimates();
  if (estimates.baseline_latency) Require(estimates.baseline_latency->count() >= 0);
  if (estimates.recent_latency) Require(estimates.recent_latency->count() >= 0);
  if (estimates.max_throughput) {
    Require(std::isfinite(*estimates.max_throughput) && *estimates.max_throughput >= 0);
  }
}

// The spec on the first line: parsed, printed and parsed again, then built. Null when it is not
// an algorithm's spec.
std::unique_ptr<LimitAlgorithm> FromSpec(std::string_view text) {
  StatusOr<AlgorithmSpec> spec = ParseAlgorithmSpec(text);
  if (!spec.ok()) {
    RequireInvalidArgument(spec.status());
    return nullptr;
  }
  StatusOr<AlgorithmSpec> again = ParseAlgorithmSpec(AlgorithmSpecToString(*spec));
  Require(again.ok() && *again == *spec);
  StatusOr<std::unique_ptr<LimitAlgorithm>> algorithm = MakeAlgorithm(*spec);
  if (!algorithm.ok()) {
    RequireInvalidArgument(algorithm.status());
    return nullptr;
  }
  CheckInvariants(**algorithm);
  return std::move(*algorithm);
}

// One sample from 8 bytes, in completion order (ends never go back, as the limiter feeds them):
//   [0..1] microseconds since the previous end, [2..4] latency in microseconds,
//   [5] in flight at grant - 1, [6] flags (bit 0 dropped, bits 1-2 weight - 1, bits 3-4 refused,
//   bits 5-6 expired, bit 7 a setup of half the latency), [7] kilobytes.
Sample NextSample(const uint8_t* b, TimePoint& end) {
  end += std::chrono::microseconds(b[0] | b[1] << 8);
  Sample sample;
  sample.latency = std::chrono::microseconds(b[2] | b[3] << 8 | b[4] << 16);
  sample.start = end - sample.latency;
  sample.inflight = 1 + b[5];
  sample.dropped = (b[6] & 1) != 0;
  sample.weight = 1 + ((b[6] >> 1) & 3);
  sample.refused = (b[6] >> 3) & 3;
  sample.expired = (b[6] >> 5) & 3;
  if ((b[6] & 0x80) != 0) sample.setup = sample.latency / 2;
  sample.bytes = uint64_t{b[7]} * 1024;
  return sample;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t line_end = input.find('\n');
  const std::string_view spec_text = input.substr(0, line_end);
  input.remove_prefix(line_end == std::string_view::npos ? input.size() : line_end + 1);
  constexpr std::string_view kSamplesLine = "samples\n";
  const size_t samples_at = input.find(kSamplesLine);
  const std::string_view state_text = input.substr(0, samples_at);
  const std::string_view samples =
      samples_at == std::string_view::npos ? "" : input.substr(samples_at + kSamplesLine.size());

  std::unique_ptr<LimitAlgorithm> algorithm = FromSpec(spec_text);
  if (!algorithm) algorithm = MakeDefaultAlgorithm();

  StatusOr<AlgorithmState> state = AlgorithmState::FromText(state_text);
  if (!state.ok()) {
    RequireInvalidArgument(state.status());
  } else {
    StatusOr<AlgorithmState> again = AlgorithmState::FromText(state->ToText());
    Require(again.ok() && again->version == state->version &&
            again->algorithm == state->algorithm && again->values == state->values);
    const int before = algorithm->limit();
    const blobtune::Status restored = algorithm->RestoreState(*state);
    if (!restored.ok()) {
      RequireInvalidArgument(restored);
      Require(algorithm->limit() == before);  // Refused: unchanged.
    } else {
      std::unique_ptr<LimitAlgorithm> fresh = FromSpec(spec_text);
      if (!fresh) fresh = MakeDefaultAlgorithm();
      Require(fresh->RestoreState(algorithm->SaveState()).ok());
      Require(fresh->limit() == algorithm->limit());
    }
    CheckInvariants(*algorithm);
  }

  TimePoint end{std::chrono::seconds(1000)};
  for (size_t at = 0; at + 8 <= samples.size(); at += 8) {
    const Sample sample = NextSample(reinterpret_cast<const uint8_t*>(samples.data()) + at, end);
    const int limit = algorithm->Update(sample);
    Require(limit == algorithm->limit());
    CheckInvariants(*algorithm);
  }
  return 0;
}
