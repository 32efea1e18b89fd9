// Helpers of the store tests: a per-test directory, and byte conversions and patterns.
#ifndef BLOBTUNE_TESTS_STORE_TEMP_DIR_H_
#define BLOBTUNE_TESTS_STORE_TEMP_DIR_H_

#include <stdlib.h>

#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/temp_dir.h"

namespace blobtune::store::testing {

// One fresh directory per test; see tests/common/temp_dir.h.
class TempDir : public ::blobtune::testing::TempDir {
 public:
  TempDir() : ::blobtune::testing::TempDir("blobtune-store") {}
};

inline std::vector<std::byte> Bytes(std::string_view s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

inline std::string String(std::span<const std::byte> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// Deterministic, non-repeating-looking bytes.
inline std::vector<std::byte> Pattern(size_t size, uint32_t seed) {
  std::vector<std::byte> out(size);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<std::byte>(x);
  }
  return out;
}

}  // namespace blobtune::store::testing

#endif  // BLOBTUNE_TESTS_STORE_TEMP_DIR_H_
