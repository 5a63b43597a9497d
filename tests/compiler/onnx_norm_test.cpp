// The ONNX importer's LayerNormalization and N-D MatMul, as ConvNeXt exports them: the channels
// of a map normalised through a transposed view (no copy), a Linear on the last dimension of an
// [N,H,W,C] map with a transposed weight read as trans_b, an axis before the last flattening
// the normalised dimensions; values through the interpreter, and the errors for what the IR's
// layer_norm cannot take.

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

using OnnxNorm = testing::OnnxImportError;

onnx::NodeProto& transpose(TestModel& m, const std::string& name, const std::string& in,
                           const std::string& out, const std::vector<int64_t>& perm) {
  onnx::NodeProto& n = testing::first_node(m, "Transpose", name, {in}, {out});
  testing::attr_ints(n, "perm", perm);
  return n;
}

// x[2,3,8,8] -> Transpose(0,2,3,1) -> LayerNormalization -> Transpose(0,3,1,2) -> y
TestModel layer_norm_2d(float eps = 1e-6f) {
  TestModel m = testing::around(3);
  m.initializer("ln.weight", {3});
  m.initializer("ln.bias", {3});
  transpose(m, "/ln/Transpose_1", "n", "y", {0, 3, 1, 2});
  testing::attr_f(testing::first_node(m, "LayerNormalization", "/ln/LayerNorm",
                                      {"t", "ln.weight", "ln.bias"}, {"n"}),
                  "epsilon", eps);
  transpose(m, "/ln/Transpose", "x", "t", {0, 2, 3, 1});
  return m;
}

TEST_F(OnnxNorm, LayerNorm2dNormalisesTheChannelsThroughTheTransposedView) {
  TestModel m = layer_norm_2d();
  const ir::Graph g = imported(m);
  const ir::Op& ln = g.op(g.find_op("/ln/LayerNorm"));
  ASSERT_EQ(ln.type, ir::OpType::LayerNorm);
  EXPECT_EQ(ln.attrs.text(), "eps=1e-06");
  const ir::Tensor& x = g.tensor(ln.inputs.at(0));
  EXPECT_EQ(g.op(x.producer).type, ir::OpType::Transpose);
  EXPECT_EQ(x.data, g.tensor(g.find_tensor("x")).data);  // no copy
  EXPECT_EQ(x.strides, (std::vector<int64_t>{192, 8, 1, 64}));
  for (size_t i = 0; i < g.num_ops(); ++i)
    EXPECT_NE(g.op(ir::OpId(static_cast<uint32_t>(i))).type, ir::OpType::Copy) << i;

  ir::Interpreter it(g);
  it.run();
  const std::vector<float> xs = it.value(g.find_tensor("x")).f32();
  const std::vector<float> gamma = it.value(g.find_tensor("ln.weight")).f32();
  const std::vector<float> beta = it.value(g.find_tensor("ln.bias")).f32();
  const std::vector<float> y = it.value(ln.outputs.at(0)).f32();  // [2,8,8,3]
  for (size_t n = 0; n < 2; ++n)
    for (size_t p = 0; p < 64; ++p) {
      double mean = 0, var = 0;
      for (size_t c = 0; c < 3; ++c)
        mean += double{xs[(n * 3 + c) * 64 + p]} / 3;
      for (size_t c = 0; c < 3; ++c)
        var += std::pow(double{xs[(n * 3 + c) * 64 + p]} - mean, 2) / 3;
      for (size_t c = 0; c < 3; ++c) {
        const double want =
            (double{xs[(n * 3 + c) * 64 + p]} - mean) / std::sqrt(var + 1e-6) * double{gamma[c]} +
            double{beta[c]};
        EXPECT_NEAR(y[(n * 64 + p) * 3 + c], want, 1e-5) << n << " " << p << " " << c;
      }
    }
}

