// The ONNX importer's broadcasting Mul and Add (NumPy's rule): an input of another shape is
// reshaped to the common rank and expanded as a stride-0 view, so squeeze-excitation's gate
// multiplies its map without a copy, with the values through the interpreter; shapes that do
// not broadcast are an error naming the node and the axis.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compiler/interp/interpreter.h"
#include "compiler/ir/verifier.h"
#include "compiler/onnx/onnx_import.h"
#include "tests/compiler/onnx_error_fixture.h"
#include "tests/compiler/onnx_test_model.h"

namespace s2::onnx_import {
namespace {

using testing::TestModel;

using OnnxBroadcast = testing::OnnxImportError;

// x[2,3,8,8] -> GlobalAveragePool -> Sigmoid (the gate, [2,3,1,1]) -> Mul(gate, x) -> y
TestModel squeeze_excitation() {
  TestModel m = testing::around(3);
  testing::first_node(m, "Mul", "/se/Mul", {"gate", "x"}, {"y"});
  testing::first_node(m, "Sigmoid", "/se/Sigmoid", {"pooled"}, {"gate"});
  testing::first_node(m, "GlobalAveragePool", "/se/pool", {"x"}, {"pooled"});
  return m;
}

TEST_F(OnnxBroadcast, SqueezeExcitationGateIsAStrideZeroView) {
  TestModel m = squeeze_excitation();
  const ir::Graph g = imported(m);
  const ir::Op& mul = g.op(g.find_op("/se/Mul"));
  ASSERT_EQ(mul.type, ir::OpType::Mul);
  const ir::Tensor& gate = g.tensor(mul.inputs.at(0));
  EXPECT_EQ(g.op(gate.producer).type, ir::OpType::Expand);
  EXPECT_EQ(gate.shape, (ir::Shape{2, 3, 8, 8}));
  EXPECT_EQ(gate.strides, (std::vector<int64_t>{3, 1, 0, 0}));
  EXPECT_EQ(mul.inputs.at(1), g.find_tensor("x"));

  ir::Interpreter it(g);
  it.run();
  const std::vector<float> x = it.value(g.find_tensor("x")).f32();
  const std::vector<float> y = it.value(mul.outputs.at(0)).f32();
  for (size_t plane = 0; plane < 6; ++plane) {
    double mean = 0;
    for (size_t i = 0; i < 64; ++i)
      mean += static_cast<double>(x[plane * 64 + i]);
    const double s = 1.0 / (1.0 + std::exp(-mean / 64));
    for (size_t i = 0; i < 64; ++i)
      EXPECT_NEAR(y[plane * 64 + i], s * static_cast<double>(x[plane * 64 + i]), 1e-6)
          << plane << " " << i;
  }
}

TEST_F(OnnxBroadcast, LowerRankInputIsAlignedAtTheRight) {
  TestModel m;
  m.input("x", {1, 3, 4, 4});
  m.initializer("fc.weight", {2, 3});
  m.int64_initializer("chw", {3, 1, 1});
  m.node("GlobalAveragePool", "/pool", {"x"}, {"p"});
  m.node("Reshape", "/squeeze", {"p", "chw"}, {"c"});  // [3,1,1]
  m.node("Add", "/add", {"x", "c"}, {"y"});
  m.node("GlobalAveragePool", "/gap", {"y"}, {"g"});
  m.node("Flatten", "/flatten", {"g"}, {"f"});
  testing::attr_i(m.node("Gemm", "/fc/Gemm", {"f", "fc.weight"}, {"logits"}), "transB", 1);
  m.output("logits", {1, 2});
  const ir::Graph g = imported(m);
  const ir::Op& add = g.op(g.find_op("/add"));
  const ir::Tensor& c = g.tensor(add.inputs.at(1));
  EXPECT_EQ(c.shape, (ir::Shape{1, 3, 4, 4}));
  EXPECT_EQ(c.strides, (std::vector<int64_t>{3, 1, 0, 0}));
}

TEST_F(OnnxBroadcast, ShapesThatDoNotBroadcastNameTheAxis) {
  TestModel m = testing::around(3);
  m.int64_initializer("bad", {2, 3, 1});
  testing::first_node(m, "Mul", "/se/Mul", {"r", "x"}, {"y"});
  testing::first_node(m, "Reshape", "/se/Reshape", {"pooled", "bad"}, {"r"});
  testing::first_node(m, "GlobalAveragePool", "/se/pool", {"x"}, {"pooled"});
  EXPECT_EQ(error_of(m), at_file("node '/se/Mul' (Mul): inputs f32[2,3,1] and f32[2,3,8,8] do "
                                 "not broadcast (axis 2: 3 vs 8)"));
}

}  // namespace
}  // namespace s2::onnx_import
