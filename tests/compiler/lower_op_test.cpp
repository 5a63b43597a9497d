// Lowering of single ops on small graphs: views read through strided descriptors, the ops the
// zoo models do not use, batch norm on [N,C], epilogue fields, and every refusal (rank,
// field range, operands the ISA lacks, unplanned tensors, instructions without a kernel).
// Each graph is executed by the stream checker and compared with the interpreter bit for bit.
#include "compiler/lower/lower_op.h"

#include <gtest/gtest.h>

#include <cstring>

#include "compiler/interp/interpreter.h"
#include "compiler/lower/lower.h"
#include "compiler/lower/op_lowering.h"
#include "compiler/lower/stream_checker.h"
#include "compiler/ops/registry.h"
#include "op_test_util.h"

namespace s2::lower {
namespace {

using ir::Graph;
using ir::OpCategory;
using ir::OpType;
using ir::TensorId;

constexpr OpCategory kFwd = OpCategory::Forward;

std::vector<float> ramp(size_t n, float from = -2.0f, float step = 0.25f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = from + step * static_cast<float>(i);
  return v;
}

// Every used data node in its own space for the whole program (all persistent).
struct Lowered {
  isa::Executable exe;
  std::vector<ir::DataId> data;
};

Lowered lower_simply(const Graph& g) {
  const std::vector<ir::OpId> order = g.topo_order();
  std::vector<bool> used(g.num_datas(), false);
  for (size_t i = 0; i < g.num_tensors(); ++i)
    used[g.tensor(TensorId(i)).data.index()] = true;
  Lowered out;
  std::vector<memory::Buffer> buffers;
  memory::MemoryPlan plan;
  plan.planner = "test";
  uint64_t top = 0;
  for (size_t d = 0; d < g.num_datas(); ++d) {
    if (!used[d]) continue;
    const ir::Data& data = g.data(ir::DataId(d));
    const uint64_t size = static_cast<uint64_t>(data.numel) * isa::dtype_bytes(data.dtype);
    buffers.push_back(
        {data.name, data.role, size, 0, static_cast<uint32_t>(order.size() - 1), true});
    out.data.push_back(ir::DataId(d));
    plan.address.push_back(top);
    top += memory::align_up(size, plan.alignment);
  }
  plan.persistent_bytes = plan.arena_base = plan.dram_size = top;
  out.exe = lower_to_executable(g, order, buffers, out.data, plan, LowerOptions{});
  return out;
}

// Names of the data nodes whose bits differ between the interpreter and the stream.
std::vector<std::string> differences(const Graph& g) {
  const Lowered l = lower_simply(g);
  const DramImage image = execute_stream(l.exe);
  ir::Interpreter interp(g);
  interp.run();
  std::vector<std::string> differ;
  for (ir::DataId d : l.data) {
    const ir::HostArray& want = interp.buffer(d);
    const ir::HostArray got = image.read(*l.exe.find_tensor(g.data(d).name));
    const bool same = want.dtype() == isa::DType::I32
                          ? want.i32() == got.i32()
                          : std::memcmp(want.f32().data(), got.f32().data(), 4 * want.size()) == 0;
    if (!same) differ.push_back(g.data(d).name);
  }
  return differ;
}

// gemm(transpose(a), b): the transposed view becomes strides, not a copy.
TEST(LowerOp, TransposedViewIsReadThroughStrides) {
  Graph g;
  const TensorId a = ir::param(g, "a", {3, 2}, ramp(6));
  const TensorId b = ir::param(g, "b", {3, 4}, ramp(12, 1.0f, -0.5f));
  const TensorId at =
      g.add(OpType::Transpose, "at", kFwd, {a}, ir::Attrs{{"perm", std::vector<int64_t>{1, 0}}});
  g.mark_output(g.add(OpType::Gemm, "mm", kFwd, {at, b}));
  const Lowered l = lower_simply(g);
  ASSERT_EQ(l.exe.instructions.size(), 2u);  // gemm, end
  const isa::TensorDesc& d = l.exe.instructions[0].get(isa::Slot::A);
  EXPECT_EQ(d.dims(), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(d.strides[0], 1u);
  EXPECT_EQ(d.strides[1], 2u);
  EXPECT_EQ(l.exe.debug[0], std::vector<std::string>{"mm"});
  EXPECT_EQ(differences(g), std::vector<std::string>{});
}

// relu(x[:, 1::2]): offset and stride of a slice.
TEST(LowerOp, SliceIsReadAtItsOffsetAndStride) {
  Graph g;
  const TensorId x = ir::param(g, "x", {2, 6}, ramp(12));
  const TensorId s = g.add(
      OpType::Slice, "s", kFwd, {x},
      ir::Attrs{
          {"axis", int64_t{1}}, {"start", int64_t{1}}, {"end", int64_t{6}}, {"step", int64_t{2}}});
  g.mark_output(g.add(OpType::Relu, "r", kFwd, {s}));
  const Lowered l = lower_simply(g);
  const isa::TensorDesc& d = l.exe.instructions[0].get(isa::Slot::A);
  EXPECT_EQ(d.addr, l.exe.find_tensor("x")->addr + 4);
  EXPECT_EQ(d.dims(), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(d.strides[0], 6u);
  EXPECT_EQ(d.strides[1], 2u);
  EXPECT_EQ(differences(g), std::vector<std::string>{});
}

TEST(LowerOp, MulScaleAndReduceSumMatchTheInterpreter) {
  Graph g;
  const TensorId x = ir::param(g, "x", {2, 3, 4}, ramp(24));
  const TensorId y = ir::param(g, "y", {2, 3, 4}, ramp(24, 3.0f, -0.3f));
  const TensorId m = g.add(OpType::Mul, "m", kFwd, {x, y});
  const TensorId s =
      g.add(OpType::Scale, "s", kFwd, {m}, ir::Attrs{{"alpha", 0.3}, {"beta", -1.5}});
  g.mark_output(g.add(OpType::ReduceSum, "r", kFwd, {s},
                      ir::Attrs{{"axes", std::vector<int64_t>{0, 2}}, {"keepdims", int64_t{1}}}));
  const Lowered l = lower_simply(g);
  EXPECT_EQ(l.exe.instructions[1].f32(isa::Field::ScaleA), 0.3f);
  EXPECT_EQ(l.exe.instructions[1].f32(isa::Field::ScaleB), -1.5f);
  EXPECT_EQ(l.exe.instructions[2].u(isa::Field::Axes), 0b101u);
  EXPECT_EQ(differences(g), std::vector<std::string>{});
}

// batch_norm of [N,C] becomes bn_fwd of [N,C,1,1]; its running statistics update in place.
TEST(LowerOp, BatchNormOfAMatrixIsPaddedToRankFour) {
  Graph g;
  const TensorId x = ir::param(g, "x", {4, 3}, ramp(12, -1.0f, 0.375f));
  const TensorId gamma = ir::param(g, "gamma", {3}, {1.0f, 0.5f, 2.0f}, isa::TensorRole::Weight);
  const TensorId beta = ir::param(g, "beta", {3}, {0.0f, 0.25f, -1.0f}, isa::TensorRole::Weight);
  const TensorId mean = ir::param(g, "rm", {3}, {0.0f, 0.0f, 0.0f}, isa::TensorRole::State);
  const TensorId var = ir::param(g, "rv", {3}, {1.0f, 1.0f, 1.0f}, isa::TensorRole::State);
  // Attributes the f32 fields hold exactly, so the two sides agree to the bit.
  const auto outs = g.add_op(OpType::BatchNorm, "bn", kFwd, {x, gamma, beta, mean, var},
                             ir::Attrs{{"eps", 0.0009765625}, {"momentum", 0.25}});
  g.mark_output(outs[0]);
  const Lowered l = lower_simply(g);
  const isa::Instruction& bn = l.exe.instructions[0];
  EXPECT_EQ(bn.get(isa::Slot::X).dims(), (std::vector<uint32_t>{4, 3, 1, 1}));
  EXPECT_EQ(bn.get(isa::Slot::RunningMean).addr, l.exe.find_tensor("rm")->addr);
  EXPECT_EQ(differences(g), std::vector<std::string>{});
}

// copy(transpose(x5, perm)): a rank-5 view, copied dense.
Graph copy_of_transposed(const ir::Shape& shape, const std::vector<int64_t>& perm) {
  Graph g;
  const TensorId x = ir::param(g, "x5", shape, ramp(static_cast<size_t>(ir::shape_numel(shape))));
  const TensorId t = g.add(OpType::Transpose, "t5", kFwd, {x}, ir::Attrs{{"perm", perm}});
  g.mark_output(g.add(OpType::Copy, "c", kFwd, {t}));
  return g;
}

// A view of rank 5 whose axes cannot merge into 4 (every axis reversed) has no descriptor.
TEST(LowerOp, ATensorOfRankFiveIsRefusedByName) {
  const Graph g = copy_of_transposed({2, 2, 2, 2, 2}, {4, 3, 2, 1, 0});
  EXPECT_EQ(ir::user_error([&] { lower_simply(g); }),
            "tensor 't5' f32[2,2,2,2,2]: rank 5 has no S2Train descriptor (ranks 1..4); "
            "reshape it first");
}

// Rank 5 whose row-major order some adjacent axes keep (ShuffleNet's channel shuffle: H and W
// stay together) merges them, innermost first, until the rank is 4: the copy's source is
// [2,3,2,4] with the transposed strides, its dense destination [2,3,2,4] too.
TEST(LowerOp, ARankFiveViewMergesAxesIntoADescriptor) {
  const Graph g = copy_of_transposed({2, 2, 3, 2, 2}, {0, 2, 1, 3, 4});
  const Lowered l = lower_simply(g);
  const isa::Instruction& copy = l.exe.instructions[0];
  EXPECT_EQ(copy.get(isa::Slot::Src).dims(), (std::vector<uint32_t>{2, 3, 2, 4}));
  EXPECT_EQ(copy.get(isa::Slot::Src).strides[2], 12u);
  EXPECT_EQ(copy.get(isa::Slot::Dst).dims(), (std::vector<uint32_t>{2, 3, 2, 4}));
  EXPECT_EQ(differences(g), std::vector<std::string>{});
}

TEST(LowerOp, AnAttributeTheFieldCannotHoldIsRefused) {
  Graph g;
  const TensorId x = ir::param(g, "x", {1, 1, 301, 2}, std::vector<float>(602, 1.0f));
  const TensorId w = ir::param(g, "w", {1, 1, 1, 1}, {2.0f}, isa::TensorRole::Weight);
  g.mark_output(g.add(OpType::Conv2d, "c", kFwd, {x, w},
                      ir::Attrs{{"stride", std::vector<int64_t>{300, 1}}}));
  EXPECT_EQ(ir::user_error([&] { lower_simply(g); }),
            "op 'c' (conv2d): attribute 'stride' value 300 does not fit the field 'stride_h' "
            "of the S2Train 'conv2d' instruction (1..255)");
}

// A weighted loss term's incoming gradient is softmax_ce's `dloss` operand, and the stream
// computes the interpreter's bits.
TEST(LowerOp, AnIncomingLossGradientIsTheDlossOperand) {
  Graph g;
  const TensorId logits = ir::param(g, "logits", {2, 3}, ramp(6));
  const TensorId labels =
      g.add_parameter("labels", isa::TensorRole::Label, isa::DType::I32, {2},
                      std::make_shared<ir::HostArray>(std::vector<int32_t>{0, 2}));
  const TensorId dloss = ir::param(g, "dloss", {1}, {0.3f});
  g.mark_output(g.add(OpType::SoftmaxCeBwd, "bwd", kFwd, {logits, labels, dloss}));
  const Lowered l = lower_simply(g);
  ASSERT_EQ(l.exe.instructions.size(), 2u);  // softmax_ce, end
  EXPECT_TRUE(l.exe.instructions[0].operand(isa::Slot::DLoss).has_value());
  EXPECT_FALSE(l.exe.instructions[0].operand(isa::Slot::Loss).has_value());
  EXPECT_EQ(differences(g), std::vector<std::string>{});
}

// The fusion epilogue's activation goes to the `act` field where there is one, and is
// refused where there is none.
TEST(LowerOp, TheActivationAttributeMapsToTheActField) {
  ir::Op op;
  op.name = "fused";
  op.type = OpType::Gemm;
  op.attrs =
      ir::Attrs{{"trans_a", int64_t{0}}, {"trans_b", int64_t{1}}, {"act", std::string("relu")}};
  isa::Instruction gemm(isa::Opcode::Gemm);
  find_lowering(OpType::Gemm)->encode(op, gemm);
  EXPECT_EQ(gemm.as<isa::Activation>(isa::Field::Act), isa::Activation::Relu);
  EXPECT_TRUE(gemm.flag(isa::Field::TransB));
  EXPECT_EQ(gemm.as<isa::GateAct>(isa::Field::GateAct), isa::GateAct::Relu);
  op.attrs.set("gate_act", std::string("gelu"));
  find_lowering(OpType::Gemm)->encode(op, gemm);
  EXPECT_EQ(gemm.as<isa::GateAct>(isa::Field::GateAct), isa::GateAct::Gelu);
  op.attrs.set("gate_act", std::string("none"));  // no backward: not a gate_act value
  EXPECT_NE(ir::user_error([&] { find_lowering(OpType::Gemm)->encode(op, gemm); }).find("gate_act"),
            std::string::npos);
  op.type = OpType::Conv2dBwdData;
  op.attrs = ir::Attrs{{"stride", std::vector<int64_t>{1, 1}},
                       {"pads", std::vector<int64_t>{0, 0, 0, 0}},
                       {"dilation", std::vector<int64_t>{1, 1}},
                       {"groups", int64_t{1}},
                       {"act", std::string("relu")}};
  isa::Instruction bwd(isa::Opcode::Conv2dBwdData);
  EXPECT_EQ(ir::user_error([&] { find_lowering(OpType::Conv2dBwdData)->encode(op, bwd); }),
            "op 'fused' (conv2d_bwd_data): activation \"relu\" cannot be applied: the S2Train "
            "'conv2d_bwd_data' instruction has no 'act' field");
  op.attrs.set("act", std::string("none"));
  EXPECT_EQ(ir::user_error([&] { find_lowering(OpType::Conv2dBwdData)->encode(op, bwd); }),
            "(no error)");
}

TEST(LowerOp, ATensorWithoutABufferIsAnInternalError) {
  Graph g;
  const TensorId x = ir::param(g, "x", {4}, ramp(4));
  g.mark_output(g.add(OpType::Relu, "r", kFwd, {x}));
  const DataAddresses none(g.num_datas());
  EXPECT_THROW(lower_op(g, g.op(g.find_op("r")), none), InternalError);
}

// The checker runs what s2c emits; anything else is named, not guessed at.
TEST(LowerOp, TheCheckerRefusesInstructionsWithoutAKernel) {
  isa::Executable exe;
  exe.plan.dram_size = 256;
  isa::Instruction sub(isa::Opcode::Eltwise);
  sub.set_raw(isa::Field::Op, static_cast<uint32_t>(isa::EltwiseOp::Sub));
  for (isa::Slot s : {isa::Slot::A, isa::Slot::B, isa::Slot::Y})
    sub.set_operand(s, isa::TensorDesc::contiguous(0, isa::DType::F32, {4}));
  exe.instructions = {sub, isa::Instruction(isa::Opcode::End)};
  EXPECT_EQ(ir::user_error([&] { execute_stream(exe); }),
            "instruction 0 (eltwise): no reference kernel of the op registry computes this "
            "instruction (the stream checker covers what s2c emits)");
  // A conv2d that also accumulates statistics: the registry's conv2d has no such output.
  isa::Instruction conv(isa::Opcode::Conv2d);
  conv.set_operand(isa::Slot::X, isa::TensorDesc::contiguous(0, isa::DType::F32, {1, 1, 2, 2}));
  conv.set_operand(isa::Slot::W, isa::TensorDesc::contiguous(16, isa::DType::F32, {1, 1, 1, 1}));
  conv.set_operand(isa::Slot::Y, isa::TensorDesc::contiguous(32, isa::DType::F32, {1, 1, 2, 2}));
  conv.set_operand(isa::Slot::Stats, isa::TensorDesc::contiguous(64, isa::DType::F32, {2, 1}));
  exe.instructions = {conv, isa::Instruction(isa::Opcode::End)};
  EXPECT_EQ(ir::user_error([&] { execute_stream(exe); }),
            "instruction 0 (conv2d): operand 'stats' has no counterpart in the registry's "
            "kernels; they cannot check it");
}

TEST(LowerOp, CopyAndFillMoveBytes) {
  isa::Executable exe;
  exe.plan.dram_size = 128;
  isa::Instruction fill(isa::Opcode::Fill);
  fill.set_f32(isa::Field::Value, 1.5f);
  fill.set_operand(isa::Slot::Dst, isa::TensorDesc::contiguous(0, isa::DType::F32, {2, 2}));
  isa::Instruction copy(isa::Opcode::Copy);
  isa::TensorDesc column = isa::TensorDesc::contiguous(0, isa::DType::F32, {2});
  column.strides[0] = 2;
  copy.set_operand(isa::Slot::Src, column);
  copy.set_operand(isa::Slot::Dst, isa::TensorDesc::contiguous(64, isa::DType::F32, {2}));
  exe.instructions = {fill, copy, isa::Instruction(isa::Opcode::End)};
  const DramImage image = execute_stream(exe);
  EXPECT_EQ(image.read(isa::TensorDesc::contiguous(64, isa::DType::F32, {3})).f32(),
            (std::vector<float>{1.5f, 1.5f, 0.0f}));
}

TEST(LowerOp, TheTargetNameMustFitTheHeader) {
  Graph g;
  g.mark_output(g.add(OpType::Relu, "r", kFwd, {ir::param(g, "x", {4}, ramp(4))}));
  LowerOptions o;
  o.target = std::string(32, 't');
  EXPECT_NE(ir::user_error([&] {
              lower_to_executable(g, g.topo_order(), {}, {}, memory::MemoryPlan{}, o);
            }).find("must have 1..31 characters"),
            std::string::npos);
}

}  // namespace
}  // namespace s2::lower
