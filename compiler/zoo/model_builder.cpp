#include "compiler/zoo/model_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <thread>
#include <utility>
#include <vector>

#include "compiler/ops/dropout.h"
#include "compiler/zoo/init_rng.h"
#include "isa/common/errors.h"
#include "isa/common/task_pool.h"
#include "isa/encoding/semantics.h"

namespace s2::zoo {

using ir::Attrs;
using ir::OpCategory;
using ir::OpType;
using ir::Shape;
using ir::TensorId;
using ir::TensorRole;
using Ints = std::vector<int64_t>;

namespace {

std::string hw_text(int64_t h, int64_t w) {
  return std::to_string(h) + "x" + std::to_string(w);
}

// PyTorch's default bound for conv and linear parameters: kaiming_uniform(a=sqrt(5)) gives
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the weight, and the bias uses the same bound.
float default_bound(int64_t fan_in) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(fan_in)));
}

}  // namespace

ModelBuilder::ModelBuilder(const std::string& model, const ModelOptions& options,
                           std::string size_hint)
    : model_(model), options_(options), size_hint_(std::move(size_hint)), graph_(model) {}

void ModelBuilder::fail(const std::string& problem) const {
  if (options_.lm.layers > 0) {
    const LmShape& s = options_.lm;
    throw UserError("model '" + model_ + "' (batch " + std::to_string(options_.batch) + ", " +
                    std::to_string(s.layers) + " layers, " + std::to_string(s.heads) +
                    " heads, width " + std::to_string(s.width) + ", " + std::to_string(s.seq_len) +
                    " tokens, vocabulary " + std::to_string(s.vocab) + "): " + problem + "; " +
                    size_hint_);
  }
  throw UserError("model '" + model_ + "' (batch " + std::to_string(options_.batch) + ", " +
                  std::to_string(options_.channels) + "x" +
                  hw_text(options_.height, options_.width) + " images, " +
                  std::to_string(options_.classes) + " classes): " + problem + "; " + size_hint_);
}

void ModelBuilder::reserve(const std::string& name, const Shape& shape, uint64_t bytes,
                           bool weight) {
  // A lower bound of the step's DRAM: everything persistent (each weight with its momentum
  // buffer, the statistics, the batch) plus the gradient of the largest weight, which exists
  // with it when it is updated.
  reserved_ += weight ? bytes * options_.weight_copies : bytes;
  if (weight) largest_weight_ = std::max(largest_weight_, bytes);
  const uint64_t need = reserved_ + largest_weight_;
  if (options_.dram_bytes == 0 || need <= options_.dram_bytes) return;
  fail("by '" + name + "' " + ir::ints_text(shape) + " its parameters" +
       std::string(options_.weight_copies > 1 ? " with their optimizer state" : "") +
       ", the batch and the largest weight's gradient need " + std::to_string(need) +
       " bytes, more than the target's " + std::to_string(options_.dram_bytes) +
       " bytes of DRAM (the limit); use fewer --classes, a smaller --batch or smaller --image");
}

TensorId ModelBuilder::weight(const std::string& name, const Shape& shape, float bound) {
  return pending_weight(name, shape, bound, false);
}

TensorId ModelBuilder::normal_weight(const std::string& name, const Shape& shape, float std) {
  return pending_weight(name, shape, std, true);
}

TensorId ModelBuilder::pending_weight(const std::string& name, const Shape& shape, float scale,
                                      bool normal) {
  const size_t n = static_cast<size_t>(ir::shape_numel(shape));
  reserve(name, shape, n * sizeof(float), true);
  auto values = std::make_shared<ir::HostArray>(ir::DType::F32, n);
  pending_.push_back({values, name, scale, normal});
  return graph_.add_parameter(name, TensorRole::Weight, ir::DType::F32, shape, std::move(values));
}

void ModelBuilder::draw_weights() {
  // Largest first, so that the threads finish together.
  std::vector<size_t> order(pending_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
    return pending_[a].values->size() > pending_[b].values->size();
  });
  TaskPool pool(std::thread::hardware_concurrency());
  pool.run(order.size(), [this, &order](size_t k) {
    PendingWeight& p = pending_[order[k]];
    const size_t n = p.values->size();
    std::vector<float> v;
    if (p.normal) {
      v = normal_values(options_.seed, p.stream, n, p.scale);
    } else {
      v = uniform_values(options_.seed, p.stream, n, p.scale);
    }
    *p.values = ir::HostArray(std::move(v));
  });
  pending_.clear();
}

