// vgg11: torchvision's VGG configuration "A" without batch norm
// (torchvision/models/vgg.py), with its state_dict names:
//   features: conv3x3 (pad 1, with bias) + ReLU per number, max-pool 2/2 per "M", of
//             64 M 128 M 256 256 M 512 512 M 512 512 M   (indices features.0 .. features.20)
//   avgpool:  AdaptiveAvgPool2d((7, 7))
//   classifier: Linear(512*7*7, 4096), ReLU, Linear(4096, 4096), ReLU, Linear(4096, classes)
//               (classifier.0, .3, .6; torchvision's Dropout at .2 and .5 is left out because
//               the training step is deterministic: dropout is not modelled.)
//
// The adaptive pool is modelled only where it is a fixed pooling: an identity on a 7x7 map,
// or an exact average pool with window = stride = (H/7, W/7) when both sides are multiples
// of 7 (torch's adaptive bins are then exactly those windows). Any other size is a UserError:
// overlapping or uneven adaptive bins have no op here. Five halvings mean 224x224 is the
// smallest image that works.

#include "compiler/zoo/models.h"

namespace s2::zoo {
namespace {

constexpr int64_t kPool = -1;  // "M" in torchvision's configuration lists
constexpr int64_t kConfigA[] = {64,  kPool, 128,   kPool, 256, 256,  kPool,
                                512, 512,   kPool, 512,   512, kPool};
constexpr int64_t kAdaptiveOut = 7;

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
  const int64_t fh = b.shape(h)[2];
  const int64_t fw = b.shape(h)[3];
  if (fh % kAdaptiveOut != 0 || fw % kAdaptiveOut != 0)
    b.fail("the feature map after 'features' is " + std::to_string(fh) + "x" + std::to_string(fw) +
           ", and AdaptiveAvgPool2d((7, 7)) is supported only as an identity (7x7) or an exact "
           "average pool (both sides multiples of 7)");
  if (fh != kAdaptiveOut || fw != kAdaptiveOut)
    h = b.avg_pool("avgpool", h, fh / kAdaptiveOut, fw / kAdaptiveOut);
  h = b.flatten("flatten", h);
  h = b.relu("classifier.1", b.linear("classifier.0", h, 4096));
  h = b.relu("classifier.4", b.linear("classifier.3", h, 4096));
  b.loss(b.linear("classifier.6", h, b.options().classes), labels);
}

}  // namespace s2::zoo