// x[2,3,8,8] -> Transpose(0,2,3,1) -> MatMul(Transpose(w [5,3])) -> Add(b [5]) ->
// Transpose(0,3,1,2) -> y [2,5,8,8]: ConvNeXt's pointwise Linear, one gemm with its bias.
TEST_F(OnnxNorm, LinearOnTheLastDimensionIsAGemmOverRowsWithItsBias) {
  for (bool bias : {true, false}) {
    TestModel m = testing::around(5);
    m.initializer("pw.weight", {5, 3});
    m.initializer("pw.bias", {5});
    transpose(m, "/pw/Transpose_1", bias ? "b" : "mm", "y", {0, 3, 1, 2});
    if (bias) testing::first_node(m, "Add", "/pw/Add", {"pw.bias", "mm"}, {"b"});
    testing::first_node(m, "MatMul", "/pw/MatMul", {"t", "wt"}, {"mm"});
    transpose(m, "/pw/Transpose_w", "pw.weight", "wt", {1, 0});
    transpose(m, "/pw/Transpose", "x", "t", {0, 2, 3, 1});
    const ir::Graph g = imported(m);
    const std::string name = bias ? "/pw/Linear" : "/pw/MatMul";
    const ir::Op& mm = g.op(g.find_op(name));
    ASSERT_EQ(mm.type, ir::OpType::Gemm);
    EXPECT_EQ(mm.attrs.text(), "act=\"none\" gate_act=\"relu\" keep_pre=0 trans_a=0 trans_b=1");
    ASSERT_GE(mm.inputs.size(), 3u);
    EXPECT_EQ(mm.inputs[2], bias ? g.find_tensor("pw.bias") : ir::TensorId());
    EXPECT_FALSE(g.find_op("/pw/Add").valid());  // absorbed
    EXPECT_EQ(g.tensor(mm.inputs.at(0)).shape, (ir::Shape{128, 3}));
    // The transposed weight is read in its own layout: a dense view of pw.weight.
    const ir::Tensor& w = g.tensor(mm.inputs.at(1));
    EXPECT_EQ(w.shape, (ir::Shape{5, 3}));
    EXPECT_EQ(w.data, g.tensor(g.find_tensor("pw.weight")).data);
    EXPECT_EQ(w.strides, (std::vector<int64_t>{3, 1}));
    // The transposed map is not dense: the rows are a DMA copy of it.
    EXPECT_EQ(g.op(g.find_op(name + "/dense/rows")).type, ir::OpType::Copy);

    ir::Interpreter it(g);
    it.run();
    const std::vector<float> xs = it.value(g.find_tensor("x")).f32();
    const std::vector<float> ws = it.value(g.find_tensor("pw.weight")).f32();
    const std::vector<float> bs =
        bias ? it.value(g.find_tensor("pw.bias")).f32() : std::vector<float>(5, 0.0f);
    const std::vector<float> y = it.value(mm.outputs.at(0)).f32();  // [128, 5]
    for (size_t n = 0; n < 2; ++n)
      for (size_t p = 0; p < 64; ++p)
        for (size_t k = 0; k < 5; ++k) {
          double want = bs[k];
          for (size_t c = 0; c < 3; ++c)
            want += double{xs[(n * 3 + c) * 64 + p]} * double{ws[k * 3 + c]};
          EXPECT_NEAR(y[(n * 64 + p) * 5 + k], want, 1e-5) << n << " " << p << " " << k;
        }
  }
}

