// mlp: a three-layer perceptron on the flattened image,
//   flatten, Linear(C*H*W, 256), ReLU, Linear(256, 128), ReLU, Linear(128, classes),
// with parameters fc1/fc2/fc3.weight/bias (scripts/torch_reference.py defines the same module).

#include "compiler/zoo/models.h"

namespace s2::zoo {

void build_mlp(ModelBuilder& b) {
  const ir::TensorId x = b.input();
  const ir::TensorId labels = b.labels();
  ir::TensorId h = b.flatten("flatten", x);
  h = b.relu("relu1", b.linear("fc1", h, 256));
  h = b.relu("relu2", b.linear("fc2", h, 128));
  b.loss(b.linear("fc3", h, b.options().classes), labels);
}

}  // namespace s2::zoo
