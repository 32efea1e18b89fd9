#include "message.h"

#include <cstdio>

namespace blobtune::delivery {

std::string MessageId(size_t index) {
  char id[32];
  std::snprintf(id, sizeof(id), "msg-%06zu", index);
  return id;
}

std::string MessageBody(uint64_t seed, size_t index, size_t size) {
  // splitmix64: fast, and good enough to make every body distinct and incompressible.
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + index;
  std::string body(size, '\0');
  for (size_t i = 0; i < size; i += 8) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    for (size_t b = 0; b < 8 && i + b < size; ++b) body[i + b] = static_cast<char>(z >> (8 * b));
  }
  return body;
}

std::vector<std::string> MetadataDocuments(size_t index) {
  std::string id = MessageId(index);
  return {std::string(4000, 'h') + id, std::string(100, 'm') + id, std::string(500, 'f') + id};
}

}  // namespace blobtune::delivery
