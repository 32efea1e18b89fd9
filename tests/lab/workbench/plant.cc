#include "plant.h"

#include <algorithm>
#include <cmath>

namespace blobtune::workbench {
namespace {

double MiB(uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// The slowdown of a service that starts with `in_stage` requests in its stage.
double Contention(const StageSpec& spec, int in_stage) {
  if (spec.contention_slowdown <= 0.0 || in_stage <= spec.contention_threshold) return 1.0;
  return 1.0 + spec.contention_slowdown * (in_stage - spec.contention_threshold);
}

}  // namespace

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
  double ms = spec.service_ms.Sample(state.rng) + spec.per_mib_ms * MiB(who.bytes) +
              (who.waited ? spec.per_wait_ms : 0.0);
  return {who.request, now_ns + MsToNs(ms * Contention(spec, state.in_stage) * spec.scale)};
}

void Plant::StartBatch(int stage, int64_t now_ns, std::vector<Started>& out) {
  const StageSpec& spec = specs_[static_cast<size_t>(stage)];
  StageState& state = state_[static_cast<size_t>(stage)];
  ++state.busy;
  const size_t first = out.size();
  double ms = spec.service_ms.Sample(state.rng);
  while (!state.waiting.empty() && state.batch_left < spec.max_batch) {
    Waiting member = state.waiting.front();
    state.waiting.pop_front();
    ms += spec.per_request_ms + spec.per_mib_ms * MiB(member.bytes) +
          (member.waited ? spec.per_wait_ms : 0.0);
    out.push_back({member.request, 0});
    ++state.batch_left;
  }
  state.last_batch = state.batch_left;
  const int64_t done_ns = now_ns + MsToNs(ms * Contention(spec, state.in_stage) * spec.scale);
  for (size_t i = first; i < out.size(); ++i) out[i].done_ns = done_ns;
}

void Plant::Enter(int stage, int request, uint64_t bytes, bool waited, int64_t now_ns,
                  std::vector<Started>& out) {
  const StageSpec& spec = specs_[static_cast<size_t>(stage)];
  StageState& state = state_[static_cast<size_t>(stage)];
  ++state.in_stage;
  if (spec.kind == StageSpec::Kind::kDelay ||
      (spec.kind == StageSpec::Kind::kQueue && state.busy < spec.servers)) {
    out.push_back(Start(stage, {request, bytes, waited}, now_ns));
  } else {
    state.waiting.push_back({request, bytes, waited});  // At a batch stage, until StartBatches().
  }
}

void Plant::Leave(int stage, int64_t now_ns, std::vector<Started>& out) {
  const StageSpec& spec = specs_[static_cast<size_t>(stage)];
  StageState& state = state_[static_cast<size_t>(stage)];
  --state.in_stage;
  if (spec.kind == StageSpec::Kind::kBatch) {
    if (--state.batch_left == 0) {  // The next batch waits for StartBatches().
      --state.busy;
      state.idle_since_ns = now_ns;
    }
    return;
  }
  --state.busy;
  StartWaiting(stage, now_ns, out);
}

void Plant::StartWaiting(int stage, int64_t now_ns, std::vector<Started>& out) {
  const StageSpec& spec = specs_[static_cast<size_t>(stage)];
  StageState& state = state_[static_cast<size_t>(stage)];
  if (spec.kind == StageSpec::Kind::kBatch) return;  // Batches start in StartBatches() only.
  // A delay stage never queues; a queue stage whose servers were cut lets the busy ones finish.
  while (!state.waiting.empty() && state.busy < spec.servers) {
    Waiting next = state.waiting.front();
    state.waiting.pop_front();
    out.push_back(Start(stage, next, now_ns));
  }
}

// Whether the idle writer of batch stage `stage` still waits for its batch to refill at `now_ns`.
bool Plant::Refilling(size_t stage, int64_t now_ns) const {
  const StageSpec& spec = specs_[stage];
  const StageState& state = state_[stage];
  const size_t wanted = static_cast<size_t>(std::min(state.last_batch, spec.max_batch));
  return wanted > 1 && state.waiting.size() < wanted &&
         now_ns < state.idle_since_ns + MsToNs(spec.refill_wait_ms);
}

void Plant::StartBatches(int64_t now_ns, std::vector<Started>& out) {
  for (size_t i = 0; i < specs_.size(); ++i) {
    const StageState& state = state_[i];
    if (specs_[i].kind == StageSpec::Kind::kBatch && state.busy == 0 && !state.waiting.empty() &&
        !Refilling(i, now_ns)) {
      StartBatch(static_cast<int>(i), now_ns, out);
    }
  }
}

std::optional<int64_t> Plant::RefillDue(int64_t now_ns) const {
  std::optional<int64_t> due;
  for (size_t i = 0; i < specs_.size(); ++i) {
    const StageState& state = state_[i];
    if (specs_[i].kind == StageSpec::Kind::kBatch && state.busy == 0 && !state.waiting.empty() &&
        Refilling(i, now_ns)) {
      int64_t at = state.idle_since_ns + MsToNs(specs_[i].refill_wait_ms);
      if (!due || at < *due) due = at;
    }
  }
  return due;
}

void Plant::Rebalance(int64_t now_ns, std::vector<Started>& out) {
  for (size_t i = 0; i < specs_.size(); ++i) StartWaiting(static_cast<int>(i), now_ns, out);
}

}  // namespace blobtune::workbench
