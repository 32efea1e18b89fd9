// NoisyPlant: a closed loop of accesses in front of k FIFO servers behind a network delay, with
// random service and network times from a seeded generator, on a fake time line. For the limit
// algorithm tests that need a plant with noise, where ClosedLoop (closed_loop.h) is exact.
//
// Every access is granted while fewer than min(limit, demand) are in flight, crosses the
// network (lognormal), waits for one of `servers` servers and is served (exponential), then
// ends as a Success; or, with probability error_fraction, ends Dropped after error_latency
// without touching the servers, or with probability hang_fraction, Dropped after hang_latency.
// Its sample goes to the algorithm as it ends, and the new limit applies at once.
//
//   NoisyPlant plant({.servers = 4, .service = 1ms, .network = 8ms}, /*seed=*/7);
//   plant.Run(algorithm, 20s);   // plant.mean_limit(), plant.goodput(), ...
//
// Thread-safety: none; a test's local.
#ifndef BLOBTUNE_TESTS_TUNER_ALGORITHMS_NOISY_PLANT_H_
#define BLOBTUNE_TESTS_TUNER_ALGORITHMS_NOISY_PLANT_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <queue>
#include <random>
#include <span>
#include <vector>

#include "blobtune/base/clock.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "sample_maker.h"

namespace blobtune::tuner::testing {

class NoisyPlant {
 public:
  struct Params {
    int servers = 1;
    Duration service{std::chrono::milliseconds(1)};  // Mean, exponential.
    Duration network{std::chrono::milliseconds(0)};  // Mean, lognormal.
    double network_cv = 0.3;
    int demand = 1 << 20;  // Accesses that want to be in flight.
    double error_fraction = 0;
    Duration error_latency{std::chrono::microseconds(10)};
    double hang_fraction = 0;
    Duration hang_latency{std::chrono::seconds(1)};
  };

  NoisyPlant(Params params, uint64_t seed) : params_(params), rng_(seed) {}

  // Runs the plant for `duration` more of fake time, with `algorithms` sharing it: each keeps
  // min(its limit, demand) accesses in flight. Statistics cover the last `measure` of it.
  void Run(std::span<LimitAlgorithm* const> algorithms, Duration duration, Duration measure) {
    const Duration end = now_ + duration;
    measure_from_ = end - measure;
    measured_ = Duration::zero();
    clients_.resize(algorithms.size());
    for (Client& c : clients_) c = Client{c.inflight};
    for (size_t c = 0; c < algorithms.size(); ++c) Fill(c, *algorithms[c]);
    while (!events_.empty() && events_.top().at <= end) {
      const Event event = events_.top();
      events_.pop();
      Advance(event.at, algorithms);
      if (event.kind == Kind::kArrive) {
        if (busy_ < params_.servers) {
          ++busy_;
          Schedule(event.at + Exponential(params_.service), Kind::kServed, event.access);
        } else {
          waiting_.push_back(event.access);
        }
        continue;
      }
      if (event.kind == Kind::kServed) {
        if (!waiting_.empty()) {
          Schedule(event.at + Exponential(params_.service), Kind::kServed, waiting_.front());
          waiting_.pop_front();
        } else {
          --busy_;
        }
      }
      Finish(event, *algorithms[accesses_[event.access].client]);
      Fill(accesses_[event.access].client, *algorithms[accesses_[event.access].client]);
    }
    Advance(end, algorithms);
  }
  void Run(LimitAlgorithm& algorithm, Duration duration, Duration measure) {
    LimitAlgorithm* one[] = {&algorithm};
    Run(one, duration, measure);
  }

  // Over the measured part of the last Run(), per client: successes per second, the limit
  // averaged over time, and the mean latency of the successes.
  double goodput(size_t client = 0) const {
    return clients_[client].successes / Seconds(measured_);
  }
  double mean_limit(size_t client = 0) const {
    return clients_[client].limit_time / Seconds(measured_);
  }
  Duration mean_latency(size_t client = 0) const {
    const Client& c = clients_[client];
    return c.successes > 0 ? c.latency_sum / static_cast<int64_t>(c.successes) : Duration{};
  }
  // Lowest and highest limit ever seen from any algorithm.
  int lowest_limit() const { return lowest_; }
  int highest_limit() const { return highest_; }
  Params& params() { return params_; }

