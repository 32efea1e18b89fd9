#include "simulator.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>

#include "common/fake_clock.h"
#include "plant.h"
#include "random.h"

namespace blobtune::workbench {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

int64_t SecondsToNs(double s) { return std::llround(s * 1e9); }
double NsToSeconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

class Simulation {
 public:
  Simulation(const Workload& workload, const SimulationOptions& options);
  StatusOr<SimulationResult> Run();

 private:
  enum class EventKind : uint8_t {
    kStep, kArrival, kWorkDone, kSetupDone, kStageDone, kFailureEnd, kDeadline, kBucket,
    kRefillDue
  };
  struct Event {
    int64_t t;
    uint64_t seq;
    EventKind kind;
    int32_t a;  // Client, request or step index.
    int64_t b;  // Generation, steps left or bucket index.
  };
  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      return x.t != y.t ? x.t > y.t : x.seq > y.seq;
    }
  };

  enum class RequestState : uint8_t {
    kQueued,   // Waiting in its client's queue for a permit.
    kExpired,  // Its deadline passed in the queue; freed when the queue pops it.
    kGranted,  // Holds a permit and walks the plant.
    kFailing,  // Holds a permit; will error fast or hang until its deadline.
    kDone,     // Its permit ended.
  };
  struct Request {
    int client = 0;
    int steps_left = 0;  // Requests of the job still to come after this one.
    int64_t created = 0;  // When it arrived: its latency belongs to that phase.
    int64_t granted = 0;
    int64_t deadline = kNever;
    uint64_t bytes = 0;
    int ticket = 0;
    size_t path_pos = 0;
    int kind = -1;  // Its entry of ClientSpec::paths, or -1 for ClientSpec::path.
    uint32_t generation = 0;
    RequestState state = RequestState::kDone;
    bool in_plant = false;
    bool late = false;  // Its deadline passed in the plant: it will end dropped.
    bool waited = false;  // Its permit came after waiting in the client's queue.
  };
  struct ClientState {
    std::unique_ptr<Admission> admission;
    std::deque<int> queue;  // Expired requests stay in it until they reach an end.
    int64_t queued = 0;     // Requests in `queue` still waiting (not expired).
    Rng arrivals{0}, sizes{0}, work{0}, failures{0}, setup{0}, kinds{0};
    uint64_t arrival_generation = 0;
    int64_t jobs_started = 0;
    int64_t jobs_done = 0;
    std::optional<int64_t> total_jobs;
    int last_limit = 0;
  };

  void Push(int64_t t, EventKind kind, int32_t a, int64_t b) {
    events_.push(Event{t, next_seq_++, kind, a, b});
  }
  ClientSpec& SpecOf(int client) { return client_specs_[static_cast<size_t>(client)]; }
  ClientState& ClientOf(int client) { return clients_[static_cast<size_t>(client)]; }
  Request& Req(int r) { return requests_[static_cast<size_t>(r)]; }
  const std::vector<int>& PathOf(const Request& req);

  void StartJob(int client);
  // Closed loop: starts jobs until `concurrency` are outstanding (fixed work: while any are left).
  void StartJobs(int client);
  void StartStep(int client, int steps_left);
  void CreateRequest(int client, int steps_left);
  void Dispatch(int client);
  // Dispatches every client (after a release to a limiter they share).
  void DispatchAll();
  void Grant(int r, int ticket);
  void EnterPlant(int r);
  void OnSetupDone(int r, uint32_t generation);
  void EnterStage(int r);
  void OnStageDone(int r);
  void Settle(int r, AccessOutcome outcome);
  void OnDeadline(int r, uint32_t generation);
  // Runs the events up to `until` (inclusive) while the run lasts, or, draining, all of them.
  void RunEvents(int64_t until);
  // Follows the requests granted when measuring stopped to their end; nothing new starts.
  void Drain();
  void JobDone(int client);
  void OnStep(size_t step);
  void ScheduleArrival(int client);
  void OnBucket(int64_t index);
  void ScheduleStarted();
  void RecordLimit(int client);
  void Free(int r);
  int Allocate();
  PhaseStats* PhaseAt(int64_t t);

  const Workload& workload_;
  const SimulationOptions& options_;
  FakeClock clock_;
  const TimePoint epoch_;
  int64_t now_ = 0;
  int64_t end_ns_;
  bool finished_ = false;
  bool draining_ = false;  // Measuring stopped; only requests already granted go on.
  uint64_t next_seq_ = 0;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  Plant plant_;
  std::vector<Plant::Started> started_;
  std::vector<ClientSpec> client_specs_;
  std::vector<ClientState> clients_;
  std::vector<Request> requests_;
  std::vector<int> free_requests_;
  std::vector<int64_t> bounds_ns_;
  int64_t bucket_ns_ = 0;
  int64_t refill_wake_ns_ = -1;  // The latest kRefillDue pushed.
  int64_t stamp_ns_ = -1;                  // The time of the latest success...
  std::vector<uint64_t> stamp_successes_;  // ...and each client's successes at that time.
  uint64_t bucket_successes_ = 0;
  double bucket_latency_ms_ = 0.0;
  SimulationResult result_;
};