TensorId ModelBuilder::filled(const std::string& name, TensorRole role, int64_t size, float value) {
  reserve(name, {size}, static_cast<uint64_t>(size) * sizeof(float), role == TensorRole::Weight);
  // Zeros stay unallocated: lowering gives them no bytes in the executable's data section.
  auto values =
      value == 0.0f && !std::signbit(value)
          ? std::make_shared<ir::HostArray>(ir::DType::F32, static_cast<size_t>(size))
          : std::make_shared<ir::HostArray>(std::vector<float>(static_cast<size_t>(size), value));
  return graph_.add_parameter(name, role, ir::DType::F32, {size}, std::move(values));
}

TensorId ModelBuilder::input() {
  const Shape shape{options_.batch, options_.channels, options_.height, options_.width};
  reserve("input", shape, static_cast<uint64_t>(ir::shape_numel(shape)) * sizeof(float), false);
  return graph_.add_parameter(
      "input", TensorRole::Input, ir::DType::F32, shape,
      std::make_shared<ir::HostArray>(
          normal_values(options_.seed, "input", static_cast<size_t>(ir::shape_numel(shape)))));
}

TensorId ModelBuilder::labels() {
  return graph_.add_parameter("labels", TensorRole::Label, ir::DType::I32, {options_.batch},
                              std::make_shared<ir::HostArray>(class_labels(
                                  options_.seed, "labels", static_cast<size_t>(options_.batch),
                                  static_cast<int32_t>(options_.classes))));
}

TensorId ModelBuilder::token_ids() {
  const Shape shape{options_.batch, options_.lm.seq_len};
  const auto n = static_cast<size_t>(ir::shape_numel(shape));
  reserve("input_ids", shape, n * sizeof(int32_t), false);
  const std::vector<int32_t>& given = options_.input_ids;
  S2_CHECK(given.empty() || given.size() == n,
           "ModelBuilder: " + std::to_string(given.size()) + " token ids given for a batch of " +
               std::to_string(n) + " (the driver reads --input with the batch's shape)");
  return graph_.add_parameter(
      "input_ids", TensorRole::Input, ir::DType::I32, shape,
      std::make_shared<ir::HostArray>(
          given.empty()
              ? class_labels(options_.seed, "input_ids", n, static_cast<int32_t>(options_.lm.vocab))
              : given));
}

TensorId ModelBuilder::next_token_labels(TensorId ids) {
  const Shape shape = this->shape(ids);
  const ir::HostArray& from = *graph_.data(graph_.tensor(ids).data).init;
  const auto t = static_cast<size_t>(shape[1]);
  const std::vector<int32_t>& mask = options_.attention_mask;
  std::vector<int32_t> labels(from.size());
  for (size_t k = 0; k < labels.size(); ++k)  // -100 where the next token is padding
    labels[k] = k % t + 1 < t && (mask.empty() || mask[k + 1] != 0) ? from.i32()[k + 1] : -100;
  reserve("labels", shape, labels.size() * sizeof(int32_t), false);
  return graph_.add_parameter("labels", TensorRole::Label, ir::DType::I32, shape,
                              std::make_shared<ir::HostArray>(std::move(labels)));
}

TensorId ModelBuilder::masked_lm_labels(TensorId ids) {
  const Shape shape = this->shape(ids);
  ir::Data& data = graph_.mutable_data(graph_.tensor(ids).data);
  std::vector<int32_t> input = data.init->i32();
  std::vector<int32_t> labels(input.size(), -100);
  const std::vector<float> draw = uniform_values(options_.seed, "masked_lm", input.size(), 1.0f);
  const auto mask_id = static_cast<int32_t>(options_.lm.vocab - 1);
  // Padding (options_.attention_mask) is never masked, as a data collator leaves it alone.
  const std::vector<int32_t>& padding = options_.attention_mask;
  size_t last = input.size();  // the last position that is not padding
  for (size_t k = 0; k < input.size(); ++k)
    if (padding.empty() || padding[k] != 0) last = k;
  if (last == input.size()) fail("every position of the batch is padding (--attention-mask)");
  bool any = false;
  for (size_t k = 0; k <= last; ++k) {
    if (!padding.empty() && padding[k] == 0) continue;
    if (std::abs(draw[k]) >= 0.15f && !(k == last && !any)) continue;
    labels[k] = input[k];
    input[k] = mask_id;
    any = true;
  }
  data.init = std::make_shared<ir::HostArray>(std::move(input));
  reserve("labels", shape, labels.size() * sizeof(int32_t), false);
  return graph_.add_parameter("labels", TensorRole::Label, ir::DType::I32, shape,
                              std::make_shared<ir::HostArray>(std::move(labels)));
}

