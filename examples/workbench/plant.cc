#include "plant.h"

#include <algorithm>
#include <cmath>

namespace blobtune::workbench {

int64_t MsToNs(double ms) { return ms > 0.0 ? std::llround(ms * 1e6) : 0; }

Plant::Plant(std::vector<StageSpec> stages, uint64_t seed)
    : specs_(std::move(stages)), state_(specs_.size()) {
  for (size_t i = 0; i < specs_.size(); ++i) {
    state_[i].rng = Rng(StreamSeed(seed, "stage." + specs_[i].name));
  }
}

Plant::Started Plant::Start(int stage, Waiting who, int64_t now_ns) {
  const StageSpec& spec = specs_[static_cast<size_t>(stage)];
  StageState& state = state_[static_cast<size_t>(stage)];
  ++state.busy;
  double ms = spec.service_ms.Sample(state.rng) +
              spec.per_mib_ms * static_cast<double>(who.bytes) / (1024.0 * 1024.0);
  if (spec.contention_slowdown > 0.0 && state.in_stage > spec.contention_threshold) {
    ms *= 1.0 + spec.contention_slowdown * (state.in_stage - spec.contention_threshold);
  }
  return {who.request, now_ns + MsToNs(ms * spec.scale)};
}

void Plant::Enter(int stage, int request, uint64_t bytes, int64_t now_ns,
                  std::vector<Started>& out) {
  const StageSpec& spec = specs_[static_cast<size_t>(stage)];
  StageState& state = state_[static_cast<size_t>(stage)];
  ++state.in_stage;
  if (spec.kind == StageSpec::Kind::kDelay || state.busy < spec.servers) {
    out.push_back(Start(stage, {request, bytes}, now_ns));
  } else {
    state.waiting.push_back({request, bytes});
  }
}

void Plant::Leave(int stage, int64_t now_ns, std::vector<Started>& out) {
  StageState& state = state_[static_cast<size_t>(stage)];
  --state.busy;
  --state.in_stage;
  StartWaiting(stage, now_ns, out);
}

void Plant::StartWaiting(int stage, int64_t now_ns, std::vector<Started>& out) {
  const StageSpec& spec = specs_[static_cast<size_t>(stage)];
  StageState& state = state_[static_cast<size_t>(stage)];
  // A delay stage never queues; a queue stage whose servers were cut lets the busy ones finish.
  while (!state.waiting.empty() && state.busy < spec.servers) {
    Waiting next = state.waiting.front();
    state.waiting.pop_front();
    out.push_back(Start(stage, next, now_ns));
  }
}

void Plant::Rebalance(int64_t now_ns, std::vector<Started>& out) {
  for (size_t i = 0; i < specs_.size(); ++i) StartWaiting(static_cast<int>(i), now_ns, out);
}

}  // namespace blobtune::workbench