Simulation::Simulation(const Workload& workload, const SimulationOptions& options)
    : workload_(workload),
      options_(options),
      epoch_(clock_.Now()),
      end_ns_(SecondsToNs(options.phase_bounds.empty() ? 0.0 : options.phase_bounds.back())),
      plant_(workload.stages, workload.seed),
      client_specs_(workload.clients),
      clients_(workload.clients.size()) {
  for (double bound : options.phase_bounds) bounds_ns_.push_back(SecondsToNs(bound));
  bucket_ns_ = SecondsToNs(options.bucket_s);
}

PhaseStats* Simulation::PhaseAt(int64_t t) {
  auto it = std::upper_bound(bounds_ns_.begin(), bounds_ns_.end(), t);
  if (it == bounds_ns_.begin() || it == bounds_ns_.end()) return nullptr;
  return &result_.phases[static_cast<size_t>(it - bounds_ns_.begin() - 1)];
}

int Simulation::Allocate() {
  if (free_requests_.empty()) {
    requests_.emplace_back();
    return static_cast<int>(requests_.size() - 1);
  }
  int r = free_requests_.back();
  free_requests_.pop_back();
  return r;
}

void Simulation::Free(int r) {
  ++Req(r).generation;  // Stale deadline and failure events of r now miss.
  free_requests_.push_back(r);
}

void Simulation::RecordLimit(int client) {
  ClientState& c = ClientOf(client);
  int limit = c.admission->limit();
  if (limit != c.last_limit) {
    c.last_limit = limit;
    result_.limit_changes[static_cast<size_t>(client)].emplace_back(NsToSeconds(now_), limit);
  }
}

void Simulation::ScheduleStarted() {
  for (const Plant::Started& s : started_) Push(s.done_ns, EventKind::kStageDone, s.request, 0);
  started_.clear();
}

void Simulation::StartJob(int client) {
  ++ClientOf(client).jobs_started;
  StartStep(client, SpecOf(client).requests_per_job - 1);
}

void Simulation::StartJobs(int client) {
  ClientState& c = ClientOf(client);
  const int64_t concurrency = SpecOf(client).concurrency;
  while (c.jobs_started - c.jobs_done < concurrency &&
         (!c.total_jobs || c.jobs_started < *c.total_jobs)) {
    StartJob(client);
  }
}

void Simulation::StartStep(int client, int steps_left) {
  const ClientSpec& spec = SpecOf(client);
  if (spec.work_ms) {
    Push(now_ + MsToNs(spec.work_ms->Sample(ClientOf(client).work)), EventKind::kWorkDone, client,
         steps_left);
  } else {
    CreateRequest(client, steps_left);
  }
}

