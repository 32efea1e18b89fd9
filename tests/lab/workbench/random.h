// Rng: one seeded, portable stream of random numbers for the workbench's simulator.
//
// std::mt19937_64 is specified bit for bit by the standard, but std::*_distribution are not, so
// the conversions to uniform, normal and exponential variates are our own: the same seed gives the
// same workload on every standard library.
//
//   Rng rng(StreamSeed(workload_seed, "client.a.arrivals"));
//   double gap_s = rng.Exponential(1.0 / rate_per_s);
//
// Thread-safety: none; each stream is used by one simulation on one thread.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_RANDOM_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_RANDOM_H_

#include <cmath>
#include <cstdint>
#include <random>
#include <string_view>

namespace blobtune::workbench {

// A seed for the stream named `stream` of a run seeded with `seed`. Streams are independent of
// each other, so adding a client to a workload does not change what the other clients draw.
uint64_t StreamSeed(uint64_t seed, std::string_view stream) noexcept;

class Rng {
 public:
  explicit Rng(uint64_t seed) noexcept : engine_(seed) {}

  Rng(const Rng&) = default;
  Rng& operator=(const Rng&) = default;
  Rng(Rng&&) noexcept = default;
  Rng& operator=(Rng&&) noexcept = default;
  ~Rng() = default;

  // Uniform in [0, 1) with 53 random bits.
  double Uniform() noexcept { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  // Exponential with the given mean (inversion; 1 - Uniform() is in (0, 1]).
  double Exponential(double mean) noexcept { return -mean * std::log(1.0 - Uniform()); }
  // Standard normal (Box-Muller; the second value of each pair is kept for the next call).
  double StandardNormal() noexcept;

 private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_RANDOM_H_
