#include "simulator/checker/shadow_memory.h"

#include <algorithm>
#include <iterator>

namespace s2::sim::checker {

void ShadowMemory::split(uint64_t at) {
  auto it = map_.upper_bound(at);
  if (it == map_.begin()) return;
  --it;
  if (it->first == at || it->second.end <= at) return;
  const Piece tail{it->second.end, it->second.tag};
  it->second.end = at;
  map_.emplace_hint(std::next(it), at, tail);
}

void ShadowMemory::write(const Interval& range, const Tag& tag) {
  if (range.begin >= range.end) return;
  split(range.begin);
  split(range.end);
  auto first = map_.lower_bound(range.begin);
  auto last = map_.lower_bound(range.end);
  map_.erase(first, last);
  uint64_t begin = range.begin;
  uint64_t end = range.end;
  // Merge with equal-tagged neighbours that touch, so repeated writes do not fragment the map.
  auto next = map_.find(end);
  if (next != map_.end() && next->second.tag == tag) {
    end = next->second.end;
    map_.erase(next);
  }
  auto it = map_.lower_bound(begin);
  if (it != map_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end == begin && prev->second.tag == tag) {
      prev->second.end = end;
      return;
    }
  }
  map_.emplace_hint(it, begin, Piece{end, tag});
}

void ShadowMemory::read(const Interval& range,
                        const std::function<void(const Interval&, const Tag*)>& visit) const {
  if (range.begin >= range.end) return;
  auto it = map_.upper_bound(range.begin);
  if (it != map_.begin() && std::prev(it)->second.end > range.begin) --it;
  uint64_t at = range.begin;
  for (; it != map_.end() && it->first < range.end; ++it) {
    if (it->first > at) visit({at, it->first}, nullptr);
    const uint64_t b = std::max(at, it->first);
    const uint64_t e = std::min(range.end, it->second.end);
    visit({b, e}, &it->second.tag);
    at = e;
  }
  if (at < range.end) visit({at, range.end}, nullptr);
}

}  // namespace s2::sim::checker
