#include "simulator/functional/softmax_ce.h"

#include <cmath>
#include <string>

#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

using isa::Slot;

struct RowStats {
  float max;
  float sum;  // of exp(x - max)
};

RowStats row_stats(const float* row, size_t classes) {
  float max = row[0];
  for (size_t c = 1; c < classes; ++c)
    max = row[c] > max ? row[c] : max;
  float sum = 0.0f;
  for (size_t c = 0; c < classes; ++c)
    sum += std::exp(row[c] - max);
  return {max, sum};
}

size_t label_of(const Operands& ops, const std::vector<int32_t>& labels, size_t n,
                size_t classes) {
  const int32_t t = labels[n];
  if (t < 0 || static_cast<size_t>(t) >= classes)
    ops.fail("label " + std::to_string(t) + " of sample " + std::to_string(n) +
             " is outside the class range [0," + std::to_string(classes) + ")");
  return static_cast<size_t>(t);
}

}  // namespace

void run_softmax_ce(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const isa::TensorDesc& ld = ops.desc(Slot::Logits);
  const size_t rows = ld.shape[0], classes = ld.shape[1];
  const bool mean =
      inst.as<isa::LossReduction>(isa::Field::Reduction) == isa::LossReduction::Mean;
  if (ops.desc(Slot::Labels).shape[0] != rows)
    ops.fail("labels has " + std::to_string(ops.desc(Slot::Labels).shape[0]) +
             " entries for " + std::to_string(rows) + " rows of logits");
  if (ops.has(Slot::Loss)) {
    const std::vector<float> x = ops.f32(Slot::Logits);
    const std::vector<int32_t> labels = ops.i32(Slot::Labels);
    float total = 0.0f;
    for (size_t n = 0; n < rows; ++n) {
      const float* row = x.data() + n * classes;
      const size_t t = label_of(ops, labels, n, classes);
      const RowStats s = row_stats(row, classes);
      total += std::log(s.sum) - (row[t] - s.max);
    }
    if (mean) total /= static_cast<float>(rows);
    ops.write(Slot::Loss, std::vector<float>{total});
  }
  if (ops.has(Slot::DLogits)) {
    const std::vector<float> x = ops.f32(Slot::Logits);
    const std::vector<int32_t> labels = ops.i32(Slot::Labels);
    const auto divisor = static_cast<float>(rows);
    std::vector<float> dx(x.size());
    for (size_t n = 0; n < rows; ++n) {
      const float* row = x.data() + n * classes;
      const size_t t = label_of(ops, labels, n, classes);
      const RowStats s = row_stats(row, classes);
      for (size_t c = 0; c < classes; ++c) {
        float g = std::exp(row[c] - s.max) / s.sum - (c == t ? 1.0f : 0.0f);
        if (mean) g /= divisor;
        dx[n * classes + c] = g;
      }
    }
    ops.write(Slot::DLogits, dx);
  }
}

}  // namespace s2::sim::functional
