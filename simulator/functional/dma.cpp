#include "simulator/functional/dma.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "isa/numerics/fp32.h"
#include "isa/numerics/low_precision.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

// The integer part of v, saturated to [lo, hi]; NaN gives 0. In range this is exactly
// static_cast, which is what the compiler's stream checker does.
template <typename T>
T saturate(float v) {
  if (std::isnan(v)) return 0;
  const double t = std::trunc(static_cast<double>(v));
  if (t <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (t >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(t);
}

}  // namespace

void run_copy(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const isa::TensorDesc& src = ops.desc(isa::Slot::Src);
  const isa::TensorDesc& dst = ops.desc(isa::Slot::Dst);
  if (src.dtype != dst.dtype || src.elements() != dst.elements())
    ops.fail("src and dst must have the same element type and count");
  image.write_raw(dst, image.read_raw(src));
}

void run_fill(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  const isa::TensorDesc& dst = inst.get(isa::Slot::Dst);
  const float value = inst.f32(isa::Field::Value);
  const size_t width = isa::dtype_bytes(dst.dtype);
  uint8_t element[4] = {};
  switch (dst.dtype) {
    case isa::DType::F32:
    case isa::DType::I32: {
      const uint32_t v = dst.dtype == isa::DType::F32
                             ? f32_bits(value)
                             : static_cast<uint32_t>(saturate<int32_t>(value));
      for (size_t b = 0; b < 4; ++b)  // little-endian, as DRAM holds every word
        element[b] = static_cast<uint8_t>(v >> (8 * b));
      break;
    }
    case isa::DType::U8:
      element[0] = saturate<uint8_t>(value);
      break;
    case isa::DType::BF16:
    case isa::DType::F16: {
      // The value as the datapath holds it, rounded to the element type.
      const float v = numerics::load(value);
      const uint16_t bits = numerics::bits16_from_f32(dst.dtype, v);
      element[0] = static_cast<uint8_t>(bits);
      element[1] = static_cast<uint8_t>(bits >> 8);
      break;
    }
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(dst.elements()) * width);
  for (size_t i = 0; i < bytes.size(); i += width)
    std::memcpy(bytes.data() + i, element, width);
  image.write_raw(dst, bytes);
}

}  // namespace s2::sim::functional
