#include "rtl_models/pe_array/pe_array_memories.h"

#include <string>

#include "isa/common/errors.h"

namespace s2::rtl {
namespace {

uint32_t infinity(isa::DType mode) {
  switch (mode) {
    case isa::DType::BF16:
      return 0x7F80u;
    case isa::DType::F16:
      return 0x7C00u;
    default:
      return 0x7F800000u;
  }
}

}  // namespace

PassMemories::PassMemories(const PePass& pass, const uint32_t* x, size_t ldx, const uint32_t* w,
                           size_t ldw, uint32_t* c, size_t ldc, uint32_t rows,
                           uint64_t input_bytes_per_cycle)
    : pass_(pass),
      unused_(infinity(pass.mode)),
      beats_((uint64_t{input_bits()} / 8 * pass.k + input_bytes_per_cycle - 1) /
             input_bytes_per_cycle),
      x_(x),
      ldx_(ldx),
      w_(w),
      ldw_(ldw),
      c_(c),
      ldc_(ldc) {
  S2_CHECK(input_bytes_per_cycle >= 4ull * rows,
           "pe_array input buffer narrower than one f32 row per cycle");
}

uint32_t PassMemories::weight(uint32_t row, uint32_t col) const {
  S2_CHECK(row < pass_.k, "pe_array requested weight row " + std::to_string(row) +
                              " of a pass with k=" + std::to_string(pass_.k));
  return col < pass_.n ? w_[size_t{row} * ldw_ + col] : unused_;
}

uint32_t PassMemories::input(uint32_t i, uint32_t step) const {
  S2_CHECK(i < pass_.m, "pe_array requested input row " + std::to_string(i) +
                            " of a pass with m=" + std::to_string(pass_.m));
  return step < pass_.k ? x_[size_t{i} * ldx_ + step] : unused_;
}

bool PassMemories::input_arrives() {
  if (++beat_ < beats_) return false;
  beat_ = 0;
  return true;
}

void PassMemories::check_acc(uint32_t col, uint32_t addr, const char* what) const {
  S2_CHECK(col < pass_.n && addr < pass_.m,
           std::string("pe_array accumulator ") + what + " at column " + std::to_string(col) +
               ", address " + std::to_string(addr) + " outside the pass (m=" +
               std::to_string(pass_.m) + ", n=" + std::to_string(pass_.n) + ")");
}

uint32_t PassMemories::acc_read(uint32_t col, uint32_t addr) const {
  check_acc(col, addr, "read");
  return c_[size_t{addr} * ldc_ + col];
}

void PassMemories::acc_write(uint32_t col, uint32_t addr, uint32_t value) {
  check_acc(col, addr, "write");
  c_[size_t{addr} * ldc_ + col] = value;
}

}  // namespace s2::rtl
