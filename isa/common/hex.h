#pragma once
// Formatting helpers shared by error messages and the disassembler.

#include <cstdint>
#include <string>

namespace s2 {

// "0x1a2b" (lower case, no padding).
std::string hex(uint64_t value);

// "0x3F800000": a 32-bit word (an fp32 bit pattern) as the RTL regressions print it.
std::string hex32(uint32_t word);

}  // namespace s2
