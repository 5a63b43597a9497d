#include "compiler/lower/reachability.h"

#include "isa/common/errors.h"

namespace s2::lower {

void Reachability::add(const std::vector<uint32_t>& deps, bool barrier) {
  const size_t index = rows_.size();
  std::vector<uint64_t> row((index + 63) / 64, 0);
  if (barrier) {
    for (size_t j = 0; j < index; ++j)
      row[j / 64] |= uint64_t{1} << (j % 64);
  } else {
    for (uint32_t d : deps) {
      S2_CHECK(d < index, "reachability: instruction " + std::to_string(index) +
                              " depends on the later instruction " + std::to_string(d));
      const std::vector<uint64_t>& from = rows_[d];
      for (size_t w = 0; w < from.size(); ++w)
        row[w] |= from[w];
      row[d / 64] |= uint64_t{1} << (d % 64);
    }
  }
  rows_.push_back(std::move(row));
}

bool Reachability::waits_for(uint32_t later, uint32_t earlier) const {
  if (earlier >= later || later >= rows_.size()) return false;
  return (rows_[later][earlier / 64] >> (earlier % 64)) & 1u;
}

}  // namespace s2::lower
