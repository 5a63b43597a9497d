#include "isa/container/dram_layout.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "isa/common/errors.h"
#include "isa/common/hex.h"

namespace s2::isa {

DramBytes::DramBytes(std::size_t size) : size_(size) {
  if (size == 0) return;
  data_.reset(static_cast<uint8_t*>(std::calloc(size, 1)));
  if (!data_) throw std::bad_alloc();
}

DramBytes::DramBytes(const DramBytes& other) : DramBytes(other.size_) {
  if (size_ != 0) std::memcpy(data_.get(), other.data_.get(), size_);
}

DramBytes& DramBytes::operator=(const DramBytes& other) {
  if (this != &other) *this = DramBytes(other);
  return *this;
}

void DramBytes::Free::operator()(uint8_t* p) const {
  std::free(p);
}

bool operator==(const DramBytes& a, const DramBytes& b) {
  return a.size_ == b.size_ && (a.size_ == 0 || std::memcmp(a.data(), b.data(), a.size_) == 0);
}

DramBytes initial_dram(const Executable& exe) {
  DramBytes dram(static_cast<size_t>(exe.plan.dram_size));
  const uint64_t size = dram.size();
  for (const TensorEntry& t : exe.tensors) {
    // Host tensors start empty (the validator refuses data for them).
    if (!t.has_data() || t.space != MemSpace::Dram) continue;
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

void check_in_memory(const TensorDesc& d, uint64_t dram_size, uint64_t host_size) {
  if (d.space == MemSpace::Dram) return check_in_dram(d, dram_size);
  const uint64_t span = d.span_bytes();
  if (d.addr > host_size || span > host_size - d.addr)
    throw UserError("descriptor host:" + hex(d.addr) + "+" + hex(span) +
                    " lies outside the host memory image of " + hex(host_size) + " bytes");
}

}  // namespace s2::isa
