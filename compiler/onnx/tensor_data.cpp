#include "compiler/onnx/tensor_data.h"

#include <cstring>

#include "isa/common/errors.h"

namespace s2::onnx_import {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& problem) {
  throw UserError(where + ": " + problem);
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// The element count the dims promise, checked against overflow (a corrupt file may claim
// anything).
size_t element_count(const onnx::TensorProto& t, const std::string& where) {
  size_t n = 1;
  for (int64_t d : tensor_dims(t, where)) {
    const auto ud = static_cast<size_t>(d);
    if (ud != 0 && n > SIZE_MAX / ud)
      fail(where, "dims " + dims_text(tensor_dims(t, where)) + " overflow");
    n *= ud;
  }
  return n;
}

void check_stored_inline(const onnx::TensorProto& t, const std::string& where) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    fail(where, "is still marked as external data (load_model_file reads external data)");
}

// `have` payload units where `count` elements of `unit` units each are due.
void check_count(size_t have, size_t count, size_t unit, const onnx::TensorProto& t,
                 const std::string& where, const std::string& what) {
  if (count <= SIZE_MAX / unit && have == count * unit) return;
  const std::string want = count <= SIZE_MAX / unit ? std::to_string(count * unit) : "more";
  fail(where, "has " + std::to_string(have) + " " + what + " for " + elem_type_name(t.data_type()) +
                  dims_text(tensor_dims(t, where)) + " (expected " + want + ")");
}

// Little-endian raw_data, decoded byte by byte so the result does not depend on the host.
template <typename Bits>
std::vector<Bits> raw_words(const onnx::TensorProto& t, size_t count, const std::string& where) {
  const std::string& raw = t.raw_data();
  check_count(raw.size(), count, sizeof(Bits), t, where, "bytes of raw data");
  std::vector<Bits> words(count);
  for (size_t i = 0; i < count; ++i) {
    Bits w = 0;
    for (size_t b = sizeof(Bits); b-- > 0;)
      w = static_cast<Bits>((w << 8) | static_cast<unsigned char>(raw[i * sizeof(Bits) + b]));
    words[i] = w;
  }
  return words;
}

}  // namespace

std::string elem_type_name(int32_t elem_type) {
  if (onnx::TensorProto::DataType_IsValid(elem_type))
    return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(elem_type));
  return "type " + std::to_string(elem_type);
}

std::vector<int64_t> tensor_dims(const onnx::TensorProto& t, const std::string& where) {
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  for (int64_t d : dims)
    if (d < 0) fail(where, "has a negative dimension in " + dims_text(dims));
  return dims;
}

std::vector<float> float_values(const onnx::TensorProto& t, const std::string& where) {
  if (t.data_type() != onnx::TensorProto::FLOAT)
    fail(where, "has element type " + elem_type_name(t.data_type()) + "; weights must be FLOAT");
  check_stored_inline(t, where);
  const size_t count = element_count(t, where);
  if (!t.has_raw_data()) {
    check_count(static_cast<size_t>(t.float_data_size()), count, 1, t, where, "float_data values");
    return std::vector<float>(t.float_data().begin(), t.float_data().end());
  }
  const std::vector<uint32_t> words = raw_words<uint32_t>(t, count, where);
  std::vector<float> values(count);
  std::memcpy(values.data(), words.data(), count * sizeof(float));
  return values;
}

void check_raw_data_size(const onnx::TensorProto& t, uint64_t bytes, const std::string& where) {
  size_t unit = 0;
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::INT32:
      unit = 4;
      break;
    case onnx::TensorProto::INT64:
      unit = 8;
      break;
    case onnx::TensorProto::BOOL:
      unit = 1;
      break;
    default:
      return;
  }
  check_count(static_cast<size_t>(bytes), element_count(t, where), unit, t, where,
              "bytes of raw data");
}

std::vector<int64_t> int_values(const onnx::TensorProto& t, const std::string& where) {
  check_stored_inline(t, where);
  const size_t count = element_count(t, where);
  if (t.data_type() == onnx::TensorProto::INT64) {
    if (!t.has_raw_data()) {
      check_count(static_cast<size_t>(t.int64_data_size()), count, 1, t, where,
                  "int64_data values");
      return std::vector<int64_t>(t.int64_data().begin(), t.int64_data().end());
    }
    const std::vector<uint64_t> words = raw_words<uint64_t>(t, count, where);
    std::vector<int64_t> values(count);
    std::memcpy(values.data(), words.data(), count * sizeof(int64_t));
    return values;
  }
  if (t.data_type() == onnx::TensorProto::INT32) {
    if (!t.has_raw_data()) {
      check_count(static_cast<size_t>(t.int32_data_size()), count, 1, t, where,
                  "int32_data values");
      return std::vector<int64_t>(t.int32_data().begin(), t.int32_data().end());
    }
    const std::vector<uint32_t> words = raw_words<uint32_t>(t, count, where);
    std::vector<int64_t> values(count);
    for (size_t i = 0; i < count; ++i) {
      int32_t v = 0;
      std::memcpy(&v, &words[i], sizeof v);
      values[i] = v;
    }
    return values;
  }
  if (t.data_type() == onnx::TensorProto::BOOL) {
    if (!t.has_raw_data()) {
      check_count(static_cast<size_t>(t.int32_data_size()), count, 1, t, where,
                  "int32_data values");
      std::vector<int64_t> values;
      for (int32_t v : t.int32_data())
        values.push_back(v != 0 ? 1 : 0);
      return values;
    }
    const std::vector<uint8_t> bytes = raw_words<uint8_t>(t, count, where);
    return std::vector<int64_t>(bytes.begin(), bytes.end());
  }
  fail(where, "has element type " + elem_type_name(t.data_type()) +
                  "; a constant shape or mask must be INT64, INT32 or BOOL");
}

}  // namespace s2::onnx_import
