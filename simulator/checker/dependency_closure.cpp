#include "simulator/checker/dependency_closure.h"

namespace s2::sim::checker {
namespace {

bool is_fence(const isa::Instruction& inst) {
  return inst.opcode() == isa::Opcode::Barrier || inst.opcode() == isa::Opcode::End;
}

}  // namespace

DependencyClosure::DependencyClosure(const std::vector<isa::Instruction>& program) {
  const size_t n = program.size();
  words_ = (n + 63) / 64;
  bits_.assign(n * words_, 0);
  int64_t last_fence = -1;
  for (size_t i = 0; i < n; ++i) {
    uint64_t* row = &bits_[i * words_];
    auto inherit = [&](size_t d) {
      const uint64_t* from = &bits_[d * words_];
      // Row d only has bits below d.
      for (size_t w = 0; w <= d / 64; ++w)
        row[w] |= from[w];
      row[d / 64] |= uint64_t{1} << (d % 64);
    };
    if (is_fence(program[i])) {
      for (size_t j = 0; j < i; ++j)
        row[j / 64] |= uint64_t{1} << (j % 64);
      last_fence = static_cast<int64_t>(i);
      continue;
    }
    if (last_fence >= 0) inherit(static_cast<size_t>(last_fence));
    for (uint32_t d : program[i].deps)
      if (d < i) inherit(d);
  }
}

bool DependencyClosure::waits_for(uint32_t later, uint32_t earlier) const {
  if (earlier >= later || later * words_ >= bits_.size()) return false;
  return (bits_[later * words_ + earlier / 64] >> (earlier % 64)) & 1u;
}

}  // namespace s2::sim::checker
