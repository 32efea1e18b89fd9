#include "families.h"

#include <algorithm>
#include <cmath>

#include "distribution.h"
#include "draw.h"

namespace blobtune::workbench {

std::string Jobs(int concurrency) {
  return Num(concurrency) + (concurrency == 1 ? " job" : " jobs");
}

// A network (lognormal, cv log-uniform in [0.1, 1], or, one time in three, a mix where a fraction
// q of round trips is f times slower) in front of 1 to 4 servers busy a small part of each round
// trip: L* >= 4 servers.
Sketch DelayFamily(Draw& draw) {
  Sketch s;
  s.scale = draw.ScaleOf({.min_limit = 4});
  const double limit = s.scale.limit;
  const double round_trip = s.scale.round_trip_ms;
  int servers = draw.LogInt(1, std::min(4, static_cast<int>(limit / 4)));
  double service = Round3(servers * round_trip / limit);
  double network = Round3(round_trip - service);
  OrderedJson network_ms;
  std::string network_words;
  if (draw.Chance(1.0 / 3.0)) {
    double q = Round3(draw.LogUniform(0.005, 0.05));
    double f = Round3(draw.LogUniform(10.0, 50.0));
    double base = Round3(network / (1.0 - q + q * f));
    network_ms = {{"type", "mix"},
                  {"parts",
                   {{{"weight", Round3(1.0 - q)}, {"of", Lognormal(base, 0.2)}},
                    {{"weight", q}, {"of", Lognormal(Round3(base * f), 0.5)}}}}};
    network_words = Num(network) + " ms of network on average: " + Num(base) +
                    " ms (lognormal, cv 0.2), but " + Num(100.0 * q) + "% of round trips " +
                    Num(f) + "x slower";
  } else {
    double cv = Round3(draw.LogUniform(0.1, 1.0));
    network_ms = Lognormal(network, cv);
    network_words = Num(network) + " ms of network (lognormal, cv " + Num(cv) + ")";
  }
  std::string shape;
  OrderedJson service_ms = ServiceShape(draw, service, shape);
  int backlog = Backlog(draw, limit);
  s.stages = {
      {{"name", "network"}, {"kind", "delay"}, {"service_ms", network_ms}},
      {{"name", "server"}, {"kind", "queue"}, {"servers", servers}, {"service_ms", service_ms}}};
  s.clients = OrderedJson::array({ClosedClient("client", backlog)});
  s.description = "Delay-dominated: " + network_words + ", then " +
                  (servers == 1 ? std::string("one server") : Num(servers) + " servers") + " of " +
                  Num(service) + " ms (" + shape + "), capacity " +
                  Num(servers * 1000.0 / service) + "/s; a backlog of " + Jobs(backlog);
  s.timeline = PlanPhases(1, round_trip, s.scale.goodput());
  s.max_limit = MaxLimitFor(limit, backlog);
  return s;
}

// k FIFO servers, k log-uniform in [1, min(64, L*)], behind whatever network is left.
Sketch KServersFamily(Draw& draw) {
  Sketch s;
  s.scale = draw.ScaleOf({});
  QueuePlant plant = DrawQueuePlant(draw, s.scale, {.max_servers = 64});
  int backlog = Backlog(draw, s.scale.limit);
  s.stages = plant.Stages();
  s.clients = OrderedJson::array({ClosedClient("client", backlog)});
  s.description = "K-server queue: " + plant.Words() + "; a backlog of " + Jobs(backlog);
  s.timeline = PlanPhases(1, s.scale.round_trip_ms, s.scale.goodput());
  s.max_limit = MaxLimitFor(s.scale.limit, backlog);
  return s;
}

// Up to 16 servers that thrash past a threshold near their knee, where overshooting costs throughput.
Sketch ContentionFamily(Draw& draw) {
  Sketch s;
  s.scale = draw.ScaleOf({.min_limit = 2});
  const double limit = s.scale.limit;
  QueuePlant plant = DrawQueuePlant(draw, s.scale, {.max_servers = 16});
  int threshold =
      plant.servers + draw.Int(0, static_cast<int>(std::floor((limit - plant.servers) / 4.0)));
  double g = Round3(draw.LogUniform(0.5, 4.0));
  double slowdown = Round3(g / limit);
  plant.server["contention"] = {{"threshold", threshold}, {"slowdown", slowdown}};
  int backlog = Backlog(draw, limit);
  s.stages = plant.Stages();
  s.clients = OrderedJson::array({ClosedClient("client", backlog)});
  s.description = "Contention: " + plant.Words() + "; once more than " + Num(threshold) +
                  " requests are at the servers, each one more slows every starting service by " +
                  Num(100.0 * slowdown) + "%; a backlog of " + Jobs(backlog);
  s.timeline = PlanPhases(1, s.scale.round_trip_ms, s.scale.goodput());
  s.max_limit = MaxLimitFor(limit, backlog);
  return s;
}

// A batch writer: commit c = f * round trip (f log-uniform in [0.02, 0.3]) plus p per member,
// p = round trip * (1 + 20 f) / L*, so goodput keeps rising past the latency knee towards 1 / p.
Sketch GroupCommitFamily(Draw& draw) {
  Sketch s;
  s.scale = draw.ScaleOf({.min_limit = 4});
  const double limit = s.scale.limit;
  const double round_trip = s.scale.round_trip_ms;
  double f = draw.LogUniform(0.02, 0.3);
  double commit = Round3(f * round_trip);
  double network = Round3(round_trip - commit);
  double per_request = Round3(round_trip * (1.0 + 20.0 * f) / limit);
  double network_cv = Round3(draw.Uniform(0.05, 0.3));
  double commit_cv = Round3(draw.Uniform(0.1, 0.5));
  int backlog = Backlog(draw, limit);
  s.stages = {
      {{"name", "network"}, {"kind", "delay"}, {"service_ms", Lognormal(network, network_cv)}},
      {{"name", "writer"},
       {"kind", "batch"},
       {"per_request_ms", per_request},
       {"service_ms", Lognormal(commit, commit_cv)}}};
  s.clients = OrderedJson::array({ClosedClient("client", backlog)});
  s.description = "Group commit: " + Num(network) + " ms of network (lognormal, cv " +
                  Num(network_cv) +
                  "), then one writer that commits every waiting request in one " + "batch of " +
                  Num(commit) + " ms (lognormal, cv " + Num(commit_cv) + ") plus " +
                  Num(per_request) + " ms per request, so goodput keeps rising towards " +
                  Num(1000.0 / per_request) + "/s; a backlog of " + Jobs(backlog);
  s.timeline = PlanPhases(1, round_trip, s.scale.goodput());
  s.max_limit = MaxLimitFor(limit, backlog);
  return s;
}

// Blob sizes over 4 decades (Pareto or log-uniform from x0, x0 log-uniform in [0.5, 16] KiB) and
// servers whose cost is mostly per byte.
Sketch HeavyTailFamily(Draw& draw) {
  Sketch s;
  s.scale = draw.ScaleOf({});
  const double limit = s.scale.limit;
  const double round_trip = s.scale.round_trip_ms;
  int servers = draw.LogInt(1, std::clamp(static_cast<int>(limit), 1, 16));
  double service = Round3(servers * round_trip / limit);
  double least = Round3(draw.LogUniform(512.0, 16384.0));
  double most = Round3(1e4 * least);
  OrderedJson sizes;
  Distribution size_distribution;
  std::string size_words;
  if (draw.Chance(0.5)) {
    double alpha = Round3(draw.Uniform(1.1, 2.0));
    double mean = Round3(least * alpha / (alpha - 1.0));
    sizes = {{"type", "pareto"}, {"mean", mean}, {"alpha", alpha}, {"max", most}};
    size_distribution = Distribution::Pareto(mean, alpha, most);
    size_words = "Pareto (alpha " + Num(alpha) + ")";
  } else {
    sizes = {{"type", "loguniform"}, {"min", least}, {"max", most}};
    size_distribution = Distribution::LogUniform(least, most);
    size_words = "log-uniform";
  }
  double mean_mib = size_distribution.Mean() / 1048576.0;
  double share = Round3(draw.Uniform(0.5, 0.95));
  double base = Round3((1.0 - share) * service);
  double per_mib = Round3(share * service / mean_mib);
  double network = Round3(std::max(round_trip - service, 0.01 * round_trip));
  double network_cv = Round3(draw.Uniform(0.05, 0.5));
  int backlog = Backlog(draw, limit);
  s.stages = {
      {{"name", "network"}, {"kind", "delay"}, {"service_ms", Lognormal(network, network_cv)}},
      {{"name", "server"},
       {"kind", "queue"},
       {"servers", servers},
       {"service_ms", Exponential(base)},
       {"per_mib_ms", per_mib}}};
  OrderedJson client = ClosedClient("client", backlog);
  client["size_bytes"] = sizes;
  s.clients = OrderedJson::array({client});
  s.description =
      "Heavy-tailed sizes: blobs of " + Num(least / 1024.0) + " KiB to " + Num(most / 1048576.0) +
      " MiB, " + size_words + ", mean " + Num(mean_mib) + " MiB; " + Num(network) +
      " ms of network (lognormal, cv " + Num(network_cv) + "), then " +
      (servers == 1 ? std::string("one server") : Num(servers) + " servers") + " of " + Num(base) +
      " ms (exponential) plus " + Num(per_mib) + " ms per MiB (" + Num(100.0 * share) +
      "% of the mean service, " + Num(service) + " ms); a backlog of " + Jobs(backlog);
  s.timeline = PlanPhases(1, round_trip, s.scale.goodput());
  s.max_limit = MaxLimitFor(limit, backlog);
  return s;
}

}  // namespace blobtune::workbench