void Simulation::CreateRequest(int client, int steps_left) {
  const ClientSpec& spec = SpecOf(client);
  ClientState& c = ClientOf(client);
  int r = Allocate();
  Request& req = Req(r);
  req.client = client;
  req.steps_left = steps_left;
  req.created = now_;
  req.deadline = spec.deadline_ms ? now_ + MsToNs(*spec.deadline_ms) : kNever;
  req.bytes = static_cast<uint64_t>(
      std::max(0.0, std::round(spec.size_bytes.Sample(c.sizes) * spec.size_scale)));
  req.state = RequestState::kQueued;
  req.in_plant = false;
  req.late = false;
  req.waited = false;
  req.kind = -1;
  if (!spec.paths.empty()) {  // Drawn by weight.
    double total = 0.0;
    for (const ClientSpec::WeightedPath& kind : spec.paths) total += kind.weight;
    double u = c.kinds.Uniform() * total;
    req.kind = static_cast<int>(spec.paths.size()) - 1;
    for (size_t k = 0; k + 1 < spec.paths.size(); ++k) {
      if ((u -= spec.paths[k].weight) < 0.0) {
        req.kind = static_cast<int>(k);
        break;
      }
    }
  }
  c.queue.push_back(r);
  ++c.queued;
  if (!c.admission->queues()) {
    Dispatch(client);
  } else if (std::optional<int> ticket = c.admission->Wait(r)) {
    c.queue.pop_back();
    --c.queued;
    Grant(r, *ticket);
  }
  if (Req(r).state == RequestState::kQueued) Req(r).waited = true;  // Granted later, if at all.
  if (Req(r).state == RequestState::kQueued && spec.max_queue && c.queued > *spec.max_queue) {
    // No permit and no room to wait: rejected at once (it is the newest, at the back).
    c.admission->Leave(r);
    c.admission->Refuse();
    c.queue.pop_back();
    --c.queued;
    Free(r);
    if (PhaseStats* phase = PhaseAt(now_)) ++phase->rejected;
    JobDone(client);
    return;
  }
  if (Req(r).deadline != kNever) {  // Granted or still queued: its deadline applies.
    Push(Req(r).deadline, EventKind::kDeadline, r, Req(r).generation);
  }
}

void Simulation::Dispatch(int client) {
  ClientState& c = ClientOf(client);
  const bool lifo = SpecOf(client).lifo;
  while (!c.queue.empty()) {
    int r = lifo ? c.queue.back() : c.queue.front();
    if (Req(r).state == RequestState::kExpired) {
      lifo ? c.queue.pop_back() : c.queue.pop_front();
      Free(r);
      continue;
    }
    std::optional<int> ticket;
    if (c.admission->queues()) {
      // Granted in the admission's queue order, which is this client's order of arrival.
      ticket = c.admission->TakeGrant(r);
    } else if (c.admission->inflight() < c.admission->limit()) {
      // Asking without a free permit would count as a refusal; a queued request still waits.
      ticket = c.admission->TryAdmit();
    }
    if (!ticket) break;
    lifo ? c.queue.pop_back() : c.queue.pop_front();
    --c.queued;
    Grant(r, *ticket);
  }
}

void Simulation::DispatchAll() {
  for (size_t client = 0; client < clients_.size(); ++client) Dispatch(static_cast<int>(client));
}

void Simulation::Grant(int r, int ticket) {
  Request& req = Req(r);
  const FailureSpec& failures = SpecOf(req.client).failures;
  req.granted = now_;
  req.ticket = ticket;
  double u = ClientOf(req.client).failures.Uniform();
  if (u < failures.error_fraction) {
    req.state = RequestState::kFailing;
    Push(now_ + MsToNs(failures.error_ms.Sample(ClientOf(req.client).failures)),
         EventKind::kFailureEnd, r, req.generation);
  } else if (u < failures.error_fraction + failures.hang_fraction) {
    req.state = RequestState::kFailing;  // The deadline event ends it, or hang_ms does.
    if (req.deadline == kNever) {
      Push(now_ + MsToNs(failures.hang_ms), EventKind::kFailureEnd, r, req.generation);
    }
  } else if (const std::optional<Distribution>& setup = SpecOf(req.client).setup_ms) {
    // Holds the permit outside the plant first; a deadline meanwhile makes it late, as in the
    // plant.
    req.state = RequestState::kGranted;
    Push(now_ + MsToNs(setup->Sample(ClientOf(req.client).setup)), EventKind::kSetupDone, r,
         req.generation);
  } else {
    req.state = RequestState::kGranted;
    EnterPlant(r);
  }
}

void Simulation::OnSetupDone(int r, uint32_t generation) {
  Request& req = Req(r);
  if (req.generation != generation || req.state != RequestState::kGranted) return;
  ClientOf(req.client).admission->RestartTiming(req.ticket);
  EnterPlant(r);
}

void Simulation::EnterPlant(int r) {
  Request& req = Req(r);
  req.in_plant = true;
  req.path_pos = 0;
  EnterStage(r);
}

const std::vector<int>& Simulation::PathOf(const Request& req) {
  const ClientSpec& spec = SpecOf(req.client);
  return req.kind < 0 ? spec.path : spec.paths[static_cast<size_t>(req.kind)].path;
}

void Simulation::EnterStage(int r) {
  Request& req = Req(r);
  int stage = PathOf(req)[req.path_pos];
  plant_.Enter(stage, r, req.bytes, req.waited, now_, started_);
  ScheduleStarted();
}