 private:
  enum class Kind { kArrive, kServed, kDone };
  struct Event {
    Duration at;
    Kind kind;
    size_t access;
    bool operator<(const Event& other) const { return at > other.at; }  // Earliest first.
  };
  struct Access {
    size_t client = 0;
    Duration start{};
    int inflight = 0;
    bool dropped = false;
  };
  struct Client {
    int inflight = 0;
    double successes = 0;
    Duration latency_sum{};
    double limit_time = 0;  // Limit x seconds.
  };

  static double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

  Duration Exponential(Duration mean) {
    return std::chrono::duration_cast<Duration>(
        mean * std::exponential_distribution<double>(1.0)(rng_));
  }
  Duration LogNormal(Duration mean, double cv) {
    if (mean <= Duration::zero()) return Duration::zero();
    const double s2 = std::log(1 + cv * cv);
    std::lognormal_distribution<double> d(-s2 / 2, std::sqrt(s2));
    return std::chrono::duration_cast<Duration>(mean * d(rng_));
  }
  void Schedule(Duration at, Kind kind, size_t access) { events_.push({at, kind, access}); }

  // Time passes: the limits in force are integrated over the measured part.
  void Advance(Duration to, std::span<LimitAlgorithm* const> algorithms) {
    const Duration from = std::max(now_, measure_from_);
    if (to > from) {
      for (size_t c = 0; c < algorithms.size(); ++c) {
        clients_[c].limit_time += algorithms[c]->limit() * Seconds(to - from);
      }
      measured_ += to - from;
    }
    now_ = to;
  }

  void Fill(size_t client, LimitAlgorithm& algorithm) {
    Client& c = clients_[client];
    while (c.inflight < std::min(algorithm.limit(), params_.demand)) {
      ++c.inflight;
      const size_t id = accesses_.size();
      accesses_.push_back({client, now_, c.inflight, false});
      const double u = std::uniform_real_distribution<double>(0, 1)(rng_);
      if (u < params_.error_fraction) {
        accesses_[id].dropped = true;
        Schedule(now_ + params_.error_latency, Kind::kDone, id);
      } else if (u < params_.error_fraction + params_.hang_fraction) {
        accesses_[id].dropped = true;
        Schedule(now_ + params_.hang_latency, Kind::kDone, id);
      } else {
        Schedule(now_ + LogNormal(params_.network, params_.network_cv), Kind::kArrive, id);
      }
    }
  }

  void Finish(const Event& event, LimitAlgorithm& algorithm) {
    const Access& a = accesses_[event.access];
    Client& c = clients_[a.client];
    --c.inflight;
    const Duration latency = now_ - a.start;
    Sample sample = a.dropped ? Drop(a.start, latency, a.inflight)
                              : Success(a.start, latency, a.inflight);
    if (!a.dropped && now_ >= measure_from_) {
      c.successes += 1;
      c.latency_sum += latency;
    }
    algorithm.Update(sample);
    lowest_ = std::min(lowest_, algorithm.limit());
    highest_ = std::max(highest_, algorithm.limit());
  }

  Params params_;
  std::mt19937_64 rng_;
  Duration now_ = std::chrono::seconds(1);
  Duration measure_from_{};
  Duration measured_{};
  std::priority_queue<Event> events_;
  std::deque<size_t> waiting_;
  int busy_ = 0;
  std::vector<Access> accesses_;
  std::vector<Client> clients_;
  int lowest_ = 1 << 30;
  int highest_ = 0;
};

}  // namespace blobtune::tuner::testing

#endif  // BLOBTUNE_TESTS_TUNER_ALGORITHMS_NOISY_PLANT_H_
