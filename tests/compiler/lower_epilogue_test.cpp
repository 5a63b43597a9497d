// Fused epilogues (ops/epilogue.h) lower to the instructions' epilogue operands and fields —
// residual, gate, act — and the stream checker computes with them exactly what the
// interpreter computes on the fused ops.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/interp/interpreter.h"
#include "compiler/lower/lower.h"
#include "compiler/lower/stream_checker.h"
#include "op_test_util.h"

namespace s2::lower {
namespace {

using ir::Attrs;
using ir::Graph;
using ir::OpType;
using ir::TensorId;
using Ints = std::vector<int64_t>;

constexpr ir::OpCategory kFwd = ir::OpCategory::Forward;

std::vector<float> wave(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = scale * static_cast<float>(static_cast<int>((i * 7 + 3) % 11) - 5);
  return v;
}

// Lowers with every used data node in its own space, runs the stream, and returns the
// executable and the names of the data nodes whose bits differ from the interpreter's.
std::pair<isa::Executable, std::vector<std::string>> run(const Graph& g) {
  const std::vector<ir::OpId> order = g.topo_order();
  std::vector<bool> used(g.num_datas(), false);
  for (size_t i = 0; i < g.num_tensors(); ++i)
    used[g.tensor(TensorId(i)).data.index()] = true;
  std::vector<memory::Buffer> buffers;
  std::vector<ir::DataId> data;
  memory::MemoryPlan plan;
  plan.planner = "test";
  for (size_t d = 0; d < g.num_datas(); ++d) {
    if (!used[d]) continue;
    const ir::Data& node = g.data(ir::DataId(d));
    const uint64_t size = static_cast<uint64_t>(node.numel) * isa::dtype_bytes(node.dtype);
    buffers.push_back(
        {node.name, node.role, size, 0, static_cast<uint32_t>(order.size() - 1), true});
    data.push_back(ir::DataId(d));
    plan.address.push_back(plan.dram_size);
    plan.dram_size += memory::align_up(size, plan.alignment);
  }
  plan.persistent_bytes = plan.arena_base = plan.dram_size;
  isa::Executable exe = lower_to_executable(g, order, buffers, data, plan, LowerOptions{});
  const DramImage image = execute_stream(exe);
  ir::Interpreter interp(g);
  interp.run();
  std::vector<std::string> differ;
  for (ir::DataId d : data) {
    const ir::HostArray& want = interp.buffer(d);
    const ir::HostArray got = image.read(*exe.find_tensor(g.data(d).name));
    if (std::memcmp(want.f32().data(), got.f32().data(), 4 * want.size()) != 0)
      differ.push_back(g.data(d).name);
  }
  return {std::move(exe), differ};
}

const Attrs kConv{{"stride", Ints{1, 1}}, {"pads", Ints{1, 1, 1, 1}}};

TEST(LowerEpilogue, ConvolutionsCarryResidualGateAndActivation) {
  Graph g;
  const TensorId x = ir::param(g, "x", {1, 2, 4, 4}, wave(32, 0.5f));
  const TensorId w = ir::param(g, "w", {3, 2, 3, 3}, wave(54, 0.125f), isa::TensorRole::Weight);
  const TensorId bias = ir::param(g, "bias", {3}, {0.5f, -0.25f, 0.0f}, isa::TensorRole::Weight);
  const TensorId skip = ir::param(g, "skip", {1, 3, 4, 4}, wave(48, -0.25f));
  Attrs fwd = kConv;
  fwd.set("act", std::string("relu"));
  g.mark_output(g.add(OpType::Conv2d, "conv", kFwd, {x, w, bias, skip}, fwd));
  const TensorId dy = ir::param(g, "dy", {1, 3, 4, 4}, wave(48, 0.75f));
  const TensorId acc = ir::param(g, "acc", {1, 2, 4, 4}, wave(32, 0.0625f));
  const TensorId gate = ir::param(g, "gate", {1, 2, 4, 4}, wave(32, 1.0f));
  Attrs data = kConv;
  data.set("input_hw", Ints{4, 4});
  g.mark_output(g.add(OpType::Conv2dBwdData, "bwd_data", kFwd, {dy, w, acc, gate}, data));
  const TensorId dw0 = ir::param(g, "dw0", {3, 2, 3, 3}, wave(54, 0.5f));
  Attrs weight = kConv;
  weight.set("kernel_hw", Ints{3, 3});
  g.mark_output(g.add(OpType::Conv2dBwdWeight, "bwd_weight", kFwd, {x, dy, dw0}, weight));

  const auto [exe, differ] = run(g);
  EXPECT_EQ(differ, std::vector<std::string>{});
  const isa::Instruction& conv = exe.instructions[0];
  EXPECT_EQ(conv.get(isa::Slot::Residual).addr, exe.find_tensor("skip")->addr);
  EXPECT_EQ(conv.as<isa::Activation>(isa::Field::Act), isa::Activation::Relu);
  EXPECT_EQ(exe.instructions[1].get(isa::Slot::Gate).addr, exe.find_tensor("gate")->addr);
  EXPECT_EQ(exe.instructions[1].get(isa::Slot::Residual).addr, exe.find_tensor("acc")->addr);
  EXPECT_EQ(exe.instructions[2].get(isa::Slot::Residual).addr, exe.find_tensor("dw0")->addr);
}

TEST(LowerEpilogue, GemmAndBatchNormCarryTheirs) {
  Graph g;
  const TensorId a = ir::param(g, "a", {4, 3}, wave(12, 0.5f));
  const TensorId b = ir::param(g, "b", {3, 2}, wave(6, -0.5f));
  const TensorId bias = ir::param(g, "bias", {2}, {0.25f, -0.5f});
  const TensorId res = ir::param(g, "res", {4, 2}, wave(8, 0.25f));
  const TensorId gate = ir::param(g, "gate", {4, 2}, wave(8, 1.0f));
  g.mark_output(g.add(OpType::Gemm, "fc", kFwd, {a, b, bias, res, gate},
                      Attrs{{"act", std::string("relu")}}));
  const TensorId x = ir::param(g, "x", {2, 2, 2, 2}, wave(16, 0.5f));
  const TensorId gamma = ir::param(g, "gamma", {2}, {1.0f, 0.5f}, isa::TensorRole::Weight);
  const TensorId beta = ir::param(g, "beta", {2}, {0.25f, -0.5f}, isa::TensorRole::Weight);
  const TensorId rm = ir::param(g, "rm", {2}, {0.0f, 0.0f}, isa::TensorRole::State);
  const TensorId rv = ir::param(g, "rv", {2}, {1.0f, 1.0f}, isa::TensorRole::State);
  // eps and momentum the f32 fields hold exactly.
  const auto bn =
      g.add_op(OpType::BatchNorm, "bn", kFwd, {x, gamma, beta, rm, rv},
               Attrs{{"eps", 0.0009765625}, {"momentum", 0.25}, {"act", std::string("relu")}});
  g.mark_output(bn[0]);
  const TensorId dy = ir::param(g, "dy", {2, 2, 2, 2}, wave(16, 0.25f));
  const auto grads =
      g.add_op(OpType::BatchNormBwd, "bn_bwd", kFwd, {dy, x, gamma, bn[1], bn[2], bn[0]});
  for (TensorId t : grads)
    g.mark_output(t);

  const auto [exe, differ] = run(g);
  EXPECT_EQ(differ, std::vector<std::string>{});
  const isa::Instruction& fc = exe.instructions[0];
  EXPECT_EQ(fc.get(isa::Slot::Gate).addr, exe.find_tensor("gate")->addr);
  EXPECT_EQ(fc.get(isa::Slot::Residual).addr, exe.find_tensor("res")->addr);
  EXPECT_EQ(fc.as<isa::Activation>(isa::Field::Act), isa::Activation::Relu);
  EXPECT_EQ(exe.instructions[1].as<isa::Activation>(isa::Field::Act), isa::Activation::Relu);
  EXPECT_TRUE(exe.instructions[2].operand(isa::Slot::Gate).has_value());
}

}  // namespace
}  // namespace s2::lower