TensorId ModelBuilder::positions(const std::string& name, int64_t n) {
  std::vector<int32_t> values(static_cast<size_t>(n));
  for (size_t k = 0; k < values.size(); ++k)
    values[k] = static_cast<int32_t>(k);
  return graph_.add_parameter(graph_.unique_name(name), TensorRole::Scratch, ir::DType::I32, {n},
                              std::make_shared<ir::HostArray>(std::move(values)), true);
}

TensorId ModelBuilder::embedding(const std::string& path, TensorId ids, int64_t rows, int64_t dim,
                                 float std) {
  const TensorId w = normal_weight(path + ".weight", {rows, dim}, std);
  return graph_.add(OpType::Embedding, op_name(path), OpCategory::Forward, {w, ids});
}

TensorId ModelBuilder::layer_norm(const std::string& path, TensorId x, double eps) {
  const int64_t d = shape(x).back();
  const TensorId gamma = filled(path + ".weight", TensorRole::Weight, d, 1.0f);
  const TensorId beta = filled(path + ".bias", TensorRole::Weight, d, 0.0f);
  return graph_.add_op(OpType::LayerNorm, op_name(path), OpCategory::Forward, {x, gamma, beta},
                       Attrs{{"eps", eps}})[0];
}

TensorId ModelBuilder::reshape(const std::string& path, TensorId x, const Shape& shape) {
  const ir::Tensor& t = graph_.tensor(x);
  if (!ir::view_strides(t.shape, t.strides, shape))
    x = graph_.add(OpType::Copy, op_name(path + ".dense"), OpCategory::Forward, {x});
  return graph_.add(OpType::Reshape, op_name(path), OpCategory::Forward, {x},
                    Attrs{{"shape", shape}});
}

TensorId ModelBuilder::row_gemm(const std::string& path, TensorId x, TensorId w, TensorId b,
                                bool trans_b) {
  const Shape in = shape(x);
  const int64_t features = in.back();
  const int64_t out_features = shape(w)[trans_b ? 0 : 1];
  const TensorId rows = reshape(path + ".rows", x, {ir::shape_numel(in) / features, features});
  const TensorId y = graph_.add(OpType::Gemm, op_name(path), OpCategory::Forward, {rows, w, b},
                                Attrs{{"trans_b", int64_t{trans_b ? 1 : 0}}});
  Shape out = in;
  out.back() = out_features;
  return reshape(path + ".out", y, out);
}

std::vector<std::pair<std::string, TensorId>> ModelBuilder::split_qkv(const std::string& path,
                                                                      TensorId qkv) {
  const int64_t d = shape(qkv).back() / 3;
  std::vector<std::pair<std::string, TensorId>> parts;
  for (int64_t k = 0; k < 3; ++k) {
    const std::string name = path + "." + std::string(1, "qkv"[k]);
    parts.emplace_back(
        name, graph_.add(OpType::Slice, op_name(name), OpCategory::Forward, {qkv},
                         Attrs{{"axis", int64_t{2}}, {"start", k * d}, {"end", (k + 1) * d}}));
  }
  return parts;
}

