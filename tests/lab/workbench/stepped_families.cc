#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "draw.h"
#include "families.h"

namespace blobtune::workbench {
namespace {

// How an open-loop client waits for a permit: newest first without a bound (1/3), not at all
// (max_queue 0: shed, 1/6), or at most Q, Q log-uniform in [1, L*], newest first 1/3 of the time
// (1/2). Oldest first, a queue that takes longer to drain than the deadline would, in overload,
// grant every permit to a request at its deadline, and no static limit could save the goodput: at
// L* the bound Q drains in about one round trip. Returns the words.
std::string DrawQueue(Draw& draw, double limit, OrderedJson& client) {
  double u = draw.Uniform(0.0, 1.0);
  if (u < 1.0 / 3.0) {
    client["queue_order"] = "lifo";
    return "an unbounded queue served newest first";
  }
  if (u < 0.5) {
    client["max_queue"] = 0;
    return "no queue (a request that finds no permit is shed)";
  }
  int max_queue = draw.LogInt(1, static_cast<int>(std::ceil(limit)));
  bool lifo = draw.Chance(1.0 / 3.0);
  if (lifo) client["queue_order"] = "lifo";
  client["max_queue"] = max_queue;
  return "at most " + Num(max_queue) + " waiting" + (lifo ? ", served newest first" : "");
}

// An open-loop client at 1.1 to 2 times the capacity, or a backlog for a plant whose L* grows
// `growth`-fold. Returns the words.
std::string DrawOverload(Draw& draw, const Sketch& s, const QueuePlant& plant, bool open,
                         double growth, OrderedJson& client) {
  if (!open) {
    int backlog = Backlog(draw, s.scale.limit * growth);
    client = ClosedClient("client", backlog);
    return "a backlog of " + Jobs(backlog);
  }
  double rate = Round3(draw.Uniform(1.1, 2.0) * plant.capacity());
  client = OpenClient("client", rate);
  std::string queue = DrawQueue(draw, s.scale.limit, client);
  return "Poisson arrivals of " + Num(rate) + "/s (" + Num(100.0 * rate / plant.capacity()) +
         "% of capacity), " + queue + ",";
}

}  // namespace

// Poisson demand that climbs from below capacity to overload in 1 to 3 steps, then comes back
// down the same steps or at once.
Sketch OpenRampFamily(Draw& draw) {
  Sketch s;
  s.scale = draw.ScaleOf({.max_goodput = kMaxOpenGoodput});
  const double round_trip = s.scale.round_trip_ms;
  QueuePlant plant = DrawQueuePlant(draw, s.scale, {.max_servers = 64});
  double capacity = plant.capacity();
  double low = draw.Uniform(0.3, 0.8);
  double peak = draw.Uniform(1.2, 2.5);
  int up = draw.Int(1, 3);
  bool mirror = draw.Chance(0.5);
  std::vector<double> rates;
  for (int i = 0; i <= up; ++i) {
    rates.push_back(Round3(capacity * low * std::pow(peak / low, static_cast<double>(i) / up)));
  }
  if (mirror) {
    for (int i = up - 1; i >= 0; --i) rates.push_back(rates[i]);
  } else {
    rates.push_back(rates[0]);
  }
  double deadline = Round3(draw.LogUniform(5.0, 50.0) * round_trip);
  OrderedJson client = OpenClient("client", rates[0]);
  client["deadline_ms"] = deadline;
  std::string queue_words = DrawQueue(draw, s.scale.limit, client);
  s.stages = plant.Stages();
  s.clients = OrderedJson::array({client});
  s.timeline = PlanPhases(static_cast<int>(rates.size()), round_trip, rates[0]);
  std::string levels;
  for (size_t i = 0; i < rates.size(); ++i) {
    levels += (i == 0 ? "" : ", ") + Num(rates[i]);
    if (i > 0)
      s.steps.push_back(Step(s.timeline.steps_s[i - 1], "client.client.rate_per_s", rates[i]));
  }
  s.description = "Open-loop ramp: Poisson arrivals of " + levels + " per second in " +
                  std::to_string(rates.size()) + " equal phases (" + Num(100.0 * low) +
                  "% of capacity up to " + Num(100.0 * peak) + "%, then down " +
                  (mirror ? "the same steps" : "at once") + "), a deadline of " + Num(deadline) +
                  " ms, " + queue_words + "; " + plant.Words();
  s.max_limit = MaxLimitFor(s.scale.limit, 0);
  return s;
}

// 2 to 4 closed-loop clients with their own limiters share one plant. The first runs from the
// start; each other one starts (from 0, 2/3 of the time) or steps up (from a quarter of its
// backlog) at the start of the next phase; half the time the first one stops in a last phase.
Sketch StaggeredFamily(Draw& draw) {
  Sketch s;
  s.scale = draw.ScaleOf({.min_limit = 2});
  const double limit = s.scale.limit;
  QueuePlant plant = DrawQueuePlant(draw, s.scale, {.max_servers = 64});
  int clients = draw.Int(2, 4);
  bool first_stops = draw.Chance(0.5);
  s.timeline =
      PlanPhases(clients + (first_stops ? 1 : 0), s.scale.round_trip_ms, s.scale.goodput());
  std::string words;
  int most = 0;
  for (int i = 0; i < clients; ++i) {
    std::string name(1, static_cast<char>('a' + i));
    int backlog = Backlog(draw, limit);
    most = std::max(most, backlog);
    if (i == 0) {
      s.clients.push_back(ClosedClient(name, backlog));
      words = name + " with a backlog of " + Jobs(backlog) + " from the start";
      continue;
    }
    int start = draw.Chance(2.0 / 3.0) ? 0 : std::max(1, backlog / 4);
    double at_s = s.timeline.steps_s[static_cast<size_t>(i - 1)];
    s.clients.push_back(ClosedClient(name, start));
    s.steps.push_back(Step(at_s, "client." + name + ".concurrency", backlog));
    words += ", " + name + (start == 0 ? " starting" : " stepping up from " + Jobs(start)) +
             " with " + Jobs(backlog) + " at " + Num(at_s) + " s";
  }
  if (first_stops) {
    double at_s = s.timeline.steps_s.back();
    s.steps.push_back(Step(at_s, "client.a.concurrency", 0));
    words += ", and a stopping at " + Num(at_s) + " s";
  }
  s.stages = plant.Stages();
  s.description =
      "Staggered clients, each with its own limiter, sharing one plant: " + plant.Words() +
      ". Clients: " + words;
  s.max_limit = MaxLimitFor(limit, most);
  return s;
}

// The staggered clients sharing one limiter through partitions, one each: shares in proportion
// to weights drawn uniform in 1..4 (in hundredths, rounded down, so they add up to at most 1), and
// half the time priority 1 for `a`, the client that runs from the start.
Sketch PartitionedFamily(Draw& draw) {
  Sketch s = StaggeredFamily(draw);
  std::vector<int> weights;
  int total = 0;
  for (size_t c = 0; c < s.clients.size(); ++c) total += weights.emplace_back(draw.Int(1, 4));
  const bool first_first = draw.Chance(0.5);
  std::string words;
  for (size_t c = 0; c < s.clients.size(); ++c) {
    const std::string name = s.clients[c]["name"].get<std::string>();
    const double share = std::floor(100.0 * weights[c] / total) / 100.0;
    OrderedJson partition = {{"name", name}, {"share", share}};
    if (c == 0 && first_first) partition["priority"] = 1;
    s.partitions.push_back(partition);
    s.clients[c]["partition"] = name;
    words += (words.empty() ? "" : ", ") + name + " " + Num(share);
  }
  // The staggered description says "each with its own limiter": not so here.
  constexpr std::string_view kOwn = "each with its own limiter";
  const size_t own = s.description.find(kOwn);
  s.description.replace(own, kOwn.size(),
                        "sharing one limiter through partitions (shares " + words +
                            (first_first ? "; a at priority 1" : "") + ")");
  return s;
}

// 2 to 4 closed-loop clients with their own limiters share one plant and come and go, as
// servers added to and removed from one pool: `a` runs from the start and each other client
// joins from 0 at the start of its phase, as in `staggered`; then one client, drawn from all,
// leaves (concurrency 0) for a phase and rejoins at its backlog; half the time another one
// leaves for good in a last phase.
Sketch ChurnFamily(Draw& draw) {
  Sketch s;
  s.scale = draw.ScaleOf({.min_limit = 2});
  const double limit = s.scale.limit;
  QueuePlant plant = DrawQueuePlant(draw, s.scale, {.max_servers = 64});
  const int clients = draw.Int(2, 4);
  const int leaver = draw.Int(0, clients - 1);
  const bool last_leaves = draw.Chance(0.5);
  // Another client than the one that came back, so that the last phase is a second departure.
  const int last = last_leaves ? (leaver + draw.Int(1, clients - 1)) % clients : -1;
  s.timeline = PlanPhases(clients + 2 + (last_leaves ? 1 : 0), s.scale.round_trip_ms,
                          s.scale.goodput());
  const std::vector<double>& at_s = s.timeline.steps_s;
  const auto name_of = [](int i) { return std::string(1, static_cast<char>('a' + i)); };
  std::string words;
  std::vector<int> backlogs;
  for (int i = 0; i < clients; ++i) {
    const std::string name = name_of(i);
    const int backlog = backlogs.emplace_back(Backlog(draw, limit));
    s.clients.push_back(ClosedClient(name, i == 0 ? backlog : 0));
    if (i == 0) {
      words = name + " with a backlog of " + Jobs(backlog) + " from the start";
      continue;
    }
    const double join_s = at_s[static_cast<size_t>(i - 1)];
    s.steps.push_back(Step(join_s, "client." + name + ".concurrency", backlog));
    words += ", " + name + " joining with " + Jobs(backlog) + " at " + Num(join_s) + " s";
  }
  const double leave_s = at_s[static_cast<size_t>(clients - 1)];
  const double back_s = at_s[static_cast<size_t>(clients)];
  s.steps.push_back(Step(leave_s, "client." + name_of(leaver) + ".concurrency", 0));
  s.steps.push_back(Step(back_s, "client." + name_of(leaver) + ".concurrency",
                         backlogs[static_cast<size_t>(leaver)]));
  words += "; " + name_of(leaver) + " leaving at " + Num(leave_s) + " s and rejoining at " +
           Num(back_s) + " s";
  if (last_leaves) {
    s.steps.push_back(Step(at_s.back(), "client." + name_of(last) + ".concurrency", 0));
    words += ", " + name_of(last) + " leaving for good at " + Num(at_s.back()) + " s";
  }
  s.stages = plant.Stages();
  s.description = "Churn: clients, each with its own limiter, joining and leaving one plant: " +
                  plant.Words() + ". Clients: " + words;
  s.max_limit = MaxLimitFor(limit, *std::max_element(backlogs.begin(), backlogs.end()));
  return s;
}

// One parameter steps by a factor f log-uniform in [2, 10], up or down, and half the time back:
// the servers, the network's scale, the blob sizes or the backlog.
Sketch StepsFamily(Draw& draw) {
  enum Change { kCapacity, kLatency, kSize, kDemand };
  const auto change = static_cast<Change>(draw.Int(0, 3));
  const bool up = draw.Chance(0.5);
  const double f = draw.LogUniform(2.0, 10.0);
  const bool back = draw.Chance(0.5);
  // A step that raises L* or the goodput f-fold needs that much room under the population's
  // bounds; fewer servers, and a network to slow, need L* >= 2.
  const bool grows =
      (change == kCapacity && up) || (change == kLatency && up) || (change == kSize && !up);
  const double growth = grows ? f : 1.0;
  Sketch s;
  s.scale =
      draw.ScaleOf({.min_limit = (change == kCapacity && !up) || change == kLatency ? 2.0 : 1.0,
                    .max_limit = kMaxTargetLimit / growth,
                    .max_goodput = kMaxGoodput / growth});
  const double limit = s.scale.limit;
  QueuePlant plant = DrawQueuePlant(draw, s.scale,
                                    {.min_servers = change == kCapacity && !up ? 2 : 1,
                                     .max_servers = 64,
                                     .min_network = change == kLatency ? 0.5 : 0.0});
  OrderedJson client;
  std::string target, what;
  OrderedJson before, after;
  if (change == kDemand) {
    int high = Backlog(draw, limit);
    int low = std::max(1, static_cast<int>(std::floor(limit / f)));
    client = ClosedClient("client", up ? low : high);
    target = "client.client.concurrency";
    before = up ? low : high;
    after = up ? high : low;
    what = "the backlog goes from " + Jobs(before.get<int>()) + " to " + Num(after.get<int>());
  } else {
    client = ClosedClient("client", Backlog(draw, limit * growth));
    what = "; a backlog of " + Jobs(client["load"]["concurrency"].get<int>());
  }
  if (change == kCapacity) {
    int servers = up ? static_cast<int>(std::lround(plant.servers * f))
                     : std::max(1, static_cast<int>(std::lround(plant.servers / f)));
    target = "stage.server.servers";
    before = plant.servers;
    after = servers;
    what += "; the servers go from " + Num(plant.servers) + " to " + Num(servers);
  } else if (change == kLatency) {
    target = "stage.network.scale";
    before = 1;
    after = Round3(up ? f : 1.0 / f);
    what += "; the network becomes " + Num(Round3(f)) + "x " + (up ? "slower" : "faster");
  } else if (change == kSize) {
    // Sizes log-uniform over [x0, 16 x0], x0 log-uniform in [4 KiB, 1 MiB]; a share in
    // [0.5, 0.9] of the mean service is per byte.
    double least = Round3(draw.LogUniform(4096.0, 1048576.0));
    double most = Round3(16.0 * least);
    double mean_mib = (most - least) / std::log(most / least) / 1048576.0;
    double share = Round3(draw.Uniform(0.5, 0.9));
    double base = Round3((1.0 - share) * plant.service_ms);
    double per_mib = Round3(share * plant.service_ms / mean_mib);
    plant.server["service_ms"] = Exponential(base);
    plant.server["per_mib_ms"] = per_mib;
    plant.shape = "exponential " + Num(base) + " ms plus " + Num(per_mib) + " ms per MiB";
    client["size_bytes"] = {{"type", "loguniform"}, {"min", least}, {"max", most}};
    target = "client.client.size_scale";
    before = 1;
    after = Round3(up ? f : 1.0 / f);
    what += "; blobs of " + Num(least / 1024.0) + " to " + Num(most / 1024.0) +
            " KiB (log-uniform) become " + Num(Round3(f)) + "x " + (up ? "larger" : "smaller");
  }
  // The longest round trip and the lowest goodput of the phases set their length.
  const bool slows = change == kDemand || (change == kCapacity && !up) || (change == kSize && up);
  double round_trip = s.scale.round_trip_ms * (change == kLatency && up ? f : 1.0);
  s.timeline = PlanPhases(back ? 3 : 2, round_trip, s.scale.goodput() / (slows ? f : 1.0));
  s.steps.push_back(Step(s.timeline.steps_s[0], target, after));
  what += " at " + Num(s.timeline.steps_s[0]) + " s";
  if (back) {
    s.steps.push_back(Step(s.timeline.steps_s[1], target, before));
    what += ", and back at " + Num(s.timeline.steps_s[1]) + " s";
  }
  s.stages = plant.Stages();
  s.clients = OrderedJson::array({client});
  s.description = "Steps: " + plant.Words() + (change == kDemand ? "; " : "") + what;
  s.max_limit = MaxLimitFor(limit * growth, client["load"]["concurrency"].get<int>() +
                                                (change == kDemand ? after.get<int>() : 0));
  return s;
}

// error_fraction jumps to a storm of 20% to 90% for the middle third of the run; errors take 0.01
// to 1 round trips.
Sketch ErrorStormFamily(Draw& draw) {
  Sketch s;
  const bool open = draw.Chance(1.0 / 3.0);
  const double calm = draw.Chance(0.5) ? 0.0 : Round3(draw.LogUniform(0.001, 0.02));
  const double storm = Round3(draw.Uniform(0.2, 0.9));
  const double error_rtts = draw.LogUniform(0.01, 1.0);
  // Failing requests hold permits too: in the storm L* grows about
  // 1 + storm / (1 - storm) * error_rtts.
  const double growth = 1.0 + storm / (1.0 - storm) * error_rtts;
  s.scale = draw.ScaleOf(
      {.max_limit = kMaxTargetLimit / growth, .max_goodput = open ? kMaxOpenGoodput : kMaxGoodput});
  const double round_trip = s.scale.round_trip_ms;
  QueuePlant plant = DrawQueuePlant(draw, s.scale, {.max_servers = 64});
  double error_ms = Round3(error_rtts * round_trip);
  OrderedJson client;
  std::string load = DrawOverload(draw, s, plant, open, growth, client);
  if (open) {
    double deadline = Round3(draw.LogUniform(5.0, 50.0) * round_trip);
    client["deadline_ms"] = deadline;
    load += " with a deadline of " + Num(deadline) + " ms";
  }
  client["failures"] = {{"error_fraction", calm}, {"error_ms", Exponential(error_ms)}};
  s.timeline = PlanPhases(3, round_trip, s.scale.goodput() * (1.0 - storm));
  s.steps = {Step(s.timeline.steps_s[0], "client.client.error_fraction", storm),
             Step(s.timeline.steps_s[1], "client.client.error_fraction", calm)};
  s.stages = plant.Stages();
  s.clients = OrderedJson::array({client});
  s.description = "Error storm: " + load + "; " + Num(100.0 * storm) +
                  "% of requests fail (after " + Num(error_ms) + " ms, exponential) from " +
                  Num(s.timeline.steps_s[0]) + " s to " + Num(s.timeline.steps_s[1]) + " s, " +
                  (calm > 0.0 ? Num(100.0 * calm) + "% before and after" : "none before or after") +
                  "; " + plant.Words();
  s.max_limit = MaxLimitFor(s.scale.limit * growth, client["load"].value("concurrency", 0));
  return s;
}

// Requests that hang until their deadline (3 to 20 round trips): a steady fraction, or a storm in
// the middle third of the run.
Sketch HangsFamily(Draw& draw) {
  Sketch s;
  const bool open = draw.Chance(0.5);
  const bool storm = draw.Chance(0.5);
  const double deadline_rtts = draw.LogUniform(3.0, 20.0);
  double calm = 0.0, burst = 0.0;
  if (storm) {
    calm = draw.Chance(0.5) ? 0.0 : Round3(draw.LogUniform(0.001, 0.01));
    burst = Round3(draw.LogUniform(0.05, 0.2));
  } else {
    calm = burst = Round3(draw.LogUniform(0.002, 0.05));
  }
  // Each hang holds its permit for the deadline: L* grows about 1 + burst * deadline_rtts.
  const double growth = 1.0 + burst * deadline_rtts;
  s.scale = draw.ScaleOf(
      {.max_limit = kMaxTargetLimit / growth, .max_goodput = open ? kMaxOpenGoodput : kMaxGoodput});
  const double round_trip = s.scale.round_trip_ms;
  QueuePlant plant = DrawQueuePlant(draw, s.scale, {.max_servers = 64});
  double deadline = Round3(deadline_rtts * round_trip);
  OrderedJson client;
  std::string load = DrawOverload(draw, s, plant, open, growth, client);
  client["deadline_ms"] = deadline;
  if (!open) {
    // Oldest first, a backlog's requests would wait out their deadlines under any limit well
    // below the backlog, and the oracle's sweep would find nothing to measure there.
    client["queue_order"] = "lifo";
    load += " served newest first";
  }
  client["failures"] = {{"hang_fraction", calm}};
  s.timeline = PlanPhases(storm ? 3 : 1, round_trip, s.scale.goodput());
  std::string hangs = Num(100.0 * burst) + "% of requests hang until the deadline";
  if (storm) {
    s.steps = {Step(s.timeline.steps_s[0], "client.client.hang_fraction", burst),
               Step(s.timeline.steps_s[1], "client.client.hang_fraction", calm)};
    hangs += " from " + Num(s.timeline.steps_s[0]) + " s to " + Num(s.timeline.steps_s[1]) +
             " s, " +
             (calm > 0.0 ? Num(100.0 * calm) + "% before and after" : "none before or after");
  }
  s.stages = plant.Stages();
  s.clients = OrderedJson::array({client});
  s.description = "Hangs: " + load + " with a deadline of " + Num(deadline) + " ms; " + hangs +
                  "; " + plant.Words();
  s.max_limit = MaxLimitFor(s.scale.limit * growth, client["load"].value("concurrency", 0));
  return s;
}

}  // namespace blobtune::workbench
