// The ONNX importer's Dropout: in training mode (training_mode a constant true) it becomes
// mul(x, dropout_mask) with the ratio of the node and a seed derived from the import's seed;
// in inference mode the identity; what it cannot honour (a seed attribute, a used mask output,
// a ratio outside [0, 1)) is an error naming the node.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/ir/verifier.h"
#include "compiler/onnx/onnx_import.h"
#include "compiler/ops/dropout.h"
#include "isa/common/errors.h"
#include "tests/compiler/onnx_error_fixture.h"
#include "tests/compiler/onnx_test_model.h"

namespace s2::onnx_import {
namespace {

using testing::TestModel;

class OnnxDropout : public testing::OnnxImportError {
 protected:
  // x[2,6] -> Dropout(x, ratio, training) -> y -> Gemm(fc.weight [3,6]) -> logits
  TestModel model(float ratio, bool training, bool with_mode = true) {
    TestModel m;
    m.input("x", {2, 6});
    m.initializer("fc.weight", {3, 6});
    m.initializer("ratio", {}, {ratio});
    std::vector<std::string> inputs = {"x", "ratio"};
    if (with_mode) {
      onnx::TensorProto& mode = *m.graph().add_initializer();
      mode.set_name("training_mode");
      mode.set_data_type(onnx::TensorProto::BOOL);
      mode.set_raw_data(std::string(1, training ? '\1' : '\0'));
      inputs.push_back("training_mode");
    }
    m.node("Dropout", "/drop/Dropout", inputs, {"y"});
    testing::attr_i(m.node("Gemm", "fc", {"y", "fc.weight"}, {"logits"}), "transB", 1);
    m.output("logits", {2, 3});
    return m;
  }
  ir::Graph import(TestModel& m, uint64_t seed = 0) {
    m.write(path_);
    OnnxImportOptions options;
    options.seed = seed;
    ir::Graph g = import_onnx(path_, options);
    EXPECT_EQ(ir::verify_graph(g), std::vector<std::string>{});
    return g;
  }
};

const ir::Op& gemm_input_producer(const ir::Graph& g) {
  const ir::Op& fc = g.op(g.find_op("fc"));
  return g.op(g.tensor(fc.inputs.at(0)).producer);
}

TEST_F(OnnxDropout, TrainingModeMultipliesByAMaskDrawnOnTheAccelerator) {
  TestModel m = model(0.25f, true);
  const ir::Graph g = import(m, 11);
  const ir::Op& mul = gemm_input_producer(g);
  ASSERT_EQ(mul.type, ir::OpType::Mul);
  EXPECT_EQ(mul.inputs.at(0), g.find_tensor("x"));
  const ir::Op& draw = g.op(g.tensor(mul.inputs.at(1)).producer);
  ASSERT_EQ(draw.type, ir::OpType::DropoutMask);
  EXPECT_EQ(draw.attrs.f("ratio"), 0.25);
  EXPECT_EQ(draw.attrs.ints("shape"), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(draw.attrs.i("seed"), int64_t{ir::dropout_seed(11, "/drop/Dropout")});
}

// Stochastic depth as scripts/export_onnx.py exports it: x * Dropout(ones [2,1], p) is the
// mask itself, of the constant's shape, broadcast over the features.
TEST_F(OnnxDropout, DropoutOfOnesIsAStochasticDepthMask) {
  TestModel m;
  m.input("x", {2, 6});
  m.initializer("fc.weight", {3, 6});
  m.initializer("ratio", {}, {0.25f});
  onnx::TensorProto& mode = *m.graph().add_initializer();
  mode.set_name("training_mode");
  mode.set_data_type(onnx::TensorProto::BOOL);
  mode.set_raw_data(std::string(1, '\1'));
  onnx::AttributeProto& value = *m.node("Constant", "/sd/Constant", {}, {"ones"}).add_attribute();
  value.set_name("value");
  value.set_type(onnx::AttributeProto::TENSOR);
  onnx::TensorProto& ones = *value.mutable_t();
  ones.set_data_type(onnx::TensorProto::FLOAT);
  ones.add_dims(2);
  ones.add_dims(1);
  ones.add_float_data(1.0f);
  ones.add_float_data(1.0f);
  m.node("Dropout", "/sd/Dropout", {"ones", "ratio", "training_mode"}, {"mask"});
  m.node("Mul", "/sd/Mul", {"x", "mask"}, {"y"});
  testing::attr_i(m.node("Gemm", "fc", {"y", "fc.weight"}, {"logits"}), "transB", 1);
  m.output("logits", {2, 3});
  const ir::Graph g = import(m);
  const ir::Op& mul = g.op(g.find_op("/sd/Mul"));
  const ir::Tensor& mask = g.tensor(mul.inputs.at(1));
  EXPECT_EQ(mask.strides, (std::vector<int64_t>{1, 0}));  // [2,1] expanded to [2,6]
  const ir::Op& expand = g.op(mask.producer);
  const ir::Op& draw = g.op(g.tensor(expand.inputs.at(0)).producer);
  ASSERT_EQ(draw.type, ir::OpType::DropoutMask);
  EXPECT_EQ(draw.attrs.ints("shape"), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(draw.attrs.f("ratio"), 0.25);

  ones.set_float_data(1, 0.5f);  // not all ones
  m.graph().mutable_node(0)->mutable_attribute(0)->mutable_t()->set_float_data(1, 0.5f);
  EXPECT_NE(error_of(m).find("node '/sd/Dropout' (Dropout): input 0 is a constant that is not "
                             "all ones"),
            std::string::npos)
      << error_of(m);
}

TEST_F(OnnxDropout, InferenceModeIsTheIdentity) {
  for (bool with_mode : {true, false}) {
    TestModel m = model(0.5f, false, with_mode);
    const ir::Graph g = import(m);
    EXPECT_EQ(g.op(g.find_op("fc")).inputs.at(0), g.find_tensor("x")) << with_mode;
  }
}

TEST_F(OnnxDropout, WhatCannotBeHonouredIsAnError) {
  TestModel seeded = model(0.5f, true);
  testing::attr_i(*seeded.graph().mutable_node(0), "seed", 3);
  EXPECT_NE(error_of(seeded).find("node '/drop/Dropout' (Dropout): attribute 'seed'"),
            std::string::npos)
      << error_of(seeded);
  TestModel one = model(1.0f, true);
  EXPECT_NE(error_of(one).find("node '/drop/Dropout' (Dropout): ratio 1.000000 is outside [0, 1)"),
            std::string::npos)
      << error_of(one);
  TestModel masked = model(0.5f, true);
  masked.graph().mutable_node(0)->add_output("mask");
  masked.node("Identity", "/use/Identity", {"mask"}, {"m"});
  EXPECT_NE(error_of(masked).find("node '/drop/Dropout' (Dropout): output 1 ('mask') is used"),
            std::string::npos)
      << error_of(masked);
}

}  // namespace
}  // namespace s2::onnx_import