TensorId ModelBuilder::attention(const std::string& path,
                                 const std::vector<std::pair<std::string, TensorId>>& qkv,
                                 int64_t heads, const AttentionOptions& options) {
  S2_CHECK(qkv.size() == 3, "zoo attention '" + path + "': give q, k and v");
  const Shape x = shape(qkv[0].second);
  const int64_t n = x[0], t = x[1], d = x[2], hd = d / heads;
  std::vector<TensorId> split;
  for (const auto& [name, y] : qkv) {
    const TensorId h = reshape(name + ".heads", y, {n, t, heads, hd});
    split.push_back(graph_.add(OpType::Transpose, op_name(name + ".transpose"), OpCategory::Forward,
                               {h}, Attrs{{"perm", Ints{0, 2, 1, 3}}}));
  }
  const TensorId scores = graph_.add(OpType::Bmm, op_name(path + ".scores"), OpCategory::Forward,
                                     {split[0], split[1]}, Attrs{{"trans_b", int64_t{1}}});
  Attrs softmax{{"scale", 1.0 / std::sqrt(static_cast<double>(hd))}};
  if (options.causal) softmax.set("causal", int64_t{1});
  std::vector<TensorId> softmax_inputs{scores};
  if (options.padding_mask.valid())
    softmax_inputs.push_back(graph_.add(OpType::Expand, op_name(path + ".padding_mask"),
                                        OpCategory::Forward, {options.padding_mask},
                                        Attrs{{"shape", Ints{n, heads, t, t}}}));
  const TensorId p = graph_.add(OpType::Softmax, op_name(path + ".softmax"), OpCategory::Forward,
                                softmax_inputs, softmax);
  S2_CHECK(options.dropout == 0.0 || !options.dropout_path.empty(),
           "zoo attention '" + path + "': a dropout needs its name");
  const TensorId kept = dropout(options.dropout_path, p, options.dropout);
  const TensorId o =
      graph_.add(OpType::Bmm, op_name(path + ".context"), OpCategory::Forward, {kept, split[2]});
  const TensorId merged = graph_.add(OpType::Transpose, op_name(path + ".merge"),
                                     OpCategory::Forward, {o}, Attrs{{"perm", Ints{0, 2, 1, 3}}});
  return reshape(path + ".merge.rows", merged, {n, t, d});
}

TensorId ModelBuilder::padding_mask() {
  const std::vector<int32_t>& mask = options_.attention_mask;
  if (mask.empty()) return TensorId();
  const TensorId existing = graph_.find_tensor(kPaddingMaskName);
  if (existing.valid()) return existing;
  const Shape shape{options_.batch, 1, 1, options_.lm.seq_len};
  const auto n = static_cast<size_t>(ir::shape_numel(shape));
  if (mask.size() != n)
    fail("the attention mask holds " + std::to_string(mask.size()) +
         " values; the batch and sequence need " + std::to_string(n));
  reserve(kPaddingMaskName, shape, n * sizeof(float), false);
  std::vector<float> additive(n);  // (1 - mask) * lowest, as Hugging Face extends it
  for (size_t k = 0; k < n; ++k)
    additive[k] = mask[k] != 0 ? 0.0f : std::numeric_limits<float>::lowest();
  return graph_.add_parameter(kPaddingMaskName, TensorRole::Scratch, ir::DType::F32, shape,
                              std::make_shared<ir::HostArray>(std::move(additive)), true);
}

TensorId ModelBuilder::conv1d(const std::string& path, TensorId x, int64_t out_features,
                              float std) {
  const TensorId w = normal_weight(path + ".weight", {shape(x).back(), out_features}, std);
  const TensorId b = filled(path + ".bias", TensorRole::Weight, out_features, 0.0f);
  return row_gemm(path, x, w, b, false);
}

TensorId ModelBuilder::dense(const std::string& path, TensorId x, int64_t out_features, float std) {
  const TensorId w = normal_weight(path + ".weight", {out_features, shape(x).back()}, std);
  const TensorId b = filled(path + ".bias", TensorRole::Weight, out_features, 0.0f);
  return row_gemm(path, x, w, b, true);
}

void ModelBuilder::expect_window_fits(const std::string& path, TensorId x, int64_t kh, int64_t kw,
                                      int64_t stride_h, int64_t stride_w, int64_t pad) const {
  const Shape& s = shape(x);
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  const uint64_t p = isa::window_output_size(u(s[2]), u(pad), u(pad), u(kh), u(stride_h), 1, false);
  const uint64_t q = isa::window_output_size(u(s[3]), u(pad), u(pad), u(kw), u(stride_w), 1, false);
  if (p > 0 && q > 0) return;
  fail("the " + hw_text(s[2], s[3]) + " feature map entering '" + path + "' is smaller than its " +
       hw_text(kh, kw) + " window" +
       (pad > 0 ? " (padded by " + std::to_string(pad) + " on each side)" : std::string()) +
       ", so its output would be empty");
}

