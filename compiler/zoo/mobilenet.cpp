// mobilenet_v2: torchvision's MobileNetV2 at width 1.0 (torchvision/models/mobilenetv2.py),
// with its state_dict names:
//   features.0   Conv2dNormActivation(3, 32, 3x3/2): conv .0 (no bias), batch norm .1, ReLU6 .2
//   features.1-17  inverted residual blocks (t, c, n, s) = (1,16,1,1) (6,24,2,2) (6,32,3,2)
//                (6,64,4,2) (6,96,3,1) (6,160,3,2) (6,320,1,1): n blocks of c channels, the
//                first with stride s; each is `conv`, a Sequential of
//                  conv.0  1x1 expansion to t*C channels + bn + ReLU6 (only where t != 1),
//                  conv.k  3x3 depthwise (groups = t*C) with the block's stride + bn + ReLU6,
//                  conv.k+1  1x1 projection (no bias), conv.k+2  its batch norm,
//                plus the input where the stride is 1 and the channels stay (use_res_connect);
//   features.18  Conv2dNormActivation(320, 1280, 1x1)
//   adaptive_avg_pool2d to 1x1, flatten, classifier: Dropout(0.2) .0, Linear(1280, classes) .1

#include <array>

#include "compiler/zoo/models.h"

namespace s2::zoo {
namespace {

using ir::TensorId;

struct Stage {
  int64_t expand, channels, blocks, stride;
};
constexpr std::array<Stage, 7> kStages{{{1, 16, 1, 1},
                                        {6, 24, 2, 2},
                                        {6, 32, 3, 2},
                                        {6, 64, 4, 2},
                                        {6, 96, 3, 1},
                                        {6, 160, 3, 2},
                                        {6, 320, 1, 1}}};
constexpr int64_t kStemChannels = 32;
constexpr int64_t kLastChannels = 1280;
constexpr double kDropout = 0.2;

// Conv2dNormActivation: conv <path>.0 (padding (k-1)/2, no bias), batch norm <path>.1 and
// ReLU6 <path>.2.
TensorId conv_bn_relu6(ModelBuilder& b, const std::string& path, TensorId x, int64_t channels,
                       int64_t kernel, int64_t stride, int64_t groups = 1) {
  TensorId y = b.conv2d(path + ".0", x, channels, kernel, stride, (kernel - 1) / 2, false, groups);
  y = b.batch_norm(path + ".1", y);
  return b.activation(path + ".2", y, "relu6");
}

TensorId inverted_residual(ModelBuilder& b, const std::string& block, TensorId x,
                           int64_t out_channels, int64_t stride, int64_t expand) {
  const int64_t in_channels = b.shape(x)[1];
  const int64_t hidden = in_channels * expand;
  const std::string conv = block + ".conv.";
  int index = 0;
  auto next = [&] { return conv + std::to_string(index++); };
  TensorId y = x;
  if (expand != 1) y = conv_bn_relu6(b, next(), y, hidden, 1, 1);
  y = conv_bn_relu6(b, next(), y, hidden, 3, stride, hidden);
  y = b.conv2d(next(), y, out_channels, 1, 1, 0, false);
  y = b.batch_norm(next(), y);
  if (stride == 1 && in_channels == out_channels) y = b.add(block + ".add", x, y);
  return y;
}

}  // namespace

void build_mobilenet_v2(ModelBuilder& b) {
  const TensorId x = b.input();
  const TensorId labels = b.labels();
  TensorId h = conv_bn_relu6(b, "features.0", x, kStemChannels, 3, 2);
  int index = 1;
  for (const Stage& s : kStages)
    for (int64_t k = 0; k < s.blocks; ++k)
      h = inverted_residual(b, "features." + std::to_string(index++), h, s.channels,
                            k == 0 ? s.stride : 1, s.expand);
  h = conv_bn_relu6(b, "features." + std::to_string(index), h, kLastChannels, 1, 1);
  h = b.flatten("flatten", b.global_avg_pool("avgpool", h));
  h = b.dropout("classifier.0", h, kDropout);
  b.loss(b.linear("classifier.1", h, b.options().classes), labels);
}

}  // namespace s2::zoo