void Simulation::OnStageDone(int r) {
  Request& req = Req(r);
  const std::vector<int>& path = PathOf(req);
  plant_.Leave(path[req.path_pos], now_, started_);
  ScheduleStarted();
  if (++req.path_pos < path.size()) {
    EnterStage(r);
    return;
  }
  req.in_plant = false;
  Settle(r, req.late ? AccessOutcome::kDropped : AccessOutcome::kSuccess);
}

void Simulation::Settle(int r, AccessOutcome outcome) {
  Request& req = Req(r);
  if (draining_) {
    if (outcome == AccessOutcome::kSuccess) {
      if (PhaseStats* arrived = PhaseAt(req.created)) {
        arrived->latency.Record(Duration(now_ - req.granted));
        arrived->response_by_client[static_cast<size_t>(req.client)].Record(
            Duration(now_ - req.created));
      }
    }
    req.state = RequestState::kDone;
    Free(r);
    return;
  }
  int client = req.client;
  int steps_left = req.steps_left;
  ClientState& c = ClientOf(client);
  c.admission->Finish(req.ticket, outcome, req.bytes);
  req.state = RequestState::kDone;
  RecordLimit(client);
  if (PhaseStats* phase = PhaseAt(now_)) {
    if (outcome == AccessOutcome::kSuccess) {
      ++phase->successes;
      ++phase->successes_by_client[static_cast<size_t>(client)];
      if (PhaseStats* arrived = PhaseAt(req.created)) {
        arrived->latency.Record(Duration(now_ - req.granted));
        arrived->response_by_client[static_cast<size_t>(client)].Record(
            Duration(now_ - req.created));
      }
      if (now_ != stamp_ns_) {
        stamp_ns_ = now_;
        std::fill(stamp_successes_.begin(), stamp_successes_.end(), 0);
      }
      ++stamp_successes_[static_cast<size_t>(client)];
      if (options_.stop_after_successes > 0 && phase == &result_.phases.back() &&
          phase->successes >= options_.stop_after_successes) {
        // The window is [start, now): successes at exactly `now` belong to the next one, as
        // they would at a fixed bound (this keeps a constant-time plant's rate exact).
        for (size_t i = 0; i < stamp_successes_.size(); ++i) {
          phase->successes -= stamp_successes_[i];
          phase->successes_by_client[i] -= stamp_successes_[i];
        }
        finished_ = true;
      }
    } else {
      ++phase->dropped;
    }
  }
  if (outcome == AccessOutcome::kSuccess) {
    double latency_ms = static_cast<double>(now_ - req.granted) / 1e6;
    ++bucket_successes_;
    bucket_latency_ms_ += latency_ms;
    if (options_.record_completions) {
      result_.completions.push_back({NsToSeconds(now_), latency_ms, client});
    }
  }
  Free(r);
  if (outcome == AccessOutcome::kSuccess && steps_left > 0) {
    StartStep(client, steps_left - 1);
  } else {
    JobDone(client);
  }
  // A shared limiter may have granted the permit to another client's request.
  c.admission->queues() ? DispatchAll() : Dispatch(client);
}

void Simulation::OnDeadline(int r, uint32_t generation) {
  Request& req = Req(r);
  if (req.generation != generation) return;
  if (req.state == RequestState::kQueued) {
    req.state = RequestState::kExpired;
    ClientState& c = ClientOf(req.client);
    --c.queued;
    // A LIFO queue keeps its stale entries at the far end; sweep them out now and then.
    if (c.queue.size() > 2 * static_cast<size_t>(c.queued) + 1024) {
      std::erase_if(c.queue, [this](int q) {
        if (Req(q).state != RequestState::kExpired) return false;
        Free(q);
        return true;
      });
    }
    if (PhaseStats* phase = PhaseAt(now_)) ++phase->expired;
    const bool queues = c.admission->queues();
    // A permit granted to it meanwhile goes back, to whoever the shared limiter picks.
    if (queues) c.admission->Leave(r);
    c.admission->Expire();
    JobDone(req.client);
    if (queues) DispatchAll();
  } else if (req.state == RequestState::kFailing) {
    Settle(r, AccessOutcome::kDropped);  // A hang ends at the deadline.
  } else if (req.state == RequestState::kGranted) {
    req.late = true;  // The plant cannot be stopped: the permit ends when the work does.
  }
}

