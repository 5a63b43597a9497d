#pragma once
// Where an executable's data lives in the accelerator's DRAM, seen as a flat byte image (byte i
// is address i): what DRAM holds before the first instruction, and which byte address each
// element of a tensor descriptor occupies. The compiler's stream checker and the simulator's
// functional model both keep such an image; they differ only in how they convert values (the
// datapath flushes subnormals, the checker keeps raw bits), so the layout is defined here once.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "isa/container/executable.h"

namespace s2::isa {

// The bytes of a DRAM image: `size` zero bytes from calloc, whose pages the kernel maps only
// when they are first touched. An image of gigabytes then costs the pages the program's data
// and instructions reach, not the plan's dram_size: a functional run's time and memory follow
// its data. Fixed size; copies are deep; == compares the contents.
class DramBytes {
 public:
  DramBytes() = default;
  explicit DramBytes(std::size_t size);
  DramBytes(const DramBytes& other);
  DramBytes& operator=(const DramBytes& other);
  DramBytes(DramBytes&&) noexcept = default;
  DramBytes& operator=(DramBytes&&) noexcept = default;

  std::size_t size() const { return size_; }
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  const uint8_t* begin() const { return data_.get(); }
  const uint8_t* end() const { return data_.get() + size_; }
  uint8_t& operator[](std::size_t i) { return data_.get()[i]; }
  uint8_t operator[](std::size_t i) const { return data_.get()[i]; }

  friend bool operator==(const DramBytes& a, const DramBytes& b);
  friend bool operator!=(const DramBytes& a, const DramBytes& b) { return !(a == b); }

 private:
  struct Free {
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t[], Free> data_;
  std::size_t size_ = 0;
};

// The DRAM before the first instruction: plan.dram_size zero bytes, with each tensor-table
// entry's initial data (dense_bytes() bytes of the data section at data_offset) copied to
// the entry's address; zero_data() entries keep the zeros (untouched pages: DramBytes).
// UserError naming the tensor when an entry does not fit either.
DramBytes initial_dram(const Executable& exe);

// UserError naming the descriptor's address and span when any of its elements lies outside a
// DRAM image of dram_size bytes. Check before for_each_element_address.
void check_in_dram(const TensorDesc& desc, uint64_t dram_size);

// The same for a descriptor of either space: DRAM of dram_size bytes or host memory of
// host_size bytes (isa::MemSpace::Host, "host:" in the message).
void check_in_memory(const TensorDesc& desc, uint64_t dram_size, uint64_t host_size);

// Calls fn(k, byte address) for element k of the descriptor, k = 0..elements()-1 in row-major
// order of its shape; strided (transposed or sliced) descriptors walk exactly like dense ones.
// The offset is carried incrementally (an odometer), so a walk costs O(elements), not O(rank)
// per element.
template <typename Fn>
void for_each_element_address(const TensorDesc& d, Fn fn) {
  const uint64_t n = d.elements();
  const uint64_t bytes = dtype_bytes(d.dtype);
  uint32_t index[kMaxRank] = {};
  uint64_t offset = 0;  // in elements
  for (uint64_t k = 0; k < n; ++k) {
    fn(static_cast<size_t>(k), d.addr + offset * bytes);
    for (size_t dim = d.rank; dim-- > 0;) {
      offset += d.strides[dim];
      if (++index[dim] < d.shape[dim]) break;
      offset -= uint64_t{d.strides[dim]} * d.shape[dim];
      index[dim] = 0;
    }
  }
}

}  // namespace s2::isa
