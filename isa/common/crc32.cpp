#include "isa/common/crc32.h"

#include <zlib.h>

namespace s2 {

uint32_t crc32(const uint8_t* data, size_t size, uint32_t crc) {
  if (size == 0) return crc;  // zlib wants a non-null buffer otherwise
  return static_cast<uint32_t>(crc32_z(crc, data, size));
}

}  // namespace s2
