// Every way the ONNX importer rejects a node, with the exact message: the file, the node and
// its op type, the attribute or input, what is wrong and what to do.
#include <gtest/gtest.h>

#include "tests/compiler/onnx_error_fixture.h"

namespace s2::onnx_import::testing {
namespace {

// ---- ops and attributes ----

TEST_F(OnnxImportError, UnsupportedOp) {
  TestModel m = around(3);
  first_node(m, "LSTM", "LSTM_12", {"x"}, {"y"});
  const std::string prefix = at_file("node 'LSTM_12': unknown ONNX operator 'LSTM'; known: Add, ");
  EXPECT_EQ(error_of(m).substr(0, prefix.size()), prefix);
  EXPECT_NE(error_of(m).find(", Clip, "), std::string::npos);
  EXPECT_EQ(error_of(m).find("Silu"), std::string::npos);  // only the importer's own patterns
  EXPECT_NE(error_of(m).find(" (the supported ops of domain ai.onnx)"), std::string::npos);
}

// Every unsupported node at once, by operator type in file order, with counts and the first
// node of each: the whole gap of a model in one run.
TEST_F(OnnxImportError, EveryUnsupportedOpAtOnce) {
  TestModel m = around(3);
  first_node(m, "Einsum", "/sum_2", {"b", "b"}, {"y"});
  first_node(m, "Einsum", "/sum_1", {"a", "a"}, {"b"});
  first_node(m, "Resize", "/resize", {"x"}, {"a"});
  const std::string prefix = at_file(
      "3 nodes of 2 operator type(s) the importer does not translate: Resize (1 node "
      "'/resize'), Einsum (2 nodes, the first '/sum_1'); known: Add, ");
  EXPECT_EQ(error_of(m).substr(0, prefix.size()), prefix) << error_of(m);
}

TEST_F(OnnxImportError, OpOfAnotherDomain) {
  TestModel m = around(3);
  first_node(m, "Relu", "", {"x"}, {"y"}).set_domain("com.microsoft");
  const std::string prefix = at_file("node 'Relu_0': unknown ONNX operator 'com.microsoft.Relu'; ");
  EXPECT_EQ(error_of(m).substr(0, prefix.size()), prefix);
}

TEST_F(OnnxImportError, UnknownAttribute) {
  TestModel m = around(4);
  m.initializer("w", {4, 3, 3, 3});
  attr_i(first_node(m, "Conv", "/conv1/Conv", {"x", "w"}, {"y"}), "foo", 1);
  EXPECT_EQ(error_of(m), at_file("node '/conv1/Conv' (Conv): attribute 'foo' is not supported"));
}

TEST_F(OnnxImportError, AttributeOfTheWrongType) {
  TestModel m = around(4);
  m.initializer("w", {4, 3, 3, 3});
  attr_f(first_node(m, "Conv", "/conv1/Conv", {"x", "w"}, {"y"}), "group", 1.0f);
  EXPECT_EQ(error_of(m), at_file("node '/conv1/Conv' (Conv): attribute 'group' must be an int"));
}

TEST_F(OnnxImportError, GemmScaling) {
  TestModel m = linear_model();
  attr_f(*m.graph().mutable_node(0), "alpha", 0.5f);
  EXPECT_EQ(error_of(m),
            at_file("node '/fc/Gemm' (Gemm): attribute 'alpha' = 0.5 is not supported (only 1)"));
}

TEST_F(OnnxImportError, PoolDilation) {
  TestModel m = around(3);
  auto& pool = first_node(m, "MaxPool", "/maxpool/MaxPool", {"x"}, {"y"});
  attr_ints(pool, "kernel_shape", {2, 2});
  attr_ints(pool, "dilations", {2, 2});
  EXPECT_EQ(error_of(m), at_file("node '/maxpool/MaxPool' (MaxPool): attribute 'dilations' = "
                                 "[2,2] is not supported (only [1,1])"));
}

TEST_F(OnnxImportError, PoolWithoutKernel) {
  TestModel m = around(3);
  first_node(m, "AveragePool", "/avgpool", {"x"}, {"y"});
  EXPECT_EQ(error_of(m),
            at_file("node '/avgpool' (AveragePool): attribute 'kernel_shape' is required"));
}

TEST_F(OnnxImportError, BadPads) {
  TestModel m = around(3);
  auto& pool = first_node(m, "MaxPool", "/maxpool/MaxPool", {"x"}, {"y"});
  attr_ints(pool, "kernel_shape", {2, 2});
  attr_ints(pool, "pads", {1, 1});
  EXPECT_EQ(error_of(m), at_file("node '/maxpool/MaxPool' (MaxPool): attribute 'pads' = [1,1] must "
                                 "be 4 integers >= 0 [top,left,bottom,right]"));
}

// A non-zero Pad folds into an AveragePool or a Conv reading it; a max pool pads with -inf,
// not zeros, and padding the batch or channels has no reader to fold into.
TEST_F(OnnxImportError, NonZeroPadThatCannotFold) {
  TestModel m = around(3);
  m.int64_initializer("pads", {0, 0, 1, 1, 0, 0, 1, 1});
  auto& pool = first_node(m, "MaxPool", "/maxpool/MaxPool", {"xp"}, {"y"});
  attr_ints(pool, "kernel_shape", {3, 3});
  first_node(m, "Pad", "/pad/Pad", {"x", "pads"}, {"xp"});
  EXPECT_EQ(error_of(m), at_file("node '/pad/Pad' (Pad): pads [0,0,1,1,0,0,1,1] are read by node "
                                 "'/maxpool/MaxPool' (MaxPool); a non-zero Pad folds only into "
                                 "AveragePool and Conv (their input 0)"));
  TestModel c = around(4);
  c.int64_initializer("pads", {0, 1, 0, 0, 0, 0, 0, 0});
  first_node(c, "Pad", "/pad/Pad", {"x", "pads"}, {"y"});
  EXPECT_EQ(error_of(c), at_file("node '/pad/Pad' (Pad): pads [0,1,0,0,0,0,0,0] are not "
                                 "supported: only non-negative padding of H and W of an "
                                 "[N,C,H,W] tensor, read by AveragePool or Conv, which take it "
                                 "as their own padding"));
}

TEST_F(OnnxImportError, UnknownAutoPad) {
  TestModel m = around(3);
  auto& pool = first_node(m, "MaxPool", "/maxpool/MaxPool", {"x"}, {"y"});
  attr_ints(pool, "kernel_shape", {2, 2});
  attr_s(pool, "auto_pad", "SAME");
  EXPECT_EQ(error_of(m),
            at_file("node '/maxpool/MaxPool' (MaxPool): attribute 'auto_pad' = SAME is "
                    "not supported (NOTSET, VALID, SAME_UPPER, SAME_LOWER are)"));
}

TEST_F(OnnxImportError, ThreeDimensionalConv) {
  TestModel m = around(4);
  m.initializer("w", {4, 3, 3});
  first_node(m, "Conv", "/conv/Conv", {"x", "w"}, {"y"});
  EXPECT_EQ(error_of(m), at_file("node '/conv/Conv' (Conv): only 2-D convolutions are supported; "
                                 "the weight 'w' is f32[4,3,3]"));
}

TEST_F(OnnxImportError, InferenceModeBatchNorm) {
  const std::string why =
      " is not supported: the IR's batch_norm is training-mode only. Export with --mode train, "
      "or with --mode eval, where PyTorch folds BatchNormalization into the preceding Conv";
  for (int64_t opset : {17, 13}) {
    TestModel m = around(3, opset);
    for (const char* p : {"s", "b", "m", "v"})
      m.initializer(p, {3});
    auto& bn = first_node(m, "BatchNormalization", "/bn1/BatchNormalization",
                          {"x", "s", "b", "m", "v"}, {"y"});
    if (opset == 17) attr_i(bn, "training_mode", 0);
    EXPECT_EQ(error_of(m),
              at_file("node '/bn1/BatchNormalization' (BatchNormalization): " +
                      std::string(opset == 17 ? "attribute 'training_mode' = 0 "
                                                "(inference mode)"
                                              : "inference mode (no running-statistics "
                                                "outputs)") +
                      why));
  }
}

TEST_F(OnnxImportError, SavedVarianceIsUsed) {
  TestModel m = around(3, 13);
  for (const char* p : {"s", "b", "m", "v"})
    m.initializer(p, {3});
  first_node(m, "BatchNormalization", "/bn", {"x", "s", "b", "m", "v"},
             {"y", "rm", "rv", "sm", "sv"});
  m.node("Relu", "/use", {"sv"}, {"unused"});
  EXPECT_EQ(error_of(m),
            at_file("node '/bn' (BatchNormalization): output 4 ('sv') is used, but the "
                    "IR's batch_norm saves 1/sqrt(var + eps), not the variance"));
}

TEST_F(OnnxImportError, MaxPoolIndicesAreUsed) {
  TestModel m = around(3);
  auto& pool = first_node(m, "MaxPool", "/pool", {"x"}, {"y", "idx"});
  attr_ints(pool, "kernel_shape", {2, 2});
  m.node("Relu", "/use", {"idx"}, {"unused"});
  EXPECT_EQ(error_of(m), at_file("node '/pool' (MaxPool): output 1 ('idx') is used, but the IR's "
                                 "max_pool2d indices (i32, for its backward) are not ONNX's int64 "
                                 "Indices"));
}

TEST_F(OnnxImportError, ComputedReshapeShape) {
  TestModel m = linear_model();
  m.graph().mutable_node(0)->set_input(0, "x2");
  first_node(m, "Reshape", "/reshape", {"x", "x"}, {"x2"});
  EXPECT_EQ(error_of(m), at_file("node '/reshape' (Reshape): input 'x' must be a constant (an "
                                 "initializer or a Constant node output); computed shapes are not "
                                 "supported"));
}

TEST_F(OnnxImportError, ConstantUsedAsATensor) {
  TestModel m = linear_model();
  m.graph().mutable_node(0)->set_input(1, "w");
  auto& c = first_node(m, "Constant", "/Constant", {}, {"w"});
  onnx::AttributeProto* value = c.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  value->mutable_t()->add_int64_data(1);
  EXPECT_EQ(error_of(m), at_file("node '/fc/Gemm' (Gemm): input 'w' is a constant (INT64 shape or "
                                 "Constant node output) but is used as a tensor; only FLOAT "
                                 "initializers can be tensors"));
}

}  // namespace
}  // namespace s2::onnx_import::testing
