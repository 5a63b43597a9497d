// The ONNX importer on small models built with the protobuf API: ops, shapes, attributes,
// parameter names, roles and contents, and the numbers through the reference interpreter.
// Error paths are in onnx_import_errors_test.cpp, torchvision exports in
// onnx_torchvision_test.cpp.
#include "compiler/onnx/onnx_import.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/autodiff/autodiff.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ir/verifier.h"
#include "tests/compiler/onnx_test_model.h"

namespace s2::onnx_import {
namespace {

using testing::attr_f;
using testing::attr_i;
using testing::attr_ints;
using testing::attr_s;
using testing::TestModel;
using Ints = std::vector<int64_t>;

class OnnxImport : public ::testing::Test {
 protected:
  ir::Graph import(const TestModel& m, const OnnxImportOptions& options = {}) {
    const std::string path = dir_.file("model.onnx");
    m.write(path);
    ir::Graph g = import_onnx(path, options);
    EXPECT_EQ(ir::verify_graph(g), std::vector<std::string>{});
    return g;
  }
  testing::TempDir dir_;
};

const ir::Op& op_named(const ir::Graph& g, const std::string& name) {
  const ir::OpId id = g.find_op(name);
  EXPECT_TRUE(id.valid()) << "no op '" << name << "'";
  return g.op(id);
}

const ir::Tensor& tensor_named(const ir::Graph& g, const std::string& name) {
  const ir::TensorId id = g.find_tensor(name);
  EXPECT_TRUE(id.valid()) << "no tensor '" << name << "'";
  return g.tensor(id);
}

std::vector<std::string> op_types(const ir::Graph& g) {
  std::vector<std::string> types;
  for (ir::OpId id : g.topo_order())
    types.emplace_back(ir::op_type_name(g.op(id).type));
  return types;
}

ir::Shape out_shape(const ir::Graph& g, const ir::Op& op, size_t k = 0) {
  return g.tensor(op.outputs.at(k)).shape;
}

isa::TensorRole role_of(const ir::Graph& g, const std::string& name) {
  return g.data(tensor_named(g, name).data).role;
}

// x[2,3,8,8] -> Conv(4, 3x3, pad 1, bias) -> Relu -> MaxPool(2, 2) -> Flatten -> Gemm(5) -> logits
TestModel conv_net() {
  TestModel m;
  m.input("x", {2, 3, 8, 8});
  m.initializer("conv1.weight", {4, 3, 3, 3});
  m.initializer("conv1.bias", {4});
  m.initializer("fc.weight", {5, 64});
  m.initializer("fc.bias", {5});
  auto& conv = m.node("Conv", "/conv1/Conv", {"x", "conv1.weight", "conv1.bias"}, {"c1"});
  attr_ints(conv, "dilations", {1, 1});
  attr_i(conv, "group", 1);
  attr_ints(conv, "kernel_shape", {3, 3});
  attr_ints(conv, "pads", {1, 1, 1, 1});
  attr_ints(conv, "strides", {1, 1});
  m.node("Relu", "/relu/Relu", {"c1"}, {"r1"});
  auto& pool = m.node("MaxPool", "/pool/MaxPool", {"r1"}, {"p1"});
  attr_ints(pool, "kernel_shape", {2, 2});
  attr_ints(pool, "strides", {2, 2});
  attr_i(pool, "ceil_mode", 0);
  attr_i(m.node("Flatten", "/Flatten", {"p1"}, {"f1"}), "axis", 1);
  auto& fc = m.node("Gemm", "/fc/Gemm", {"f1", "fc.weight", "fc.bias"}, {"logits"});
  attr_f(fc, "alpha", 1.0f);
  attr_f(fc, "beta", 1.0f);
  attr_i(fc, "transB", 1);
  m.output("logits", {2, 5});
  return m;
}

TEST_F(OnnxImport, ConvNetOpsShapesAndAttributes) {
  const ir::Graph g = import(conv_net());
  EXPECT_EQ(g.name(), "model");
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"conv2d", "relu", "max_pool2d", "reshape",
                                                   "gemm", "softmax_ce"}));
  const ir::Op& conv = op_named(g, "/conv1/Conv");
  EXPECT_EQ(conv.attrs, (ir::Attrs{{"stride", Ints{1, 1}},
                                   {"pads", Ints{1, 1, 1, 1}},
                                   {"dilation", Ints{1, 1}},
                                   {"groups", int64_t{1}},
                                   {"act", std::string("none")},
                                   {"keep_pre", int64_t{0}}}));
  EXPECT_EQ(conv.inputs.at(2), g.find_tensor("conv1.bias"));
  EXPECT_EQ(out_shape(g, conv), (ir::Shape{2, 4, 8, 8}));
  const ir::Op& pool = op_named(g, "/pool/MaxPool");
  EXPECT_EQ(pool.attrs, (ir::Attrs{{"kernel", Ints{2, 2}},
                                   {"stride", Ints{2, 2}},
                                   {"pads", Ints{0, 0, 0, 0}},
                                   {"ceil_mode", int64_t{0}}}));
  EXPECT_EQ(out_shape(g, pool), (ir::Shape{2, 4, 4, 4}));
  const ir::Op& flat = op_named(g, "/Flatten");
  EXPECT_EQ(flat.attrs.ints("shape"), (Ints{2, -1}));
  EXPECT_EQ(out_shape(g, flat), (ir::Shape{2, 64}));
  const ir::Op& fc = op_named(g, "/fc/Gemm");
  EXPECT_EQ(fc.attrs, (ir::Attrs{{"trans_a", int64_t{0}},
                                 {"trans_b", int64_t{1}},
                                 {"act", std::string("none")},
                                 {"gate_act", std::string("relu")},
                                 {"keep_pre", int64_t{0}}}));
  EXPECT_EQ(out_shape(g, fc), (ir::Shape{2, 5}));

  const ir::Op& loss = op_named(g, "loss");
  EXPECT_EQ(loss.attrs.s("reduction"), "mean");
  EXPECT_EQ(loss.inputs.at(0), fc.outputs.at(0));
  EXPECT_EQ(g.loss(), loss.outputs.at(0));
  EXPECT_EQ(g.outputs(), std::vector<ir::TensorId>{g.loss()});
}

