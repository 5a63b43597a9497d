#pragma once
// Typed indices of the Graph-IR's nodes: a DataId cannot be passed where a TensorId goes.

#include <cstddef>
#include <cstdint>
#include <functional>

namespace s2::ir {

template <typename Tag>
struct Id {
  static constexpr uint32_t kInvalid = UINT32_MAX;
  uint32_t value = kInvalid;

  constexpr Id() = default;
  constexpr explicit Id(uint32_t v) : value(v) {}
  constexpr explicit Id(size_t v) : value(static_cast<uint32_t>(v)) {}
  constexpr bool valid() const { return value != kInvalid; }
  constexpr size_t index() const { return value; }
  friend constexpr bool operator==(Id a, Id b) { return a.value == b.value; }
  friend constexpr bool operator!=(Id a, Id b) { return a.value != b.value; }
  friend constexpr bool operator<(Id a, Id b) { return a.value < b.value; }
};

using DataId = Id<struct DataTag>;
using TensorId = Id<struct TensorTag>;
using OpId = Id<struct OpTag>;

}  // namespace s2::ir

template <typename Tag>
struct std::hash<s2::ir::Id<Tag>> {
  size_t operator()(s2::ir::Id<Tag> id) const noexcept { return std::hash<uint32_t>()(id.value); }
};