TensorId ModelBuilder::conv2d(const std::string& path, TensorId x, int64_t out_channels,
                              int64_t kernel, int64_t stride, int64_t pad, bool bias,
                              int64_t groups) {
  expect_window_fits(path, x, kernel, kernel, stride, stride, pad);
  const int64_t in_channels = shape(x)[1];
  S2_CHECK(groups >= 1 && in_channels % groups == 0 && out_channels % groups == 0,
           "zoo conv '" + path + "': groups must divide both channel counts");
  const int64_t group_in = in_channels / groups;
  const float bound = default_bound(group_in * kernel * kernel);
  const TensorId w = weight(path + ".weight", {out_channels, group_in, kernel, kernel}, bound);
  const TensorId b = bias ? weight(path + ".bias", {out_channels}, bound) : TensorId();
  Attrs attrs{{"stride", Ints{stride, stride}}, {"pads", Ints{pad, pad, pad, pad}}};
  if (groups != 1) attrs.set("groups", groups);
  return graph_.add(OpType::Conv2d, op_name(path), OpCategory::Forward, {x, w, b}, attrs);
}

TensorId ModelBuilder::batch_norm(const std::string& path, TensorId x) {
  const Shape& s = shape(x);
  if (s[0] * s[2] * s[3] <= 1)
    fail("'" + path + "' would normalise a single value per channel (batch " +
         std::to_string(s[0]) + ", " + hw_text(s[2], s[3]) +
         " feature map), and training-mode batch norm needs more than one: use a batch of at "
         "least 2 or larger images");
  const int64_t c = s[1];
  const TensorId gamma = filled(path + ".weight", TensorRole::Weight, c, 1.0f);
  const TensorId beta = filled(path + ".bias", TensorRole::Weight, c, 0.0f);
  const TensorId mean = filled(path + ".running_mean", TensorRole::State, c, 0.0f);
  const TensorId var = filled(path + ".running_var", TensorRole::State, c, 1.0f);
  return graph_.add_op(OpType::BatchNorm, op_name(path), OpCategory::Forward,
                       {x, gamma, beta, mean, var})[0];
}

TensorId ModelBuilder::linear(const std::string& path, TensorId x, int64_t out_features) {
  const int64_t in_features = shape(x)[1];
  const float bound = default_bound(in_features);
  const TensorId w = weight(path + ".weight", {out_features, in_features}, bound);
  const TensorId b = weight(path + ".bias", {out_features}, bound);
  return graph_.add(OpType::Gemm, op_name(path), OpCategory::Forward, {x, w, b},
                    Attrs{{"trans_b", int64_t{1}}});
}

TensorId ModelBuilder::relu(const std::string& path, TensorId x) {
  return graph_.add(OpType::Relu, op_name(path), OpCategory::Forward, {x});
}

TensorId ModelBuilder::activation(const std::string& path, TensorId x, const std::string& act) {
  return graph_.add(OpType::Activation, op_name(path), OpCategory::Forward, {x},
                    Attrs{{"act", act}});
}

TensorId ModelBuilder::max_pool(const std::string& path, TensorId x, int64_t kernel, int64_t stride,
                                int64_t pad) {
  expect_window_fits(path, x, kernel, kernel, stride, stride, pad);
  Attrs attrs{{"kernel", Ints{kernel, kernel}},
              {"stride", Ints{stride, stride}},
              {"pads", Ints{pad, pad, pad, pad}}};
  return graph_.add_op(OpType::MaxPool2d, op_name(path), OpCategory::Forward, {x}, attrs)[0];
}

TensorId ModelBuilder::avg_pool(const std::string& path, TensorId x, int64_t kh, int64_t kw) {
  expect_window_fits(path, x, kh, kw, kh, kw, 0);
  Attrs attrs{{"kernel", Ints{kh, kw}}, {"stride", Ints{kh, kw}}};
  return graph_.add(OpType::AvgPool2d, op_name(path), OpCategory::Forward, {x}, attrs);
}

TensorId ModelBuilder::global_avg_pool(const std::string& path, TensorId x) {
  return avg_pool(path, x, shape(x)[2], shape(x)[3]);
}

TensorId ModelBuilder::adaptive_avg_pool(const std::string& path, TensorId x, int64_t oh,
                                         int64_t ow) {
  const int64_t h = shape(x)[2], w = shape(x)[3];
  if (h == oh && w == ow) return x;
  if (h == 1 && w == 1) {
    Ints out = shape(x);
    out[2] = oh;
    out[3] = ow;
    const TensorId wide =
        graph_.add(OpType::Expand, op_name(path), OpCategory::Forward, {x}, Attrs{{"shape", out}});
    return graph_.add(OpType::Copy, op_name(path + ".dense"), OpCategory::Forward, {wide});
  }
  if (h % oh == 0 && w % ow == 0) return avg_pool(path, x, h / oh, w / ow);
  return adaptive_pool_matrix(path, x, oh, ow);
}

