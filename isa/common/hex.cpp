#include "isa/common/hex.h"

#include <fmt/format.h>

namespace s2 {

std::string hex(uint64_t value) {
  return fmt::format("{:#x}", value);
}

std::string hex32(uint32_t word) {
  return fmt::format("0x{:08X}", word);
}

}  // namespace s2
