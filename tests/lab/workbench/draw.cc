#include "draw.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace blobtune::workbench {
namespace {

// Compact JSON with a space after each ':' and ',' outside strings, as people write it.
std::string Spaced(const std::string& compact) {
  std::string out;
  bool in_string = false;
  bool escaped = false;
  for (char c : compact) {
    out += c;
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == ':' || c == ',') {
      out += ' ';
    }
  }
  return out;
}

// Whole numbers written without ".0", as people write them ("duration_s": 60).
void WholeNumbersAsIntegers(OrderedJson& value) {
  if (value.is_number_float()) {
    double x = value.get<double>();
    if (x == std::floor(x) && std::fabs(x) < 1e15) value = static_cast<int64_t>(x);
  } else if (value.is_structured()) {
    for (OrderedJson& child : value) WholeNumbersAsIntegers(child);
  }
}

}  // namespace

double Round3(double x) {
  if (x == 0.0 || !std::isfinite(x)) return x;
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return std::strtod(text, nullptr);
}

std::string Num(double x) {
  if (std::fabs(x) >= 100.0) return std::to_string(std::llround(x));
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

int Draw::Int(int lo, int hi) {
  if (hi <= lo) return lo;
  return std::min(hi, lo + static_cast<int>(rng_.Uniform() * (hi - lo + 1)));
}

int Draw::LogInt(int lo, int hi) {
  if (hi <= lo) return lo;
  return std::min(hi, static_cast<int>(std::floor(LogUniform(lo, hi + 1.0))));
}

Scale Draw::ScaleOf(const ScaleBounds& bounds) {
  Scale scale;
  // Rejection keeps the draw uniform over the allowed part of the (log L*, log round trip)
  // rectangle; every family's part is at least a third of it, so 1000 misses never happen.
  for (int attempt = 0; attempt < 1000; ++attempt) {
    scale.limit = LogUniform(bounds.min_limit, bounds.max_limit);
    scale.round_trip_ms = LogUniform(kMinRoundTripMs, kMaxRoundTripMs);
    if (scale.goodput() <= bounds.max_goodput) return scale;
  }
  scale.round_trip_ms = std::min(kMaxRoundTripMs, scale.limit * 1000.0 / bounds.max_goodput);
  return scale;
}

OrderedJson Exponential(double mean) { return {{"type", "exponential"}, {"mean", mean}}; }

OrderedJson Lognormal(double mean, double cv) {
  return {{"type", "lognormal"}, {"mean", mean}, {"cv", cv}};
}

OrderedJson ServiceShape(Draw& draw, double mean_ms, std::string& words) {
  double u = draw.Uniform(0.0, 1.0);
  if (u < 1.0 / 6.0) {
    words = "constant";
    return mean_ms;
  }
  if (u < 0.5) {
    words = "exponential";
    return Exponential(mean_ms);
  }
  double cv = Round3(draw.LogUniform(0.25, 2.0));
  words = "lognormal, cv " + Num(cv);
  return Lognormal(mean_ms, cv);
}

OrderedJson QueuePlant::Stages() const {
  OrderedJson stages = OrderedJson::array();
  if (!network.is_null()) stages.push_back(network);
  stages.push_back(server);
  return stages;
}

QueuePlant DrawQueuePlant(Draw& draw, const Scale& scale, const QueuePlantBounds& bounds) {
  QueuePlant plant;
  const double round_trip = scale.round_trip_ms;
  int most = std::clamp(static_cast<int>(std::floor(scale.limit * (1.0 - bounds.min_network))), 1,
                        bounds.max_servers);
  plant.servers = draw.LogInt(std::min(bounds.min_servers, most), most);
  plant.service_ms = Round3(plant.servers * round_trip / scale.limit);
  plant.server = {{"name", "server"},
                  {"kind", "queue"},
                  {"servers", plant.servers},
                  {"service_ms", ServiceShape(draw, plant.service_ms, plant.shape)}};
  double cv = Round3(draw.Uniform(0.05, 0.5));
  double network = round_trip - plant.service_ms;
  if (network >= 0.01 * round_trip || bounds.min_network > 0.0) {
    plant.network_ms = Round3(std::max(network, 0.01 * round_trip));
    plant.network = {
        {"name", "network"}, {"kind", "delay"}, {"service_ms", Lognormal(plant.network_ms, cv)}};
    plant.network_words = Num(plant.network_ms) + " ms of network (lognormal, cv " + Num(cv) + ")";
  }
  return plant;
}

std::string QueuePlant::Words() const {
  return (network_words.empty() ? "" : network_words + ", then ") +
         (servers == 1 ? std::string("one server") : Num(servers) + " servers") + " of " +
         Num(service_ms) + " ms (" + shape + "): capacity " + Num(capacity()) + "/s";
}

OrderedJson ClosedClient(const std::string& name, int concurrency) {
  return {{"name", name}, {"load", {{"type", "closed"}, {"concurrency", concurrency}}}};
}

OrderedJson OpenClient(const std::string& name, double rate_per_s) {
  return {{"name", name}, {"load", {{"type", "open"}, {"rate_per_s", Round3(rate_per_s)}}}};
}

int Backlog(Draw& draw, double limit) {
  return static_cast<int>(std::ceil(draw.LogUniform(2.0, 4.0) * limit)) + 2;
}

Timeline PlanPhases(int phases, double round_trip_ms, double goodput_per_s) {
  double phase_s = std::max(300.0 * round_trip_ms / 1000.0, 3000.0 / goodput_per_s);
  Timeline timeline;
  timeline.duration_s = std::clamp(std::ceil(phases * phase_s), 10.0, 120.0);
  for (int i = 1; i < phases; ++i) {
    timeline.steps_s.push_back(std::round(10.0 * timeline.duration_s * i / phases) / 10.0);
  }
  return timeline;
}

OrderedJson Step(double at_s, const std::string& target, const OrderedJson& value) {
  return {{"at_s", at_s}, {"set", {{target, value}}}};
}

int MaxLimitFor(double limit, int concurrency) {
  int64_t most = std::max<int64_t>({64, static_cast<int64_t>(std::ceil(8.0 * limit)), concurrency});
  int64_t unit = 1;
  while (most / unit >= 100) unit *= 10;
  return static_cast<int>((most + unit - 1) / unit * unit);
}

std::string FormatWorkload(const OrderedJson& workload) {
  OrderedJson tidy = workload;
  WholeNumbersAsIntegers(tidy);
  std::string out = "{\n";
  bool first = true;
  for (const auto& [key, value] : tidy.items()) {
    if (!first) out += ",\n";
    first = false;
    out += "  " + OrderedJson(key).dump() + ": ";
    if (value.is_array() && !value.empty()) {
      out += "[\n";
      for (size_t i = 0; i < value.size(); ++i) {
        out += "    " + Spaced(value[i].dump()) + (i + 1 < value.size() ? ",\n" : "\n");
      }
      out += "  ]";
    } else {
      out += Spaced(value.dump());
    }
  }
  return out + "\n}\n";
}

}  // namespace blobtune::workbench
