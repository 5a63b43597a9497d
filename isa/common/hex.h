#pragma once
// Formatting helpers shared by error messages and the disassembler.

#include <cstdint>
#include <string>

namespace s2 {

// "0x1a2b" (lower case, no padding).
std::string hex(uint64_t value);

}  // namespace s2
