#include "simulator/rtl/rtl_pe_gemm.h"

#include <algorithm>
#include <string>
#include <vector>

#include "isa/common/errors.h"
#include "isa/common/float_bits.h"
#include "isa/common/hex.h"
#include "isa/numerics/fp32.h"
#include "isa/numerics/low_precision.h"

namespace s2::sim::rtl {
namespace {

// rows x cols of a strided float matrix as dense words.
std::vector<uint32_t> dense_words(const float* v, size_t rows, size_t cols, size_t ld) {
  std::vector<uint32_t> out(rows * cols);
  for (size_t r = 0; r < rows; ++r) {
    const std::vector<uint32_t> row = f32_words(v + r * ld, cols);
    std::copy(row.begin(), row.end(), out.begin() + static_cast<std::ptrdiff_t>(r * cols));
  }
  return out;
}

// The same for multiplicands of `mode`: f32 words, or the 16-bit patterns of values that are
// exactly of that type (the functional kernels widened them from bf16 / f16 tensors).
std::vector<uint32_t> multiplicand_words(const float* v, size_t rows, size_t cols, size_t ld,
                                         isa::DType mode) {
  if (mode == isa::DType::F32) return dense_words(v, rows, cols, ld);
  std::vector<uint32_t> out(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) {
      const float value = v[r * ld + c];
      const uint16_t half = numerics::bits16_from_f32(mode, value);
      const float back = numerics::f32_from_bits16(mode, half);
      S2_CHECK(f32_bits(back) == f32_bits(value) || (numerics::is_nan_bits(f32_bits(back)) &&
                                                     numerics::is_nan_bits(f32_bits(value))),
               "RTL PE GEMM: multiplicand " + s2::hex32(f32_bits(value)) + " is not a " +
                   std::string(isa::dtype_name(mode)) + " value");
      out[r * cols + c] = half;
    }
  return out;
}

void check_port(const target::TargetDesc& t, const char* buffer, const target::SramBufferDesc& b,
                uint32_t values) {
  const uint64_t per_cycle = uint64_t{b.banks} * b.bank_width_bytes;
  if (per_cycle < 4ull * values)
    t.fail("sram." + std::string(buffer),
           "delivers " + std::to_string(per_cycle) + " bytes per cycle; the PE-array RTL streams " +
               std::to_string(values) + " fp32 values (" + std::to_string(4ull * values) +
               " bytes) per cycle, so --rtl pe_array needs at least that");
}

// The cycles of c (m x n) += a (m x kd) * b on the array, passes as s2::rtl::run_gemm cuts them.
uint64_t gemm_cycles(const timing::PeArrayModel& model, const s2::rtl::RtlPeArray& array,
                     uint32_t max_m, uint64_t m, uint64_t n, uint64_t kd, isa::DType mode) {
  auto blocks = [](uint64_t size, uint64_t limit, auto fn) {
    for (uint64_t at = 0; at < size; at += limit)
      fn(std::min(limit, size - at));
  };
  uint64_t total = 0;
  blocks(n, array.cols(), [&](uint64_t nb) {
    blocks(kd, array.max_k(mode), [&](uint64_t kb) {
      blocks(m, max_m, [&](uint64_t mb) { total += model.pass_cycles({mb, nb, kb}); });
    });
  });
  return total;
}

// a (rows x cols, dense) transposed.
std::vector<uint32_t> transposed(const std::vector<uint32_t>& a, size_t rows, size_t cols) {
  std::vector<uint32_t> t(a.size());
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      t[c * rows + r] = a[r * cols + c];
  return t;
}

}  // namespace

uint32_t check_rtl_pe_target(const s2::rtl::RtlPeArray& rtl, const target::TargetDesc& target,
                             const timing::PeArrayModel& model) {
  if (target.pe_array.dataflow != target::Dataflow::WeightStationary)
    target.fail("pe_array.dataflow",
                "the PE-array RTL is weight_stationary; --rtl pe_array cannot stand in for '" +
                    std::string(target::name(target.pe_array.dataflow)) + "'");
  if (target.pe_array.rows != rtl.rows() || target.pe_array.cols != rtl.cols())
    target.fail("pe_array", "the configuration has " + std::to_string(target.pe_array.rows) + "x" +
                                std::to_string(target.pe_array.cols) +
                                " PEs, the RTL is built with " + std::to_string(rtl.rows()) + "x" +
                                std::to_string(rtl.cols()));
  check_port(target, "input", target.sram.input, rtl.rows());
  check_port(target, "weight", target.sram.weight, rtl.cols());
  check_port(target, "accumulator", target.sram.accumulator, rtl.cols());
  // Passes hold at most the accumulator rows of a column (timing model), which the RTL's
  // accumulator must cover.
  const uint64_t model_m = model.max_pass().m;
  if (model_m > rtl.max_m())
    target.fail("sram.accumulator.size",
                std::to_string(model_m) +
                    " accumulator rows per PE column; the PE-array RTL is built with MAX_M " +
                    std::to_string(rtl.max_m()) + ", so --rtl pe_array needs at most that");
  // The 16-bit modes run MACS chains per column; the configuration must say the same rate.
  for (const auto& [dtype, macs] : target.pe_array.datatypes)
    if (dtype != isa::DType::F32 && macs != rtl.macs())
      target.fail("pe_array.datatypes." + std::string(isa::dtype_name(dtype)),
                  std::to_string(macs) + " MACs per PE per cycle; the " +
                      std::to_string(rtl.rows()) + "x" + std::to_string(rtl.cols()) +
                      " PE-array RTL multiplies bf16 and f16 at " + std::to_string(rtl.macs()) +
                      ", so --rtl pe_array needs that");
  return static_cast<uint32_t>(model_m);
}

uint32_t configure_rtl_pe(s2::rtl::RtlPeArray& rtl, const target::TargetDesc& target,
                          const timing::PeArrayModel& model) {
  const uint32_t max_m = check_rtl_pe_target(rtl, target, model);
  rtl.set_input_bytes_per_cycle(uint64_t{target.sram.input.banks} *
                                target.sram.input.bank_width_bytes);
  return max_m;
}

RtlPeGemm::RtlPeGemm(s2::rtl::RtlPeArray& rtl, const target::TargetDesc& target, CosimLog& log)
    : rtl_(rtl), log_(log), model_(rtl.rows()), timing_(target) {
  // Every mode's model has the same accumulator rows per column.
  max_m_ = configure_rtl_pe(rtl, target, timing_.get(target.pe_array.datatypes.begin()->first));
}

void RtlPeGemm::set_mode(isa::DType mode) {
  timing_.get(mode);  // the target multiplies it (checked before the run: internal otherwise)
  mode_ = mode;
}

void RtlPeGemm::accumulate(size_t m, size_t n, size_t kd, const float* a, size_t lda,
                           const float* b, size_t ldb, float* c, size_t ldc) {
  if (m == 0 || n == 0) return;
  const timing::PeArrayModel& timing = timing_.get(mode_);
  const std::vector<uint32_t> wa = multiplicand_words(a, m, kd, lda, mode_);
  const std::vector<uint32_t> wb = multiplicand_words(b, kd, n, ldb, mode_);
  std::vector<uint32_t> wc = dense_words(c, m, n, ldc);
  // The model on a dense copy of c.
  std::vector<float> mc(m * n);
  for (size_t i = 0; i < m; ++i)
    std::copy(c + i * ldc, c + i * ldc + n, mc.begin() + static_cast<std::ptrdiff_t>(i * n));
  model_.accumulate(m, n, kd, a, lda, b, ldb, mc.data(), n);

  // Either operand may be the stationary one: c^T += b^T a^T sums every element over the same
  // K-tiles in the same order, so the bits are the same. The sequencer streams the longer
  // side, whichever costs fewer cycles.
  const auto u32 = [](size_t v) { return static_cast<uint32_t>(v); };
  std::vector<s2::rtl::PassRecord> passes;
  if (kd > 0 && gemm_cycles(timing, rtl_, max_m_, n, m, kd, mode_) <
                    gemm_cycles(timing, rtl_, max_m_, m, n, kd, mode_)) {
    const std::vector<uint32_t> x = transposed(wb, kd, n);  // n x kd
    const std::vector<uint32_t> w = transposed(wa, m, kd);  // kd x m
    std::vector<uint32_t> ct = transposed(wc, m, n);        // n x m
    passes = s2::rtl::run_gemm(rtl_, u32(n), u32(m), u32(kd), x.data(), kd, w.data(), m, ct.data(),
                               m, max_m_, mode_);
    wc = transposed(ct, n, m);
  } else if (kd > 0) {
    passes = s2::rtl::run_gemm(rtl_, u32(m), u32(n), u32(kd), wa.data(), kd, wb.data(), n,
                               wc.data(), n, max_m_, mode_);
  }
  UnitCosim& u = log_.pe_array;
  std::string divergence;
  for (const s2::rtl::PassRecord& r : passes) {
    const uint64_t model = timing.pass_cycles({r.pass.m, r.pass.n, r.pass.k});
    ++u.passes;
    u.rtl_cycles += r.cycles;
    u.model_cycles += model;
    if (r.cycles != model && divergence.empty())
      divergence = std::string(isa::dtype_name(mode_)) + " pass " + std::to_string(r.pass.m) + "x" +
                   std::to_string(r.pass.n) + "x" + std::to_string(r.pass.k) +
                   " (M_t x N_t x K_t): RTL " + std::to_string(r.cycles) + " cycles, model " +
                   std::to_string(model);
  }
  u.elements += m * n;
  for (size_t i = 0; i < m && divergence.empty(); ++i)
    for (size_t j = 0; j < n; ++j) {
      const uint32_t want = f32_bits(numerics::store(mc[i * n + j]));
      if (wc[i * n + j] != want) {
        divergence = "c[" + std::to_string(i) + "][" + std::to_string(j) + "] of a " +
                     std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(kd) +
                     " GEMM: RTL " + s2::hex32(wc[i * n + j]) + ", model " + s2::hex32(want);
        break;
      }
    }
  if (!divergence.empty()) {
    ++u.divergences;
    if (u.first.empty()) u.first = log_.context + ": " + divergence;
  }
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j)
      c[i * ldc + j] = f32_from_bits(wc[i * n + j]);
}

}  // namespace s2::sim::rtl
