#include "isa/common/crc32.h"

#include <array>

namespace s2 {
namespace {

// Slicing-by-8 tables: table[0] is the classic byte-at-a-time table; table[k][b] is the CRC
// of byte b followed by k zero bytes, so eight input bytes are folded per step. Executables
// carry hundreds of MiB of weights, and the byte-wise loop made CRCs the slowest part of
// writing and reading them.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

Tables make_tables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k)
      c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i)
    for (size_t k = 1; k < 8; ++k)
      t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xffu];
  return t;
}

}  // namespace

uint32_t crc32(const uint8_t* data, size_t size, uint32_t crc) {
  static const Tables t = make_tables();
  crc = ~crc;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    const uint32_t lo = crc ^ (uint32_t{data[i]} | uint32_t{data[i + 1]} << 8 |
                               uint32_t{data[i + 2]} << 16 | uint32_t{data[i + 3]} << 24);
    crc = t[7][lo & 0xffu] ^ t[6][(lo >> 8) & 0xffu] ^ t[5][(lo >> 16) & 0xffu] ^ t[4][lo >> 24] ^
          t[3][data[i + 4]] ^ t[2][data[i + 5]] ^ t[1][data[i + 6]] ^ t[0][data[i + 7]];
  }
  for (; i < size; ++i)
    crc = t[0][(crc ^ data[i]) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

}  // namespace s2
