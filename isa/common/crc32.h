#pragma once
// CRC-32 as in zlib, PNG and Ethernet (polynomial 0xEDB88320 reflected, initial and final
// XOR 0xFFFFFFFF); crc32("123456789") == 0xCBF43926. Computed by zlib's crc32_z, in 16 MiB
// pieces on every core for inputs of 32 MiB or more. Passing the result of one call as `crc` of
// the next continues the computation.

#include <cstddef>
#include <cstdint>

namespace s2 {

uint32_t crc32(const uint8_t* data, size_t size, uint32_t crc = 0);

}  // namespace s2
