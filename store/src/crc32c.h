// CRC32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78): the checksum of every blob.
//
//   uint32_t crc = crc32c::Value(bytes);             // CRC32C("123456789") == 0xE3069283
//   uint32_t c = crc32c::Extend(crc32c::Value(a), b);  // == crc32c::Value(a ++ b)
//
// Uses the SSE4.2 crc32 instruction (three interleaved streams, combined with precomputed shift
// tables) when the CPU has it, checked once at run time; otherwise software slicing-by-8.
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

// The same computations forced onto one implementation, for tests and benchmarks.
uint32_t ExtendPortable(uint32_t crc, std::span<const std::byte> data) noexcept;
// REQUIRES: HardwareAvailable().
uint32_t ExtendHardware(uint32_t crc, std::span<const std::byte> data) noexcept;
bool HardwareAvailable() noexcept;

}  // namespace blobtune::store::crc32c

#endif  // BLOBTUNE_STORE_SRC_CRC32C_H_
