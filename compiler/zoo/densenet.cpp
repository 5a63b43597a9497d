// densenet121: torchvision's DenseNet-121 (torchvision/models/densenet.py: growth rate 32,
// blocks of 6, 12, 24 and 16 layers, 64 initial features, bottleneck size 4, no dropout),
// with its state_dict names:
//   features.conv0 7x7/2 pad 3 (no bias), features.norm0, features.relu0,
//   features.pool0 max-pool 3x3/2 pad 1;
//   features.denseblock<i>.denselayer<j>: the concat of the block's input and every earlier
//     layer's output, then norm1, relu1, conv1 (1x1 to 128, no bias), norm2, relu2, conv2
//     (3x3 pad 1 to 32, no bias); the block's output is the concat of its input and all its
//     layers' outputs;
//   features.transition<i> after blocks 1-3: norm, relu, conv (1x1 halving the channels, no
//     bias), pool (2x2 average, stride 2);
//   features.norm5, then torch.nn.functional.relu (the op ":Relu", as the PyTorch exporter names
//     a functional call at the model's top, which scripts/torch_reference.py follows),
//   global average pool, flatten, classifier (Linear(1024, classes)).
// Every layer's concat is a prefix of its block's final concat, so pass place-concat puts the
// whole block in one buffer and each concat becomes a view of it (docs/compiler.md).

#include <array>
#include <vector>

#include "compiler/zoo/models.h"

namespace s2::zoo {
namespace {

using ir::TensorId;

constexpr std::array<int, 4> kBlocks{6, 12, 24, 16};
constexpr int64_t kGrowth = 32;
constexpr int64_t kBottleneck = 4;  // bn_size: conv1 widens to 4 * growth
constexpr int64_t kInitFeatures = 64;

TensorId dense_layer(ModelBuilder& b, const std::string& layer,
                     const std::vector<TensorId>& features) {
  TensorId y = b.concat(layer + ".cat", features);
  y = b.relu(layer + ".relu1", b.batch_norm(layer + ".norm1", y));
  y = b.conv2d(layer + ".conv1", y, kBottleneck * kGrowth, 1, 1, 0, false);
  y = b.relu(layer + ".relu2", b.batch_norm(layer + ".norm2", y));
  return b.conv2d(layer + ".conv2", y, kGrowth, 3, 1, 1, false);
}

TensorId transition(ModelBuilder& b, const std::string& path, TensorId x) {
  TensorId y = b.relu(path + ".relu", b.batch_norm(path + ".norm", x));
  y = b.conv2d(path + ".conv", y, b.shape(x)[1] / 2, 1, 1, 0, false);
  return b.avg_pool(path + ".pool", y, 2, 2);
}

}  // namespace

void build_densenet121(ModelBuilder& b) {
  const TensorId x = b.input();
  const TensorId labels = b.labels();
  TensorId h = b.conv2d("features.conv0", x, kInitFeatures, 7, 2, 3, false);
  h = b.relu("features.relu0", b.batch_norm("features.norm0", h));
  h = b.max_pool("features.pool0", h, 3, 2, 1);
  for (size_t i = 0; i < kBlocks.size(); ++i) {
    const std::string block = "features.denseblock" + std::to_string(i + 1);
    std::vector<TensorId> features{h};
    for (int j = 0; j < kBlocks[i]; ++j)
      features.push_back(dense_layer(b, block + ".denselayer" + std::to_string(j + 1), features));
    h = b.concat(block + ".cat", features);
    if (i + 1 < kBlocks.size()) h = transition(b, "features.transition" + std::to_string(i + 1), h);
  }
  h = b.relu(":Relu", b.batch_norm("features.norm5", h));
  h = b.flatten("flatten", b.global_avg_pool("avgpool", h));
  b.loss(b.linear("classifier", h, b.options().classes), labels);
}

}  // namespace s2::zoo
