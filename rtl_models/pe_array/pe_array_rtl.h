#pragma once
// The verilated PE array (pe_array.sv) behind a Verilator-free interface, and GEMM on it.
//
// A pass is what pe_array.sv computes for one configuration of the array (M_t x K_t inputs
// streamed through K_t x N_t stationary weights, accumulated into M_t x N_t outputs); its cost
// in cycles is what simulator/timing/pe_array_model.h's weight-stationary pass_cycles() must
// give. All data are fp32 bit patterns (the RTL applies DAZ/FTZ/canonical NaN itself).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace s2::rtl {

struct PePass {
  uint32_t m;  // M_t: streamed rows, 1 .. max_m()
  uint32_t n;  // N_t: output columns, 1 .. cols()
  uint32_t k;  // K_t: reduction length, 1 .. rows()
};

class RtlPeArray {
 public:
  virtual ~RtlPeArray() = default;
  virtual uint32_t rows() const = 0;
  virtual uint32_t cols() const = 0;
  virtual uint32_t max_m() const = 0;

  // One pass: c[i][j] = add(c[i][j], t(i, j)) for i < m, j < n, with
  // t(i, j) = +0 then add(t, mul(x[i][r], w[r][j])) for r = 0 .. k-1 in order.
  // x is m x k (row stride ldx >= k), w is k x n (ldw >= n), c is m x n in/out (ldc >= n).
  // Returns the pass's cycles as counted in pe_array.sv's header. A shape outside the limits
  // or a stride too small is a UserError.
  virtual uint64_t run_pass(const PePass& pass, const uint32_t* x, size_t ldx, const uint32_t* w,
                            size_t ldw, uint32_t* c, size_t ldc) = 0;

 protected:
  // Shared argument check of run_pass(); `who` names the implementation in the message.
  void check_pass(const PePass& pass, size_t ldx, size_t ldw, size_t ldc, const char* who) const;
};

// The plain C++ Verilator build of a rows x cols array. Built sizes: 32x32 (base config),
// 16x16 (small config), 8x4; any other size is a UserError listing them.
std::unique_ptr<RtlPeArray> make_rtl_pe_array(uint32_t rows, uint32_t cols);

struct PassRecord {
  PePass pass;
  uint64_t cycles;
};

// c += a * b, a m x kd (lda), b kd x n (ldb), c m x n (ldc), as passes on `array`: for each
// block of cols() columns, for each block of rows() reduction steps (aligned at 0, in
// ascending order), for each block of max_m rows (0 or more than max_m(): max_m()), one pass.
// Bit-identical to K-tiled accumulation with k_tile = rows(): per K block, t = +0, t = mac(t, a, b)
// over the block, c = add(c, t). Returns the passes in the order they ran.
std::vector<PassRecord> run_gemm(RtlPeArray& array, uint32_t m, uint32_t n, uint32_t kd,
                                 const uint32_t* a, size_t lda, const uint32_t* b, size_t ldb,
                                 uint32_t* c, size_t ldc, uint32_t max_m = 0);

}  // namespace s2::rtl
