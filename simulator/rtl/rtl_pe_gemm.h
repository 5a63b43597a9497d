#pragma once
// The PE-array RTL behind the functional model's PE GEMM (isa/numerics/pe_gemm.h): every
// accumulate() runs as passes through the verilated array in the current instruction's
// multiply mode (set_mode(): f32, bf16 or f16; s2::rtl::run_gemm: column blocks of the array's
// width, K blocks of its rows x chains aligned at 0, row blocks of the accumulator rows per
// column the timing model gives a pass), and
// the RTL's sums are what the datapath continues with. Every call is also computed by the C++
// model (numerics::KTiledGemm with k_tile = rows) and every pass's cycles by the timing model
// (timing::PeArrayModel::pass_cycles); a difference in any output bit or any pass's cycle
// count is recorded in the CosimLog with the pass shape, the element and both values in hex.
#include <memory>

#include "isa/numerics/pe_gemm.h"
#include "isa/target/target_desc.h"
#include "rtl_models/pe_array/pe_array_rtl.h"
#include "simulator/rtl/cosim_log.h"
#include "simulator/timing/pe_array_model.h"

namespace s2::sim::rtl {

// The target must describe the RTL: a weight-stationary array of the RTL's rows x cols whose
// input, weight and accumulator buffers each deliver at least one array edge of fp32 per
// cycle, whose passes (model.max_pass()) hold no more rows than the RTL's accumulator, and
// whose 16-bit datatypes (pe_array.datatypes bf16, f16) run at the RTL's MACs per PE; a
// UserError naming the config key otherwise. Returns the rows per pass (the model's limit).
uint32_t check_rtl_pe_target(const s2::rtl::RtlPeArray& rtl, const target::TargetDesc& target,
                             const timing::PeArrayModel& model);
// check_rtl_pe_target, then gives the RTL harness the target's input buffer width (the beats
// of a row of 16-bit inputs).
uint32_t configure_rtl_pe(s2::rtl::RtlPeArray& rtl, const target::TargetDesc& target,
                          const timing::PeArrayModel& model);

class RtlPeGemm final : public numerics::PeGemm {
 public:
  // The target must describe the RTL (check_rtl_pe_target).
  RtlPeGemm(s2::rtl::RtlPeArray& rtl, const target::TargetDesc& target, CosimLog& log);
  // The multiply mode of the instruction whose GEMMs follow (isa::multiplicand_dtype; f32 for
  // instructions without multiplicands). Its operands must be values of that type (they are:
  // the functional kernels widen them from the tensors); one that is not is an internal error.
  void set_mode(isa::DType mode);
  void accumulate(size_t m, size_t n, size_t kd, const float* a, size_t lda, const float* b,
                  size_t ldb, float* c, size_t ldc) override;
  size_t k_tile() const override { return rtl_.rows(); }

 private:
  s2::rtl::RtlPeArray& rtl_;
  CosimLog& log_;
  numerics::KTiledGemm model_;
  timing::PeArrayModels timing_;
  isa::DType mode_ = isa::DType::F32;
  uint32_t max_m_ = 0;  // rows per pass: the model's accumulator rows per column
};

}  // namespace s2::sim::rtl