TEST_F(OnnxImport, ParametersKeepNamesRolesAndContents) {
  const ir::Graph g = import(conv_net(), {0, 0, 7});
  EXPECT_EQ(role_of(g, "x"), isa::TensorRole::Input);
  EXPECT_EQ(tensor_named(g, "x").shape, (ir::Shape{2, 3, 8, 8}));
  for (const char* w : {"conv1.weight", "conv1.bias", "fc.weight", "fc.bias"})
    EXPECT_EQ(role_of(g, w), isa::TensorRole::Weight) << w;
  const ir::Data& weight = g.data(tensor_named(g, "conv1.weight").data);
  ASSERT_TRUE(weight.init);
  ASSERT_EQ(weight.init->size(), 108u);
  for (size_t i = 0; i < 108; ++i)
    ASSERT_EQ(weight.init->f32()[i], testing::pattern_value(i));
  EXPECT_EQ(tensor_named(g, "fc.weight").shape, (ir::Shape{5, 64}));

  const ir::Tensor& labels = tensor_named(g, "labels");
  EXPECT_EQ(labels.dtype, isa::DType::I32);
  EXPECT_EQ(labels.shape, (ir::Shape{2}));
  EXPECT_EQ(role_of(g, "labels"), isa::TensorRole::Label);
  for (int32_t l : g.data(labels.data).init->i32())
    EXPECT_TRUE(l >= 0 && l < 5) << l;
  const ir::Data& input = g.data(tensor_named(g, "x").data);
  ASSERT_TRUE(input.init);
  for (float v : input.init->f32())
    EXPECT_TRUE(v >= -1.0f && v < 1.0f) << v;
}

