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

template <typename Visit>
void TensorAttribution::for_each_containing(uint64_t addr, Visit visit) const {
  // Entries starting in (addr - max_size, addr] are the only ones that can contain addr.
  const uint64_t lowest = addr >= max_size_ ? addr - max_size_ : 0;
  auto it = std::upper_bound(by_addr_.begin(), by_addr_.end(), addr,
                             [&](uint64_t a, uint32_t t) { return a < tensors_[t].addr; });
  while (it != by_addr_.begin()) {
    --it;
    const isa::TensorEntry& t = tensors_[*it];
    if (t.addr < lowest) break;
    if (addr - t.addr < t.size) visit(*it, t);
  }
}

TensorAttribution::Attribution TensorAttribution::attribute(uint64_t addr, uint64_t end,
                                                            uint32_t instruction, bool written,
                                                            bool want_readable) const {
  Attribution out;
  std::tuple<bool, bool, bool, uint64_t, uint32_t> best_key{};
  for_each_containing(addr, [&](uint32_t c, const isa::TensorEntry& t) {
    if (instruction < t.first || instruction > t.last) return;
    const bool holds_data = readable(c, instruction);
    const bool role_fits = written ? t.first == instruction : holds_data;
    // Smaller keys win: negate the preferences; the lowest index breaks a tie.
    const bool holds_all = end - t.addr <= t.size;  // t.addr <= addr < end: a candidate
    const std::tuple<bool, bool, bool, uint64_t, uint32_t> key{!role_fits, !holds_all,
                                                               t.addr != addr, t.size, c};
    if (out.primary < 0 || key < best_key) {
      out.primary = c;
      best_key = key;
    }
    if (!want_readable || !holds_data) return;
    // Keep the kMaxReadable lowest indices, in order.
    std::vector<uint32_t>& r = out.readable;
    if (r.size() == kMaxReadable && c > r.back()) return;
    r.insert(std::upper_bound(r.begin(), r.end(), c), c);
    if (r.size() > kMaxReadable) r.pop_back();
  });
  return out;
}

bool TensorAttribution::readable(uint32_t tensor, uint32_t instruction) const {
  const isa::TensorEntry& t = tensors_[tensor];
  return t.first < instruction || t.has_data();
}

int64_t TensorAttribution::any_containing(uint64_t addr) const {
  int64_t first = -1;
  for_each_containing(addr, [&](uint32_t c, const isa::TensorEntry&) {
    if (first < 0 || c < first) first = c;
  });
  return first;
}

}  // namespace s2::sim::checker
