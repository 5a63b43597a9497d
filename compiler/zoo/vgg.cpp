// vgg11: torchvision's VGG configuration "A" without batch norm
// (torchvision/models/vgg.py), with its state_dict names:
//   features: conv3x3 (pad 1, with bias) + ReLU per number, max-pool 2/2 per "M", of
//             64 M 128 M 256 256 M 512 512 M 512 512 M   (indices features.0 .. features.20)
//   avgpool:  AdaptiveAvgPool2d((7, 7))
//   classifier: Linear(512*7*7, 4096), ReLU, Dropout(0.5), Linear(4096, 4096), ReLU,
//               Dropout(0.5), Linear(4096, classes)   (classifier.0 .. classifier.6; the
//               dropout masks are drawn on the accelerator, ops/dropout.h)
//
// The adaptive pool is ModelBuilder::adaptive_avg_pool: an identity on a 7x7 map (224x224
// images), an exact average pool on multiples of 7, a broadcast of a 1x1 map (32x32 images)
// and a gemm with torch's bin matrix otherwise (e.g. the 3x3 map of 96x96 images).

#include "compiler/zoo/models.h"

namespace s2::zoo {
namespace {

constexpr int64_t kPool = -1;  // "M" in torchvision's configuration lists
constexpr int64_t kConfigA[] = {64,  kPool, 128,   kPool, 256, 256,  kPool,
                                512, 512,   kPool, 512,   512, kPool};
constexpr int64_t kAdaptiveOut = 7;
constexpr double kDropout = 0.5;

}  // namespace

void build_vgg11(ModelBuilder& b) {
  const ir::TensorId x = b.input();
  const ir::TensorId labels = b.labels();
  ir::TensorId h = x;
  int index = 0;
  auto module = [&index] { return "features." + std::to_string(index++); };
  for (int64_t v : kConfigA) {
    if (v == kPool) {
      h = b.max_pool(module(), h, 2, 2, 0);
    } else {
      h = b.conv2d(module(), h, v, 3, 1, 1, true);
      h = b.relu(module(), h);
    }
  }
  h = b.adaptive_avg_pool("avgpool", h, kAdaptiveOut, kAdaptiveOut);
  h = b.flatten("flatten", h);
  h = b.relu("classifier.1", b.linear("classifier.0", h, 4096));
  h = b.dropout("classifier.2", h, kDropout);
  h = b.relu("classifier.4", b.linear("classifier.3", h, 4096));
  h = b.dropout("classifier.5", h, kDropout);
  b.loss(b.linear("classifier.6", h, b.options().classes), labels);
}

}  // namespace s2::zoo
