// lenet5: LeNet-5 with ReLU and max pooling, the modern reading of LeCun et al. 1998:
//   conv1 6@5x5, relu, maxpool 2/2, conv2 16@5x5, relu, maxpool 2/2, flatten,
//   fc1 120, relu, fc2 84, relu, fc3 classes.
// Convolutions are unpadded, so the image must be at least 16x16 (32x32 is the classic size).

#include "compiler/zoo/models.h"

namespace s2::zoo {

void build_lenet5(ModelBuilder& b) {
  const ir::TensorId x = b.input();
  const ir::TensorId labels = b.labels();
  ir::TensorId h = b.relu("relu1", b.conv2d("conv1", x, 6, 5, 1, 0, true));
  h = b.max_pool("pool1", h, 2, 2, 0);
  h = b.relu("relu2", b.conv2d("conv2", h, 16, 5, 1, 0, true));
  h = b.max_pool("pool2", h, 2, 2, 0);
  h = b.flatten("flatten", h);
  h = b.relu("relu3", b.linear("fc1", h, 120));
  h = b.relu("relu4", b.linear("fc2", h, 84));
  b.loss(b.linear("fc3", h, b.options().classes), labels);
}

}  // namespace s2::zoo
