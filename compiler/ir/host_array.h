#pragma once
// Numbers on the host: the initial contents of a data node (weights, a batch, labels) and the
// reference interpreter's buffers. One element type per array.

#include <cstdint>
#include <variant>
#include <vector>

#include "isa/encoding/isa_table.h"

namespace s2::ir {

class HostArray {
 public:
  HostArray() = default;
  HostArray(isa::DType dtype, size_t elements);  // zero-filled
  explicit HostArray(std::vector<float> values) : storage_(std::move(values)) {}
  explicit HostArray(std::vector<int32_t> values) : storage_(std::move(values)) {}

  isa::DType dtype() const;
  size_t size() const;

  // The typed storage; asking for the wrong type is an internal error.
  std::vector<float>& f32();
  const std::vector<float>& f32() const;
  std::vector<int32_t>& i32();
  const std::vector<int32_t>& i32() const;
  std::vector<uint8_t>& u8();
  const std::vector<uint8_t>& u8() const;

  bool operator==(const HostArray& other) const { return storage_ == other.storage_; }

 private:
  std::variant<std::vector<float>, std::vector<int32_t>, std::vector<uint8_t>> storage_;
};

}  // namespace s2::ir