TEST_F(OnnxImport, SeedMakesLabelsAndInputReproducible) {
  TestModel m = conv_net();
  const ir::Graph a = import(m, {0, 0, 3});
  const ir::Graph b = import(m, {0, 0, 3});
  const ir::Graph c = import(m, {0, 0, 4});
  auto init = [](const ir::Graph& g, const char* name) {
    return *g.data(tensor_named(g, name).data).init;
  };
  EXPECT_EQ(init(a, "labels"), init(b, "labels"));
  EXPECT_EQ(init(a, "x"), init(b, "x"));
  EXPECT_FALSE(init(a, "x") == init(c, "x"));
}

// x[2,3,4,4] -> Conv(no bias) -> BatchNormalization(training) -> Relu -> GlobalAveragePool
// -> Flatten -> Gemm(3)
TestModel batch_norm_net(int64_t opset) {
  TestModel m(opset);
  m.input("input", {2, 3, 4, 4});
  m.initializer("conv.weight", {4, 3, 1, 1});
  m.initializer("bn.weight", {4}, {1, 1, 1, 1});
  m.initializer("bn.bias", {4}, {0, 0, 0, 0});
  m.initializer("bn.running_mean", {4}, {0, 0, 0, 0});
  m.initializer("bn.running_var", {4}, {1, 1, 1, 1});
  m.initializer("fc.weight", {3, 4});
  m.initializer("fc.bias", {3});
  auto& conv = m.node("Conv", "/conv/Conv", {"input", "conv.weight"}, {"c"});
  attr_ints(conv, "kernel_shape", {1, 1});
  const std::vector<std::string> bn_outs =
      opset >= 14 ? std::vector<std::string>{"y", "rm", "rv"}
                  : std::vector<std::string>{"y", "rm", "rv", "saved_mean", "saved_var"};
  auto& bn = m.node("BatchNormalization", "/bn/BatchNormalization",
                    {"c", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"}, bn_outs);
  attr_f(bn, "epsilon", 1e-5f);
  attr_f(bn, "momentum", 0.9f);
  if (opset >= 14) attr_i(bn, "training_mode", 1);
  m.node("Relu", "/relu/Relu", {"y"}, {"r"});
  m.node("GlobalAveragePool", "/avgpool/GlobalAveragePool", {"r"}, {"gap"});
  m.node("Flatten", "/Flatten", {"gap"}, {"flat"});
  attr_i(m.node("Gemm", "/fc/Gemm", {"flat", "fc.weight", "fc.bias"}, {"logits"}), "transB", 1);
  m.output("logits", {2, 3});
  return m;
}

TEST_F(OnnxImport, TrainingBatchNormKeepsRunningStatisticsAsState) {
  for (int64_t opset : {17, 13}) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    const ir::Graph g = import(batch_norm_net(opset));
    EXPECT_EQ(op_types(g), (std::vector<std::string>{"conv2d", "batch_norm", "relu", "avg_pool2d",
                                                     "reshape", "gemm", "softmax_ce"}));
    EXPECT_FALSE(op_named(g, "/conv/Conv").inputs.at(2).valid());
    const ir::Op& bn = op_named(g, "/bn/BatchNormalization");
    // float32 0.9 and 1e-5 in the file; PyTorch's momentum 0.1 and eps 1e-5 in the IR.
    EXPECT_EQ(bn.attrs, (ir::Attrs{{"eps", 1e-5},
                                   {"momentum", 0.1},
                                   {"act", std::string("none")},
                                   {"keep_pre", int64_t{0}}}));
    EXPECT_EQ(role_of(g, "bn.running_mean"), isa::TensorRole::State);
    EXPECT_EQ(role_of(g, "bn.running_var"), isa::TensorRole::State);
    EXPECT_EQ(role_of(g, "bn.weight"), isa::TensorRole::Weight);
    EXPECT_EQ(role_of(g, "bn.bias"), isa::TensorRole::Weight);
    const ir::Op& gap = op_named(g, "/avgpool/GlobalAveragePool");
    EXPECT_EQ(gap.attrs.ints("kernel"), (Ints{4, 4}));
    EXPECT_EQ(gap.attrs.ints("stride"), (Ints{4, 4}));
    EXPECT_EQ(out_shape(g, gap), (ir::Shape{2, 4, 1, 1}));
  }
}

TEST_F(OnnxImport, ImportedGraphBuildsATrainingStep) {
  ir::Graph g = import(batch_norm_net(17));
  const ir::AutodiffStats stats = ir::build_training_step(g, ir::OptimizerOptions{});
  EXPECT_EQ(stats.updates, 5u);  // conv.weight, bn.weight, bn.bias, fc.weight, fc.bias
  EXPECT_EQ(ir::verify_graph(g), std::vector<std::string>{});
  ir::Interpreter it(g);
  it.run();
  const float loss = it.value(g.loss()).f32().at(0);
  EXPECT_TRUE(loss > 0.0f && loss < 10.0f) << loss;
}

// x[2,3] -> MatMul(w1 [3,4]) -> Add(b [2,4]) -> Relu -> Gemm(w2 [4,2], transB=0) -> logits
TEST_F(OnnxImport, MlpComputesTheSameLogitsAsByHand) {
  TestModel m;
  m.input("x", {2, 3});
  m.initializer("w1", {3, 4});
  m.initializer("b", {2, 4});
  m.initializer("w2", {4, 2});
  m.node("MatMul", "mm", {"x", "w1"}, {"h"});
  m.node("Add", "add", {"h", "b"}, {"hb"});
  m.node("Relu", "relu", {"hb"}, {"r"});
  m.node("Gemm", "fc2", {"r", "w2"}, {"logits"});
  m.output("logits", {2, 2});
  const ir::Graph g = import(m, {0, 2, 1});
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"gemm", "add", "relu", "gemm", "softmax_ce"}));

  ir::Interpreter it(g);
  it.run();
  auto values = [&](const char* name) { return it.value(g.find_tensor(name)).f32(); };
  const std::vector<float> x = values("x"), w1 = values("w1"), b = values("b"), w2 = values("w2");
  const std::vector<float> logits = it.value(op_named(g, "fc2").outputs.at(0)).f32();
  for (size_t n = 0; n < 2; ++n) {
    for (size_t j = 0; j < 2; ++j) {
      double expected = 0;
      for (size_t k = 0; k < 4; ++k) {
        double h = static_cast<double>(b[n * 4 + k]);
        for (size_t i = 0; i < 3; ++i)
          h += static_cast<double>(x[n * 3 + i]) * static_cast<double>(w1[i * 4 + k]);
        expected += std::max(h, 0.0) * static_cast<double>(w2[k * 2 + j]);
      }
      EXPECT_NEAR(static_cast<double>(logits[n * 2 + j]), expected, 1e-5) << n << "," << j;
    }
  }
}

