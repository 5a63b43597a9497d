#include "compiler/memory/buffer.h"

#include <algorithm>

#include "isa/common/errors.h"

namespace s2::memory {

uint64_t align_up(uint64_t value, uint64_t alignment) {
  S2_CHECK(alignment != 0 && (alignment & (alignment - 1)) == 0,
           "align_up: alignment " + std::to_string(alignment) + " is not a power of two");
  return (value + alignment - 1) & ~(alignment - 1);
}

uint64_t live_peak(const std::vector<Buffer>& buffers, uint64_t alignment) {
  // Sweep over step boundaries: +size at first, -size after last.
  std::vector<std::pair<uint64_t, int64_t>> events;
  for (const Buffer& b : buffers) {
    if (b.persistent || b.space != isa::MemSpace::Dram) continue;
    const auto size = static_cast<int64_t>(align_up(b.size, alignment));
    events.emplace_back(uint64_t{b.first} * 2, size);
    events.emplace_back(uint64_t{b.last} * 2 + 1, -size);
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0, peak = 0;
  for (const auto& [at, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return static_cast<uint64_t>(peak);
}

}  // namespace s2::memory
