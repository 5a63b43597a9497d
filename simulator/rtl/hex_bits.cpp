#include "simulator/rtl/hex_bits.h"

#include <cstdio>

namespace s2::sim::rtl {

std::string hex32(uint32_t word) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08X", word);
  return text;
}

}  // namespace s2::sim::rtl
