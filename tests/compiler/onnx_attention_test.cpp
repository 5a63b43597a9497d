// What the ONNX importer makes of attention as PyTorch exports it: a batched MatMul is the IR's
// bmm (a transposed operand read as stored with the transpose flag, a batch dimension of 1
// broadcast by an expand view), Split is slice views (GPT-2's q, k, v of one projection), and a
// ReduceMean other than global pooling is reduce_sum and scale. Values through the interpreter
// against the definitions, and the errors.

#include <gtest/gtest.h>

#include <algorithm>
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

using OnnxAttention = testing::OnnxImportError;

// Element (n, c, h, w) of a [2,3,8,8] tensor.
size_t at(size_t n, size_t c, size_t h, size_t w) {
  return ((n * 3 + c) * 8 + h) * 8 + w;
}

bool has_copy(const ir::Graph& g) {
  for (size_t i = 0; i < g.num_ops(); ++i)
    if (g.op(ir::OpId(i)).type == ir::OpType::Copy) return true;
  return false;
}

// scores = x @ x^T per (n, c): the transposed operand is x itself with trans_b = 1.
TEST_F(OnnxAttention, BatchedMatMulReadsATransposedOperandAsStored) {
  TestModel m = testing::around(3);
  testing::first_node(m, "MatMul", "/attn/MatMul", {"x", "xt"}, {"y"});
  testing::attr_ints(testing::first_node(m, "Transpose", "/attn/Transpose", {"x"}, {"xt"}), "perm",
                     {0, 1, 3, 2});
  const ir::Graph g = imported(m);
  const ir::Op& op = g.op(g.find_op("/attn/MatMul"));
  EXPECT_EQ(op.type, ir::OpType::Bmm);
  EXPECT_EQ(op.attrs.text(), "trans_a=0 trans_b=1");
  const ir::Tensor& b = g.tensor(op.inputs.at(1));
  EXPECT_EQ(b.data, g.tensor(g.find_tensor("x")).data);
  EXPECT_TRUE(b.contiguous());
  EXPECT_FALSE(has_copy(g));
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> x = it.value(g.find_tensor("x")).f32();
  const std::vector<float> y = it.value(op.outputs.at(0)).f32();
  for (size_t n = 0; n < 2; ++n)
    for (size_t c = 0; c < 3; ++c)
      for (size_t i = 0; i < 8; ++i)
        for (size_t j = 0; j < 8; ++j) {
          float acc = 0.0f;
          for (size_t k = 0; k < 8; ++k) {
            const float p = x[at(n, c, i, k)] * x[at(n, c, j, k)];
            acc = acc + p;
          }
          ASSERT_EQ(y[at(n, c, i, j)], acc) << n << " " << c << " " << i << " " << j;
        }
}

// A [1,3,8,8] right operand against x [2,3,8,8]: one matrix per channel, repeated over the
// batch through a zero stride.
TEST_F(OnnxAttention, BatchDimensionOfOneIsBroadcast) {
  TestModel m = testing::around(3);
  m.initializer("w", {1, 3, 8, 8});
  testing::first_node(m, "MatMul", "/attn/MatMul", {"x", "w"}, {"y"});
  const ir::Graph g = imported(m);
  const ir::Op& op = g.op(g.find_op("/attn/MatMul"));
  EXPECT_EQ(op.type, ir::OpType::Bmm);
  const ir::Tensor& b = g.tensor(op.inputs.at(1));
  EXPECT_EQ(b.shape, (ir::Shape{2, 3, 8, 8}));
  EXPECT_EQ(b.strides, (ir::Shape{0, 64, 8, 1}));
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> x = it.value(g.find_tensor("x")).f32();
  const std::vector<float> w = it.value(g.find_tensor("w")).f32();
  const std::vector<float> y = it.value(op.outputs.at(0)).f32();
  float acc = 0.0f;
  for (size_t k = 0; k < 8; ++k) {
    const float p = x[at(1, 2, 3, k)] * w[at(0, 2, k, 5)];
    acc = acc + p;
  }
  EXPECT_EQ(y[at(1, 2, 3, 5)], acc);
}

TEST_F(OnnxAttention, BatchedMatMulErrorsNameTheNode) {
  TestModel m = testing::around(3);
  m.initializer("w", {3, 3, 8, 8});
  testing::first_node(m, "MatMul", "/attn/MatMul", {"x", "w"}, {"y"});
  EXPECT_EQ(error_of(m), at_file("node '/attn/MatMul' (MatMul): batch dimension 0 of f32[2,3,8,8] "
                                 "and f32[3,3,8,8] do not broadcast"));
}

