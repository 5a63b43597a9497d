#include "isa/common/crc32.h"

#include <zlib.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "isa/common/task_pool.h"

namespace s2 {
namespace {

// An input of at least two pieces is checksummed piece by piece on every core and the pieces'
// CRCs joined with crc32_combine: a large model's data section is hundreds of MiB, and one
// core takes about half a second per GiB.
constexpr size_t kPiece = size_t{16} << 20;

uint32_t crc32_serial(const uint8_t* data, size_t size, uint32_t crc) {
  return static_cast<uint32_t>(crc32_z(crc, data, size));
}

}  // namespace

uint32_t crc32(const uint8_t* data, size_t size, uint32_t crc) {
  if (size == 0) return crc;  // zlib wants a non-null buffer otherwise
  const unsigned cores = std::thread::hardware_concurrency();
  if (size < 2 * kPiece || cores < 2) return crc32_serial(data, size, crc);
  const size_t pieces = (size + kPiece - 1) / kPiece;
  const auto piece_bytes = [&](size_t i) { return std::min(kPiece, size - i * kPiece); };
  std::vector<uint32_t> part(pieces);
  TaskPool pool(static_cast<unsigned>(std::min<size_t>(cores, pieces)));
  pool.run(pieces, [&](size_t i) { part[i] = crc32_serial(data + i * kPiece, piece_bytes(i), 0); });
  for (size_t i = 0; i < pieces; ++i)
    crc = static_cast<uint32_t>(crc32_combine(crc, part[i], static_cast<z_off_t>(piece_bytes(i))));
  return crc;
}

}  // namespace s2
