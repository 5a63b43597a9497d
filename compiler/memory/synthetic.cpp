#include "compiler/memory/synthetic.h"

#include <algorithm>
#include <random>
#include <string>

#include "isa/common/errors.h"

namespace s2::memory {
namespace {

using isa::TensorRole;
constexpr size_t kNone = ~size_t{0};

// Emits buffers along an execution order: make() creates a buffer at the current step,
// use() extends a buffer's lifetime to it, next() advances to the next step (one op).
class Timeline {
 public:
  explicit Timeline(const ResNetLike& spec) : spec_(spec), rng_(spec.seed) {}

  size_t make(const std::string& name, TensorRole role, uint64_t bytes) {
    if (spec_.jitter > 0 && (role == TensorRole::Activation || role == TensorRole::Gradient)) {
      const double factor = 1.0 + spec_.jitter * static_cast<double>(rng_() % 1024) / 1024.0;
      bytes = static_cast<uint64_t>(static_cast<double>(bytes) * factor) + rng_() % 64;
    }
    const bool persistent = role == TensorRole::Weight || role == TensorRole::OptimizerState ||
                            role == TensorRole::Input || role == TensorRole::Label;
    buffers_.push_back({name, role, bytes, step_, step_, persistent});
    return buffers_.size() - 1;
  }
  void use(size_t b) { buffers_[b].last = std::max(buffers_[b].last, step_); }
  void next() { ++step_; }
  std::vector<Buffer> take() { return std::move(buffers_); }

 private:
  const ResNetLike& spec_;
  std::mt19937_64 rng_;
  std::vector<Buffer> buffers_;
  uint32_t step_ = 0;
};

struct Layer {
  std::string name;
  size_t x = kNone, c = kNone, y = kNone, stats = kNone;  // input, conv out, bn out, bn stats
  uint64_t in_bytes = 0, out_bytes = 0, weight_bytes = 0, bn_bytes = 0;
};

struct Block {
  std::string name;
  std::vector<Layer> branch;
  Layer projection;  // no name: an identity skip
  size_t out = kNone;
  uint64_t in_bytes = 0, out_bytes = 0;
};

class Builder {
 public:
  explicit Builder(const ResNetLike& spec) : spec_(spec), t_(spec) {}

  std::vector<Buffer> build() {
    const uint64_t n = spec_.batch;
    uint64_t hw = spec_.image;
    const size_t input = t_.make("input", TensorRole::Input, n * 3 * hw * hw * 4);
    const size_t labels = t_.make("labels", TensorRole::Label, n * 4);
    uint64_t channels = spec_.width;
    const Layer stem = conv_bn("stem", input, 3, channels, 3, hw, 1);
    size_t x = stem.y;
    std::vector<Block> blocks;
    for (size_t s = 0; s < spec_.blocks.size(); ++s) {
      const uint64_t width = spec_.width << s;
      const uint64_t out = spec_.bottleneck ? 4 * width : width;
      for (uint32_t b = 0; b < spec_.blocks[s]; ++b) {
        const uint64_t stride = (s > 0 && b == 0) ? 2 : 1;
        const std::string name = "layer" + std::to_string(s + 1) + "." + std::to_string(b);
        blocks.push_back(block(name, x, channels, width, out, stride, hw));
        hw /= stride;
        channels = out;
        x = blocks.back().out;
      }
    }
    // Head: global average pooling, fully connected, loss; then its backward.
    const uint64_t fc_bytes = channels * spec_.classes * 4;
    t_.make("fc.weight", TensorRole::Weight, fc_bytes);
    t_.make("fc.momentum", TensorRole::OptimizerState, fc_bytes);
    t_.use(x);
    const size_t pooled = t_.make("pool.out", TensorRole::Activation, n * channels * 4);
    t_.next();
    t_.use(pooled);
    const size_t logits = t_.make("fc.out", TensorRole::Activation, n * spec_.classes * 4);
    t_.next();
    t_.use(logits);
    t_.use(labels);
    const size_t loss = t_.make("loss", TensorRole::Scratch, 4);
    const size_t logits_grad = t_.make("fc.out.grad", TensorRole::Gradient, n * spec_.classes * 4);
    t_.next();
    t_.use(loss);  // read back to the host with the step's results
    t_.use(logits_grad);
    const size_t pooled_grad = t_.make("pool.out.grad", TensorRole::Gradient, n * channels * 4);
    t_.next();
    t_.use(logits_grad);
    t_.use(pooled);
    const size_t fc_grad = t_.make("fc.weight.grad", TensorRole::WeightGradient, fc_bytes);
    t_.next();
    weight_gradient(fc_grad);
    t_.use(pooled_grad);
    size_t grad = t_.make("pool.in.grad", TensorRole::Gradient, n * channels * hw * hw * 4);
    t_.next();
    for (size_t b = blocks.size(); b-- > 0;)
      grad = block_backward(blocks[b], grad);
    layer_backward(stem, grad, false);
    for (const size_t g : pending_updates_) {
      t_.use(g);
      t_.next();
    }
    return t_.take();
  }

