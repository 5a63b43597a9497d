#include "rtl_models/pe_array/pe_array_rtl.h"

#include <algorithm>
#include <string>

#include "isa/common/errors.h"
#include "rtl_models/pe/pe_mode.h"

namespace s2::rtl {

void RtlPeArray::set_input_bytes_per_cycle(uint64_t bytes) {
  if (bytes < 4ull * rows())
    throw UserError("the RTL PE array's input buffer must deliver at least one f32 row (" +
                    std::to_string(4ull * rows()) + " bytes) per cycle, got " +
                    std::to_string(bytes));
  input_bytes_per_cycle_ = bytes;
}

uint64_t RtlPeArray::run_drained_pass(const PePass& /*pass*/, bool /*drain*/, const uint32_t* /*x*/,
                                      size_t /*ldx*/, const uint32_t* /*w*/, size_t /*ldw*/,
                                      uint32_t* /*c*/, size_t /*ldc*/,
                                      const DrainCycle& /*each_cycle*/) {
  throw InternalError("this RTL PE array build has no drained pass (the plain builds do)");
}

void RtlPeArray::check_pass(const PePass& pass, size_t ldx, size_t ldw, size_t ldc,
                            const char* who) const {
  const std::string where = std::string(who) + " " + std::to_string(rows()) + "x" +
                            std::to_string(cols()) + " run_pass(m=" + std::to_string(pass.m) +
                            ", n=" + std::to_string(pass.n) + ", k=" + std::to_string(pass.k) +
                            ", " + std::string(isa::dtype_name(pass.mode)) + "): ";
  if (!pe_multiplies(pass.mode))
    throw UserError(where + "the array multiplies f32, bf16 and f16 only");
  if (pass.m < 1 || pass.m > max_m())
    throw UserError(where + "m must be in 1.." + std::to_string(max_m()));
  if (pass.n < 1 || pass.n > cols())
    throw UserError(where + "n must be in 1.." + std::to_string(cols()));
  if (pass.k < 1 || pass.k > max_k(pass.mode))
    throw UserError(where + "k must be in 1.." + std::to_string(max_k(pass.mode)));
  if (ldx < pass.k || ldw < pass.n || ldc < pass.n)
    throw UserError(where +
                    "row strides must be at least the row lengths (ldx >= k, ldw >= n, "
                    "ldc >= n)");
}

std::vector<PassRecord> run_gemm(RtlPeArray& array, uint32_t m, uint32_t n, uint32_t kd,
                                 const uint32_t* a, size_t lda, const uint32_t* b, size_t ldb,
                                 uint32_t* c, size_t ldc, uint32_t max_m, isa::DType mode) {
  const uint32_t mb_limit = max_m == 0 ? array.max_m() : std::min(max_m, array.max_m());
  const uint32_t kb_limit = array.max_k(mode);
  std::vector<PassRecord> passes;
  for (uint32_t n0 = 0; n0 < n; n0 += array.cols()) {
    const uint32_t nb = std::min(array.cols(), n - n0);
    // K blocks in ascending order: the accumulator adds each K-tile's partial sum in turn.
    for (uint32_t k0 = 0; k0 < kd; k0 += kb_limit) {
      const uint32_t kb = std::min(kb_limit, kd - k0);
      for (uint32_t m0 = 0; m0 < m; m0 += mb_limit) {
        const PePass pass{std::min(mb_limit, m - m0), nb, kb, mode};
        const uint64_t cycles =
            array.run_pass(pass, a + size_t{m0} * lda + k0, lda, b + size_t{k0} * ldb + n0, ldb,
                           c + size_t{m0} * ldc + n0, ldc);
        passes.push_back({pass, cycles});
      }
    }
  }
  return passes;
}

}  // namespace s2::rtl
