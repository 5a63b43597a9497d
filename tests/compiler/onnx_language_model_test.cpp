// What the ONNX importer makes of the transformers PyTorch exports (scripts/export_onnx.py gpt,
// vit): token ids as the input, Gather from a weight table as an embedding (of the ids, or of
// constant position ids), the next-token loss on [N,T,vocab] logits, GPT-2's causal
// masked_fill (a BOOL triangle, Not, Where with -inf) as an additive mask, ViT's class-token
// expand (ConstantOfShape, Equal and Where folded into the target shape) and x[:, 0] as a
// slice. Values through the interpreter, and the errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "compiler/interp/interpreter.h"
#include "compiler/onnx/onnx_import.h"
#include "tests/compiler/onnx_error_fixture.h"
#include "tests/compiler/onnx_test_model.h"

namespace s2::onnx_import {
namespace {

using testing::TestModel;

using OnnxLanguageModel = testing::OnnxImportError;

constexpr int64_t kBatch = 2, kSeq = 4, kVocab = 10, kWidth = 6;

// A Constant node whose value is `t`.
void constant(TestModel& m, const std::string& out, const onnx::TensorProto& t) {
  onnx::AttributeProto* a = m.node("Constant", "/" + out, {}, {out}).add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = t;
}

onnx::TensorProto int64s(const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims)
    t.add_dims(d);
  for (int64_t v : values)
    t.add_int64_data(v);
  return t;
}

onnx::TensorProto float_scalar(float v) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_float_data(v);
  return t;
}

// GPT-2 as exported, minus the blocks: ids [2,4] int64 -> wte(ids) + wpe(arange(4)) -> h,
// then h @ wte^T -> logits [2,4,10], the LM head tied to the token embedding.
// With `flat_output` the logits are reshaped to [N*T, vocab] before the output.
TestModel language_model(std::vector<testing::Dim> ids = {kBatch, kSeq}, bool flat_output = false) {
  TestModel m;
  m.input("input_ids", ids, onnx::TensorProto::INT64);
  m.initializer("transformer.wte.weight", {kVocab, kWidth});
  m.initializer("transformer.wpe.weight", {kSeq, kWidth});
  constant(m, "positions", int64s({kSeq}, {0, 1, 2, 3}));
  m.node("Gather", "/wte/Gather", {"transformer.wte.weight", "input_ids"}, {"tok"});
  m.node("Gather", "/wpe/Gather", {"transformer.wpe.weight", "positions"}, {"pos"});
  m.node("Add", "/Add", {"tok", "pos"}, {"h"});
  testing::attr_ints(m.node("Transpose", "/Transpose", {"transformer.wte.weight"}, {"wte_t"}),
                     "perm", {1, 0});
  if (!flat_output) {
    m.node("MatMul", "/MatMul", {"h", "wte_t"}, {"logits"});
    m.output("logits", {kBatch, kSeq, kVocab});
    return m;
  }
  m.node("MatMul", "/MatMul", {"h", "wte_t"}, {"scores"});
  constant(m, "flat_shape", int64s({2}, {kBatch * kSeq, kVocab}));
  m.node("Reshape", "/Reshape", {"scores", "flat_shape"}, {"logits"});
  m.output("logits", {kBatch * kSeq, kVocab});
  return m;
}

size_t count_ops(const ir::Graph& g, ir::OpType type) {
  size_t n = 0;
  for (size_t i = 0; i < g.num_ops(); ++i)
    if (g.op(ir::OpId(i)).type == type) ++n;
  return n;
}

