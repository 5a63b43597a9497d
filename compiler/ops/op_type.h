#pragma once
// The operator types, generated from op_types.def.

#include <cstdint>
#include <optional>
#include <string_view>

namespace s2::ir {

enum class OpType : uint8_t {
#define S2_OP(Id, name, file) Id,
#include "compiler/ops/op_types.def"
  kCount
};
inline constexpr size_t kNumOpTypes = static_cast<size_t>(OpType::kCount);

std::string_view op_type_name(OpType type);
std::optional<OpType> op_type_from_name(std::string_view name);

}  // namespace s2::ir
