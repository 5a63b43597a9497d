#include "isa/container/dram_layout.h"

#include <cstring>
#include <string>

#include "isa/common/errors.h"
#include "isa/common/hex.h"

namespace s2::isa {

std::vector<uint8_t> initial_dram(const Executable& exe) {
  std::vector<uint8_t> dram(static_cast<size_t>(exe.plan.dram_size), 0);
  const uint64_t size = dram.size();
  for (const TensorEntry& t : exe.tensors) {
    if (!t.has_data()) continue;
    const uint64_t n = t.dense_bytes();
    if (t.addr > size || n > size - t.addr || !t.data_within(exe.data.size()))
      throw UserError("tensor '" + t.name + "': its " + std::to_string(n) +
                      " bytes of initial data do not fit the DRAM image (" + hex(size) +
                      " bytes) at " + hex(t.addr) + " or the data section (" +
                      std::to_string(exe.data.size()) + " bytes) at offset " +
                      std::to_string(t.data_offset));
    if (!t.zero_data())  // the image is zero already
      std::memcpy(dram.data() + t.addr, exe.data.data() + t.data_offset, static_cast<size_t>(n));
  }
  return dram;
}

void check_in_dram(const TensorDesc& d, uint64_t dram_size) {
  const uint64_t span = d.span_bytes();
  if (d.addr > dram_size || span > dram_size - d.addr)
    throw UserError("descriptor " + hex(d.addr) + "+" + hex(span) +
                    " lies outside the DRAM image of " + hex(dram_size) + " bytes");
}

}  // namespace s2::isa
