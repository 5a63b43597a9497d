#pragma once
// The RTL's multiply-mode code (pe_mac.sv and pe_array.sv's mode inputs) for a multiplicand
// type, shared by the harnesses.
#include <cstdint>
#include <string>

#include "isa/common/errors.h"
#include "isa/encoding/isa_table.h"

namespace s2::rtl {

// 0 f32, 1 bf16, 2 f16. Any other type is an internal error (callers check types first).
inline uint8_t pe_mode(isa::DType dtype) {
  switch (dtype) {
    case isa::DType::F32:
      return 0;
    case isa::DType::BF16:
      return 1;
    case isa::DType::F16:
      return 2;
    default:
      break;
  }
  S2_CHECK(false, "the PE multiplies no " + std::string(isa::dtype_name(dtype)));
  return 0;
}

// Whether the PE array multiplies `dtype` at all (f32, bf16, f16).
inline bool pe_multiplies(isa::DType dtype) {
  return dtype == isa::DType::F32 || dtype == isa::DType::BF16 || dtype == isa::DType::F16;
}

}  // namespace s2::rtl
