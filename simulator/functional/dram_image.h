#pragma once
// The functional model's DRAM: a flat byte image (byte i is address i) that the datapath
// reads and writes through ISA tensor descriptors, gathering and scattering elements in
// row-major order of the descriptor's shape, as the DMA engines do. Strided descriptors
// (transposed or sliced views) are gathered exactly like dense ones. The layout (initial
// contents, element addresses, bounds) is isa/container/dram_layout.h.
//
// Contract: every access is checked against the image size first; a descriptor that reaches
// outside DRAM is a UserError naming its address and span, never a stray access. Values are
// stored little-endian, as in the executable's data section.
//
// Host memory (isa::MemSpace::Host, the plan's host_size bytes, zero at the start) is a second
// image beside DRAM. Only raw reads and writes reach it (copy: the ISA lets no other
// instruction name host memory); the typed ones take DRAM descriptors only.

#include <cstdint>
#include <utility>
#include <vector>

#include "isa/container/dram_layout.h"
#include "isa/container/executable.h"

namespace s2::sim::functional {

class DramImage {
 public:
  explicit DramImage(uint64_t size, uint64_t host_size = 0)
      : bytes_(static_cast<std::size_t>(size)), host_(static_cast<std::size_t>(host_size)) {}

  // The program's DRAM before its first instruction (isa::initial_dram).
  static DramImage load(const isa::Executable& exe);

  uint64_t size() const { return bytes_.size(); }
  const isa::DramBytes& bytes() const { return bytes_; }
  const isa::DramBytes& host_bytes() const { return host_; }

  // The descriptor's elements, dense in row-major order. The descriptor's dtype must be the
  // one asked for (an InternalError otherwise: the caller checked the instruction). Float
  // values (f32, bf16, f16) enter the datapath as f32: subnormals of f32 and bf16 read as zero
  // (numerics::load), 16-bit values widen exactly (isa/numerics/low_precision.h).
  std::vector<float> read_f32(const isa::TensorDesc& desc) const;
  std::vector<int32_t> read_i32(const isa::TensorDesc& desc) const;
  // Scatters dense row-major values; their count must be the descriptor's element count. Values
  // leave the datapath: flushed, NaNs canonical (numerics::store), then rounded to the
  // descriptor's float type.
  void write_f32(const isa::TensorDesc& desc, const std::vector<float>& values);
  void write_i32(const isa::TensorDesc& desc, const std::vector<int32_t>& values);

  // Raw elements of any dtype (dtype_bytes() bytes each), for copy and fill.
  std::vector<uint8_t> read_raw(const isa::TensorDesc& desc) const;
  void write_raw(const isa::TensorDesc& desc, const std::vector<uint8_t>& values);

  // A tensor-table entry's bytes as laid out densely at its address (dense_bytes() bytes), in
  // DRAM or host memory.
  std::vector<uint8_t> entry_bytes(const isa::TensorEntry& entry) const;

 private:
  DramImage(isa::DramBytes bytes, uint64_t host_size)
      : bytes_(std::move(bytes)), host_(static_cast<std::size_t>(host_size)) {}
  // The image `d` addresses, after checking that every element of `d` lies inside it.
  const isa::DramBytes& image_of(const isa::TensorDesc& d) const;
  isa::DramBytes& image_of(const isa::TensorDesc& d) {
    return const_cast<isa::DramBytes&>(std::as_const(*this).image_of(d));
  }
  isa::DramBytes bytes_;
  isa::DramBytes host_;
};

}  // namespace s2::sim::functional
