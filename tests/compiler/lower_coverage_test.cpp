// Every op type of op_types.def that is not a view has a lowering, and the lowering binds
// every input and output its schema declares to an operand of the right direction of its
// instruction. A new op type, or a new input on an existing one, fails here until it is
// lowered (or listed below with the reason it is refused).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "compiler/lower/op_lowering.h"
#include "compiler/ops/registry.h"

namespace s2::lower {
namespace {

struct OpTypeName {
  ir::OpType type;
  const char* name;
};

const std::vector<OpTypeName>& all_op_types() {
  static const std::vector<OpTypeName> types = {
#define S2_OP(Id, name, file) {ir::OpType::Id, name},
#include "compiler/ops/op_types.def"
  };
  return types;
}

// Inputs the ISA has no operand for: lowering refuses an op that has them.
const std::set<std::pair<std::string, std::string>> kRefused = {};
// Inputs that only name where an output is written in place: the update's 16-bit weight copy
// (weight_copy_out aliases it), which the instruction writes and never reads.
const std::set<std::pair<std::string, std::string>> kWriteOnly = {
    {"sgd", "weight_copy"}, {"adamw", "weight_copy"}, {"amp_update", "inv_scale"}};

const isa::OperandSig* signature(isa::Opcode opcode, isa::Slot slot) {
  const isa::OpcodeInfo& info = isa::opcode_info(opcode);
  const int i = isa::operand_index(info, slot);
  return i < 0 ? nullptr : &info.operands[static_cast<size_t>(i)];
}

TEST(LowerCoverage, EveryOpTypeThatIsNotAViewHasALowering) {
  ASSERT_EQ(all_op_types().size(), ir::kNumOpTypes);
  for (const auto& [type, name] : all_op_types()) {
    SCOPED_TRACE(name);
    const ir::OpSchema& schema = ir::op_schema(type);
    const OpLowering* lowering = find_lowering(type);
    if (schema.fusion == ir::FusionClass::View) {
      EXPECT_EQ(lowering, nullptr) << "views produce no instruction";
      continue;
    }
    ASSERT_NE(lowering, nullptr) << "op type '" << name << "' has no lowering in op_lowering.cpp";
    EXPECT_EQ(lowering->type, type);
    for (const ir::InputSpec& in : schema.inputs) {
      const SlotBinding* b = lowering->input(in.name);
      if (kRefused.count({name, in.name})) {
        EXPECT_EQ(b, nullptr);
        continue;
      }
      ASSERT_NE(b, nullptr) << "input '" << in.name << "' has no operand";
      const isa::OperandSig* sig = signature(lowering->opcode, b->slot);
      ASSERT_NE(sig, nullptr) << "input '" << in.name << "' binds a slot the opcode lacks";
      if (kWriteOnly.count({name, in.name})) {
        EXPECT_EQ(sig->access, isa::Access::Out);
        EXPECT_NE(lowering->output(in.name + "_out"), nullptr);
        continue;
      }
      EXPECT_NE(sig->access, isa::Access::Out) << "input '" << in.name << "' binds an output";
    }
    for (const std::string& out : schema.outputs) {
      const SlotBinding* b = lowering->output(out);
      ASSERT_NE(b, nullptr) << "output '" << out << "' has no operand";
      const isa::OperandSig* sig = signature(lowering->opcode, b->slot);
      ASSERT_NE(sig, nullptr) << "output '" << out << "' binds a slot the opcode lacks";
      EXPECT_NE(sig->access, isa::Access::In) << "output '" << out << "' binds an input";
    }
  }
}

// Each lowering is found again from an instruction it produces: the checker's way back.
TEST(LowerCoverage, EveryLoweringIsRecognisedFromItsInstruction) {
  for (const auto& [type, name] : all_op_types()) {
    const OpLowering* lowering = find_lowering(type);
    if (lowering == nullptr) continue;
    SCOPED_TRACE(name);
    ir::Op op;
    op.name = "probe";
    op.type = type;
    // Defaults, and for the attributes without one a value every field can hold.
    const std::map<std::string, ir::AttrValue> probe = {{"kernel", std::vector<int64_t>{2, 2}},
                                                        {"stride", std::vector<int64_t>{2, 2}},
                                                        {"input_hw", std::vector<int64_t>{4, 4}},
                                                        {"kernel_hw", std::vector<int64_t>{1, 1}},
                                                        {"axes", std::vector<int64_t>{0}},
                                                        {"lr", 0.5},
                                                        {"max_norm", 1.0},
                                                        {"num_rows", int64_t{1}},
                                                        {"dtype", std::string("bf16")}};
    for (const ir::AttrSpec& spec : ir::op_schema(type).attrs) {
      if (spec.default_value) {
        op.attrs.set(spec.name, *spec.default_value);
        continue;
      }
      ASSERT_TRUE(probe.count(spec.name)) << "no probe value for attribute '" << spec.name << "'";
      op.attrs.set(spec.name, probe.at(spec.name));
    }
    isa::Instruction inst(lowering->opcode);
    lowering->encode(op, inst);
    // softmax_ce is told apart by the outputs it writes.
    for (const SlotBinding& b : lowering->outputs)
      inst.set_operand(b.slot, isa::TensorDesc::contiguous(0, isa::DType::F32, {1}));
    bool found = false;
    for (const OpLowering* l : lowerings_of(inst))
      found = found || l == lowering;
    EXPECT_TRUE(found);
  }
}

// The fusion epilogue's inputs and attribute map to the instructions' epilogue operands and
// fields whether or not the registry declares them yet.
TEST(LowerCoverage, EpilogueInputsBindToEpilogueOperands) {
  using isa::Slot;
  const struct {
    ir::OpType type;
    const char* input;
    Slot slot;
  } cases[] = {{ir::OpType::Conv2d, "residual", Slot::Residual},
               {ir::OpType::Gemm, "residual", Slot::Residual},
               {ir::OpType::Gemm, "gate", Slot::Gate},
               {ir::OpType::Conv2dBwdData, "residual", Slot::Residual},
               {ir::OpType::Conv2dBwdData, "gate", Slot::Gate},
               {ir::OpType::Conv2dBwdWeight, "residual", Slot::Residual},
               {ir::OpType::BatchNormBwd, "gate", Slot::Gate}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(ir::op_type_name(c.type)) + "." + c.input);
    const SlotBinding* b = find_lowering(c.type)->input(c.input);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->slot, c.slot);
  }
  // conv2d has no gate operand in the ISA: an op with one is refused, not silently ungated.
  EXPECT_EQ(find_lowering(ir::OpType::Conv2d)->input("gate"), nullptr);
}

}  // namespace
}  // namespace s2::lower
