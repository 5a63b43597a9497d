#include "simulator/checker/tensor_attribution.h"

#include <algorithm>
#include <tuple>

namespace s2::sim::checker {

TensorAttribution::TensorAttribution(const std::vector<isa::TensorEntry>& tensors)
    : tensors_(tensors) {
  by_addr_.resize(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    by_addr_[i] = static_cast<uint32_t>(i);
    max_size_ = std::max(max_size_, tensors[i].size);
  }
  std::stable_sort(by_addr_.begin(), by_addr_.end(),
                   [&](uint32_t a, uint32_t b) { return tensors_[a].addr < tensors_[b].addr; });
}

std::vector<uint32_t> TensorAttribution::candidates(uint64_t addr, uint32_t instruction) const {
  std::vector<uint32_t> out;
  // Entries starting in (addr - max_size, addr] are the only ones that can contain addr.
  auto it = std::upper_bound(by_addr_.begin(), by_addr_.end(), addr,
                             [&](uint64_t a, uint32_t t) { return a < tensors_[t].addr; });
  const uint64_t lowest = addr >= max_size_ ? addr - max_size_ : 0;
  while (it != by_addr_.begin()) {
    --it;
    const isa::TensorEntry& t = tensors_[*it];
    if (t.addr < lowest) break;
    if (addr - t.addr < t.size && t.first <= instruction && instruction <= t.last)
      out.push_back(*it);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool TensorAttribution::readable(uint32_t tensor, uint32_t instruction) const {
  const isa::TensorEntry& t = tensors_[tensor];
  return t.first < instruction || t.has_data();
}

int64_t TensorAttribution::primary(const std::vector<uint32_t>& candidates, uint64_t addr,
                                   uint64_t end, uint32_t instruction, bool written) const {
  int64_t best = -1;
  std::tuple<bool, bool, bool, uint64_t> best_key{};
  for (uint32_t c : candidates) {
    const isa::TensorEntry& t = tensors_[c];
    const bool role_fits = written ? t.first == instruction : readable(c, instruction);
    // Smaller keys win: negate the preferences.
    const bool holds_all = end - t.addr <= t.size;  // t.addr <= addr < end: a candidate
    const std::tuple<bool, bool, bool, uint64_t> key{!role_fits, !holds_all, t.addr != addr,
                                                     t.size};
    if (best < 0 || key < best_key) {
      best = c;
      best_key = key;
    }
  }
  return best;
}

int64_t TensorAttribution::any_containing(uint64_t addr) const {
  for (uint32_t i = 0; i < tensors_.size(); ++i)
    if (tensors_[i].addr <= addr && addr - tensors_[i].addr < tensors_[i].size) return i;
  return -1;
}

}  // namespace s2::sim::checker