void Simulation::Drain() {
  draining_ = true;
  RunEvents(std::numeric_limits<int64_t>::max());
}

void Simulation::RunEvents(int64_t until) {
  while (!finished_ || draining_) {
    if (events_.empty() || events_.top().t > now_) {
      // The instant's last event has run: batches form of everything that arrived (plant.h).
      plant_.StartBatches(now_, started_);
      if (std::optional<int64_t> due = plant_.RefillDue(now_); due && *due != refill_wake_ns_) {
        refill_wake_ns_ = *due;  // An event then ends the instant, so the batch starts.
        Push(*due, EventKind::kRefillDue, 0, 0);
      }
      ScheduleStarted();
    }
    if (events_.empty()) return;
    Event e = events_.top();
    if (e.t > until) return;
    events_.pop();
    now_ = e.t;
    clock_.Set(epoch_ + Duration(now_));
    if (!draining_) ++result_.events;
    switch (e.kind) {
      case EventKind::kStep:
        if (!draining_) OnStep(static_cast<size_t>(e.a));
        break;
      case EventKind::kArrival:
        if (!draining_ && static_cast<uint64_t>(e.b) == ClientOf(e.a).arrival_generation) {
          StartJob(e.a);
          ScheduleArrival(e.a);
        }
        break;
      case EventKind::kWorkDone:
        if (!draining_) CreateRequest(e.a, static_cast<int>(e.b));
        break;
      case EventKind::kSetupDone:
        OnSetupDone(e.a, static_cast<uint32_t>(e.b));
        break;
      case EventKind::kStageDone:
        OnStageDone(e.a);
        break;
      case EventKind::kFailureEnd:
        if (Req(e.a).generation == static_cast<uint32_t>(e.b) &&
            Req(e.a).state == RequestState::kFailing) {
          Settle(e.a, AccessOutcome::kDropped);
        }
        break;
      case EventKind::kDeadline:
        // While draining, a queued request is never granted: it just stays queued.
        if (!draining_ || Req(e.a).state != RequestState::kQueued) {
          OnDeadline(e.a, static_cast<uint32_t>(e.b));
        }
        break;
      case EventKind::kRefillDue:  // Nothing but the end of the instant (see above).
        break;
      case EventKind::kBucket:
        if (!draining_) OnBucket(e.b);
        break;
    }
  }
}

void Simulation::JobDone(int client) {
  ClientState& c = ClientOf(client);
  ++c.jobs_done;
  if (SpecOf(client).load != ClientSpec::Load::kClosed) return;
  if (!c.total_jobs || c.jobs_started < *c.total_jobs) {
    StartJobs(client);  // None after a step down, until fewer than `concurrency` are left.
    return;
  }
  // Fixed work: the run ends when every client has finished all of its jobs.
  for (const ClientState& other : clients_) {
    if (!other.total_jobs || other.jobs_done < *other.total_jobs) return;
  }
  finished_ = true;
}

void Simulation::ScheduleArrival(int client) {
  ClientState& c = ClientOf(client);
  ++c.arrival_generation;
  double rate = SpecOf(client).rate_per_s;
  if (rate <= 0.0) return;
  Push(now_ + std::max<int64_t>(1, SecondsToNs(c.arrivals.Exponential(1.0 / rate))),
       EventKind::kArrival, client, static_cast<int64_t>(c.arrival_generation));
}

void Simulation::OnStep(size_t step) {
  std::vector<double> old_rates;
  for (const ClientSpec& spec : client_specs_) old_rates.push_back(spec.rate_per_s);
  std::vector<int> old_concurrency;
  for (const ClientSpec& spec : client_specs_) old_concurrency.push_back(spec.concurrency);
  for (const ParamChange& change : workload_.steps[step].changes) {
    ApplyChange(change, plant_.specs(), client_specs_);
  }
  plant_.Rebalance(now_, started_);
  ScheduleStarted();
  for (size_t i = 0; i < client_specs_.size(); ++i) {
    if (client_specs_[i].load == ClientSpec::Load::kOpen &&
        client_specs_[i].rate_per_s != old_rates[i]) {
      ScheduleArrival(static_cast<int>(i));  // Poisson arrivals are memoryless: redraw.
    }
  }
  for (size_t i = 0; i < client_specs_.size(); ++i) {
    if (client_specs_[i].load == ClientSpec::Load::kClosed &&
        client_specs_[i].concurrency > old_concurrency[i]) {
      StartJobs(static_cast<int>(i));  // The extra jobs start at once.
    }
  }
}

