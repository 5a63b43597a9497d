#pragma once
// How each non-view operator type of the Graph-IR becomes one S2Train instruction, and how an
// instruction maps back to the op type and attributes whose reference kernel computes it.
// Each op's OpLowering is part of its schema in the op registry, written beside its shape
// inference and kernel in compiler/ops/<family>.cpp (their encode/decode functions use
// fields.h). The lowering and the in-compiler stream checker both read it from there, so the
// two can never disagree.
//
// Inputs and outputs are bound to operand slots by their schema names, looked up at run time:
// the table may name inputs the registry does not declare (yet), like the fusion epilogue's
// `residual` and `gate`, and they are simply never asked for. An op input or output that has
// no binding is refused by the lowering rather than dropped.

#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "isa/encoding/instruction.h"

namespace s2::lower {

inline constexpr isa::Slot kNoSlot = isa::Slot::kCount;

struct SlotBinding {
  std::string name;  // the schema's input or output name
  isa::Slot slot;
  // For the stream checker: when the instruction omits this (optional) operand but the
  // registry's kernel always writes or reads it, a zero scratch tensor of this slot's shape
  // stands in (max pooling's indices are shaped like its output).
  isa::Slot scratch_like = kNoSlot;
};

struct OpLowering {
  ir::OpType type;
  isa::Opcode opcode;
  std::vector<SlotBinding> inputs;
  std::vector<SlotBinding> outputs;
  // Batch norm takes [N,C] as well as [N,C,H,W]; the instruction wants rank 4, and trailing
  // unit dimensions change nothing for it.
  bool pad_to_slot_rank = false;
  // Attributes -> fields; a value a field cannot hold is a UserError naming the op.
  void (*encode)(const ir::Op& op, isa::Instruction& inst) = nullptr;
  // Fields (and operand shapes) -> the attributes the registry's kernel reads.
  void (*decode)(const isa::Instruction& inst, ir::Attrs& attrs) = nullptr;
  // Whether an instruction of `opcode` is this op: eltwise by its `op` field, softmax_ce by
  // which outputs it writes (one instruction may compute both the loss and its gradient).
  bool (*matches)(const isa::Instruction& inst) = nullptr;

  const SlotBinding* input(const std::string& name) const;
  const SlotBinding* output(const std::string& name) const;
};

// The lowering of an op type; nullptr for views, which produce no instruction.
const OpLowering* find_lowering(ir::OpType type);

// Every registered lowering that describes `inst`, in registration order (empty when none
// does: an instruction the compiler never emits, like eltwise `sub`).
std::vector<const OpLowering*> lowerings_of(const isa::Instruction& inst);

}  // namespace s2::lower
