#include "crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
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
  if (n >= 3 * kShortBlock) {  // Short inputs (a record header) go straight to the loop below.
    while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
      c0 = _mm_crc32_u8(static_cast<uint32_t>(c0), *p++);
      --n;
    }
    ThreeWay(c0, p, n, kLongBlock, LongShift());
    ThreeWay(c0, p, n, kShortBlock, ShortShift());
  }
  while (n >= 8) {
    c0 = _mm_crc32_u64(c0, Load64(p));
    p += 8;
    n -= 8;
  }
  uint32_t c = static_cast<uint32_t>(c0);
  if (n >= 4) {  // A 28-byte record header ends here: three qwords and one dword.
    uint32_t word;
    std::memcpy(&word, p, 4);
    c = _mm_crc32_u32(c, word);
    p += 4;
    n -= 4;
  }
  while (n-- > 0) c = _mm_crc32_u8(c, *p++);
  return c;
}

bool DetectHardware() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}

// --- The AVX-512 fold.
//
// Reflected CRC arithmetic: a little-endian 16-byte block is a polynomial whose bit m (bit i of
// byte b, m = 8b + i) is the coefficient of x^(127-m), so its low qword L carries degrees 127..64
// and its high qword H degrees 63..0: block = L*x^64 + H. Moving a block D bits further into the
// message multiplies it by x^D, and modulo P
//   block * x^D  ==  L * (x^(D+64) mod P) + H * (x^D mod P),
// two 64x32-bit carry-less products that fit in 128 bits: the fold. In reflected form a 64-bit by
// 32-bit product comes out 33 bits short of where it belongs, so the constants are taken 33
// powers lower: K_L = x^(D+31) mod P, K_H = x^(D-33) mod P, each in reflected 32-bit form. After
// the last fold, 16 bytes remain whose CRC is the CRC of everything folded into them (the
// initial CRC is XORed into the first 4 bytes, as for any reflected CRC): two crc32 instructions
// finish it, then the tail (< 16 bytes) goes through crc32 byte by byte.

// x^n mod P in reflected 32-bit form (bit j is the coefficient of x^(31-j)).
constexpr uint32_t XPowModP(int n) {
  uint32_t v = 0x80000000u;  // x^0
  for (int i = 0; i < n; ++i) v = (v & 1) ? (v >> 1) ^ kPoly : v >> 1;
  return v;
}

struct FoldConstant {
  uint64_t low;   // K_L, multiplies the low qword.
  uint64_t high;  // K_H, multiplies the high qword.
};

constexpr FoldConstant FoldBy(int bits) { return {XPowModP(bits + 31), XPowModP(bits - 33)}; }

constexpr FoldConstant kFold2048 = FoldBy(2048);  // One 512-bit lane forward by 256 bytes.
constexpr FoldConstant kFold512 = FoldBy(512);    // ... by 64 bytes.
constexpr FoldConstant kFold128 = FoldBy(128);    // A 128-bit block forward by 16 bytes.

#define BLOBTUNE_FOLD_TARGET \
  __attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.2")))

BLOBTUNE_FOLD_TARGET inline __m512i Broadcast(FoldConstant k) {
  const auto low = static_cast<int64_t>(k.low);
  const auto high = static_cast<int64_t>(k.high);
  return _mm512_set_epi64(high, low, high, low, high, low, high, low);
}

// x folded forward onto y: each 128-bit lane of x times its constants, XOR y.
BLOBTUNE_FOLD_TARGET inline __m512i Fold(__m512i x, __m512i k, __m512i y) {
  return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                   _mm512_clmulepi64_epi128(x, k, 0x11), y, 0x96);  // a^b^c
}

BLOBTUNE_FOLD_TARGET inline __m128i Fold(__m128i x, __m128i k, __m128i y) {
  return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
                                     _mm_clmulepi64_si128(x, k, 0x11)),
                       y);
}

// Loads 64 bytes at p + at and, when copying, stores them at d + at. (Without a copy d is null,
// and no offset is ever added to it.)
template <bool kCopy>
BLOBTUNE_FOLD_TARGET inline __m512i Take64(const unsigned char* p, unsigned char* d, size_t at) {
  const __m512i v = _mm512_loadu_si512(p + at);
  if constexpr (kCopy) _mm512_storeu_si512(d + at, v);
  return v;
}

template <bool kCopy>
BLOBTUNE_FOLD_TARGET inline __m128i Take16(const unsigned char* p, unsigned char* d, size_t at) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at));
  if constexpr (kCopy) _mm_storeu_si128(reinterpret_cast<__m128i*>(d + at), v);
  return v;
}

constexpr size_t kFoldMinBytes = 256;

