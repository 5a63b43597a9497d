#include "simulator/functional/gemm.h"

#include "simulator/functional/accumulate.h"
#include "simulator/functional/epilogue.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

// src [cols][rows] -> dst [rows][cols].
std::vector<float> transpose(const float* src, size_t rows, size_t cols) {
  std::vector<float> dst(rows * cols);
  for (size_t c = 0; c < cols; ++c)
    for (size_t r = 0; r < rows; ++r)
      dst[r * cols + c] = src[c * rows + r];
  return dst;
}

}  // namespace

std::vector<float> gemm(size_t m, size_t n, size_t k, const float* a, bool trans_a,
                        const float* b, bool trans_b, const float* bias) {
  std::vector<float> a_packed, b_packed;
  if (trans_a) {
    a_packed = transpose(a, m, k);
    a = a_packed.data();
  }
  if (trans_b) {
    b_packed = transpose(b, k, n);
    b = b_packed.data();
  }
  std::vector<float> y(m * n, 0.0f);
  accumulate_ktiled(m, n, k, a, k, b, n, y.data(), n);
  if (bias != nullptr)
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j)
        y[i * n + j] += bias[j];
  return y;
}

void run_gemm(const isa::Instruction& inst, DramImage& image) {
  Operands ops(inst, image);
  const bool ta = inst.flag(isa::Field::TransA), tb = inst.flag(isa::Field::TransB);
  const isa::TensorDesc& ad = ops.desc(isa::Slot::A);
  const size_t m = ta ? ad.shape[1] : ad.shape[0];
  const size_t k = ta ? ad.shape[0] : ad.shape[1];
  const size_t n = ops.desc(isa::Slot::Y).shape[1];
  const std::vector<float> a = ops.f32(isa::Slot::A), b = ops.f32(isa::Slot::B);
  const auto bias = ops.opt_f32(isa::Slot::Bias);
  const auto residual = ops.opt_f32(isa::Slot::Residual);
  const auto gate = ops.opt_f32(isa::Slot::Gate);
  std::vector<float> y = gemm(m, n, k, a.data(), ta, b.data(), tb, data_or_null(bias));
  apply_epilogue(y, data_or_null(residual), inst.as<isa::Activation>(isa::Field::Act),
                 data_or_null(gate));
  ops.write(isa::Slot::Y, y);
  if (ops.has(isa::Slot::Stats)) ops.write(isa::Slot::Stats, channel_stats(y, m, n, 1));
}

}  // namespace s2::sim::functional