// Uneven or overlapping bins: torch's bin i of n over a side of s is [floor(i s / n),
// ceil((i + 1) s / n)). Every output is a weighted sum of its bin's pixels, so the pool is one
// gemm on the PE array: x viewed as [N*C, H*W] times the constant [oh*ow, H*W] matrix that
// holds 1/|bin| inside each output's bin, and its backward is the gemm's (the matrix is a
// constant, not a weight). The products are rounded before the sum, where torch divides the
// sum once: the two differ in the last bits only.
TensorId ModelBuilder::adaptive_pool_matrix(const std::string& path, TensorId x, int64_t oh,
                                            int64_t ow) {
  const Shape s = shape(x);
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  auto bin = [](int64_t i, int64_t out, int64_t side) {
    return std::pair<int64_t, int64_t>{(i * side) / out, ((i + 1) * side + out - 1) / out};
  };
  std::vector<float> matrix(static_cast<size_t>(oh * ow * h * w), 0.0f);
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j) {
      const auto [h0, h1] = bin(i, oh, h);
      const auto [w0, w1] = bin(j, ow, w);
      const float weight = 1.0f / static_cast<float>((h1 - h0) * (w1 - w0));
      for (int64_t y = h0; y < h1; ++y)
        for (int64_t z = w0; z < w1; ++z)
          matrix[static_cast<size_t>((i * ow + j) * h * w + y * w + z)] = weight;
    }
  const TensorId p = graph_.add_parameter(graph_.unique_name(path + ".bins"), TensorRole::Scratch,
                                          ir::DType::F32, {oh * ow, h * w},
                                          std::make_shared<ir::HostArray>(std::move(matrix)), true);
  const TensorId rows = graph_.add(OpType::Reshape, op_name(path + ".rows"), OpCategory::Forward,
                                   {x}, Attrs{{"shape", Ints{n * c, h * w}}});
  const TensorId pooled = graph_.add(OpType::Gemm, op_name(path), OpCategory::Forward, {rows, p},
                                     Attrs{{"trans_b", int64_t{1}}});
  return graph_.add(OpType::Reshape, op_name(path + ".map"), OpCategory::Forward, {pooled},
                    Attrs{{"shape", Ints{n, c, oh, ow}}});
}

TensorId ModelBuilder::add(const std::string& path, TensorId a, TensorId b) {
  return graph_.add(OpType::Add, op_name(path), OpCategory::Forward, {a, b});
}

TensorId ModelBuilder::mul(const std::string& path, TensorId a, TensorId b) {
  const Shape& out = shape(a);
  if (shape(b) != out)
    b = graph_.add(OpType::Expand, op_name(path + ".expand"), OpCategory::Forward, {b},
                   Attrs{{"shape", out}});
  return graph_.add(OpType::Mul, op_name(path), OpCategory::Forward, {a, b});
}

TensorId ModelBuilder::concat(const std::string& path, const std::vector<TensorId>& parts) {
  S2_CHECK(!parts.empty(), "zoo concat '" + path + "' of nothing");
  if (parts.size() == 1) return parts[0];
  return graph_.add(OpType::Concat, op_name(path), OpCategory::Forward, parts,
                    Attrs{{"axis", int64_t{1}}});
}

TensorId ModelBuilder::dropout(const std::string& path, TensorId x, double p) {
  return ir::add_dropout(graph_, path, x, p, options_.seed);
}

TensorId ModelBuilder::stochastic_depth(const std::string& path, TensorId x, double p) {
  if (p == 0.0) return x;
  const Shape row{shape(x)[0], 1, 1, 1};
  return mul(path, x, ir::add_dropout_mask(graph_, path, row, p, options_.seed));
}

TensorId ModelBuilder::flatten(const std::string& path, TensorId x) {
  return graph_.add(OpType::Reshape, op_name(path), OpCategory::Forward, {x},
                    Attrs{{"shape", Ints{shape(x)[0], -1}}});
}

void ModelBuilder::loss(TensorId logits, TensorId labels) {
  graph_.set_loss(
      graph_.add(OpType::SoftmaxCe, op_name("loss"), OpCategory::Forward, {logits, labels}));
}

ir::Graph ModelBuilder::finish() {
  S2_CHECK(graph_.loss().valid(), "zoo model '" + model_ + "' has no loss");
  draw_weights();
  return std::move(graph_);
}

}  // namespace s2::zoo
