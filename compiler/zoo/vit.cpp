// vit and vit_b_16: torchvision's VisionTransformer, with its state_dict names:
//
//   conv_proj        Conv2d(C, D, patch, stride patch): the patch embedding, [N, D, h, w],
//                    flattened to [N, h*w, D] (a view)
//   class_token      [1, 1, D], prepended to every sequence (T = h*w + 1 tokens)
//   encoder.pos_embedding [1, T, D], added
//   encoder.layers.encoder_layer_<i>: ln_1, self_attention (nn.MultiheadAttention:
//                    in_proj_weight [3D, D] and in_proj_bias giving q, k, v; out_proj), residual
//                    add; ln_2, mlp.0 (D -> 4D), GELU (erf form), mlp.3 (4D -> D), residual add
//   encoder.ln       final layer norm
//   heads.head       Linear(D, classes) on the class token
//
// Layer norms use eps 1e-6. Dropout as torchvision's `dropout` and `attention_dropout` when
// ModelOptions::dropout or attention_dropout is not 0 (both default to 0, as in torchvision):
// encoder.dropout on the embedded sequence, <layer>.dropout on the attention's output before
// its residual add, <layer>.mlp.2 after the GELU and <layer>.mlp.4 after mlp.3, and on the
// attention probabilities the dropout nn.MultiheadAttention calls inside
// <layer>.self_attention (named <layer>.self_attention:Dropout, as PyTorch's exporter names a
// functional call). Initialisation follows torchvision (conv_proj N(0, sqrt(1 / fan_in)), the class
// token 0, the position embedding N(0, 0.02), in_proj and the MLP's linears Xavier-uniform,
// out_proj PyTorch's Linear default with bias 0, the MLP's biases 0) but for heads.head, which
// torchvision zeroes: a zero head would give every other weight a zero gradient in the first
// step, so it takes PyTorch's Linear default. The check copies our weights into PyTorch, so
// only the distribution differs.

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "compiler/zoo/models.h"

