#include "compiler/ir/host_array.h"

#include "isa/common/errors.h"
#include "isa/numerics/low_precision.h"

namespace s2::ir {

HostArray::HostArray(isa::DType dtype, size_t elements) : lazy_(elements) {
  switch (dtype) {
    case isa::DType::F32:
    case isa::DType::BF16:
    case isa::DType::F16:
      storage_ = std::vector<float>();
      float_type_ = dtype;
      break;
    case isa::DType::I32:
      storage_ = std::vector<int32_t>();
      break;
    case isa::DType::U8:
      storage_ = std::vector<uint8_t>();
      break;
  }
}

HostArray::HostArray(std::vector<float> values, isa::DType float_type)
    : storage_(std::move(values)), float_type_(float_type) {
  S2_CHECK(numerics::is_float_dtype(float_type),
           "HostArray: " + std::string(isa::dtype_name(float_type)) + " is not a float type");
}

void HostArray::materialize() const {
  if (lazy_ == 0) return;
  std::visit([this](auto& v) { v.resize(lazy_); }, storage_);
  lazy_ = 0;
}

bool HostArray::operator==(const HostArray& other) const {
  if (lazy_zeros() && other.lazy_zeros()) return dtype() == other.dtype() && lazy_ == other.lazy_;
  materialize();
  other.materialize();
  return dtype() == other.dtype() && storage_ == other.storage_;
}

isa::DType HostArray::dtype() const {
  switch (storage_.index()) {
    case 0:
      return float_type_;
    case 1:
      return isa::DType::I32;
    default:
      return isa::DType::U8;
  }
}

size_t HostArray::size() const {
  if (lazy_zeros()) return lazy_;
  return std::visit([](const auto& v) { return v.size(); }, storage_);
}

namespace {
template <typename T, typename Variant>
auto& typed(Variant& storage, const char* want) {
  auto* p = std::get_if<T>(&storage);
  S2_CHECK(p != nullptr, std::string("HostArray: not an ") + want + " array");
  return *p;
}
}  // namespace

std::vector<float>& HostArray::f32() {
  materialize();
  return typed<std::vector<float>>(storage_, "f32");
}
const std::vector<float>& HostArray::f32() const {
  materialize();
  return typed<std::vector<float>>(storage_, "f32");
}
std::vector<int32_t>& HostArray::i32() {
  materialize();
  return typed<std::vector<int32_t>>(storage_, "i32");
}
const std::vector<int32_t>& HostArray::i32() const {
  materialize();
  return typed<std::vector<int32_t>>(storage_, "i32");
}
std::vector<uint8_t>& HostArray::u8() {
  materialize();
  return typed<std::vector<uint8_t>>(storage_, "u8");
}
const std::vector<uint8_t>& HostArray::u8() const {
  materialize();
  return typed<std::vector<uint8_t>>(storage_, "u8");
}

}  // namespace s2::ir