// auto_pad, AveragePool's ONNX default count_include_pad = 0, Reshape with a constant shape
// that copies a dimension (0), and Identity.
TEST_F(OnnxImport, PaddingModesAveragePoolReshapeAndIdentity) {
  TestModel m;
  m.input("x", {1, 2, 5, 5});
  m.initializer("w", {2, 2, 2, 2});
  m.initializer("fc.weight", {4, 18});
  m.int64_initializer("shape", {0, -1});
  auto& conv = m.node("Conv", "conv", {"x", "w"}, {"c"});
  attr_ints(conv, "strides", {2, 2});
  attr_s(conv, "auto_pad", "SAME_LOWER");
  auto& pool = m.node("AveragePool", "pool", {"c"}, {"p"});
  attr_ints(pool, "kernel_shape", {3, 3});
  attr_ints(pool, "pads", {1, 1, 1, 1});
  m.node("Identity", "id", {"p"}, {"p2"});
  m.node("Reshape", "reshape", {"p2", "shape"}, {"flat"});
  attr_i(m.node("Gemm", "fc", {"flat", "fc.weight"}, {"logits"}), "transB", 1);
  m.output("logits", {1, 4});
  const ir::Graph g = import(m);
  EXPECT_EQ(op_types(g),
            (std::vector<std::string>{"conv2d", "avg_pool2d", "reshape", "gemm", "softmax_ce"}));
  // 5 -> ceil(5/2) = 3 outputs need (3-1)*2 + 2 - 5 = 1 padding, at the start for SAME_LOWER.
  EXPECT_EQ(op_named(g, "conv").attrs.ints("pads"), (Ints{1, 1, 0, 0}));
  EXPECT_EQ(out_shape(g, op_named(g, "conv")), (ir::Shape{1, 2, 3, 3}));
  const ir::Op& avg = op_named(g, "pool");
  EXPECT_EQ(avg.attrs, (ir::Attrs{{"kernel", Ints{3, 3}},
                                  {"stride", Ints{1, 1}},
                                  {"pads", Ints{1, 1, 1, 1}},
                                  {"ceil_mode", int64_t{0}},
                                  {"count_include_pad", int64_t{0}}}));
  const ir::Op& reshape = op_named(g, "reshape");
  EXPECT_EQ(reshape.inputs.at(0), avg.outputs.at(0));  // Identity adds nothing
  EXPECT_EQ(reshape.attrs.ints("shape"), (Ints{1, -1}));
  EXPECT_FALSE(g.find_tensor("shape").valid());  // a constant shape is not a parameter
}

