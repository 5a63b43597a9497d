#include "compiler/lower/lower_op.h"

#include "compiler/lower/descriptor.h"
#include "compiler/lower/fields.h"
#include "compiler/lower/op_lowering.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"
#include "isa/encoding/semantics.h"

namespace s2::lower {
namespace {

class OpLowerer {
 public:
  OpLowerer(const ir::Graph& graph, const ir::Op& op, const DataAddresses& addresses,
            const OpLowering& lowering)
      : graph_(graph),
        op_(op),
        addresses_(addresses),
        lowering_(lowering),
        inst_(lowering.opcode) {}

  isa::Instruction run() {
    const ir::OpSchema& schema = ir::op_schema(op_.type);
    for (size_t i = 0; i < schema.inputs.size() && i < op_.inputs.size(); ++i)
      bind(op_.inputs[i], schema.inputs[i].name, lowering_.input(schema.inputs[i].name), "input");
    for (size_t i = 0; i < schema.outputs.size() && i < op_.outputs.size(); ++i)
      bind(op_.outputs[i], schema.outputs[i], lowering_.output(schema.outputs[i]), "output");
    lowering_.encode(op_, inst_);
    const std::vector<std::string> problems = isa::check_instruction(inst_);
    if (!problems.empty())
      throw UserError(op_label(op_) + " has no valid S2Train '" + mnemonic() +
                      "' instruction: " + problems.front());
    return std::move(inst_);
  }

 private:
  std::string mnemonic() const { return std::string(inst_.info().mnemonic); }

  void bind(ir::TensorId id, const std::string& name, const SlotBinding* binding,
            const char* what) {
    if (!id.valid()) return;  // an absent optional input or output
    const ir::Tensor& t = graph_.tensor(id);
    if (binding == nullptr)
      throw UserError(op_label(op_) + ": " + what + " '" + name + "' (tensor '" + t.name +
                      "') has no operand in the S2Train '" + mnemonic() + "' instruction");
    const isa::OperandSig& sig =
        inst_.info().operands[static_cast<size_t>(isa::operand_index(inst_.info(), binding->slot))];
    const std::optional<uint64_t>& base = addresses_.at(t.data.index());
    if (!base) {
      // An optional result nobody reads may have been left unplanned: don't write it.
      S2_CHECK(sig.optional && sig.access == isa::Access::Out,
               "lowering " + op_label(op_) + ": tensor '" + t.name + "' (" + what + " '" + name +
                   "') has no buffer in the memory plan");
      return;
    }
    const isa::TensorDesc d =
        tensor_descriptor(graph_, id, *base, lowering_.pad_to_slot_rank ? sig.rank : 1);
    const auto& existing = inst_.operand(binding->slot);
    // An in-place update binds its input and its output to one operand: they must agree.
    S2_CHECK(!existing || *existing == d, "lowering " + op_label(op_) + ": " + what + " '" + name +
                                              "' and another tensor both bind operand '" +
                                              std::string(isa::slot_info(binding->slot).name) +
                                              "' differently");
    inst_.set_operand(binding->slot, d);
  }

  const ir::Graph& graph_;
  const ir::Op& op_;
  const DataAddresses& addresses_;
  const OpLowering& lowering_;
  isa::Instruction inst_;
};

}  // namespace

isa::Instruction lower_op(const ir::Graph& graph, const ir::Op& op,
                          const DataAddresses& addresses) {
  const OpLowering* lowering = find_lowering(op.type);
  if (lowering == nullptr)
    throw UserError(op_label(op) + ": no S2Train instruction computes ops of this type");
  return OpLowerer(graph, op, addresses, *lowering).run();
}

}  // namespace s2::lower