// The token ids become an i32 input drawn in [0, vocabulary); both Gathers are embeddings
// (wpe's of constant ids 0..T-1); the labels are the ids shifted by one with -100 closing each
// sequence; the loss is the cross-entropy of the [N*T, vocab] rows.
TEST_F(OnnxLanguageModel, TokenIdsTrainANextTokenLoss) {
  const ir::Graph g = imported(language_model());
  const ir::Tensor& ids = g.tensor(g.find_tensor("input_ids"));
  EXPECT_EQ(ids.dtype, ir::DType::I32);
  EXPECT_EQ(ids.shape, (ir::Shape{kBatch, kSeq}));
  EXPECT_EQ(g.data(ids.data).role, isa::TensorRole::Input);
  EXPECT_EQ(count_ops(g, ir::OpType::Embedding), 2u);
  const std::vector<int32_t> id_values = g.data(ids.data).init->i32();
  bool varied = false;
  for (int32_t v : id_values) {
    EXPECT_GE(v, 0);
    EXPECT_LT(v, kVocab);
    varied = varied || v != id_values[0];
  }
  EXPECT_TRUE(varied);
  const ir::Tensor& labels = g.tensor(g.find_tensor("labels"));
  EXPECT_EQ(g.data(labels.data).role, isa::TensorRole::Label);
  const std::vector<int32_t> label_values = g.data(labels.data).init->i32();
  for (size_t k = 0; k < label_values.size(); ++k)
    EXPECT_EQ(label_values[k], k % kSeq + 1 < kSeq ? id_values[k + 1] : -100) << k;
  const ir::Op& loss = g.op(g.tensor(g.loss()).producer);
  EXPECT_EQ(loss.type, ir::OpType::SoftmaxCe);
  EXPECT_EQ(g.tensor(loss.inputs[0]).shape, (ir::Shape{kBatch * kSeq, kVocab}));

  // The loss is the mean next-token cross-entropy of h wte^T over the labelled positions.
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> wte = it.value(g.find_tensor("transformer.wte.weight")).f32();
  const std::vector<float> wpe = it.value(g.find_tensor("transformer.wpe.weight")).f32();
  double total = 0.0;
  int counted = 0;
  for (size_t k = 0; k < id_values.size(); ++k) {
    if (label_values[k] < 0) continue;
    std::vector<double> z(kVocab, 0.0);
    double top = -1e300;
    for (size_t v = 0; v < kVocab; ++v) {
      for (size_t d = 0; d < kWidth; ++d)
        z[v] += (double{wte[static_cast<size_t>(id_values[k]) * kWidth + d]} +
                 double{wpe[(k % kSeq) * kWidth + d]}) *
                double{wte[v * kWidth + d]};
      top = std::max(top, z[v]);
    }
    double sum = 0.0;
    for (double zv : z)
      sum += std::exp(zv - top);
    total += top + std::log(sum) - z[static_cast<size_t>(label_values[k])];
    ++counted;
  }
  EXPECT_NEAR(it.value(g.loss()).f32()[0], total / counted, 1e-5);
}

// A sequence length left symbolic is an error naming the input and the dimension.
TEST_F(OnnxLanguageModel, DynamicSequenceLengthIsAnError) {
  EXPECT_EQ(error_of(language_model({kBatch, "sequence"})),
            at_file("input 'input_ids' dimension 1 is symbolic ('sequence'); export the model "
                    "with static shapes"));
}

TEST_F(OnnxLanguageModel, ImageFlagsDoNotApplyToTokenIds) {
  OnnxImportOptions options;
  options.height = options.width = 32;
  EXPECT_EQ(error_of(language_model(), options),
            at_file("input 'input_ids' holds token ids; --channels and --image do not apply"));
}

TEST_F(OnnxLanguageModel, LogitsMustKeepTheSequence) {
  EXPECT_EQ(error_of(language_model({kBatch, kSeq}, true)),
            at_file("output 'logits' is f32[8,10]; a language model's logits must be "
                    "[N,T,vocab] for token ids i32[2,4]"));
}

