#pragma once
// The memories around pe_array.sv during one pass, shared by the plain C++ and the SystemC
// harnesses: the weight and input buffers (read ports answered in the cycle of the request)
// and the accumulator SRAM (the caller's c matrix; synchronous read, write at the edge).
// Lanes the pass does not use (weight columns >= n, input elements >= k) read as +Inf, so
// every pass checks that bypassed PEs really are bypassed (Inf * 0 would give NaN).
// Requests outside the pass are internal errors: they would be RTL bugs.
#include <cstddef>
#include <cstdint>

#include "rtl_models/pe_array/pe_array_rtl.h"

namespace s2::rtl {

class PassMemories {
 public:
  static constexpr uint32_t kUnusedLane = 0x7F800000u;  // +Inf

  PassMemories(const PePass& pass, const uint32_t* x, size_t ldx, const uint32_t* w, size_t ldw,
               uint32_t* c, size_t ldc)
      : pass_(pass), x_(x), ldx_(ldx), w_(w), ldw_(ldw), c_(c), ldc_(ldc) {}

  // Element `col` of weight row `row` (row < k).
  uint32_t weight(uint32_t row, uint32_t col) const;
  // Element `r` of input row `i` (i < m).
  uint32_t input(uint32_t i, uint32_t r) const;
  // The accumulator SRAM of column `col` (< n) at address `addr` (< m).
  uint32_t acc_read(uint32_t col, uint32_t addr) const;
  void acc_write(uint32_t col, uint32_t addr, uint32_t value);

  // A watchdog, not the cycle count: a pass that has not signalled done after this many
  // edges is an RTL bug (internal error), never an endless loop.
  uint64_t watchdog_cycles(uint32_t rows, uint32_t cols) const {
    return uint64_t{pass_.k} + rows + cols + pass_.m + 64;
  }

 private:
  void check_acc(uint32_t col, uint32_t addr, const char* what) const;

  PePass pass_;
  const uint32_t* x_;
  size_t ldx_;
  const uint32_t* w_;
  size_t ldw_;
  uint32_t* c_;
  size_t ldc_;
};

}  // namespace s2::rtl