 private:
  Layer conv_bn(const std::string& name, size_t x, uint64_t cin, uint64_t cout, uint64_t k,
                uint64_t hw, uint64_t stride) {
    Layer l;
    l.name = name;
    l.x = x;
    l.in_bytes = spec_.batch * cin * hw * hw * 4;
    l.out_bytes = spec_.batch * cout * (hw / stride) * (hw / stride) * 4;
    l.weight_bytes = cin * cout * k * k * 4;
    l.bn_bytes = cout * 2 * 4;
    t_.make(name + ".weight", TensorRole::Weight, l.weight_bytes + l.bn_bytes);
    t_.make(name + ".momentum", TensorRole::OptimizerState, l.weight_bytes + l.bn_bytes);
    t_.use(x);
    l.c = t_.make(name + ".conv.out", TensorRole::Activation, l.out_bytes);
    t_.next();
    t_.use(l.c);
    l.y = t_.make(name + ".bn.out", TensorRole::Activation, l.out_bytes);
    l.stats = t_.make(name + ".bn.saved", TensorRole::Scratch, l.bn_bytes);
    t_.next();
    return l;
  }

  Block block(const std::string& name, size_t x, uint64_t cin, uint64_t width, uint64_t out,
              uint64_t stride, uint64_t hw) {
    Block b;
    b.name = name;
    b.in_bytes = spec_.batch * cin * hw * hw * 4;
    b.out_bytes = spec_.batch * out * (hw / stride) * (hw / stride) * 4;
    const uint64_t half = hw / stride;
    if (spec_.bottleneck) {
      b.branch.push_back(conv_bn(name + ".conv1", x, cin, width, 1, hw, 1));
      b.branch.push_back(conv_bn(name + ".conv2", b.branch.back().y, width, width, 3, hw, stride));
      b.branch.push_back(conv_bn(name + ".conv3", b.branch.back().y, width, out, 1, half, 1));
    } else {
      b.branch.push_back(conv_bn(name + ".conv1", x, cin, width, 3, hw, stride));
      b.branch.push_back(conv_bn(name + ".conv2", b.branch.back().y, width, out, 3, half, 1));
    }
    size_t skip = x;
    if (stride != 1 || cin != out) {
      b.projection = conv_bn(name + ".downsample", x, cin, out, 1, hw, stride);
      skip = b.projection.y;
    }
    t_.use(b.branch.back().y);
    t_.use(skip);
    b.out = t_.make(name + ".out", TensorRole::Activation, b.out_bytes);
    t_.next();
    return b;
  }

  // The gradient of the block's input, from the gradient of its output.
  size_t block_backward(const Block& b, size_t grad) {
    t_.use(grad);
    t_.use(b.out);  // the mask of the ReLU after the residual add
    const size_t sum = t_.make(b.name + ".add.grad", TensorRole::Gradient, b.out_bytes);
    t_.next();
    size_t g = sum;
    for (size_t i = b.branch.size(); i-- > 0;)
      g = layer_backward(b.branch[i], g, true);
    const size_t skip = b.projection.name.empty() ? sum : layer_backward(b.projection, sum, true);
    t_.use(g);
    t_.use(skip);
    const size_t in_grad = t_.make(b.name + ".in.grad", TensorRole::Gradient, b.in_bytes);
    t_.next();
    return in_grad;
  }

  // Batch-norm + ReLU backward, then the convolution's weight and data gradients.
  size_t layer_backward(const Layer& l, size_t grad, bool need_input_grad) {
    t_.use(grad);
    t_.use(l.y);
    t_.use(l.c);
    t_.use(l.stats);
    const size_t conv_grad = t_.make(l.name + ".conv.out.grad", TensorRole::Gradient, l.out_bytes);
    const size_t bn_grad = t_.make(l.name + ".bn.grad", TensorRole::WeightGradient, l.bn_bytes);
    t_.next();
    weight_gradient(bn_grad);
    t_.use(conv_grad);
    t_.use(l.x);
    const size_t weight_grad =
        t_.make(l.name + ".weight.grad", TensorRole::WeightGradient, l.weight_bytes);
    t_.next();
    weight_gradient(weight_grad);
    if (!need_input_grad) return kNone;
    t_.use(conv_grad);
    const size_t input_grad = t_.make(l.name + ".in.grad", TensorRole::Gradient, l.in_bytes);
    t_.next();
    return input_grad;
  }

  // Schedules the SGD update that reads weight gradient `g`, called at the step after its
  // producer: the update is this step, or one after the whole backward.
  void weight_gradient(size_t g) {
    if (spec_.update_immediate) {
      t_.use(g);
      t_.next();
    } else {
      pending_updates_.push_back(g);
    }
  }

  const ResNetLike& spec_;
  Timeline t_;
  std::vector<size_t> pending_updates_;
};

}  // namespace

std::vector<Buffer> resnet_like_buffers(const ResNetLike& spec) {
  return Builder(spec).build();
}

std::vector<Buffer> random_buffers(uint64_t seed, size_t count, uint32_t steps) {
  S2_CHECK(steps > 0, "random_buffers: no steps");
  std::mt19937_64 rng(seed);
  std::vector<Buffer> buffers;
  for (size_t i = 0; i < count; ++i) {
    Buffer b;
    b.name = "t" + std::to_string(i);
    const auto first = static_cast<uint32_t>(rng() % steps);
    // Mostly short lifetimes, like gradients and scratch; some spanning much of the program.
    const uint64_t span = rng() % 4 == 0 ? steps : 1 + steps / 8;
    b.first = first;
    b.last = static_cast<uint32_t>(std::min<uint64_t>(steps - 1, first + rng() % span));
    b.size = rng() % 40 == 0 ? 0 : (uint64_t{1} << (rng() % 22)) + rng() % 997;
    b.persistent = rng() % 8 == 0;
    static const TensorRole kRoles[] = {TensorRole::Activation, TensorRole::Gradient,
                                        TensorRole::WeightGradient, TensorRole::Scratch};
    b.role = b.persistent ? TensorRole::Weight : kRoles[rng() % 4];
    buffers.push_back(b);
  }
  return buffers;
}

}  // namespace s2::memory
