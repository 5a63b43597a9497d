#pragma once
// A flat image of the accelerator's DRAM (byte i is address i) for the in-compiler stream
// checker: tensors move in and out of it through descriptors, gathering and scattering their
// elements in row-major order exactly as the hardware's DMA would (the layout is
// isa/container/dram_layout.h). Values keep their raw bits: no subnormal flushing. Host memory
// (descriptors in isa::MemSpace::Host, the plan's host_size bytes, empty at the start) is a
// second image beside it.

#include <cstdint>
#include <utility>
#include <vector>

#include "compiler/ir/host_array.h"
#include "isa/container/dram_layout.h"
#include "isa/container/executable.h"

namespace s2::lower {

class DramImage {
 public:
  explicit DramImage(uint64_t size, uint64_t host_size = 0)
      : bytes_(static_cast<std::size_t>(size)), host_(static_cast<std::size_t>(host_size)) {}

  // The executable's DRAM before its first instruction (isa::initial_dram).
  static DramImage load(const isa::Executable& exe);

  uint64_t size() const { return bytes_.size(); }
  const isa::DramBytes& bytes() const { return bytes_; }

  // The descriptor's elements, dense, in row-major order. UserError when any lies outside.
  ir::HostArray read(const isa::TensorDesc& desc) const;
  // Scatters `values` (dense, row-major, the descriptor's element type and count).
  void write(const isa::TensorDesc& desc, const ir::HostArray& values);
  // A tensor-table entry's contents, dense.
  ir::HostArray read(const isa::TensorEntry& entry) const;

 private:
  DramImage(isa::DramBytes bytes, uint64_t host_size)
      : bytes_(std::move(bytes)), host_(static_cast<std::size_t>(host_size)) {}
  // The image `d` addresses, after checking that `d` lies inside it.
  const isa::DramBytes& image_of(const isa::TensorDesc& d) const;
  isa::DramBytes& image_of(const isa::TensorDesc& d) {
    return const_cast<isa::DramBytes&>(std::as_const(*this).image_of(d));
  }
  isa::DramBytes bytes_;
  isa::DramBytes host_;
};

}  // namespace s2::lower
