// ResNet-18/34 (basic blocks) and ResNet-50 (bottleneck blocks), exactly torchvision's
// topology and state_dict names (torchvision/models/resnet.py):
//   conv1 7x7/2 pad 3 (no bias), bn1, relu, maxpool 3x3/2 pad 1,
//   layer1..layer4 of blocks (64, 128, 256, 512 planes; the first block of layer2..4 has
//   stride 2), avgpool (global), flatten, fc.
// Every conv is followed by batch norm and has no bias. A block's shortcut is a downsample
// (1x1 conv with the block's stride + bn, `downsample.0` / `downsample.1`) where the shape
// changes. The bottleneck strides on its 3x3 conv (torchvision's "ResNet v1.5").

#include <array>

#include "compiler/zoo/models.h"

namespace s2::zoo {
namespace {

using ir::TensorId;

struct ResNetSpec {
  bool bottleneck;
  std::array<int, 4> blocks;
};

TensorId conv_bn(ModelBuilder& b, const std::string& block, const std::string& conv,
                 const std::string& bn, TensorId x, int64_t channels, int64_t kernel,
                 int64_t stride) {
  const TensorId y = b.conv2d(block + conv, x, channels, kernel, stride, kernel / 2, false);
  return b.batch_norm(block + bn, y);
}

// The shortcut: x itself, or downsample(x) when the block changes the shape.
TensorId shortcut(ModelBuilder& b, const std::string& block, TensorId x, int64_t out_channels,
                  int64_t stride) {
  if (stride == 1 && b.shape(x)[1] == out_channels) return x;
  return conv_bn(b, block, "downsample.0", "downsample.1", x, out_channels, 1, stride);
}

TensorId basic_block(ModelBuilder& b, const std::string& block, TensorId x, int64_t planes,
                     int64_t stride) {
  TensorId y = b.relu(block + "relu", conv_bn(b, block, "conv1", "bn1", x, planes, 3, stride));
  y = conv_bn(b, block, "conv2", "bn2", y, planes, 3, 1);
  const TensorId identity = shortcut(b, block, x, planes, stride);
  return b.relu(block + "relu", b.add(block + "add", y, identity));
}

TensorId bottleneck(ModelBuilder& b, const std::string& block, TensorId x, int64_t planes,
                    int64_t stride) {
  constexpr int64_t kExpansion = 4;
  TensorId y = b.relu(block + "relu", conv_bn(b, block, "conv1", "bn1", x, planes, 1, 1));
  y = b.relu(block + "relu", conv_bn(b, block, "conv2", "bn2", y, planes, 3, stride));
  y = conv_bn(b, block, "conv3", "bn3", y, planes * kExpansion, 1, 1);
  const TensorId identity = shortcut(b, block, x, planes * kExpansion, stride);
  return b.relu(block + "relu", b.add(block + "add", y, identity));
}

void build_resnet(ModelBuilder& b, const ResNetSpec& spec) {
  const TensorId x = b.input();
  const TensorId labels = b.labels();
  TensorId h = b.relu("relu", conv_bn(b, "", "conv1", "bn1", x, 64, 7, 2));
  h = b.max_pool("maxpool", h, 3, 2, 1);
  for (int layer = 0; layer < 4; ++layer) {
    const int64_t planes = int64_t{64} << layer;
    for (int k = 0; k < spec.blocks[static_cast<size_t>(layer)]; ++k) {
      const std::string block = "layer" + std::to_string(layer + 1) + "." + std::to_string(k) + ".";
      const int64_t stride = (layer > 0 && k == 0) ? 2 : 1;
      h = spec.bottleneck ? bottleneck(b, block, h, planes, stride)
                          : basic_block(b, block, h, planes, stride);
    }
  }
  h = b.flatten("flatten", b.global_avg_pool("avgpool", h));
  b.loss(b.linear("fc", h, b.options().classes), labels);
}

}  // namespace

void build_resnet18(ModelBuilder& b) {
  build_resnet(b, {false, {2, 2, 2, 2}});
}
void build_resnet34(ModelBuilder& b) {
  build_resnet(b, {false, {3, 4, 6, 3}});
}
void build_resnet50(ModelBuilder& b) {
  build_resnet(b, {true, {3, 4, 6, 3}});
}

}  // namespace s2::zoo
