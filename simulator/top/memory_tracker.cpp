#include "simulator/top/memory_tracker.h"

#include <algorithm>

namespace s2::sim::top {

MemoryTracker::MemoryTracker(const isa::Executable& exe)
    : exe_(exe),
      born_(exe.instructions.size()),
      dies_(exe.instructions.size()),
      state_(exe.tensors.size(), 0) {
  const size_t n = exe.instructions.size();
  for (size_t t = 0; t < exe.tensors.size(); ++t) {
    const isa::TensorEntry& e = exe.tensors[t];
    if (n == 0) break;
    if (e.space != isa::MemSpace::Dram) continue;  // live DRAM only: host memory is not counted
    born_[std::min<size_t>(e.first, n - 1)].push_back(static_cast<uint32_t>(t));
    dies_[std::min<size_t>(e.last, n - 1)].push_back(static_cast<uint32_t>(t));
  }
}

void MemoryTracker::started(uint32_t instruction, uint64_t cycle) {
  for (uint32_t t : born_[instruction]) {
    if (state_[t] != 0) continue;
    state_[t] = 1;
    live_ += exe_.tensors[t].size;
  }
  peak_ = std::max(peak_, live_);
  record(cycle);
}

void MemoryTracker::completed(uint32_t instruction, uint64_t cycle) {
  for (uint32_t t : dies_[instruction]) {
    // A tensor whose last user finished before its first one started (possible only out of
    // order) never becomes live.
    if (state_[t] == 1) live_ -= exe_.tensors[t].size;
    state_[t] = 2;
  }
  record(cycle);
}

void MemoryTracker::record(uint64_t cycle) {
  if (!samples_.empty() && samples_.back().live_bytes == live_) return;
  samples_.push_back({cycle, live_});
}

uint64_t planned_peak(const isa::Executable& exe) {
  const size_t n = exe.instructions.size();
  if (n == 0) return 0;
  std::vector<int64_t> delta(n + 1, 0);
  for (const isa::TensorEntry& e : exe.tensors) {
    if (e.space != isa::MemSpace::Dram) continue;
    const size_t first = std::min<size_t>(e.first, n - 1);
    const size_t last = std::min<size_t>(std::max(e.first, e.last), n - 1);
    delta[first] += static_cast<int64_t>(e.size);
    delta[last + 1] -= static_cast<int64_t>(e.size);
  }
  int64_t live = 0, peak = 0;
  for (size_t i = 0; i < n; ++i) {
    live += delta[i];
    peak = std::max(peak, live);
  }
  return static_cast<uint64_t>(peak);
}

}  // namespace s2::sim::top
