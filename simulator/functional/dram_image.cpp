#include "simulator/functional/dram_image.h"

#include <cstring>
#include <string>

#include "isa/common/errors.h"
#include "isa/common/float_bits.h"
#include "isa/common/hex.h"
#include "isa/container/byte_io.h"
#include "isa/container/dram_layout.h"
#include "isa/numerics/fp32.h"
#include "isa/numerics/low_precision.h"

namespace s2::sim::functional {
namespace {

void expect_dtype(const isa::TensorDesc& d, isa::DType want) {
  S2_CHECK(d.dtype == want, "functional DRAM image: descriptor at " + hex(d.addr) + " is " +
                                std::string(isa::dtype_name(d.dtype)) + ", not " +
                                std::string(isa::dtype_name(want)));
}

void expect_float(const isa::TensorDesc& d) {
  S2_CHECK(numerics::is_float_dtype(d.dtype),
           "functional DRAM image: descriptor at " + hex(d.addr) + " is " +
               std::string(isa::dtype_name(d.dtype)) + ", not a floating-point type");
}

void expect_count(const isa::TensorDesc& d, size_t count) {
  S2_CHECK(d.elements() == count, "functional DRAM image: " + std::to_string(count) +
                                      " values for a descriptor of " +
                                      std::to_string(d.elements()) + " elements at " + hex(d.addr));
}

void expect_dram(const isa::TensorDesc& d) {
  S2_CHECK(d.space == isa::MemSpace::Dram,
           "functional DRAM image: a typed access to host memory at " + hex(d.addr));
}

}  // namespace

DramImage DramImage::load(const isa::Executable& exe) {
  return DramImage(isa::initial_dram(exe), exe.plan.host_size);
}

const isa::DramBytes& DramImage::image_of(const isa::TensorDesc& d) const {
  isa::check_in_memory(d, bytes_.size(), host_.size());
  return d.space == isa::MemSpace::Host ? host_ : bytes_;
}

std::vector<float> DramImage::read_f32(const isa::TensorDesc& d) const {
  expect_float(d);
  expect_dram(d);
  isa::check_in_dram(d, size());
  std::vector<float> out(static_cast<size_t>(d.elements()));
  const uint8_t* base = bytes_.data();
  switch (d.dtype) {
    case isa::DType::BF16:
    case isa::DType::F16:
      isa::for_each_element_address(d, [&](size_t k, uint64_t at) {
        out[k] = numerics::f32_from_bits16(d.dtype, isa::load_u16(base + at));
      });
      break;
    default:
      isa::for_each_element_address(d, [&](size_t k, uint64_t at) {
        out[k] = numerics::load(f32_from_bits(isa::load_u32(base + at)));
      });
  }
  return out;
}

std::vector<int32_t> DramImage::read_i32(const isa::TensorDesc& d) const {
  expect_dtype(d, isa::DType::I32);
  expect_dram(d);
  isa::check_in_dram(d, size());
  std::vector<int32_t> out(static_cast<size_t>(d.elements()));
  const uint8_t* base = bytes_.data();
  isa::for_each_element_address(
      d, [&](size_t k, uint64_t at) { out[k] = static_cast<int32_t>(isa::load_u32(base + at)); });
  return out;
}

void DramImage::write_f32(const isa::TensorDesc& d, const std::vector<float>& values) {
  expect_float(d);
  expect_count(d, values.size());
  expect_dram(d);
  isa::check_in_dram(d, size());
  uint8_t* base = bytes_.data();
  switch (d.dtype) {
    case isa::DType::BF16:
    case isa::DType::F16:
      isa::for_each_element_address(d, [&](size_t k, uint64_t at) {
        isa::store_u16(base + at, numerics::bits16_from_f32(d.dtype, numerics::store(values[k])));
      });
      break;
    default:
      isa::for_each_element_address(d, [&](size_t k, uint64_t at) {
        isa::store_u32(base + at, f32_bits(numerics::store(values[k])));
      });
  }
}

void DramImage::write_i32(const isa::TensorDesc& d, const std::vector<int32_t>& values) {
  expect_dtype(d, isa::DType::I32);
  expect_count(d, values.size());
  expect_dram(d);
  isa::check_in_dram(d, size());
  uint8_t* base = bytes_.data();
  isa::for_each_element_address(d, [&](size_t k, uint64_t at) {
    isa::store_u32(base + at, static_cast<uint32_t>(values[k]));
  });
}

std::vector<uint8_t> DramImage::read_raw(const isa::TensorDesc& d) const {
  const uint8_t* base = image_of(d).data();
  const size_t width = isa::dtype_bytes(d.dtype);
  std::vector<uint8_t> out(static_cast<size_t>(d.elements()) * width);
  isa::for_each_element_address(
      d, [&](size_t k, uint64_t at) { std::memcpy(out.data() + k * width, base + at, width); });
  return out;
}

void DramImage::write_raw(const isa::TensorDesc& d, const std::vector<uint8_t>& values) {
  const size_t width = isa::dtype_bytes(d.dtype);
  expect_count(d, values.size() / width);
  S2_CHECK(values.size() % width == 0, "functional DRAM image: ragged raw write");
  uint8_t* base = image_of(d).data();
  isa::for_each_element_address(
      d, [&](size_t k, uint64_t at) { std::memcpy(base + at, values.data() + k * width, width); });
}

std::vector<uint8_t> DramImage::entry_bytes(const isa::TensorEntry& entry) const {
  const uint64_t n = entry.dense_bytes();
  const bool host = entry.space == isa::MemSpace::Host;
  const isa::DramBytes& image = host ? host_ : bytes_;
  if (entry.addr > image.size() || n > image.size() - entry.addr)
    throw UserError("tensor '" + entry.name + "' at " + (host ? "host:" : "") + hex(entry.addr) +
                    "+" + hex(n) + " lies outside the " + (host ? "host memory" : "DRAM") +
                    " image of " + hex(image.size()) + " bytes");
  const uint8_t* first = image.begin() + entry.addr;
  return std::vector<uint8_t>(first, first + n);
}

}  // namespace s2::sim::functional
