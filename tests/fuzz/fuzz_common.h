#pragma once
// What every fuzz target shares: the one outcome allowed besides success is a UserError (a clear
// message about the input). Anything else (an InternalError, a crash, a sanitizer report, a
// hang) is a finding; a violated property calls fuzz_fail, which aborts with the reason.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "isa/common/crc32.h"
#include "isa/container/byte_io.h"

namespace s2::fuzz {

[[noreturn]] inline void fuzz_fail(const std::string& why) {
  std::fprintf(stderr, "fuzz property violated: %s\n", why.c_str());
  std::abort();
}

// Recomputes the section CRCs and the header CRC of an executable-shaped input
// (docs/container.md), so that mutations reach the parser and validator behind the checksums.
// An input too short for its section table is left as it is.
inline std::vector<uint8_t> with_valid_crcs(std::vector<uint8_t> b) {
  if (b.size() < 64) return b;
  const uint32_t count = isa::load_u32(&b[16]);
  if (count > 16 || b.size() < 64 + 32 * size_t{count}) return b;
  const size_t table_end = 64 + 32 * size_t{count};
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t* entry = &b[64 + 32 * size_t{i}];
    const uint64_t offset = isa::load_u64(entry + 8), size = isa::load_u64(entry + 16);
    if (offset <= b.size() && size <= b.size() - offset)
      isa::store_u32(entry + 24, crc32(b.data() + offset, static_cast<size_t>(size)));
  }
  isa::store_u32(&b[20], 0);
  isa::store_u32(&b[20], crc32(b.data(), table_end));
  return b;
}

}  // namespace s2::fuzz
