// efficientnet_b0: torchvision's EfficientNet-B0 (torchvision/models/efficientnet.py), with its
// state_dict names:
//   features.0   Conv2dNormActivation(3, 32, 3x3/2): conv .0 (no bias), batch norm .1, SiLU .2
//   features.1-7  stages of MBConv blocks (expand, kernel, stride, out channels, blocks) =
//                (1,3,1,16,1) (6,3,2,24,2) (6,5,2,40,2) (6,3,2,80,3) (6,5,1,112,3)
//                (6,5,2,192,4) (6,3,1,320,1); block j of stage i is features.i.j, the first
//                with the stage's stride. A block is `block`, a Sequential of
//                  1x1 expansion to 6C + bn + SiLU (only where expand != 1),
//                  kxk depthwise with the stride + bn + SiLU,
//                  squeeze-excitation: global average pool, fc1 (1x1 conv to max(1, C/4),
//                    bias), SiLU, fc2 (1x1 conv back, bias), sigmoid, times the map,
//                  1x1 projection + bn (no activation),
//                and, where the stride is 1 and the channels stay, StochasticDepth("row") of
//                probability 0.2 * (block number) / 16 on the block before the residual add;
//   features.8   Conv2dNormActivation(320, 1280, 1x1) with SiLU
//   avgpool (global), flatten, classifier: Dropout(0.2) .0, Linear(1280, classes) .1
// Batch norm has torchvision's defaults for B0 (eps 1e-5, momentum 0.1).

#include <array>

#include "compiler/zoo/models.h"

namespace s2::zoo {
namespace {

using ir::TensorId;

struct Stage {
  int64_t expand, kernel, stride, channels, blocks;
};
constexpr std::array<Stage, 7> kStages{{{1, 3, 1, 16, 1},
                                        {6, 3, 2, 24, 2},
                                        {6, 5, 2, 40, 2},
                                        {6, 3, 2, 80, 3},
                                        {6, 5, 1, 112, 3},
                                        {6, 5, 2, 192, 4},
                                        {6, 3, 1, 320, 1}}};
constexpr int64_t kStemChannels = 32;
constexpr int64_t kLastChannels = 1280;
constexpr double kDropout = 0.2;
constexpr double kStochasticDepth = 0.2;

// Conv2dNormActivation: conv <path>.0 (padding (k-1)/2, no bias), batch norm <path>.1 and,
// unless `act` is empty, the activation <path>.2.
TensorId conv_bn_act(ModelBuilder& b, const std::string& path, TensorId x, int64_t channels,
                     int64_t kernel, int64_t stride, int64_t groups, const char* act) {
  TensorId y = b.conv2d(path + ".0", x, channels, kernel, stride, (kernel - 1) / 2, false, groups);
  y = b.batch_norm(path + ".1", y);
  return *act ? b.activation(path + ".2", y, act) : y;
}

// torchvision.ops.SqueezeExcitation with SiLU inside and a sigmoid gate.
TensorId squeeze_excitation(ModelBuilder& b, const std::string& path, TensorId x, int64_t squeeze) {
  const int64_t channels = b.shape(x)[1];
  TensorId s = b.global_avg_pool(path + ".avgpool", x);
  s = b.activation(path + ".activation", b.conv2d(path + ".fc1", s, squeeze, 1, 1, 0, true),
                   "silu");
  s = b.activation(path + ".scale_activation", b.conv2d(path + ".fc2", s, channels, 1, 1, 0, true),
                   "sigmoid");
  return b.mul(path + ".mul", x, s);
}

TensorId mbconv(ModelBuilder& b, const std::string& block, TensorId x, const Stage& s,
                int64_t stride, double stochastic_depth) {
  const int64_t in_channels = b.shape(x)[1];
  const int64_t expanded = in_channels * s.expand;
  int index = 0;
  auto next = [&] { return block + ".block." + std::to_string(index++); };
  TensorId y = x;
  if (expanded != in_channels) y = conv_bn_act(b, next(), y, expanded, 1, 1, 1, "silu");
  y = conv_bn_act(b, next(), y, expanded, s.kernel, stride, expanded, "silu");
  y = squeeze_excitation(b, next(), y, std::max<int64_t>(1, in_channels / 4));
  y = conv_bn_act(b, next(), y, s.channels, 1, 1, 1, "");
  if (stride != 1 || in_channels != s.channels) return y;
  y = b.stochastic_depth(block + ".stochastic_depth", y, stochastic_depth);
  return b.add(block + ".add", y, x);
}

}  // namespace

void build_efficientnet_b0(ModelBuilder& b) {
  const TensorId x = b.input();
  const TensorId labels = b.labels();
  TensorId h = conv_bn_act(b, "features.0", x, kStemChannels, 3, 2, 1, "silu");
  int64_t total = 0;
  for (const Stage& s : kStages)
    total += s.blocks;
  int64_t block_number = 0;
  for (size_t i = 0; i < kStages.size(); ++i) {
    const Stage& s = kStages[i];
    for (int64_t k = 0; k < s.blocks; ++k, ++block_number) {
      const std::string block = "features." + std::to_string(i + 1) + "." + std::to_string(k);
      const double p =
          kStochasticDepth * static_cast<double>(block_number) / static_cast<double>(total);
      h = mbconv(b, block, h, s, k == 0 ? s.stride : 1, p);
    }
  }
  h = conv_bn_act(b, "features." + std::to_string(kStages.size() + 1), h, kLastChannels, 1, 1, 1,
                  "silu");
  h = b.flatten("flatten", b.global_avg_pool("avgpool", h));
  h = b.dropout("classifier.0", h, kDropout);
  b.loss(b.linear("classifier.1", h, b.options().classes), labels);
}

}  // namespace s2::zoo
