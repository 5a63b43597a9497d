// gpt and gpt2-small: a decoder-only transformer language model in GPT-2's layout, with
// Hugging Face's GPT2LMHeadModel state_dict names (scripts/gpt_model.py defines the same
// module in plain PyTorch):
//
//   transformer.wte  token embedding [vocab, D]      transformer.wpe  position embedding [P, D]
//   transformer.h.<i>: ln_1, attn.c_attn (D -> 3D: q, k, v), causal self-attention over
//                      `heads` heads, attn.c_proj (D -> D), residual add;
//                      ln_2, mlp.c_fc (D -> 4D), GELU (tanh form, GPT-2's gelu_new),
//                      mlp.c_proj (4D -> D), residual add
//   transformer.ln_f   final layer norm
//   lm_head            tied to transformer.wte: logits = h wte^T (no parameter of its own)
//
// The loss is the next-token cross-entropy over every position, labels [N, T] with -100
// (ignored) where there is no next token. Linear layers are Conv1D (weight [in, out]).
// Initialisation is GPT-2's: weights N(0, 0.02), the residual projections (c_proj)
// N(0, 0.02 / sqrt(2 * layers)), biases 0, layer norms 1 and 0.
//
// Dropout as in GPT-2 when ModelOptions::dropout (resid_pdrop and embd_pdrop) or
// attention_dropout (attn_pdrop) is not 0, at Hugging Face's module paths: transformer.drop
// on the summed embeddings, transformer.h.<i>.attn.attn_dropout on the attention
// probabilities, transformer.h.<i>.attn.resid_dropout and transformer.h.<i>.mlp.dropout on
// each branch before its residual add. Without them (the default) there is no dropout op.
//
// With ModelOptions::attention_mask the softmax also adds the padding mask
// (ModelBuilder::padding_mask, Hugging Face's extended_attention_mask) to the causal scores.
//
// Attention is bmm over views: the head split of q, k, v and the transpose of k are strides
// (k is read with trans_b), the scale and the causal mask are the softmax's own attributes,
// and only the merge of the heads back to [N*T, D] is a copy (which pass elide-copies turns
// into P.V writing in that order).

#include <cmath>
#include <string>

#include "compiler/zoo/models.h"

namespace s2::zoo {
namespace {

using ir::Attrs;
using ir::OpCategory;
using ir::OpType;
using ir::TensorId;
using Ints = std::vector<int64_t>;

constexpr float kStd = 0.02f;
constexpr double kLnEps = 1e-5;

// Causal multi-head self-attention of block `path` on x [N, T, D].
TensorId attention(ModelBuilder& b, const std::string& path, TensorId x) {
  const LmShape& s = b.options().lm;
  const int64_t d = s.width;
  const TensorId qkv = b.conv1d(path + ".c_attn", x, 3 * d, kStd);
  const TensorId rows =
      b.attention(path, b.split_qkv(path, qkv), s.heads,
                  {true, b.padding_mask(), b.options().attention_dropout, path + ".attn_dropout"});
  const float proj_std = kStd / std::sqrt(2.0f * static_cast<float>(s.layers));
  return b.dropout(path + ".resid_dropout", b.conv1d(path + ".c_proj", rows, d, proj_std),
                   b.options().dropout);
}

TensorId mlp(ModelBuilder& b, const std::string& path, TensorId x) {
  const LmShape& s = b.options().lm;
  const TensorId up = b.conv1d(path + ".c_fc", x, 4 * s.width, kStd);
  const TensorId act = b.activation(path + ".act", up, "gelu_tanh");
  const float proj_std = kStd / std::sqrt(2.0f * static_cast<float>(s.layers));
  return b.dropout(path + ".dropout", b.conv1d(path + ".c_proj", act, s.width, proj_std),
                   b.options().dropout);
}

}  // namespace

void build_gpt(ModelBuilder& b) {
  const LmShape& s = b.options().lm;
  const int64_t n = b.options().batch, t = s.seq_len, d = s.width;
  ir::Graph& g = b.graph();
  const TensorId ids = b.token_ids();
  const TensorId labels = b.next_token_labels(ids);
  const TensorId tokens = b.embedding("transformer.wte", ids, s.vocab, d, kStd);
  const TensorId wte = g.op(g.tensor(tokens).producer).inputs[0];
  const TensorId pos =
      b.embedding("transformer.wpe", b.positions("position_ids", t), s.positions, d, kStd);
  const TensorId pos_wide =
      g.add(OpType::Expand, g.unique_name("transformer.wpe.expand"), OpCategory::Forward,
            {b.reshape("transformer.wpe.batch", pos, {1, t, d})}, Attrs{{"shape", Ints{n, t, d}}});
  TensorId h = b.dropout("transformer.drop", b.add("transformer.embed", tokens, pos_wide),
                         b.options().dropout);
  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string block = "transformer.h." + std::to_string(i);
    h = b.add(block + ".attn.residual", h,
              attention(b, block + ".attn", b.layer_norm(block + ".ln_1", h, kLnEps)));
    h = b.add(block + ".mlp.residual", h,
              mlp(b, block + ".mlp", b.layer_norm(block + ".ln_2", h, kLnEps)));
  }
  h = b.layer_norm("transformer.ln_f", h, kLnEps);
  // The LM head shares the token embedding: logits [N*T, vocab] = h wte^T.
  const TensorId rows = b.reshape("lm_head.rows", h, {n * t, d});
  const TensorId logits = g.add(OpType::Gemm, g.unique_name("lm_head"), OpCategory::Forward,
                                {rows, wte}, Attrs{{"trans_b", int64_t{1}}});
  b.loss(logits, b.reshape("labels.flat", labels, {n * t}));
}

}  // namespace s2::zoo
