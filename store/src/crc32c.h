// CRC32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78): the checksum of every blob.
//
//   uint32_t crc = crc32c::Value(bytes);             // CRC32C("123456789") == 0xE3069283
//   uint32_t c = crc32c::Extend(crc32c::Value(a), b);  // == crc32c::Value(a ++ b)
//
// Implementations, the best the CPU has (checked once at run time):
//   fold      AVX-512 VPCLMULQDQ: four 512-bit accumulators folded 256 bytes at a time with
//             carry-less multiplies, then 16 bytes of crc32 instructions. ~4x the crc32 rate,
//             and ExtendCopy stores each 64-byte block it loads: one pass for copy and check.
//   hardware  SSE4.2 crc32 (three interleaved streams combined with precomputed shift tables).
//   portable  software slicing-by-8.
//
// Thread-safety: pure functions; safe from any thread.
#ifndef BLOBTUNE_STORE_SRC_CRC32C_H_
#define BLOBTUNE_STORE_SRC_CRC32C_H_

#include <cstddef>
#include <cstdint>
#include <span>

namespace blobtune::store::crc32c {

// The CRC32C of `data` appended to a buffer whose CRC32C is `crc`.
uint32_t Extend(uint32_t crc, std::span<const std::byte> data) noexcept;

inline uint32_t Value(std::span<const std::byte> data) noexcept { return Extend(0, data); }

// Copies `src` to `dst` and returns the CRC32C of `src` appended to `crc`, reading each byte once
// where the CPU allows (the AVX-512 fold below), so that a verified copy costs about what a copy
// does. REQUIRES: `dst` has room for src.size() bytes and does not overlap `src`.
uint32_t ExtendCopy(uint32_t crc, std::byte* dst, std::span<const std::byte> src) noexcept;

// The same computations forced onto one implementation, for tests and benchmarks.
uint32_t ExtendPortable(uint32_t crc, std::span<const std::byte> data) noexcept;
// REQUIRES: HardwareAvailable().
uint32_t ExtendHardware(uint32_t crc, std::span<const std::byte> data) noexcept;
bool HardwareAvailable() noexcept;
// REQUIRES: FoldAvailable() (AVX-512F, VPCLMULQDQ, PCLMULQDQ and SSE4.2, and an OS that saves
// the AVX-512 state).
uint32_t ExtendFold(uint32_t crc, std::span<const std::byte> data) noexcept;
uint32_t ExtendCopyFold(uint32_t crc, std::byte* dst, std::span<const std::byte> src) noexcept;
// ExtendCopy without the fold: a copy of each 16 KiB chunk, then the CRC of the chunk while it is
// still in the L1/L2 cache.
uint32_t ExtendCopyChunked(uint32_t crc, std::byte* dst, std::span<const std::byte> src) noexcept;
bool FoldAvailable() noexcept;

}  // namespace blobtune::store::crc32c

#endif  // BLOBTUNE_STORE_SRC_CRC32C_H_