namespace s2::zoo {
namespace {

using ir::Attrs;
using ir::OpCategory;
using ir::OpType;
using ir::TensorId;
using ir::TensorRole;
using Ints = std::vector<int64_t>;

constexpr double kLnEps = 1e-6;

float xavier_bound(int64_t fan_in, int64_t fan_out) {
  return std::sqrt(6.0f / static_cast<float>(fan_in + fan_out));
}

// nn.Linear with torchvision's MLP initialisation: Xavier-uniform weight [out, in], bias 0.
TensorId xavier_dense(ModelBuilder& b, const std::string& path, TensorId x, int64_t out) {
  const int64_t in = b.shape(x).back();
  const TensorId w = b.weight(path + ".weight", {out, in}, xavier_bound(in, out));
  const TensorId bias = b.filled(path + ".bias", TensorRole::Weight, out, 0.0f);
  return b.row_gemm(path, x, w, bias, true);
}

// nn.MultiheadAttention(D, heads) on x [N, T, D] as self-attention.
TensorId self_attention(ModelBuilder& b, const std::string& path, TensorId x) {
  const VitShape& s = b.options().vit;
  const int64_t d = s.width;
  const TensorId w = b.weight(path + ".in_proj_weight", {3 * d, d}, xavier_bound(d, 3 * d));
  const TensorId bias = b.filled(path + ".in_proj_bias", TensorRole::Weight, 3 * d, 0.0f);
  const TensorId qkv = b.row_gemm(path + ".in_proj", x, w, bias, true);
  const TensorId rows =
      b.attention(path, b.split_qkv(path, qkv), s.heads,
                  {false, TensorId(), b.options().attention_dropout, path + ":Dropout"});
  const TensorId out_w =
      b.weight(path + ".out_proj.weight", {d, d}, 1.0f / std::sqrt(static_cast<float>(d)));
  const TensorId out_b = b.filled(path + ".out_proj.bias", TensorRole::Weight, d, 0.0f);
  return b.row_gemm(path + ".out_proj", rows, out_w, out_b, true);
}

}  // namespace

void build_vit(ModelBuilder& b) {
  const ModelOptions& o = b.options();
  const VitShape& s = o.vit;
  const int64_t n = o.batch, d = s.width, p = s.patch;
  const int64_t patches = (o.height / p) * (o.width / p), t = patches + 1;
  ir::Graph& g = b.graph();
  const TensorId x = b.input();
  const TensorId labels = b.labels();
  // The patch embedding, N(0, sqrt(1 / fan_in)) as torchvision's truncated normal.
  const TensorId proj_w = b.normal_weight("conv_proj.weight", {d, o.channels, p, p},
                                          std::sqrt(1.0f / static_cast<float>(o.channels * p * p)));
  const TensorId proj_b = b.filled("conv_proj.bias", TensorRole::Weight, d, 0.0f);
  const TensorId map =
      g.add(OpType::Conv2d, g.unique_name("conv_proj"), OpCategory::Forward, {x, proj_w, proj_b},
            Attrs{{"stride", Ints{p, p}}, {"pads", Ints{0, 0, 0, 0}}});
  const TensorId tokens =
      g.add(OpType::Transpose, g.unique_name("conv_proj.tokens"), OpCategory::Forward,
            {b.reshape("conv_proj.flat", map, {n, d, patches})}, Attrs{{"perm", Ints{0, 2, 1}}});
  const TensorId cls = g.add_parameter(
      "class_token", TensorRole::Weight, ir::DType::F32, {1, 1, d},
      std::make_shared<ir::HostArray>(std::vector<float>(static_cast<size_t>(d), 0.0f)));
  const TensorId cls_wide = g.add(OpType::Expand, g.unique_name("class_token.expand"),
                                  OpCategory::Forward, {cls}, Attrs{{"shape", Ints{n, 1, d}}});
  const TensorId seq = g.add(OpType::Concat, g.unique_name("encoder.input"), OpCategory::Forward,
                             {cls_wide, tokens}, Attrs{{"axis", int64_t{1}}});
  const TensorId pos = b.normal_weight("encoder.pos_embedding", {1, t, d}, 0.02f);
  const TensorId pos_wide = g.add(OpType::Expand, g.unique_name("encoder.pos_embedding.expand"),
                                  OpCategory::Forward, {pos}, Attrs{{"shape", Ints{n, t, d}}});
  const double p_drop = o.dropout;
  TensorId h = b.dropout("encoder.dropout", b.add("encoder.embed", seq, pos_wide), p_drop);
  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string layer = "encoder.layers.encoder_layer_" + std::to_string(i);
    const TensorId attended =
        self_attention(b, layer + ".self_attention", b.layer_norm(layer + ".ln_1", h, kLnEps));
    h = b.add(layer + ".residual", b.dropout(layer + ".dropout", attended, p_drop), h);
    const TensorId up = b.activation(
        layer + ".mlp.1",
        xavier_dense(b, layer + ".mlp.0", b.layer_norm(layer + ".ln_2", h, kLnEps), 4 * d), "gelu");
    const TensorId down =
        xavier_dense(b, layer + ".mlp.3", b.dropout(layer + ".mlp.2", up, p_drop), d);
    h = b.add(layer + ".residual_2", b.dropout(layer + ".mlp.4", down, p_drop), h);
  }
  h = b.layer_norm("encoder.ln", h, kLnEps);
  // The class token's output: x[:, 0].
  const TensorId first =
      g.add(OpType::Slice, g.unique_name("encoder.class_output"), OpCategory::Forward, {h},
            Attrs{{"axis", int64_t{1}}, {"start", int64_t{0}}, {"end", int64_t{1}}});
  const TensorId logits =
      b.linear("heads.head", b.reshape("heads.input", first, {n, d}), o.classes);
  b.loss(logits, labels);
}

}  // namespace s2::zoo