// Split(x, [1, 2]) on the channels, the parts concatenated the other way round: both parts are
// slice views of x (no copy), y holds channels 1, 2, 0.
TEST_F(OnnxAttention, SplitIsSliceViews) {
  TestModel m = testing::around(3);
  testing::attr_i(testing::first_node(m, "Concat", "/cat", {"b", "a"}, {"y"}), "axis", 1);
  m.int64_initializer("sizes", {1, 2});
  testing::attr_i(testing::first_node(m, "Split", "/split", {"x", "sizes"}, {"a", "b"}), "axis", 1);
  const ir::Graph g = imported(m);
  const ir::Op& first = g.op(g.find_op("/split_0"));
  const ir::Op& second = g.op(g.find_op("/split_1"));
  EXPECT_EQ(first.type, ir::OpType::Slice);
  EXPECT_EQ(g.tensor(first.outputs.at(0)).shape, (ir::Shape{2, 1, 8, 8}));
  EXPECT_EQ(g.tensor(second.outputs.at(0)).shape, (ir::Shape{2, 2, 8, 8}));
  EXPECT_EQ(g.tensor(second.outputs.at(0)).offset, 64);
  EXPECT_EQ(g.tensor(second.outputs.at(0)).data, g.tensor(g.find_tensor("x")).data);
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> x = it.value(g.find_tensor("x")).f32();
  const std::vector<float> y = it.value(g.op(g.find_op("/cat")).outputs.at(0)).f32();
  EXPECT_EQ(y[at(1, 0, 2, 3)], x[at(1, 1, 2, 3)]);
  EXPECT_EQ(y[at(1, 1, 2, 3)], x[at(1, 2, 2, 3)]);
  EXPECT_EQ(y[at(1, 2, 2, 3)], x[at(1, 0, 2, 3)]);
}

TEST_F(OnnxAttention, SplitSizesMustCutTheAxis) {
  TestModel m = testing::around(3);
  testing::attr_i(testing::first_node(m, "Concat", "/cat", {"b", "a"}, {"y"}), "axis", 1);
  m.int64_initializer("sizes", {1, 1});
  testing::attr_i(testing::first_node(m, "Split", "/split", {"x", "sizes"}, {"a", "b"}), "axis", 1);
  EXPECT_EQ(error_of(m), at_file("node '/split' (Split): split sizes [1,1] do not cut axis 1 of "
                                 "f32[2,3,8,8] into the node's 2 outputs"));
}

// Opset 11 names the sizes in an attribute; without sizes the parts are equal.
TEST_F(OnnxAttention, SplitBeforeOpset13AndEqualParts) {
  TestModel m = testing::around(3, 11);
  testing::attr_i(testing::first_node(m, "Concat", "/cat", {"c", "b", "a"}, {"y"}), "axis", 1);
  testing::attr_i(testing::first_node(m, "Split", "/split", {"x"}, {"a", "b", "c"}), "axis", 1);
  const ir::Graph g = imported(m);
  EXPECT_EQ(g.tensor(g.op(g.find_op("/split_2")).outputs.at(0)).offset, 128);
  TestModel sized = testing::around(3, 11);
  testing::attr_i(testing::first_node(sized, "Concat", "/cat", {"b", "a"}, {"y"}), "axis", 1);
  onnx::NodeProto& split = testing::first_node(sized, "Split", "/split", {"x"}, {"a", "b"});
  testing::attr_i(split, "axis", 1);
  testing::attr_ints(split, "split", {2, 1});
  const ir::Graph h = imported(sized);
  EXPECT_EQ(h.tensor(h.op(h.find_op("/split_1")).outputs.at(0)).offset, 128);
}

// The mean over the channels (a transformer's mean over its tokens): reduce_sum, then 1/3.
TEST_F(OnnxAttention, ReduceMeanOverOtherAxesIsASumAndAScale) {
  TestModel m = testing::around(1);
  onnx::NodeProto& mean = testing::first_node(m, "ReduceMean", "/mean", {"x"}, {"y"});
  testing::attr_ints(mean, "axes", {1});
  const ir::Graph g = imported(m);
  const ir::Op& op = g.op(g.find_op("/mean"));
  EXPECT_EQ(op.type, ir::OpType::Scale);
  EXPECT_EQ(g.tensor(op.outputs.at(0)).shape, (ir::Shape{2, 1, 8, 8}));
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> x = it.value(g.find_tensor("x")).f32();
  const std::vector<float> y = it.value(op.outputs.at(0)).f32();
  const float sum = (x[at(1, 0, 4, 6)] + x[at(1, 1, 4, 6)]) + x[at(1, 2, 4, 6)];
  EXPECT_EQ(y[(1 * 8 + 4) * 8 + 6], sum * (1.0f / 3.0f));
}

