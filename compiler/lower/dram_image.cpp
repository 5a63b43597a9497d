#include "compiler/lower/dram_image.h"

#include <cstring>
#include <string>

#include "isa/common/errors.h"
#include "isa/common/hex.h"
#include "isa/container/byte_io.h"

namespace s2::lower {
namespace {

// Calls fn(k, byte address) for element k of the descriptor, in row-major order.
template <typename Fn>
void for_each_address(const isa::TensorDesc& d, Fn fn) {
  const uint64_t n = d.elements();
  const uint64_t bytes = isa::dtype_bytes(d.dtype);
  std::vector<uint32_t> index(d.rank, 0);
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

void check_inside(const isa::TensorDesc& d, uint64_t size) {
  const uint64_t span = d.span_bytes();
  if (d.addr > size || span > size - d.addr)
    throw UserError("descriptor " + hex(d.addr) + "+" + hex(span) +
                    " lies outside the DRAM image of " + hex(size) + " bytes");
}

}  // namespace

DramImage DramImage::load(const isa::Executable& exe) {
  DramImage image(exe.plan.dram_size);
  for (const isa::TensorEntry& t : exe.tensors) {
    if (!t.has_data()) continue;
    const uint64_t n = t.dense_bytes();
    if (t.addr > image.size() || n > image.size() - t.addr || t.data_offset > exe.data.size() ||
        n > exe.data.size() - t.data_offset)
      throw UserError("tensor '" + t.name +
                      "': initial data does not fit DRAM or the data "
                      "section");
    std::memcpy(image.bytes_.data() + t.addr, exe.data.data() + t.data_offset, n);
  }
  return image;
}

ir::HostArray DramImage::read(const isa::TensorDesc& d) const {
  check_inside(d, size());
  const auto n = static_cast<size_t>(d.elements());
  ir::HostArray out(d.dtype, n);
  const uint8_t* base = bytes_.data();
  switch (d.dtype) {
    case isa::DType::F32: {
      std::vector<float>& v = out.f32();
      for_each_address(d, [&](size_t k, uint64_t at) {
        const uint32_t bits = isa::load_u32(base + at);
        std::memcpy(&v[k], &bits, sizeof bits);
      });
      break;
    }
    case isa::DType::I32: {
      std::vector<int32_t>& v = out.i32();
      for_each_address(
          d, [&](size_t k, uint64_t at) { v[k] = static_cast<int32_t>(isa::load_u32(base + at)); });
      break;
    }
    case isa::DType::U8: {
      std::vector<uint8_t>& v = out.u8();
      for_each_address(d, [&](size_t k, uint64_t at) { v[k] = base[at]; });
      break;
    }
  }
  return out;
}

void DramImage::write(const isa::TensorDesc& d, const ir::HostArray& values) {
  check_inside(d, size());
  internal_check(values.dtype() == d.dtype && values.size() == d.elements(),
                 "DramImage::write: values do not match the descriptor at " + hex(d.addr));
  uint8_t* base = bytes_.data();
  switch (d.dtype) {
    case isa::DType::F32: {
      const std::vector<float>& v = values.f32();
      for_each_address(d, [&](size_t k, uint64_t at) {
        uint32_t bits;
        std::memcpy(&bits, &v[k], sizeof bits);
        isa::store_u32(base + at, bits);
      });
      break;
    }
    case isa::DType::I32: {
      const std::vector<int32_t>& v = values.i32();
      for_each_address(d, [&](size_t k, uint64_t at) {
        isa::store_u32(base + at, static_cast<uint32_t>(v[k]));
      });
      break;
    }
    case isa::DType::U8: {
      const std::vector<uint8_t>& v = values.u8();
      for_each_address(d, [&](size_t k, uint64_t at) { base[at] = v[k]; });
      break;
    }
  }
}

ir::HostArray DramImage::read(const isa::TensorEntry& entry) const {
  return read(isa::TensorDesc::contiguous(entry.addr, entry.dtype, entry.shape));
}

}  // namespace s2::lower
