// bert and bert-base: a BERT encoder trained on the masked-LM objective, with Hugging Face's
// BertForMaskedLM state_dict names (scripts/bert_model.py defines the same module in plain
// PyTorch):
//
//   bert.embeddings: word_embeddings [vocab, D], position_embeddings [P, D],
//                    token_type_embeddings [2, D] (every token is of type 0), summed, then
//                    LayerNorm
//   bert.encoder.layer.<i>: attention.self.{query, key, value} (D -> D each), self-attention
//                    over `heads` heads (with the padding mask when ModelOptions::
//                    attention_mask asks for one), attention.output.dense (D -> D),
//                    residual add, attention.output.LayerNorm (post-norm);
//                    intermediate.dense (D -> 4D), GELU (erf form), output.dense (4D -> D),
//                    residual add, output.LayerNorm
//   cls.predictions: transform.dense (D -> D), GELU, transform.LayerNorm, then the decoder,
//                    tied to bert.embeddings.word_embeddings, plus cls.predictions.bias [vocab]
//
// The loss is the cross-entropy over the masked positions (ModelBuilder::masked_lm_labels: the
// others are -100, ignored). Linear layers are nn.Linear (weight [out, in]); layer norms use
// eps 1e-12. Initialisation is BERT's: weights and embeddings N(0, 0.02), biases 0, layer norms
// 1 and 0. No pooler and no next-sentence head.
//
// Dropout as in BERT when ModelOptions::dropout (hidden_dropout_prob) or attention_dropout
// (attention_probs_dropout_prob) is not 0, at Hugging Face's module paths:
// bert.embeddings.dropout after the embeddings' LayerNorm, <layer>.attention.self.dropout on
// the attention probabilities, <layer>.attention.output.dropout and <layer>.output.dropout on
// each dense output before its residual add. Without them (the default) there is no dropout op.

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "compiler/zoo/models.h"

namespace s2::zoo {
namespace {

using ir::Attrs;
using ir::OpCategory;
using ir::OpType;
using ir::TensorId;
using Ints = std::vector<int64_t>;

constexpr float kStd = 0.02f;
constexpr double kLnEps = 1e-12;

// A constant i32 [n] of zeros: every token's type id.
TensorId token_types(ModelBuilder& b, int64_t n) {
  return b.graph().add_parameter(
      b.graph().unique_name("token_type_ids"), ir::TensorRole::Scratch, ir::DType::I32, {n},
      std::make_shared<ir::HostArray>(std::vector<int32_t>(static_cast<size_t>(n), 0)), true);
}

// An embedding of one id per position [T, D], broadcast over the batch to [N, T, D].
TensorId per_position(ModelBuilder& b, const std::string& path, TensorId ids, int64_t rows) {
  const int64_t n = b.options().batch, t = b.options().lm.seq_len, d = b.options().lm.width;
  const TensorId e = b.embedding(path, ids, rows, d, kStd);
  return b.graph().add(OpType::Expand, b.graph().unique_name(path + ".expand"), OpCategory::Forward,
                       {b.reshape(path + ".batch", e, {1, t, d})}, Attrs{{"shape", Ints{n, t, d}}});
}

// Multi-head self-attention of layer `path` on x [N, T, D], up to the output dense layer.
TensorId self_attention(ModelBuilder& b, const std::string& path, TensorId x) {
  const LmShape& s = b.options().lm;
  auto projection = [&](const char* name) {
    const std::string dense = path + ".self." + name;
    return std::pair{dense, b.dense(dense, x, s.width, kStd)};
  };
  const TensorId rows = b.attention(
      path + ".self", {projection("query"), projection("key"), projection("value")}, s.heads,
      {false, b.padding_mask(), b.options().attention_dropout, path + ".self.dropout"});
  return b.dropout(path + ".output.dropout", b.dense(path + ".output.dense", rows, s.width, kStd),
                   b.options().dropout);
}

}  // namespace

void build_bert(ModelBuilder& b) {
  const LmShape& s = b.options().lm;
  const int64_t n = b.options().batch, t = s.seq_len, d = s.width;
  ir::Graph& g = b.graph();
  const TensorId ids = b.token_ids();
  const TensorId labels = b.masked_lm_labels(ids);
  const std::string emb = "bert.embeddings";
  const TensorId words = b.embedding(emb + ".word_embeddings", ids, s.vocab, d, kStd);
  const TensorId word_table = g.op(g.tensor(words).producer).inputs[0];
  const TensorId positions =
      per_position(b, emb + ".position_embeddings", b.positions("position_ids", t), s.positions);
  const TensorId types = per_position(b, emb + ".token_type_embeddings", token_types(b, t), 2);
  TensorId h = b.dropout(
      emb + ".dropout",
      b.layer_norm(emb + ".LayerNorm",
                   b.add(emb + ".sum_2", b.add(emb + ".sum", words, positions), types), kLnEps),
      b.options().dropout);
  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string layer = "bert.encoder.layer." + std::to_string(i);
    const TensorId attended = self_attention(b, layer + ".attention", h);
    h = b.layer_norm(layer + ".attention.output.LayerNorm",
                     b.add(layer + ".attention.output.residual", attended, h), kLnEps);
    const TensorId up =
        b.activation(layer + ".intermediate.act",
                     b.dense(layer + ".intermediate.dense", h, 4 * d, kStd), "gelu");
    const TensorId down =
        b.dropout(layer + ".output.dropout", b.dense(layer + ".output.dense", up, d, kStd),
                  b.options().dropout);
    h = b.layer_norm(layer + ".output.LayerNorm", b.add(layer + ".output.residual", down, h),
                     kLnEps);
  }
  const std::string head = "cls.predictions";
  const TensorId transformed = b.layer_norm(
      head + ".transform.LayerNorm",
      b.activation(head + ".transform.act", b.dense(head + ".transform.dense", h, d, kStd), "gelu"),
      kLnEps);
  // The decoder shares the word embedding: logits [N*T, vocab] = h E^T + bias.
  const TensorId bias = b.filled(head + ".bias", ir::TensorRole::Weight, s.vocab, 0.0f);
  const TensorId rows = b.reshape(head + ".rows", transformed, {n * t, d});
  const TensorId logits = g.add(OpType::Gemm, g.unique_name(head + ".decoder"), OpCategory::Forward,
                                {rows, word_table, bias}, Attrs{{"trans_b", int64_t{1}}});
  b.loss(logits, b.reshape("labels.flat", labels, {n * t}));
}

}  // namespace s2::zoo
