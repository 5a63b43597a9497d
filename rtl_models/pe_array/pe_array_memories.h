#pragma once
// The memories around pe_array.sv during one pass, shared by the plain C++ and the SystemC
// harnesses: the weight buffer (read port answered in the cycle of the request), the input
// buffer (a row of E * K_t bytes arrives after ceil(E * K_t / bytes per cycle) cycles of
// request: input_arrives()) and the accumulator SRAM (the caller's c matrix; synchronous
// read, write at the edge). Lanes the pass does not use (weight columns >= n, reduction steps
// >= k) read as +Inf of the pass's type, so every pass checks that bypassed PEs really are
// bypassed (Inf * 0 would give NaN). Requests outside the pass are internal errors: they would
// be RTL bugs.
#include <cstddef>
#include <cstdint>

#include "rtl_models/pe_array/pe_array_rtl.h"

namespace s2::rtl {

class PassMemories {
 public:
  // The array's rows and the input buffer's bytes per cycle give the input beats.
  PassMemories(const PePass& pass, const uint32_t* x, size_t ldx, const uint32_t* w, size_t ldw,
               uint32_t* c, size_t ldc, uint32_t rows, uint64_t input_bytes_per_cycle);

  // Element `col` of weight row `row` (row < k): an f32 word, or a 16-bit pattern.
  uint32_t weight(uint32_t row, uint32_t col) const;
  // Reduction step `step` of input row `i` (i < m), likewise; any step >= k is unused.
  uint32_t input(uint32_t i, uint32_t step) const;
  // Called once per cycle in which the array requests an input row: whether the row is
  // complete in this cycle (x_rd_valid). The first row's beats start with its first request.
  bool input_arrives();
  // The word width of an input element in the port: 32 (f32) or 16.
  unsigned input_bits() const { return pass_.mode == isa::DType::F32 ? 32 : 16; }
  // The accumulator SRAM of column `col` (< n) at address `addr` (< m).
  uint32_t acc_read(uint32_t col, uint32_t addr) const;
  void acc_write(uint32_t col, uint32_t addr, uint32_t value);

  // A watchdog, not the cycle count: a pass that has not signalled done after this many
  // edges is an RTL bug (internal error), never an endless loop.
  uint64_t watchdog_cycles(uint32_t rows, uint32_t cols) const {
    return uint64_t{pass_.k} + rows + cols + uint64_t{pass_.m} * beats_ + 64;
  }

 private:
  void check_acc(uint32_t col, uint32_t addr, const char* what) const;

  PePass pass_;
  uint32_t unused_;    // +Inf of the pass's type
  uint64_t beats_;     // cycles per input row
  uint64_t beat_ = 0;  // cycles the current row has been requested

  const uint32_t* x_;
  size_t ldx_;
  const uint32_t* w_;
  size_t ldw_;
  uint32_t* c_;
  size_t ldc_;
};

}  // namespace s2::rtl
