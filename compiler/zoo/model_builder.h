#pragma once
// What the zoo's model definitions are written with: PyTorch-like layers that create their
// parameters (named by state_dict key, initialised as zoo.h says) and their ops (named by
// module path), and that check the feature map fits each window before adding the op, so an
// impossible image size is a UserError naming the model, the layer and the reason.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/zoo/zoo.h"

namespace s2::zoo {

class ModelBuilder {
 public:
  // `size_hint` ends every size error, e.g. "lenet5 needs images of at least 16x16".
  ModelBuilder(const std::string& model, const ModelOptions& options, std::string size_hint);

  const ModelOptions& options() const { return options_; }
  ir::Graph& graph() { return graph_; }
  const ir::Shape& shape(ir::TensorId t) const { return graph_.tensor(t).shape; }

  // The batch: `input` [N,C,H,W] ~ N(0,1) and `labels` [N] i32 uniform in [0, classes).
  ir::TensorId input();
  ir::TensorId labels();
  // A language model's batch: `input_ids` [N,T] i32 uniform in [0, vocab), and `labels`
  // [N,T] i32, the next token of each position (ids shifted left by one) and -100, the loss's
  // ignore_index, at the last position, whose next token the batch does not hold, and where
  // the next token is padding (options().attention_mask).
  ir::TensorId token_ids();
  ir::TensorId next_token_labels(ir::TensorId ids);
  // BERT's masked-LM batch from token_ids(): about 15% of the positions that are not padding,
  // drawn from the seed (at least one), are masked: `labels` [N,T] holds the original id there and
  // -100 elsewhere, and the input id there becomes the [MASK] id, vocab - 1.
  ir::TensorId masked_lm_labels(ir::TensorId ids);
  // A constant i32 [n] = 0, 1, ..., n-1 (the positions a position embedding looks up).
  ir::TensorId positions(const std::string& name, int64_t n);

  // nn.Embedding(rows, dim): <path>.weight [rows, dim] ~ N(0, std), looked up by ids.
  ir::TensorId embedding(const std::string& path, ir::TensorId ids, int64_t rows, int64_t dim,
                         float std);
  // nn.LayerNorm(D) over the last dimension: <path>.weight ones, <path>.bias zeros.
  ir::TensorId layer_norm(const std::string& path, ir::TensorId x, double eps);
  // Hugging Face's Conv1D (GPT-2's linear layers) on the last dimension of x [..., in]:
  // <path>.weight [in, out] ~ N(0, std) (stored input-major, unlike nn.Linear), <path>.bias
  // [out] zeros; y [..., out]. The rows are a gemm over the flattened leading dimensions.
  ir::TensorId conv1d(const std::string& path, ir::TensorId x, int64_t out_features, float std);
  // nn.Linear as Hugging Face's BERT initialises it, on the last dimension of x [..., in]:
  // <path>.weight [out, in] ~ N(0, std), <path>.bias [out] zeros; y [..., out].
  ir::TensorId dense(const std::string& path, ir::TensorId x, int64_t out_features, float std);
  // What an attention adds to its scores and probabilities.
  struct AttentionOptions {
    bool causal = false;        // the decoder's mask (key j left out for query i < j)
    ir::TensorId padding_mask;  // padding_mask()'s [N, 1, 1, T], added to the scores
    double dropout = 0.0;       // dropout of the probabilities, when not 0 ...
    std::string dropout_path;   // ... the dropout layer named so
  };
  // Multi-head scaled dot-product attention of q, k, v [N, T, D] (views of one projection, or
  // three): each split into `heads` heads as an [N, H, T, D/H] view (ops <name>.heads and
  // <name>.transpose, `name` the first of each pair), scores = q k^T (<path>.scores, k read
  // with trans_b), softmax scaled by 1/sqrt(D/H) with the causal mask and the padding mask
  // (read through the expand view <path>.padding_mask) when given (<path>.softmax), the
  // probabilities dropped out when asked, context = P v (<path>.context), the heads merged
  // back to [N, T, D] (<path>.merge, <path>.merge.rows: the one copy, which pass elide-copies
  // removes).
  // q, k, v: the three [N, T, D] slices (ops <path>.q, .k, .v) of a fused [N, T, 3D]
  // projection, named for attention().
  std::vector<std::pair<std::string, ir::TensorId>> split_qkv(const std::string& path,
                                                              ir::TensorId qkv);
  ir::TensorId attention(const std::string& path,
                         const std::vector<std::pair<std::string, ir::TensorId>>& qkv,
                         int64_t heads, const AttentionOptions& options);
  // A language model's padding mask when options().attention_mask holds one, else an invalid
  // id: `extended_attention_mask` [N, 1, 1, T] f32, a constant, Hugging Face's additive form
  // of attention_mask [N, T]: 0 where a key is attended, the lowest float (-3.4028235e38)
  // where it is padding. Created on the first call.
  ir::TensorId padding_mask();
  // A view op of x: reshape to `shape`, copied dense first when x's layout cannot be viewed so.
  ir::TensorId reshape(const std::string& path, ir::TensorId x, const ir::Shape& shape);

