#include "compiler/lower/op_lowering.h"

#include "compiler/ops/registry.h"

namespace s2::lower {
namespace {

const SlotBinding* find_binding(const std::vector<SlotBinding>& list, const std::string& name) {
  for (const SlotBinding& b : list)
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace

const SlotBinding* OpLowering::input(const std::string& name) const {
  return find_binding(inputs, name);
}

const SlotBinding* OpLowering::output(const std::string& name) const {
  return find_binding(outputs, name);
}

const OpLowering* find_lowering(ir::OpType type) {
  const std::optional<OpLowering>& lowering = ir::op_schema(type).lowering;
  return lowering ? &*lowering : nullptr;
}

std::vector<const OpLowering*> lowerings_of(const isa::Instruction& inst) {
  std::vector<const OpLowering*> found;
  for (const auto& entry : ir::op_registry()) {
    const std::optional<OpLowering>& lowering = entry.value.lowering;
    if (lowering && lowering->opcode == inst.opcode() && lowering->matches(inst))
      found.push_back(&*lowering);
  }
  return found;
}

}  // namespace s2::lower
