// The ONNX importer's static shape computations and tensor rearrangements, as ShuffleNet
// exports them: Shape -> Gather -> Div -> Squeeze/Unsqueeze fold to constants that Slice reads
// (torch.chunk), Concat joins the halves, and the channel shuffle (Reshape to 5-D, Transpose,
// Reshape back) becomes a strided view copied dense before the last reshape. Values through
// the interpreter; ReduceMean over H and W; errors for what does not fold.

#include <gtest/gtest.h>

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

using OnnxShape = testing::OnnxImportError;

// x[2,3,8,8] -> Conv (4 channels) -> chunk(2) by a computed half -> cat(a, relu(b)) ->
// channel shuffle with 2 groups -> y[2,4,8,8] (then around(4)'s pooling and classifier).
TestModel shuffle_block() {
  TestModel m = testing::around(4);
  m.initializer("w", {4, 3, 1, 1});
  m.int64_initializer("one", {1});
  m.int64_initializer("two", {2});
  m.int64_initializer("zero", {0});
  m.int64_initializer("axis0", {0});
  m.int64_initializer("channels", {4});
  m.int64_initializer("shape5", {2, 2, 2, 8, 8});
  m.int64_initializer("shape4", {2, 4, 8, 8});
  // Added in reverse: first_node puts each before the previous ones.
  testing::first_node(m, "Reshape", "/shuffle/Reshape_1", {"t", "shape4"}, {"y"});
  testing::attr_ints(testing::first_node(m, "Transpose", "/shuffle/Transpose", {"r5"}, {"t"}),
                     "perm", {0, 2, 1, 3, 4});
  testing::first_node(m, "Reshape", "/shuffle/Reshape", {"cat", "shape5"}, {"r5"});
  testing::attr_i(testing::first_node(m, "Concat", "/Concat", {"a", "rb"}, {"cat"}), "axis", 1);
  testing::first_node(m, "Relu", "/Relu", {"b"}, {"rb"});
  testing::first_node(m, "Slice", "/Slice_1", {"x4", "end_a", "channels", "one"}, {"b"});
  testing::first_node(m, "Slice", "/Slice", {"x4", "zero", "end_a", "one"}, {"a"});
  testing::first_node(m, "Unsqueeze", "/Unsqueeze", {"half_scalar", "axis0"}, {"end_a"});
  testing::first_node(m, "Squeeze", "/Squeeze", {"half", "axis0"}, {"half_scalar"});
  testing::first_node(m, "Div", "/Div", {"c", "two"}, {"half"});
  testing::attr_i(testing::first_node(m, "Gather", "/Gather", {"s", "one"}, {"c"}), "axis", 0);
  testing::first_node(m, "Shape", "/Shape", {"x4"}, {"s"});
  testing::first_node(m, "Conv", "/conv/Conv", {"x", "w"}, {"x4"});
  return m;
}

TEST_F(OnnxShape, ChunkConcatAndChannelShuffle) {
  TestModel m = shuffle_block();
  const ir::Graph g = imported(m);
  // The halves are views (slices) of the conv's output; the shuffle copies once.
  const ir::Op& cat = g.op(g.find_op("/Concat"));
  ASSERT_EQ(cat.type, ir::OpType::Concat);
  EXPECT_EQ(g.op(g.tensor(cat.inputs[0]).producer).type, ir::OpType::Slice);
  int copies = 0;
  for (size_t i = 0; i < g.num_ops(); ++i)
    copies += g.op(ir::OpId(i)).type == ir::OpType::Copy;
  EXPECT_EQ(copies, 1);
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> x4 = it.value(g.find_tensor("/conv/Conv")).f32();
  const ir::TensorId y_id = g.op(g.find_op("/shuffle/Reshape_1")).outputs[0];
  EXPECT_EQ(g.tensor(y_id).shape, (ir::Shape{2, 4, 8, 8}));
  const std::vector<float> y = it.value(y_id).f32();
  // cat = [x4 channels 0,1, relu(x4 channels 2,3)]; shuffled channel k is cat channel
  // (k % 2) * 2 + k / 2.
  for (size_t n = 0; n < 2; ++n)
    for (size_t k = 0; k < 4; ++k) {
      const size_t c = (k % 2) * 2 + k / 2;
      for (size_t p = 0; p < 64; ++p) {
        float want = x4[(n * 4 + c) * 64 + p];
        if (c >= 2 && want < 0) want = 0;
        ASSERT_EQ(y[(n * 4 + k) * 64 + p], want) << "n " << n << " channel " << k;
      }
    }
}

TEST_F(OnnxShape, ReduceMeanOverHwIsGlobalPooling) {
  TestModel m(17);
  m.input("x", {2, 3, 4, 4});
  m.initializer("fc.weight", {5, 3});
  onnx::NodeProto& mean = m.node("ReduceMean", "/ReduceMean", {"x"}, {"pooled"});
  testing::attr_ints(mean, "axes", {2, 3});
  testing::attr_i(mean, "keepdims", 0);
  testing::attr_i(m.node("Gemm", "/fc/Gemm", {"pooled", "fc.weight"}, {"logits"}), "transB", 1);
  m.output("logits", {2, 5});
  const ir::Graph g = imported(m);
  const ir::TensorId pooled = g.op(g.find_op("/fc/Gemm")).inputs[0];
  EXPECT_EQ(g.tensor(pooled).shape, (ir::Shape{2, 3}));
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> x = it.value(g.find_tensor("x")).f32();
  const std::vector<float> p = it.value(pooled).f32();
  for (size_t plane = 0; plane < 6; ++plane) {
    float sum = 0;
    for (size_t i = 0; i < 16; ++i)
      sum += x[plane * 16 + i];
    EXPECT_NEAR(p[plane], sum / 16, 1e-6);
  }
}

TEST_F(OnnxShape, WhatDoesNotFoldIsAnError) {
  {
    TestModel m = testing::around(3);
    testing::first_node(m, "Div", "/Div", {"x", "x"}, {"y"});
    EXPECT_NE(error_of(m).find("node '/Div' (Div): input 0 (A) must be an integer constant or a "
                               "static shape computation"),
              std::string::npos)
        << error_of(m);
  }
  {
    TestModel m = testing::around(3);
    onnx::NodeProto& mean = testing::first_node(m, "ReduceMean", "/ReduceMean", {"x"}, {"y"});
    testing::attr_ints(mean, "axes", {1, -3});
    EXPECT_NE(error_of(m).find("reduces axes [1,1] of f32[2,3,8,8]; name each reduced axis once"),
              std::string::npos)
        << error_of(m);
  }
  {
    TestModel m = testing::around(3);
    m.int64_initializer("starts", {0});
    m.int64_initializer("ends", {4});
    m.int64_initializer("axes", {2});
    m.int64_initializer("steps", {-1});
    testing::first_node(m, "Slice", "/Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    EXPECT_NE(error_of(m).find("step -1 is not supported (only positive steps)"), std::string::npos)
        << error_of(m);
  }
}

}  // namespace
}  // namespace s2::onnx_import