  // nn.Conv2d(C, out_channels, kernel, stride, pad, bias, groups): parameters <path>.weight
  // [K,C/groups,k,k] and <path>.bias [K]. groups = C = K is a depthwise convolution.
  ir::TensorId conv2d(const std::string& path, ir::TensorId x, int64_t out_channels, int64_t kernel,
                      int64_t stride, int64_t pad, bool bias, int64_t groups = 1);
  // nn.BatchNorm2d in training mode: <path>.weight, .bias, .running_mean, .running_var.
  ir::TensorId batch_norm(const std::string& path, ir::TensorId x);
  // y [..., out] = x [..., in] times w ([in, out], or [out, in] with trans_b) plus b, as one
  // gemm over the rows of x.
  ir::TensorId row_gemm(const std::string& path, ir::TensorId x, ir::TensorId w, ir::TensorId b,
                        bool trans_b);
  // Parameters: U(-bound, bound) and N(0, std) weights, of role Weight.
  ir::TensorId weight(const std::string& name, const ir::Shape& shape, float bound);
  ir::TensorId normal_weight(const std::string& name, const ir::Shape& shape, float std);
  // nn.Linear(in, out_features) on [N,in]: <path>.weight [out,in] and <path>.bias [out].
  ir::TensorId linear(const std::string& path, ir::TensorId x, int64_t out_features);
  ir::TensorId relu(const std::string& path, ir::TensorId x);
  // The activation op (ops/activation.h) of function `act`: "relu6", "silu", "sigmoid", ...
  ir::TensorId activation(const std::string& path, ir::TensorId x, const std::string& act);
  ir::TensorId max_pool(const std::string& path, ir::TensorId x, int64_t kernel, int64_t stride,
                        int64_t pad);
  // Average pooling with a kh x kw window moved by its own size (no padding).
  ir::TensorId avg_pool(const std::string& path, ir::TensorId x, int64_t kh, int64_t kw);
  // nn.AdaptiveAvgPool2d((1,1)).
  ir::TensorId global_avg_pool(const std::string& path, ir::TensorId x);
  // nn.AdaptiveAvgPool2d((oh, ow)) to any size: the identity at that size, an average pool
  // with window = stride when the map's sides are multiples of the output's, a broadcast of a
  // 1x1 map (every bin is the one pixel: an `expand` view copied dense, whose gradient sums the
  // bins back), and otherwise (uneven or overlapping bins) a gemm with a constant bin matrix.
  ir::TensorId adaptive_avg_pool(const std::string& path, ir::TensorId x, int64_t oh, int64_t ow);
  ir::TensorId add(const std::string& path, ir::TensorId a, ir::TensorId b);
  // a * b where b's size-1 axes broadcast to a's shape (squeeze-excitation's [N,C,1,1] gate
  // times an [N,C,H,W] map): b is read through an `expand` view, and the gradient sums it back.
  ir::TensorId mul(const std::string& path, ir::TensorId a, ir::TensorId b);
  // torch.cat(parts, 1); a single part is returned as it is.
  ir::TensorId concat(const std::string& path, const std::vector<ir::TensorId>& parts);
  // nn.Dropout(p) in training mode: x times a mask drawn on the accelerator (ops/dropout.h),
  // the op named `path`, its generator seeded from the model's seed and the path.
  ir::TensorId dropout(const std::string& path, ir::TensorId x, double p);
  // torchvision.ops.StochasticDepth(p, "row") in training mode: x times a [N,1,1,1] mask of
  // the same generator (a dropout of ones), one draw per sample. p = 0 returns x.
  ir::TensorId stochastic_depth(const std::string& path, ir::TensorId x, double p);
  // torch.flatten(x, 1).
  ir::TensorId flatten(const std::string& path, ir::TensorId x);
  // F.cross_entropy(logits, labels) as the op `loss`, set as the graph's loss (labels equal
  // to -100 are ignored, as in PyTorch).
  void loss(ir::TensorId logits, ir::TensorId labels);

  // A parameter [size] of `role` with every element `value` (biases, batch-norm statistics).
  ir::TensorId filled(const std::string& name, ir::TensorRole role, int64_t size, float value);

  // The finished forward graph, with every weight's values drawn.
  ir::Graph finish();

  [[noreturn]] void fail(const std::string& problem) const;

 private:
  std::string op_name(const std::string& path) const { return graph_.unique_name(path); }
  ir::TensorId adaptive_pool_matrix(const std::string& path, ir::TensorId x, int64_t oh,
                                    int64_t ow);
  // Fails unless a k x k window with this stride and padding fits the feature map of x.
  void expect_window_fits(const std::string& path, ir::TensorId x, int64_t kh, int64_t kw,
                          int64_t stride_h, int64_t stride_w, int64_t pad) const;

  // A weight whose values finish() draws, on every core (gpt2-small draws 124 million):
  // until then its array has its size but no storage, and nothing reads it while the graph
  // is built. Each weight's stream is its own, so the values do not depend on the order.
  struct PendingWeight {
    std::shared_ptr<ir::HostArray> values;
    std::string stream;
    float scale = 0.0f;  // the bound of a uniform weight, the std of a normal one
    bool normal = false;
  };
  ir::TensorId pending_weight(const std::string& name, const ir::Shape& shape, float scale,
                              bool normal);
  void draw_weights();

  // Counts tensor `name` [shape] of `bytes` (a weight: with its momentum copy and gradient)
  // against options_.dram_bytes, failing before its allocation when the step cannot fit.
  void reserve(const std::string& name, const ir::Shape& shape, uint64_t bytes, bool weight);

  std::string model_;
  ModelOptions options_;
  uint64_t reserved_ = 0;        // persistent bytes of the parameters and batch created so far
  uint64_t largest_weight_ = 0;  // bytes of the largest weight (its gradient's)
  std::string size_hint_;
  ir::Graph graph_;
  std::vector<PendingWeight> pending_;
};

}  // namespace s2::zoo