// Raw CRC of (p, n), copying it to d when kCopy. REQUIRES: n >= kFoldMinBytes.
template <bool kCopy>
BLOBTUNE_FOLD_TARGET uint32_t RawFold(uint32_t crc, const unsigned char* p, unsigned char* d,
                                      size_t n) {
  __m512i x0 = Take64<kCopy>(p, d, 0);
  __m512i x1 = Take64<kCopy>(p, d, 64);
  __m512i x2 = Take64<kCopy>(p, d, 128);
  __m512i x3 = Take64<kCopy>(p, d, 192);
  x0 = _mm512_xor_si512(x0, _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(crc))));
  size_t at = 256;
  n -= 256;
  const __m512i k2048 = Broadcast(kFold2048);
  while (n >= 256) {
    x0 = Fold(x0, k2048, Take64<kCopy>(p, d, at));
    x1 = Fold(x1, k2048, Take64<kCopy>(p, d, at + 64));
    x2 = Fold(x2, k2048, Take64<kCopy>(p, d, at + 128));
    x3 = Fold(x3, k2048, Take64<kCopy>(p, d, at + 192));
    at += 256;
    n -= 256;
  }
  const __m512i k512 = Broadcast(kFold512);
  x1 = Fold(x0, k512, x1);
  x2 = Fold(x1, k512, x2);
  x3 = Fold(x2, k512, x3);
  while (n >= 64) {
    x3 = Fold(x3, k512, Take64<kCopy>(p, d, at));
    at += 64;
    n -= 64;
  }
  const __m128i k128 =
      _mm_set_epi64x(static_cast<int64_t>(kFold128.high), static_cast<int64_t>(kFold128.low));
  // (The masked extract: GCC 12 warns that the unmasked one reads an uninitialized register.)
  const __m128i zero = _mm_setzero_si128();
  __m128i a = _mm512_mask_extracti32x4_epi32(zero, 0xF, x3, 0);
  a = Fold(a, k128, _mm512_mask_extracti32x4_epi32(zero, 0xF, x3, 1));
  a = Fold(a, k128, _mm512_mask_extracti32x4_epi32(zero, 0xF, x3, 2));
  a = Fold(a, k128, _mm512_mask_extracti32x4_epi32(zero, 0xF, x3, 3));
  while (n >= 16) {
    a = Fold(a, k128, Take16<kCopy>(p, d, at));
    at += 16;
    n -= 16;
  }
  uint64_t c = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(a)));
  c = _mm_crc32_u64(c, static_cast<uint64_t>(_mm_extract_epi64(a, 1)));
  if constexpr (kCopy) std::memcpy(d + at, p + at, n);
  for (; n > 0; --n) c = _mm_crc32_u8(static_cast<uint32_t>(c), p[at++]);
  return static_cast<uint32_t>(c);
}

#undef BLOBTUNE_FOLD_TARGET

bool DetectFold() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul") &&
         __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq");
}

#endif  // __x86_64__

const unsigned char* Bytes(std::span<const std::byte> data) {
  return reinterpret_cast<const unsigned char*>(data.data());
}

}  // namespace

bool FoldAvailable() noexcept {
#if defined(__x86_64__)
  static const bool available = DetectFold();
  return available;
#else
  return false;
#endif
}

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

uint32_t ExtendFold(uint32_t crc, std::span<const std::byte> data) noexcept {
#if defined(__x86_64__)
  if (data.size() < kFoldMinBytes) return ExtendHardware(crc, data);
  return ~RawFold<false>(~crc, Bytes(data), nullptr, data.size());
#else
  return ExtendPortable(crc, data);
#endif
}

uint32_t ExtendCopyFold(uint32_t crc, std::byte* dst, std::span<const std::byte> src) noexcept {
#if defined(__x86_64__)
  if (src.size() >= kFoldMinBytes) {
    return ~RawFold<true>(~crc, Bytes(src), reinterpret_cast<unsigned char*>(dst), src.size());
  }
#endif
  if (!src.empty()) std::memcpy(dst, src.data(), src.size());
  return Extend(crc, src);
}

uint32_t ExtendCopyChunked(uint32_t crc, std::byte* dst, std::span<const std::byte> src) noexcept {
  constexpr size_t kChunk = 16 * 1024;
  while (!src.empty()) {
    const size_t n = src.size() < kChunk ? src.size() : kChunk;
    std::memcpy(dst, src.data(), n);
    crc = Extend(crc, std::span<const std::byte>(dst, n));
    dst += n;
    src = src.subspan(n);
  }
  return crc;
}

uint32_t Extend(uint32_t crc, std::span<const std::byte> data) noexcept {
  if (FoldAvailable() && data.size() >= kFoldMinBytes) return ExtendFold(crc, data);
  return HardwareAvailable() ? ExtendHardware(crc, data) : ExtendPortable(crc, data);
}

uint32_t ExtendCopy(uint32_t crc, std::byte* dst, std::span<const std::byte> src) noexcept {
  return FoldAvailable() ? ExtendCopyFold(crc, dst, src) : ExtendCopyChunked(crc, dst, src);
}

}  // namespace blobtune::store::crc32c