// GPT-2's masked_fill(~ones(T, T, bool).tril(), -inf) before the softmax: folded into an
// additive mask, 0 on and below the diagonal and -inf above, so the softmax is causal.
TEST_F(OnnxLanguageModel, CausalMaskedFillIsAnAdditiveMask) {
  TestModel m = testing::around(3);
  onnx::TensorProto ones;
  ones.set_data_type(onnx::TensorProto::BOOL);
  ones.add_dims(8);
  ones.add_dims(8);
  ones.set_raw_data(std::string(64, '\1'));
  constant(m, "ones", ones);
  constant(m, "fill", float_scalar(-std::numeric_limits<float>::infinity()));
  testing::attr_i(m.node("Trilu", "/Trilu", {"ones"}, {"tril"}), "upper", 0);
  m.node("Not", "/Not", {"tril"}, {"above"});
  testing::attr_i(m.node("Cast", "/Cast", {"above"}, {"cond"}), "to", onnx::TensorProto::BOOL);
  m.node("Where", "/Where", {"cond", "fill", "x"}, {"masked"});
  testing::attr_i(m.node("Softmax", "/Softmax", {"masked"}, {"y"}), "axis", -1);
  // Around's nodes read y: move ours to the front, in order.
  auto* nodes = m.graph().mutable_node();
  for (int k = 0; k < 7; ++k)
    for (int i = nodes->size() - 1; i > 0; --i)
      nodes->SwapElements(i, i - 1);
  const ir::Graph g = imported(m);
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> y = it.value(g.find_tensor("/Softmax")).f32();
  for (size_t row = 0; row < 2 * 3 * 8; ++row)
    for (size_t j = 0; j < 8; ++j) {
      if (j > row % 8) {
        EXPECT_EQ(y[row * 8 + j], 0.0f) << row << " " << j;
      } else {
        EXPECT_GT(y[row * 8 + j], 0.0f) << row << " " << j;
      }
    }
}

TEST_F(OnnxLanguageModel, FiniteMaskFillIsAnError) {
  TestModel m = testing::around(3);
  testing::first_node(m, "Where", "/Where", {"cond", "fill", "x"}, {"y"});
  testing::first_node(m, "Cast", "/Cast", {"mask"}, {"cond"});
  testing::attr_i(*m.graph().mutable_node(0), "to", onnx::TensorProto::BOOL);
  onnx::TensorProto mask = int64s({8}, {0, 0, 0, 0, 1, 1, 1, 1});
  constant(m, "fill", float_scalar(-10000.0f));
  constant(m, "mask", mask);
  auto* nodes = m.graph().mutable_node();
  for (int k = 0; k < 2; ++k)
    for (int i = nodes->size() - 1; i > 0; --i)
      nodes->SwapElements(i, i - 1);
  EXPECT_EQ(error_of(m), at_file("node '/Where' (Where): fills with -10000.000000; only a mask "
                                 "filling with -inf (or at most -1e30) is supported, as the "
                                 "additive mask of a softmax"));
}