// Inception-v3's avg_pool2d(3, 1, padding=1) exports as a zero Pad of H and W then an
// AveragePool without pads: the Pad folds into the pool, which then counts its padding
// (the zeros were real elements). A Pad before a Conv adds to the Conv's zero padding.
TEST_F(OnnxImport, ZeroPadFoldsIntoAveragePoolAndConv) {
  TestModel m;
  m.input("x", {1, 2, 3, 3});
  m.initializer("w", {2, 2, 3, 3});
  m.initializer("fc.weight", {4, 32});
  m.int64_initializer("pads", {0, 0, 1, 1, 0, 0, 1, 1});
  m.int64_initializer("pads2", {0, 0, 0, 1, 0, 0, 1, 0});
  m.int64_initializer("shape", {0, -1});
  m.node("Pad", "/pad/Pad", {"x", "pads"}, {"xp"});
  attr_ints(m.node("AveragePool", "pool", {"xp"}, {"p"}), "kernel_shape", {3, 3});
  m.node("Pad", "/pad2/Pad", {"p", "pads2"}, {"pp"});
  attr_ints(m.node("Conv", "conv", {"pp", "w"}, {"c"}), "pads", {1, 1, 1, 1});
  m.node("Reshape", "reshape", {"c", "shape"}, {"flat"});
  attr_i(m.node("Gemm", "fc", {"flat", "fc.weight"}, {"logits"}), "transB", 1);
  m.output("logits", {1, 4});
  const ir::Graph g = import(m);
  EXPECT_EQ(op_types(g),
            (std::vector<std::string>{"avg_pool2d", "conv2d", "reshape", "gemm", "softmax_ce"}));
  const ir::Op& avg = op_named(g, "pool");
  EXPECT_EQ(avg.attrs.ints("pads"), (Ints{1, 1, 1, 1}));
  EXPECT_EQ(avg.attrs.i("count_include_pad"), 1);
  EXPECT_EQ(out_shape(g, avg), (ir::Shape{1, 2, 3, 3}));
  // ONNX pads [x1_begin, x2_begin, x1_end, x2_end] = H top 0, W left 1, H bottom 1, W right 0.
  EXPECT_EQ(op_named(g, "conv").attrs.ints("pads"), (Ints{1, 2, 2, 1}));
  EXPECT_EQ(out_shape(g, op_named(g, "conv")), (ir::Shape{1, 2, 4, 4}));
  // A corner of the 3x3 average of ones over the padded 5x5 sees 4 ones and 5 zeros.
  ir::Interpreter it(g);
  it.set_value(g.find_tensor("x"), ir::HostArray(std::vector<float>(18, 1.0f)));
  it.run();
  EXPECT_EQ(it.value(avg.outputs[0]).f32()[0], 4.0f / 9.0f);
  EXPECT_EQ(it.value(avg.outputs[0]).f32()[4], 1.0f);
}

