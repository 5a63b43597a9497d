#pragma once
// Numbers on the host: the initial contents of a data node (weights, a batch, labels) and the
// reference interpreter's buffers. One element type per array. bf16 and f16 arrays hold their
// values as floats (f32()), each exactly a value of the type (numerics::round_to).
//
// A zero-filled array allocates nothing until its elements are first accessed: optimizer
// state and the zero parts of a slice's gradient are hundreds of MiB for a GPT-2, most of
// which simplify removes or the lowering writes as zeros without reading them.

#include <cstdint>
#include <variant>
#include <vector>

#include "isa/encoding/isa_table.h"

namespace s2::ir {

class HostArray {
 public:
  HostArray() = default;
  HostArray(isa::DType dtype, size_t elements);  // zero-filled, allocated on first access
  explicit HostArray(std::vector<float> values) : storage_(std::move(values)) {}
  // Values of a float type (f32, bf16, f16), already representable in it.
  HostArray(std::vector<float> values, isa::DType float_type);
  explicit HostArray(std::vector<int32_t> values) : storage_(std::move(values)) {}

  isa::DType dtype() const;
  size_t size() const;
  // True while the array is the zero fill of HostArray(dtype, elements) and none of its
  // elements has been accessed: known to be all zeros without reading (or allocating) them.
  bool lazy_zeros() const { return lazy_ > 0; }

  // The typed storage; asking for the wrong type is an internal error. f32() serves every
  // float type.
  std::vector<float>& f32();
  const std::vector<float>& f32() const;
  std::vector<int32_t>& i32();
  const std::vector<int32_t>& i32() const;
  std::vector<uint8_t>& u8();
  const std::vector<uint8_t>& u8() const;

  bool operator==(const HostArray& other) const;

 private:
  // Allocates the zeros of a lazy array (const: the contents do not change).
  void materialize() const;

  mutable std::variant<std::vector<float>, std::vector<int32_t>, std::vector<uint8_t>> storage_;
  mutable size_t lazy_ = 0;                  // > 0: that many zeros, not yet allocated
  isa::DType float_type_ = isa::DType::F32;  // the element type of float storage
};

}  // namespace s2::ir