void Simulation::OnBucket(int64_t index) {
  SeriesPoint point;
  point.end_s = NsToSeconds(now_);
  for (const ClientState& c : clients_) {
    point.mean_limit += c.admission->limit();
    point.mean_inflight += c.admission->inflight();
  }
  point.mean_limit /= static_cast<double>(clients_.size());
  point.mean_inflight /= static_cast<double>(clients_.size());
  point.throughput = static_cast<double>(bucket_successes_) / options_.bucket_s;
  point.mean_latency_ms =
      bucket_successes_ ? bucket_latency_ms_ / static_cast<double>(bucket_successes_) : 0.0;
  result_.series.push_back(point);
  bucket_successes_ = 0;
  bucket_latency_ms_ = 0.0;
  if ((index + 2) * bucket_ns_ <= end_ns_) Push((index + 2) * bucket_ns_, EventKind::kBucket, 0, index + 1);
}

StatusOr<SimulationResult> Simulation::Run() {
  if (bounds_ns_.size() < 2 || !std::is_sorted(bounds_ns_.begin(), bounds_ns_.end()) ||
      bounds_ns_.front() < 0) {
    return Status::InvalidArgument("simulation needs at least two increasing phase bounds >= 0");
  }
  if (!options_.make_admission) return Status::InvalidArgument("simulation needs make_admission");
  size_t n = clients_.size();
  result_.limit_changes.resize(n);
  stamp_successes_.assign(n, 0);
  for (size_t i = 0; i + 1 < bounds_ns_.size(); ++i) {
    PhaseStats phase;
    phase.start_s = options_.phase_bounds[i];
    phase.end_s = options_.phase_bounds[i + 1];
    phase.successes_by_client.assign(n, 0);
    phase.response_by_client.resize(n);
    result_.phases.push_back(std::move(phase));
  }
  for (size_t i = 0; i < n; ++i) {
    ClientState& c = clients_[i];
    const std::string prefix = "client." + client_specs_[i].name;
    c.arrivals = Rng(StreamSeed(workload_.seed, prefix + ".arrivals"));
    c.sizes = Rng(StreamSeed(workload_.seed, prefix + ".sizes"));
    c.work = Rng(StreamSeed(workload_.seed, prefix + ".work"));
    c.failures = Rng(StreamSeed(workload_.seed, prefix + ".failures"));
    c.setup = Rng(StreamSeed(workload_.seed, prefix + ".setup"));
    c.kinds = Rng(StreamSeed(workload_.seed, prefix + ".kinds"));
    if (!options_.backlog_instead_of_fixed_work) c.total_jobs = client_specs_[i].total_jobs;
    StatusOr<std::unique_ptr<Admission>> admission = options_.make_admission(i, clock_);
    if (!admission.ok()) return admission.status();
    c.admission = *std::move(admission);
    c.last_limit = c.admission->limit();
    result_.limit_changes[i].emplace_back(0.0, c.last_limit);
  }
  if (options_.apply_steps) {
    for (size_t i = 0; i < workload_.steps.size(); ++i) {
      Push(SecondsToNs(workload_.steps[i].at_s), EventKind::kStep, static_cast<int32_t>(i), 0);
    }
  }
  if (bucket_ns_ > 0 && bucket_ns_ <= end_ns_) Push(bucket_ns_, EventKind::kBucket, 0, 0);
  for (size_t i = 0; i < n; ++i) {
    const ClientSpec& spec = client_specs_[i];
    int client = static_cast<int>(i);
    if (spec.load == ClientSpec::Load::kOpen) {
      ScheduleArrival(client);
    } else {
      StartJobs(client);
    }
  }

  RunEvents(end_ns_);
  result_.end_s = finished_ ? NsToSeconds(now_) : options_.phase_bounds.back();
  for (PhaseStats& phase : result_.phases) {
    phase.end_s = std::clamp(result_.end_s, phase.start_s, phase.end_s);
  }
  Drain();
  // Drop held permits before the admissions go: the limiter requires none outstanding.
  for (ClientState& c : clients_) c.admission.reset();
  return std::move(result_);
}

}  // namespace

StatusOr<SimulationResult> Simulate(const Workload& workload, const SimulationOptions& options) {
  Simulation simulation(workload, options);
  return simulation.Run();
}

}  // namespace blobtune::workbench