// Trilu of a constant folds at import: x + triu(c, 1) adds c above the diagonal only.
// q scaled before q @ k^T (nn.MultiheadAttention's export) becomes the softmax's scale: the
// bmm reads q itself, and no scale op remains on the path to the softmax.
TEST_F(OnnxAttention, ScaleBeforeTheScoresJoinsTheSoftmax) {
  TestModel m = testing::around(3);
  testing::attr_i(testing::first_node(m, "Softmax", "/attn/Softmax", {"s"}, {"y"}), "axis", -1);
  testing::first_node(m, "MatMul", "/attn/MatMul", {"xs", "xt"}, {"s"});
  testing::attr_ints(testing::first_node(m, "Transpose", "/attn/Transpose", {"x"}, {"xt"}), "perm",
                     {0, 1, 3, 2});
  testing::first_node(m, "Mul", "/attn/Mul", {"x", "c"}, {"xs"});
  onnx::AttributeProto* value =
      testing::first_node(m, "Constant", "/attn/Constant", {}, {"c"}).add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_float_data(0.125f);
  const ir::Graph g = imported(m);
  const ir::Op& softmax = g.op(g.find_op("/attn/Softmax"));
  EXPECT_EQ(softmax.attrs.f("scale"), 0.125);
  const ir::Op& bmm = g.op(g.tensor(softmax.inputs[0]).producer);
  EXPECT_EQ(bmm.type, ir::OpType::Bmm);
  EXPECT_EQ(bmm.inputs[0], g.find_tensor("x"));
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> x = it.value(g.find_tensor("x")).f32();
  const std::vector<float> y = it.value(softmax.outputs.at(0)).f32();
  // Row (1, 2, 3): softmax over j of 0.125 * sum_k x[i,k] x[j,k], in double.
  std::vector<double> z(8);
  double top = -1e300, sum = 0.0;
  for (size_t j = 0; j < 8; ++j) {
    for (size_t k = 0; k < 8; ++k)
      z[j] += 0.125 * double{x[at(1, 2, 3, k)]} * double{x[at(1, 2, j, k)]};
    top = std::max(top, z[j]);
  }
  for (double v : z)
    sum += std::exp(v - top);
  for (size_t j = 0; j < 8; ++j)
    EXPECT_NEAR(y[at(1, 2, 3, j)], std::exp(z[j] - top) / sum, 1e-6) << j;
}

TEST_F(OnnxAttention, TriluOfAConstantFoldsAtImport) {
  TestModel m = testing::around(3);
  m.initializer("c", {8, 8});
  m.int64_initializer("k", {1});
  testing::first_node(m, "Add", "/mask", {"x", "upper"}, {"y"});
  testing::first_node(m, "Trilu", "/triu", {"c", "k"}, {"upper"});
  const ir::Graph g = imported(m);
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> x = it.value(g.find_tensor("x")).f32();
  const std::vector<float> y = it.value(g.op(g.find_op("/mask")).outputs.at(0)).f32();
  EXPECT_EQ(y[at(1, 2, 3, 3)], x[at(1, 2, 3, 3)]);  // the diagonal: 0 added
  EXPECT_EQ(y[at(1, 2, 5, 3)], x[at(1, 2, 5, 3)]);  // below: 0 added
  EXPECT_EQ(y[at(1, 2, 3, 5)], x[at(1, 2, 3, 5)] + testing::pattern_value(3 * 8 + 5));  // above
  TestModel lower = testing::around(3);
  testing::first_node(lower, "Trilu", "/tril", {"x"}, {"y"});
  testing::attr_i(lower.graph().mutable_node()->at(0), "upper", 0);
  EXPECT_EQ(error_of(lower), at_file("node '/tril' (Trilu): input 'x' must be a constant (an "
                                     "initializer or a Constant node output); computed values are "
                                     "not supported"));
}

}  // namespace
}  // namespace s2::onnx_import