// axis = 1 of [2,3,8,8]: one row of 192 values per sample (x dense: no copy).
TEST_F(OnnxNorm, AxisBeforeTheLastFlattensTheNormalisedDimensions) {
  TestModel m = testing::around(3);
  m.initializer("ln.weight", {3, 8, 8});
  m.initializer("ln.bias", {3, 8, 8});
  testing::attr_i(
      testing::first_node(m, "LayerNormalization", "/ln", {"x", "ln.weight", "ln.bias"}, {"y"}),
      "axis", 1);
  const ir::Graph g = imported(m);
  const ir::Op& ln = g.op(g.find_op("/ln"));
  EXPECT_EQ(g.tensor(ln.inputs.at(0)).shape, (ir::Shape{2, 192}));
  EXPECT_EQ(g.tensor(ln.inputs.at(1)).shape, (ir::Shape{192}));
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> xs = it.value(g.find_tensor("x")).f32();
  const std::vector<float> gamma = it.value(g.find_tensor("ln.weight")).f32();
  const std::vector<float> beta = it.value(g.find_tensor("ln.bias")).f32();
  const std::vector<float> y = it.value(ln.outputs.at(0)).f32();
  for (size_t n = 0; n < 2; ++n) {
    double mean = 0, var = 0;
    for (size_t i = 0; i < 192; ++i)
      mean += double{xs[n * 192 + i]} / 192;
    for (size_t i = 0; i < 192; ++i)
      var += std::pow(double{xs[n * 192 + i]} - mean, 2) / 192;
    for (size_t i = 0; i < 192; ++i)
      EXPECT_NEAR(y[n * 192 + i],
                  (double{xs[n * 192 + i]} - mean) / std::sqrt(var + 1e-5) * double{gamma[i]} +
                      double{beta[i]},
                  1e-5);
  }
}

TEST_F(OnnxNorm, WhatTheLayerNormCannotTakeIsAnErrorNamingTheNode) {
  {
    TestModel m = layer_norm_2d();
    testing::attr_i(*m.graph().mutable_node(1), "axis", 0);
    EXPECT_EQ(error_of(m),
              at_file("node '/ln/LayerNorm' (LayerNormalization): attribute 'axis' = 0 on "
                      "f32[2,8,8,3] is not supported: it must leave at least one leading "
                      "dimension of rows and normalise at least one"));
  }
  {
    TestModel m = layer_norm_2d();
    testing::attr_i(*m.graph().mutable_node(1), "stash_type", 10);
    EXPECT_EQ(error_of(m), at_file("node '/ln/LayerNorm' (LayerNormalization): attribute "
                                   "'stash_type' = 10 is not supported (only 1: float "
                                   "statistics)"));
  }
  {
    TestModel m = layer_norm_2d();
    m.graph().mutable_node(1)->mutable_input()->RemoveLast();
    EXPECT_EQ(error_of(m), at_file("node '/ln/LayerNorm' (LayerNormalization): input B (the "
                                   "shift) is absent; only LayerNormalization with both Scale "
                                   "and B is supported"));
  }
  {
    TestModel m = layer_norm_2d();
    m.initializer("wide", {1, 3});
    m.graph().mutable_node(1)->set_input(1, "wide");
    EXPECT_EQ(error_of(m), at_file("node '/ln/LayerNorm' (LayerNormalization): input Scale "
                                   "'wide' is f32[1,3]; it must have the normalised shape "
                                   "f32[3] (broadcasting it is not supported)"));
  }
  {
    TestModel m = layer_norm_2d();
    m.graph().mutable_node(1)->add_output("mean");
    m.node("Identity", "/use", {"mean"}, {"mean2"});
    m.output("mean2", {2, 8, 8, 1});
    const std::string e = error_of(m);
    EXPECT_NE(e.find("'/ln/LayerNorm' (LayerNormalization): output 1"), std::string::npos) << e;
    EXPECT_NE(e.find("keeps its row statistics for the backward"), std::string::npos) << e;
  }
}

TEST_F(OnnxNorm, MatMulOfBatchesOfDifferentRanksIsAnError) {
  TestModel m = testing::around(3);
  m.initializer("w3", {2, 8, 8});
  testing::first_node(m, "MatMul", "/bmm", {"x", "w3"}, {"y"});
  EXPECT_EQ(error_of(m), at_file("node '/bmm' (MatMul): inputs are f32[2,3,8,8] and f32[2,8,8]; "
                                 "a batched MatMul needs two tensors of the same rank, 3 or 4"));
}

}  // namespace
}  // namespace s2::onnx_import
