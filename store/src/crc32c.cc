#include "crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace blobtune::store::crc32c {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;  // Reflected Castagnoli polynomial.

// Slicing-by-8 tables: kTables[k][b] is the CRC of byte b followed by k zero bytes.
struct SliceTables {
  uint32_t t[8][256];
};

constexpr SliceTables MakeSliceTables() {
  SliceTables s{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    s.t[0][b] = c;
  }
  for (uint32_t b = 0; b < 256; ++b) {
    for (int k = 1; k < 8; ++k) s.t[k][b] = (s.t[k - 1][b] >> 8) ^ s.t[0][s.t[k - 1][b] & 0xff];
  }
  return s;
}

constexpr SliceTables kSlice = MakeSliceTables();

inline uint64_t Load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;  // Little-endian hosts only (x86-64, aarch64 Linux): the slicing below assumes it.
}

// Raw CRC update (no pre/post inversion).
uint32_t RawPortable(uint32_t crc, const unsigned char* p, size_t n) {
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    crc = kSlice.t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    --n;
  }
  while (n >= 8) {
    const uint64_t v = Load64(p) ^ crc;
    crc = kSlice.t[7][v & 0xff] ^ kSlice.t[6][(v >> 8) & 0xff] ^ kSlice.t[5][(v >> 16) & 0xff] ^
          kSlice.t[4][(v >> 24) & 0xff] ^ kSlice.t[3][(v >> 32) & 0xff] ^
          kSlice.t[2][(v >> 40) & 0xff] ^ kSlice.t[1][(v >> 48) & 0xff] ^ kSlice.t[0][v >> 56];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = kSlice.t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__)

// The hardware path runs three independent crc32 chains over three adjacent blocks of `len`
// bytes (the instruction has a latency of ~3 cycles and a throughput of 1/cycle), then combines
// them: crc(A ++ B) = shift(crc(A), |B|) ^ crc0(B), where shift(c, n) appends n zero bytes and is
// linear in c, so it is four table lookups (ShiftTable).
constexpr size_t kLongBlock = 8192;
constexpr size_t kShortBlock = 256;

struct ShiftTable {
  uint32_t t[4][256];
};

// The raw CRC of `c` followed by `n` zero bytes (slow; used only to build the tables).
uint32_t ShiftSlow(uint32_t c, size_t n) {
  for (size_t i = 0; i < n; ++i) c = kSlice.t[0][c & 0xff] ^ (c >> 8);
  return c;
}

ShiftTable MakeShiftTable(size_t n) {
  uint32_t basis[32];
  for (int bit = 0; bit < 32; ++bit) basis[bit] = ShiftSlow(uint32_t{1} << bit, n);
  ShiftTable s{};
  for (int k = 0; k < 4; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t v = 0;
      for (int bit = 0; bit < 8; ++bit) {
        if (b & (1u << bit)) v ^= basis[8 * k + bit];
      }
      s.t[k][b] = v;
    }
  }
  return s;
}

inline uint32_t Shift(const ShiftTable& s, uint32_t c) {
  return s.t[0][c & 0xff] ^ s.t[1][(c >> 8) & 0xff] ^ s.t[2][(c >> 16) & 0xff] ^ s.t[3][c >> 24];
}

const ShiftTable& LongShift() {
  static const ShiftTable table = MakeShiftTable(kLongBlock);
  return table;
}
const ShiftTable& ShortShift() {
  static const ShiftTable table = MakeShiftTable(kShortBlock);
  return table;
}

// Consumes blocks of 3 * len bytes from (p, n) into the running CRC c0.
__attribute__((target("sse4.2"))) void ThreeWay(uint64_t& c0, const unsigned char*& p, size_t& n,
                                                size_t len, const ShiftTable& shift) {
  while (n >= 3 * len) {
    uint64_t c1 = 0;
    uint64_t c2 = 0;
    const unsigned char* end = p + len;
    do {
      c0 = _mm_crc32_u64(c0, Load64(p));
      c1 = _mm_crc32_u64(c1, Load64(p + len));
      c2 = _mm_crc32_u64(c2, Load64(p + 2 * len));
      p += 8;
    } while (p < end);
    c0 = Shift(shift, static_cast<uint32_t>(c0)) ^ c1;
    c0 = Shift(shift, static_cast<uint32_t>(c0)) ^ c2;
    p += 2 * len;
    n -= 3 * len;
  }
}

__attribute__((target("sse4.2"))) uint32_t RawHardware(uint32_t crc, const unsigned char* p,
                                                       size_t n) {
  uint64_t c0 = crc;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    c0 = _mm_crc32_u8(static_cast<uint32_t>(c0), *p++);
    --n;
  }
  ThreeWay(c0, p, n, kLongBlock, LongShift());
  ThreeWay(c0, p, n, kShortBlock, ShortShift());
  while (n >= 8) {
    c0 = _mm_crc32_u64(c0, Load64(p));
    p += 8;
    n -= 8;
  }
  while (n-- > 0) c0 = _mm_crc32_u8(static_cast<uint32_t>(c0), *p++);
  return static_cast<uint32_t>(c0);
}

bool DetectHardware() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}

#endif  // __x86_64__

const unsigned char* Bytes(std::span<const std::byte> data) {
  return reinterpret_cast<const unsigned char*>(data.data());
}

}  // namespace

bool HardwareAvailable() noexcept {
#if defined(__x86_64__)
  static const bool available = DetectHardware();
  return available;
#else
  return false;
#endif
}

uint32_t ExtendPortable(uint32_t crc, std::span<const std::byte> data) noexcept {
  return ~RawPortable(~crc, Bytes(data), data.size());
}

uint32_t ExtendHardware(uint32_t crc, std::span<const std::byte> data) noexcept {
#if defined(__x86_64__)
  return ~RawHardware(~crc, Bytes(data), data.size());
#else
  return ExtendPortable(crc, data);
#endif
}

uint32_t Extend(uint32_t crc, std::span<const std::byte> data) noexcept {
  return HardwareAvailable() ? ExtendHardware(crc, data) : ExtendPortable(crc, data);
}

}  // namespace blobtune::store::crc32c
