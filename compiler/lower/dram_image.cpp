#include "compiler/lower/dram_image.h"

#include <cstring>
#include <string>

#include "isa/common/errors.h"
#include "isa/common/float_bits.h"
#include "isa/common/hex.h"
#include "isa/container/byte_io.h"
#include "isa/container/dram_layout.h"
#include "isa/numerics/low_precision.h"

namespace s2::lower {
DramImage DramImage::load(const isa::Executable& exe) {
  return DramImage(isa::initial_dram(exe), exe.plan.host_size);
}

const isa::DramBytes& DramImage::image_of(const isa::TensorDesc& d) const {
  isa::check_in_memory(d, bytes_.size(), host_.size());
  return d.space == isa::MemSpace::Host ? host_ : bytes_;
}

ir::HostArray DramImage::read(const isa::TensorDesc& d) const {
  const uint8_t* base = image_of(d).data();
  const auto n = static_cast<size_t>(d.elements());
  ir::HostArray out(d.dtype, n);
  switch (d.dtype) {
    case isa::DType::F32: {
      std::vector<float>& v = out.f32();
      isa::for_each_element_address(
          d, [&](size_t k, uint64_t at) { v[k] = f32_from_bits(isa::load_u32(base + at)); });
      break;
    }
    case isa::DType::I32: {
      std::vector<int32_t>& v = out.i32();
      isa::for_each_element_address(
          d, [&](size_t k, uint64_t at) { v[k] = static_cast<int32_t>(isa::load_u32(base + at)); });
      break;
    }
    case isa::DType::U8: {
      std::vector<uint8_t>& v = out.u8();
      isa::for_each_element_address(d, [&](size_t k, uint64_t at) { v[k] = base[at]; });
      break;
    }
    case isa::DType::BF16:
    case isa::DType::F16: {
      // As the hardware loads them (isa/numerics/low_precision.h).
      std::vector<float>& v = out.f32();
      isa::for_each_element_address(d, [&](size_t k, uint64_t at) {
        v[k] = numerics::f32_from_bits16(d.dtype, isa::load_u16(base + at));
      });
      break;
    }
  }
  return out;
}

void DramImage::write(const isa::TensorDesc& d, const ir::HostArray& values) {
  uint8_t* base = image_of(d).data();
  S2_CHECK(values.dtype() == d.dtype && values.size() == d.elements(),
           "DramImage::write: values do not match the descriptor at " + hex(d.addr));
  switch (d.dtype) {
    case isa::DType::F32: {
      const std::vector<float>& v = values.f32();
      isa::for_each_element_address(
          d, [&](size_t k, uint64_t at) { isa::store_u32(base + at, f32_bits(v[k])); });
      break;
    }
    case isa::DType::I32: {
      const std::vector<int32_t>& v = values.i32();
      isa::for_each_element_address(d, [&](size_t k, uint64_t at) {
        isa::store_u32(base + at, static_cast<uint32_t>(v[k]));
      });
      break;
    }
    case isa::DType::U8: {
      const std::vector<uint8_t>& v = values.u8();
      isa::for_each_element_address(d, [&](size_t k, uint64_t at) { base[at] = v[k]; });
      break;
    }
    case isa::DType::BF16:
    case isa::DType::F16: {
      const std::vector<float>& v = values.f32();
      isa::for_each_element_address(d, [&](size_t k, uint64_t at) {
        isa::store_u16(base + at, numerics::bits16_from_f32(d.dtype, v[k]));
      });
      break;
    }
  }
}

ir::HostArray DramImage::read(const isa::TensorEntry& entry) const {
  isa::TensorDesc d = isa::TensorDesc::contiguous(entry.addr, entry.dtype, entry.shape);
  d.space = entry.space;
  return read(d);
}

}  // namespace s2::lower
