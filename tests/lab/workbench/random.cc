#include "random.h"

#include <numbers>

namespace blobtune::workbench {
namespace {

// SplitMix64's finaliser: a bijection that spreads every input bit over the output.
uint64_t Mix(uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t StreamSeed(uint64_t seed, std::string_view stream) noexcept {
  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a of the stream name.
  for (char c : stream) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  }
  return Mix(Mix(seed) ^ hash);
}

double Rng::StandardNormal() noexcept {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double radius = std::sqrt(-2.0 * std::log(1.0 - Uniform()));
  double angle = 2.0 * std::numbers::pi * Uniform();
  spare_ = radius * std::sin(angle);
  has_spare_ = true;
  return radius * std::cos(angle);
}

}  // namespace blobtune::workbench
