#pragma once
// The verilated PE array (pe_array.sv) behind a Verilator-free interface, and GEMM on it.
//
// A pass is what pe_array.sv computes for one configuration of the array (M_t x K_t inputs
// streamed through K_t x N_t stationary weights, accumulated into M_t x N_t outputs); its cost
// in cycles is what simulator/timing/pe_array_model.h's weight-stationary pass_cycles() must
// give. The multiplicands x and w are words of the pass's multiply mode: f32 bit patterns, or
// bf16 / f16 patterns in bits 15:0 (the upper bits are ignored); c is always f32. The RTL
// applies the widening, DAZ/FTZ and canonical NaN itself.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "isa/encoding/isa_table.h"

namespace s2::rtl {

struct PePass {
  uint32_t m;                         // M_t: streamed rows, 1 .. max_m()
  uint32_t n;                         // N_t: output columns, 1 .. cols()
  uint32_t k;                         // K_t: reduction length, 1 .. max_k(mode)
  isa::DType mode = isa::DType::F32;  // the multiplicands' type: f32, bf16 or f16
};

class RtlPeArray {
 public:
  virtual ~RtlPeArray() = default;
  virtual uint32_t rows() const = 0;
  virtual uint32_t cols() const = 0;
  virtual uint32_t max_m() const = 0;
  // MACs per PE per cycle in the bf16 and f16 modes (pe_array.sv's MACS; f32 is always 1).
  virtual uint32_t macs() const = 0;
  // Partial-sum chains per column in `mode` (1 for f32, macs() for bf16 and f16), and the
  // longest reduction one pass holds: rows() chains of them.
  uint32_t chains(isa::DType mode) const { return mode == isa::DType::F32 ? 1 : macs(); }
  uint32_t max_k(isa::DType mode) const { return rows() * chains(mode); }

  // The input buffer's bytes per cycle: a row of K_t multiplicands of E bytes takes
  // ceil(E * K_t / that) cycles to arrive (pe_array.sv's x_rd_valid). Default 4 * rows():
  // one f32 row per cycle. Must be at least that.
  uint64_t input_bytes_per_cycle() const {
    return input_bytes_per_cycle_ ? input_bytes_per_cycle_ : 4ull * rows();
  }
  void set_input_bytes_per_cycle(uint64_t bytes);

  // One pass: for i < m, j < n and each chain q of the pass (q * rows() < k, ascending)
  // c[i][j] = add(c[i][j], t_q(i, j)), with t_q = +0 then add(t_q, mul(x[i][r], w[r][j])) for
  // r = q * rows() .. min(k, (q + 1) * rows()) - 1 in order: the K-tiles of rows() steps.
  // x is m x k (row stride ldx >= k), w is k x n (ldw >= n), c is m x n in/out (ldc >= n).
  // Returns the pass's cycles as counted in pe_array.sv's header. A shape outside the limits,
  // a mode the array does not multiply or a stride too small is a UserError.
  virtual uint64_t run_pass(const PePass& pass, const uint32_t* x, size_t ldx, const uint32_t* w,
                            size_t ldw, uint32_t* c, size_t ldc) = 0;

  // run_pass() with a unit clocked in step: `each_cycle` runs before every rising edge of the
  // pass, with the drain port as that edge samples it (pe_array.sv: whether a row leaves, and
  // then its cols() words), and moves its own unit through the same cycle (the PPU epilogue
  // consuming the drain). `drain` is cfg_drain: whether the pass's rows leave through the port.
  // The plain builds implement it; elsewhere it is an internal error.
  using DrainCycle = std::function<void(bool valid, const uint32_t* row)>;
  virtual uint64_t run_drained_pass(const PePass& pass, bool drain, const uint32_t* x, size_t ldx,
                                    const uint32_t* w, size_t ldw, uint32_t* c, size_t ldc,
                                    const DrainCycle& each_cycle);

 protected:
  // Shared argument check of run_pass(); `who` names the implementation in the message.
  void check_pass(const PePass& pass, size_t ldx, size_t ldw, size_t ldc, const char* who) const;

 private:
  uint64_t input_bytes_per_cycle_ = 0;  // 0: the default
};

// The plain C++ Verilator build of a rows x cols array. Built sizes (rows x cols, MACs per PE
// in the 16-bit modes): 32x32 with 4 (base config), 16x16 with 2 (small config), 8x4 with 2;
// any other size is a UserError listing them.
std::unique_ptr<RtlPeArray> make_rtl_pe_array(uint32_t rows, uint32_t cols);

struct PassRecord {
  PePass pass;
  uint64_t cycles;
};

// c += a * b, a m x kd (lda), b kd x n (ldb), c m x n (ldc), multiplicands of type `mode`, as
// passes on `array`: for each block of cols() columns, for each block of max_k(mode) reduction
// steps (aligned at 0, in ascending order), for each block of max_m rows (0 or more than
// max_m(): max_m()), one pass. Bit-identical to K-tiled accumulation with k_tile = rows():
// per K-tile, t = +0, t = mac(t, a, b) over the tile, c = add(c, t). Returns the passes in the
// order they ran.
std::vector<PassRecord> run_gemm(RtlPeArray& array, uint32_t m, uint32_t n, uint32_t kd,
                                 const uint32_t* a, size_t lda, const uint32_t* b, size_t ldb,
                                 uint32_t* c, size_t ldc, uint32_t max_m = 0,
                                 isa::DType mode = isa::DType::F32);

}  // namespace s2::rtl
