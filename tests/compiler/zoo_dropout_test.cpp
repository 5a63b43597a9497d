// The transformers' dropout (ModelOptions::dropout and attention_dropout): one mask per
// Hugging Face (or torchvision) dropout module, named by its path, at the given ratio, on the
// tensor that module drops; none at all by default; and the errors for bad probabilities.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "compiler/zoo/zoo.h"
#include "isa/common/errors.h"

namespace s2::zoo {
namespace {

using ir::Graph;
using ir::OpType;

ModelOptions with_dropout(double hidden, double attention) {
  ModelOptions o;
  o.batch = 2;
  o.dropout = hidden;
  o.attention_dropout = attention;
  return o;
}

// Each dropout layer (the op named `name` multiplying by the mask `name`.mask) -> its ratio.
std::map<std::string, double> dropout_ratios(const Graph& g) {
  std::map<std::string, double> out;
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const ir::Op& op = g.op(ir::OpId(i));
    if (op.type != OpType::DropoutMask) continue;
    const std::string layer = op.name.substr(0, op.name.size() - std::string(".mask").size());
    EXPECT_EQ(op.name, layer + ".mask");
    out[layer] = op.attrs.f("ratio");
  }
  return out;
}

// The op that computes t, looking through reshapes (the views row_gemm takes of its rows).
ir::OpId source(const Graph& g, ir::TensorId t) {
  ir::OpId p = g.tensor(t).producer;
  while (p.valid() && g.op(p).type == OpType::Reshape)
    p = g.tensor(g.op(p).inputs.at(0)).producer;
  return p;
}

// The op `layer` multiplies `dropped`'s output by the mask, and the output of `layer` is what
// the op `reader` reads (both through reshapes).
void expect_drops(const Graph& g, const std::string& layer, const std::string& dropped,
                  const std::string& reader) {
  const ir::OpId mul = g.find_op(layer);
  ASSERT_TRUE(mul.valid()) << layer;
  const ir::Op& op = g.op(mul);
  EXPECT_EQ(op.type, OpType::Mul) << layer;
  EXPECT_EQ(source(g, op.inputs.at(0)), g.find_op(dropped)) << layer;
  EXPECT_EQ(g.tensor(op.inputs.at(1)).producer, g.find_op(layer + ".mask")) << layer;
  bool read = false;
  for (ir::TensorId t : g.op(g.find_op(reader)).inputs)
    read = read || source(g, t) == mul;
  EXPECT_TRUE(read) << reader << " does not read " << layer;
}

TEST(ZooDropout, NoneByDefault) {
  for (const char* model : {"gpt", "bert", "vit"})
    EXPECT_TRUE(dropout_ratios(build_model(model, with_dropout(0.0, 0.0))).empty()) << model;
}

TEST(ZooDropout, GptHasGpt2sDropoutModules) {
  const Graph g = build_model("gpt", with_dropout(0.1, 0.25));
  const std::map<std::string, double> expected{{"transformer.drop", 0.1},
                                               {"transformer.h.0.attn.attn_dropout", 0.25},
                                               {"transformer.h.0.attn.resid_dropout", 0.1},
                                               {"transformer.h.0.mlp.dropout", 0.1},
                                               {"transformer.h.1.attn.attn_dropout", 0.25},
                                               {"transformer.h.1.attn.resid_dropout", 0.1},
                                               {"transformer.h.1.mlp.dropout", 0.1}};
  EXPECT_EQ(dropout_ratios(g), expected);
  expect_drops(g, "transformer.drop", "transformer.embed", "transformer.h.0.ln_1");
  expect_drops(g, "transformer.h.1.attn.attn_dropout", "transformer.h.1.attn.softmax",
               "transformer.h.1.attn.context");
  expect_drops(g, "transformer.h.1.attn.resid_dropout", "transformer.h.1.attn.c_proj",
               "transformer.h.1.attn.residual");
  expect_drops(g, "transformer.h.0.mlp.dropout", "transformer.h.0.mlp.c_proj",
               "transformer.h.0.mlp.residual");
  // The mask of the probabilities has their [N, heads, T, T] shape.
  EXPECT_EQ(g.op(g.find_op("transformer.h.0.attn.attn_dropout.mask")).attrs.ints("shape"),
            (std::vector<int64_t>{2, 4, 32, 32}));
}

TEST(ZooDropout, BertHasBertsDropoutModules) {
  const Graph g = build_model("bert", with_dropout(0.1, 0.1));
  EXPECT_EQ(dropout_ratios(g).size(), 7u);  // the embeddings' and three per layer
  expect_drops(g, "bert.embeddings.dropout", "bert.embeddings.LayerNorm",
               "bert.encoder.layer.0.attention.self.query");
  const std::string layer = "bert.encoder.layer.1";
  expect_drops(g, layer + ".attention.self.dropout", layer + ".attention.self.softmax",
               layer + ".attention.self.context");
  expect_drops(g, layer + ".attention.output.dropout", layer + ".attention.output.dense",
               layer + ".attention.output.residual");
  expect_drops(g, layer + ".output.dropout", layer + ".output.dense", layer + ".output.residual");
}

TEST(ZooDropout, VitHasTorchvisionsDropoutModules) {
  ModelOptions o = with_dropout(0.1, 0.2);
  o.height = o.width = 32;
  const Graph g = build_model("vit", o);
  const std::string layer = "encoder.layers.encoder_layer_1";
  const std::map<std::string, double> ratios = dropout_ratios(g);
  EXPECT_EQ(ratios.size(), 9u);  // the encoder's and four per layer
  EXPECT_DOUBLE_EQ(ratios.at(layer + ".self_attention:Dropout"), 0.2);
  expect_drops(g, "encoder.dropout", "encoder.embed", "encoder.layers.encoder_layer_0.ln_1");
  expect_drops(g, layer + ".self_attention:Dropout", layer + ".self_attention.softmax",
               layer + ".self_attention.context");
  expect_drops(g, layer + ".dropout", layer + ".self_attention.out_proj", layer + ".residual");
  expect_drops(g, layer + ".mlp.2", layer + ".mlp.1", layer + ".mlp.3");
  expect_drops(g, layer + ".mlp.4", layer + ".mlp.3", layer + ".residual_2");
}

TEST(ZooDropout, ProbabilitiesAreChecked) {
  auto error = [](const std::string& model, double hidden, double attention) {
    try {
      build_model(model, with_dropout(hidden, attention));
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error("gpt", 1.0, 0.0).find("--dropout: 1 is not a probability in [0, 1)"),
            std::string::npos);
  EXPECT_NE(error("bert", 0.0, -0.5).find("--attention-dropout: -0.5 is not a probability"),
            std::string::npos);
  EXPECT_NE(error("resnet18", 0.1, 0.0).find("model 'resnet18' is not a transformer"),
            std::string::npos);
  EXPECT_EQ(error("mlp", 0.0, 0.0), "(no error)");
}

}  // namespace
}  // namespace s2::zoo
