#include "compiler/io/npy.h"

#include "isa/common/errors.h"
#include "isa/common/float_bits.h"
#include "isa/container/byte_io.h"
#include "isa/io/npy.h"
#include "isa/numerics/low_precision.h"

namespace s2::io {
namespace {

std::vector<uint8_t> bytes_of(const ir::HostArray& data) {
  std::vector<uint8_t> out(data.size() * isa::dtype_bytes(data.dtype()));
  switch (data.dtype()) {
    case isa::DType::F32:
      for (size_t i = 0; i < data.size(); ++i)
        isa::store_u32(out.data() + 4 * i, f32_bits(data.f32()[i]));
      break;
    case isa::DType::I32:
      for (size_t i = 0; i < data.size(); ++i)
        isa::store_u32(out.data() + 4 * i, static_cast<uint32_t>(data.i32()[i]));
      break;
    case isa::DType::U8:
      out = data.u8();
      break;
    case isa::DType::BF16:
    case isa::DType::F16:
      for (size_t i = 0; i < data.size(); ++i) {
        const float v = data.f32()[i];
        isa::store_u16(out.data() + 2 * i, numerics::bits16_from_f32(data.dtype(), v));
      }
      break;
  }
  return out;
}

ir::HostArray array_of(const npy::Array& a) {
  const size_t n = a.data.size() / isa::dtype_bytes(a.dtype);
  ir::HostArray out(a.dtype, n);
  switch (a.dtype) {
    case isa::DType::F32:
      for (size_t i = 0; i < n; ++i)
        out.f32()[i] = f32_from_bits(isa::load_u32(a.data.data() + 4 * i));
      break;
    case isa::DType::I32:
      for (size_t i = 0; i < n; ++i)
        out.i32()[i] = static_cast<int32_t>(isa::load_u32(a.data.data() + 4 * i));
      break;
    case isa::DType::U8:
      out.u8() = a.data;
      break;
    case isa::DType::BF16:  // npy never decodes to bf16 (it is written as float32)
    case isa::DType::F16: {
      std::vector<float> v(n);
      for (size_t i = 0; i < n; ++i)
        v[i] = a.dtype == isa::DType::F16
                   ? numerics::f16_to_f32(isa::load_u16(a.data.data() + 2 * i))
                   : numerics::bf16_to_f32(isa::load_u16(a.data.data() + 2 * i));
      out = ir::HostArray(std::move(v), a.dtype);
      break;
    }
  }
  return out;
}

}  // namespace

std::vector<uint8_t> encode_npy(const ir::HostArray& data, const ir::Shape& shape) {
  return npy::encode(data.dtype(), shape, bytes_of(data));
}

NpyArray decode_npy(const std::vector<uint8_t>& bytes, const std::string& source) {
  npy::Array a = npy::decode(bytes, source);
  return {a.shape, array_of(a)};
}

void write_npy(const std::string& path, const ir::HostArray& data, const ir::Shape& shape) {
  npy::write(path, data.dtype(), shape, bytes_of(data));
}

NpyArray read_npy(const std::string& path) {
  npy::Array a = npy::read(path);
  return {a.shape, array_of(a)};
}

ir::HostArray read_npy_expect(const std::string& path, isa::DType dtype, const ir::Shape& shape) {
  NpyArray a = read_npy(path);
  if (a.data.dtype() != dtype)
    throw UserError(path + ": holds " + std::string(isa::dtype_name(a.data.dtype())) +
                    " data, expected " + std::string(isa::dtype_name(dtype)));
  if (a.shape != shape)
    throw UserError(path + ": shape " + npy::shape_text(a.shape) + " does not match the expected " +
                    npy::shape_text(shape));
  return std::move(a.data);
}

}  // namespace s2::io
