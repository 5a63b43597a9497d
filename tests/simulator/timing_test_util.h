#pragma once
// Shared helpers of the timing tests: configs by name and instruction builders.

#include <string>
#include <vector>

#include "isa/encoding/instruction.h"
#include "simulator/dram/load_target.h"

namespace s2::sim::timing::test {

inline target::TargetDesc config(const std::string& name) {
  return target::load_target(std::string(S2_SOURCE_DIR) + "/configs/s2train_" + name + ".yaml");
}

inline isa::TensorDesc f32(uint64_t addr, const std::vector<uint32_t>& shape) {
  return isa::TensorDesc::contiguous(addr, isa::DType::F32, shape);
}

// y[M,N] = a[M,K] x b[K,N], operands at disjoint addresses.
inline isa::Instruction gemm(uint32_t m, uint32_t n, uint32_t k) {
  isa::Instruction inst(isa::Opcode::Gemm);
  inst.set_operand(isa::Slot::A, f32(0x100000, {m, k}));
  inst.set_operand(isa::Slot::B, f32(0x4000000, {k, n}));
  inst.set_operand(isa::Slot::Y, f32(0x8000000, {m, n}));
  return inst;
}

}  // namespace s2::sim::timing::test
