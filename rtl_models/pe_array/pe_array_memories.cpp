#include "rtl_models/pe_array/pe_array_memories.h"

#include <string>

#include "isa/common/errors.h"

namespace s2::rtl {

uint32_t PassMemories::weight(uint32_t row, uint32_t col) const {
  S2_CHECK(row < pass_.k, "pe_array requested weight row " + std::to_string(row) +
                              " of a pass with k=" + std::to_string(pass_.k));
  return col < pass_.n ? w_[size_t{row} * ldw_ + col] : kUnusedLane;
}

uint32_t PassMemories::input(uint32_t i, uint32_t r) const {
  S2_CHECK(i < pass_.m, "pe_array requested input row " + std::to_string(i) +
                            " of a pass with m=" + std::to_string(pass_.m));
  return r < pass_.k ? x_[size_t{i} * ldx_ + r] : kUnusedLane;
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
