// The ONNX importer's Softmax and the arithmetic of a tensor with a float constant that
// attention's scale exports as (a Constant node's single value: the IR's scale). Softmax: over the
// last axis it is the IR's softmax; over an earlier axis (opset 13 on) the axis is moved last and
// back by transpose views, with no copy; before opset 13 the dimensions from the axis on are
// flattened into one row. Values through the interpreter against softmax evaluated in double, and
// the error for an axis outside the input.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compiler/interp/interpreter.h"
#include "compiler/onnx/onnx_import.h"
#include "tests/compiler/onnx_error_fixture.h"
#include "tests/compiler/onnx_test_model.h"

namespace s2::onnx_import {
namespace {

using testing::TestModel;

using OnnxSoftmax = testing::OnnxImportError;

// x[2,3,8,8] -> Softmax(axis) -> y, within `around`.
TestModel softmax_model(int64_t axis, int64_t opset = 17) {
  TestModel m = testing::around(3, opset);
  testing::attr_i(testing::first_node(m, "Softmax", "/attn/Softmax", {"x"}, {"y"}), "axis", axis);
  return m;
}

// Element (n, c, h, w) of a [2,3,8,8] tensor.
size_t at(size_t n, size_t c, size_t h, size_t w) {
  return ((n * 3 + c) * 8 + h) * 8 + w;
}

// Checks y = softmax of x over groups of elements: group_of(i) gives element i's group.
template <typename GroupOf>
void expect_softmax(const std::vector<float>& x, const std::vector<float>& y, GroupOf group_of) {
  ASSERT_EQ(x.size(), y.size());
  std::vector<double> max(x.size(), -INFINITY), sum(x.size(), 0.0);
  for (size_t i = 0; i < x.size(); ++i)
    max[group_of(i)] = std::max(max[group_of(i)], double{x[i]});
  for (size_t i = 0; i < x.size(); ++i)
    sum[group_of(i)] += std::exp(double{x[i]} - max[group_of(i)]);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(y[i], std::exp(double{x[i]} - max[group_of(i)]) / sum[group_of(i)], 2e-7)
        << "element " << i;
}

TEST_F(OnnxSoftmax, LastAxisIsTheIrSoftmax) {
  const ir::Graph g = imported(softmax_model(-1));
  const ir::Op& op = g.op(g.find_op("/attn/Softmax"));
  EXPECT_EQ(op.type, ir::OpType::Softmax);
  EXPECT_EQ(op.inputs.at(0), g.find_tensor("x"));
  ir::Interpreter it(g);
  it.run();
  expect_softmax(it.value(g.find_tensor("x")).f32(), it.value(op.outputs.at(0)).f32(),
                 [](size_t i) { return i / 8; });
}

// Softmax over the channels of a map: a transposed view in, a transposed view out.
TEST_F(OnnxSoftmax, EarlierAxisIsMovedLastByViews) {
  const ir::Graph g = imported(softmax_model(1));
  const ir::Op& op = g.op(g.find_op("/attn/Softmax"));
  const ir::Tensor& in = g.tensor(op.inputs.at(0));
  EXPECT_EQ(in.shape, (ir::Shape{2, 8, 8, 3}));
  EXPECT_EQ(in.data, g.tensor(g.find_tensor("x")).data);  // a view of x: no copy
  const ir::TensorId y = g.op(g.find_op("/attn/Softmax/transpose/y")).outputs.at(0);
  EXPECT_EQ(g.tensor(y).shape, (ir::Shape{2, 3, 8, 8}));
  EXPECT_EQ(g.tensor(y).data, g.tensor(op.outputs.at(0)).data);
  for (size_t i = 0; i < g.num_ops(); ++i)
    EXPECT_NE(g.op(ir::OpId(i)).type, ir::OpType::Copy) << g.op(ir::OpId(i)).name;
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> x = it.value(g.find_tensor("x")).f32(), v = it.value(y).f32();
  // Group: the pixel (n, h, w); the channel varies within it.
  expect_softmax(x, v, [](size_t i) { return (i / 192) * 64 + i % 64; });
  EXPECT_NEAR(v[at(1, 0, 2, 5)] + v[at(1, 1, 2, 5)] + v[at(1, 2, 2, 5)], 1.0, 1e-6);
}

// Opset 11: axis 1 coerces x to [2, 192], one distribution per sample.
TEST_F(OnnxSoftmax, BeforeOpset13TheTailIsFlattened) {
  const ir::Graph g = imported(softmax_model(1, 11));
  const ir::Op& op = g.op(g.find_op("/attn/Softmax"));
  EXPECT_EQ(g.tensor(op.inputs.at(0)).shape, (ir::Shape{2, 192}));
  ir::Interpreter it(g);
  it.run();
  const ir::TensorId y = g.op(g.find_op("/attn/Softmax/reshape/y")).outputs.at(0);
  EXPECT_EQ(g.tensor(y).shape, (ir::Shape{2, 3, 8, 8}));
  expect_softmax(it.value(g.find_tensor("x")).f32(), it.value(y).f32(),
                 [](size_t i) { return i / 192; });
}

TEST_F(OnnxSoftmax, AnAxisOutsideTheInputIsAnErrorNamingTheNode) {
  EXPECT_EQ(error_of(softmax_model(4)),
            at_file("node '/attn/Softmax' (Softmax): attribute 'axis' = 4 is outside "
                    "f32[2,3,8,8]"));
  EXPECT_EQ(error_of(softmax_model(-5)),
            at_file("node '/attn/Softmax' (Softmax): attribute 'axis' = -5 is outside "
                    "f32[2,3,8,8]"));
}

// x[2,6] <op> c (or c <op> x when `constant_first`) -> Gemm -> logits, c a Constant node.
TestModel with_constant(const std::string& type, float c, bool constant_first = false) {
  TestModel m;
  m.input("x", {2, 6});
  m.initializer("fc.weight", {3, 6});
  onnx::AttributeProto& value = *m.node("Constant", "/Constant", {}, {"c"}).add_attribute();
  value.set_name("value");
  value.set_type(onnx::AttributeProto::TENSOR);
  value.mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value.mutable_t()->add_float_data(c);
  m.node(type, "/" + type,
         constant_first ? std::vector<std::string>{"c", "x"} : std::vector<std::string>{"x", "c"},
         {"y"});
  testing::attr_i(m.node("Gemm", "fc", {"y", "fc.weight"}, {"logits"}), "transB", 1);
  m.output("logits", {2, 3});
  return m;
}

TEST_F(OnnxSoftmax, ArithmeticWithAFloatConstantIsAScale) {
  struct Case {
    const char* type;
    float c;
    bool constant_first;
    double alpha, beta;
  };
  for (const Case& k : {Case{"Mul", 0.5f, false, 0.5, 0}, Case{"Mul", 3, true, 3, 0},
                        Case{"Div", 8, false, 0.125, 0}, Case{"Add", 1.5f, true, 1, 1.5},
                        Case{"Sub", 2, false, 1, -2}, Case{"Sub", 2, true, -1, 2}}) {
    const ir::Graph g = imported(with_constant(k.type, k.c, k.constant_first));
    const ir::Op& op = g.op(g.find_op(std::string("/") + k.type));
    ASSERT_EQ(op.type, ir::OpType::Scale) << k.type;
    EXPECT_EQ(op.inputs.at(0), g.find_tensor("x"));
    EXPECT_EQ(op.attrs.f("alpha"), k.alpha) << k.type << " " << k.c;
    EXPECT_EQ(op.attrs.f("beta"), k.beta) << k.type << " " << k.c;
    ir::Interpreter it(g);
    it.run();
    const std::vector<float> x = it.value(g.find_tensor("x")).f32();
    const std::vector<float> y = it.value(op.outputs.at(0)).f32();
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_FLOAT_EQ(y[i], static_cast<float>(k.alpha * double{x[i]} + k.beta))
          << k.type << " " << i;
  }
  EXPECT_EQ(error_of(with_constant("Div", 2, true)),
            at_file("node '/Div' (Div): divides the constant c by a tensor; only a tensor "
                    "divided by a constant is supported"));
  EXPECT_EQ(error_of(with_constant("Div", 0)),
            at_file("node '/Div' (Div): divides by the constant 0"));
}

}  // namespace
}  // namespace s2::onnx_import