// ViT's class token, expand(n, -1, -1) as exported: the target shape [2,-1,-1] has each -1
// replaced by 1 through ConstantOfShape, Mul, Equal and Where, all folded; the Expand is a
// stride-0 view; x[:, 0] (Gather of index 0 on axis 1) is a slice and a reshape.
TEST_F(OnnxLanguageModel, ClassTokenExpandAndFirstTokenSlice) {
  TestModel m;
  m.input("x", {2, 3, 6});
  m.initializer("class_token", {1, 1, 6});
  m.initializer("fc.weight", {4, 6});
  constant(m, "target", int64s({3}, {2, -1, -1}));
  constant(m, "three", int64s({1}, {3}));
  onnx::TensorProto one = int64s({1}, {1});
  onnx::NodeProto& cos = m.node("ConstantOfShape", "/ConstantOfShape", {"three"}, {"ones"});
  onnx::AttributeProto* value = cos.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  *value->mutable_t() = one;
  constant(m, "minus_one", int64s({}, {-1}));
  m.node("Mul", "/Mul", {"ones", "minus_one"}, {"negative"});
  m.node("Equal", "/Equal", {"target", "negative"}, {"is_free"});
  m.node("Where", "/Where", {"is_free", "ones", "target"}, {"shape"});
  m.node("Expand", "/Expand", {"class_token", "shape"}, {"cls"});
  testing::attr_i(m.node("Concat", "/Concat", {"cls", "x"}, {"seq"}), "axis", 1);
  constant(m, "zero", int64s({}, {0}));
  testing::attr_i(m.node("Gather", "/Gather", {"seq", "zero"}, {"first"}), "axis", 1);
  testing::attr_i(m.node("Gemm", "/fc/Gemm", {"first", "fc.weight"}, {"logits"}), "transB", 1);
  m.output("logits", {2, 4});
  const ir::Graph g = imported(m);
  const ir::Tensor& cls = g.tensor(g.find_tensor("/Expand/expand_input"));
  EXPECT_EQ(cls.shape, (ir::Shape{2, 1, 6}));
  EXPECT_EQ(cls.strides, (ir::Shape{0, 6, 1}));
  EXPECT_EQ(g.op(g.find_op("/Gather/slice")).type, ir::OpType::Slice);
  ir::Interpreter it(g);
  it.run();
  const std::vector<float> token = it.value(g.find_tensor("class_token")).f32();
  const std::vector<float> first = it.value(g.find_tensor("/Gather")).f32();
  ASSERT_EQ(first.size(), 12u);
  for (size_t i = 0; i < first.size(); ++i)
    EXPECT_EQ(first[i], token[i % 6]) << i;
}

// A model whose classifier ignores a ConstantOfShape of `dims` ones (INT64), after `before`
// adds nodes of its own.
TestModel with_constant_of_shape(const std::vector<int64_t>& dims,
                                 const std::function<void(TestModel&)>& before = {}) {
  TestModel m;
  m.input("x", {2, 6});
  m.initializer("fc.weight", {4, 6});
  if (before) before(m);
  constant(m, "huge", int64s({static_cast<int64_t>(dims.size())}, dims));
  onnx::NodeProto& cos = m.node("ConstantOfShape", "/ConstantOfShape", {"huge"}, {"ones"});
  onnx::AttributeProto* value = cos.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  *value->mutable_t() = int64s({1}, {1});
  testing::attr_i(m.node("Gemm", "/fc/Gemm", {"x", "fc.weight"}, {"logits"}), "transB", 1);
  m.output("logits", {2, 4});
  return m;
}

// Issue 19 point 4: a ConstantOfShape is materialised by the importer, so a few bytes of
// shape must not ask for unbounded memory (or overflow the count): refused before allocating,
// naming the node and the limit.
TEST_F(OnnxLanguageModel, ConstantOfShapeBeyondTheLimitIsAnError) {
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{1 << 20, 1 << 20}, std::vector<int64_t>{int64_t{1} << 40, 1 << 30}}) {
    const TestModel m = with_constant_of_shape(dims);
    EXPECT_EQ(error_of(m),
              at_file("node '/ConstantOfShape' (ConstantOfShape): shape " + ir::ints_text(dims) +
                      " has more than 268435456 elements, the limit for a constant "
                      "the importer builds"));
  }
}

// Issue 19 point 4: the constants an import builds are limited together, not only one by one,
// so a chain of a few nodes cannot ask for unbounded memory; the count is checked before the
// constant is built (here 2^28 elements after the 2 of a folded Concat).
TEST_F(OnnxLanguageModel, ConstantsTheImportBuildsAreLimitedTogether) {
  const TestModel m = with_constant_of_shape({int64_t{1} << 28}, [](TestModel& model) {
    constant(model, "a", int64s({1}, {3}));
    testing::attr_i(model.node("Concat", "/Concat", {"a", "a"}, {"pair"}), "axis", 0);
  });
  EXPECT_EQ(error_of(m), at_file("node '/ConstantOfShape' (ConstantOfShape): builds a constant "
                                 "of 268435456 elements after 2 already: the constants an "
                                 "import builds may hold 268435456 elements together"));
}

}  // namespace
}  // namespace s2::onnx_import