// PyTorch's exporter shares one initializer among equal-valued ones through Identity nodes
// (eval mode: the zero biases of folded batch norms) and may give shapes as Constant nodes,
// also through Identity.
TEST_F(OnnxImport, IdentityOfAnInitializerIsAParameterOfItsOwn) {
  TestModel m;
  m.input("x", {2, 2, 3, 3});
  m.initializer("w1", {2, 2, 1, 1});
  m.initializer("w2", {2, 2, 1, 1});
  m.initializer("onnx::Conv_9", {2}, {0, 0});
  m.initializer("fc.weight", {3, 18});
  m.node("Identity", "Identity_0", {"onnx::Conv_9"}, {"onnx::Conv_12"});
  m.node("Conv", "/c1/Conv", {"x", "w1", "onnx::Conv_9"}, {"a"});
  m.node("Conv", "/c2/Conv", {"a", "w2", "onnx::Conv_12"}, {"b"});
  auto& shape = m.node("Constant", "/Constant", {}, {"shape"});
  onnx::AttributeProto* value = shape.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  value->mutable_t()->add_dims(2);
  value->mutable_t()->add_int64_data(2);
  value->mutable_t()->add_int64_data(-1);
  m.node("Identity", "Identity_1", {"shape"}, {"shape2"});
  m.node("Reshape", "/Reshape", {"b", "shape2"}, {"flat"});
  attr_i(m.node("Gemm", "/fc/Gemm", {"flat", "fc.weight"}, {"logits"}), "transB", 1);
  m.output("logits", {2, 3});
  const ir::Graph g = import(m);
  EXPECT_EQ(op_types(g),
            (std::vector<std::string>{"conv2d", "conv2d", "reshape", "gemm", "softmax_ce"}));
  const ir::TensorId b1 = g.find_tensor("onnx::Conv_9");
  const ir::TensorId b2 = g.find_tensor("onnx::Conv_12");
  ASSERT_TRUE(b1.valid() && b2.valid());
  EXPECT_NE(g.tensor(b1).data, g.tensor(b2).data);
  // Their initial contents are decoded once and shared (issue 19 point 4: M aliases of a large
  // weight must not cost M copies).
  ASSERT_NE(g.data(g.tensor(b1).data).init, nullptr);
  EXPECT_EQ(g.data(g.tensor(b1).data).init, g.data(g.tensor(b2).data).init);
  EXPECT_EQ(role_of(g, "onnx::Conv_12"), isa::TensorRole::Weight);
  EXPECT_EQ(op_named(g, "/c1/Conv").inputs.at(2), b1);
  EXPECT_EQ(op_named(g, "/c2/Conv").inputs.at(2), b2);
  EXPECT_EQ(op_named(g, "/Reshape").attrs.ints("shape"), (Ints{2, -1}));
}

TEST_F(OnnxImport, SymbolicBatchTakesTheGivenBatch) {
  TestModel m;
  m.input("x", {"batch", 6});
  m.initializer("fc.weight", {6, 4});
  m.node("Gemm", "fc", {"x", "fc.weight"}, {"logits"});
  m.output("logits", {"batch", 4});
  const ir::Graph g = import(m, {3, 4, 0});
  EXPECT_EQ(tensor_named(g, "x").shape, (ir::Shape{3, 6}));
  EXPECT_EQ(tensor_named(g, "labels").shape, (ir::Shape{3}));
  EXPECT_EQ(out_shape(g, op_named(g, "fc")), (ir::Shape{3, 4}));
}

TEST_F(OnnxImport, UnnamedNodesGetTheirTypeAndIndex) {
  TestModel m;
  m.input("x", {2, 6});
  m.initializer("fc.weight", {6, 4});
  m.node("MatMul", "", {"x", "fc.weight"}, {"h"});
  m.node("Relu", "", {"h"}, {"logits"});
  m.output("logits", {2, 4});
  const ir::Graph g = import(m);
  EXPECT_TRUE(g.find_op("MatMul_0").valid());
  EXPECT_TRUE(g.find_op("Relu_1").valid());
}

}  // namespace
}  // namespace s2::onnx_import
