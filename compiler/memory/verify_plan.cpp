#include "compiler/memory/verify_plan.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <queue>
#include <utility>

#include "isa/common/errors.h"

namespace s2::memory {
namespace {

constexpr uint32_t kAlways = std::numeric_limits<uint32_t>::max();

class Verifier {
 public:
  Verifier(const std::vector<Buffer>& buffers, const MemoryPlan& plan)
      : buffers_(buffers), plan_(plan), end_(buffers.size()) {}

  void run() {
    check_layout();
    for (size_t i = 0; i < buffers_.size(); ++i)
      check_buffer(i);
    check_overlaps();
    check_host();
    for (size_t i = 0; i < buffers_.size(); ++i)
      check_region(i);
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw InternalError("memory plan (" + plan_.planner + "): " + problem);
  }

  bool aligned(uint64_t value) const { return (value & (plan_.alignment - 1)) == 0; }

  std::string range(size_t i) const {
    return "[" + std::to_string(plan_.address[i]) + ", " + std::to_string(end_[i]) + ")";
  }

  std::string describe(size_t i) const {
    return "'" + buffers_[i].name + "'" + (buffers_[i].persistent ? " (persistent)" : "");
  }

  uint32_t first(size_t i) const { return buffers_[i].persistent ? 0 : buffers_[i].first; }
  uint32_t last(size_t i) const { return buffers_[i].persistent ? kAlways : buffers_[i].last; }

  void check_layout() const {
    const uint64_t a = plan_.alignment;
    if (a == 0 || (a & (a - 1)) != 0)
      fail("alignment " + std::to_string(a) + " is not a power of two");
    if (plan_.address.size() != buffers_.size())
      fail(std::to_string(plan_.address.size()) + " addresses for " +
           std::to_string(buffers_.size()) + " buffers");
    if (!aligned(plan_.persistent_bytes) || !aligned(plan_.arena_base) ||
        !aligned(plan_.arena_size))
      fail("persistent bytes " + std::to_string(plan_.persistent_bytes) + ", arena base " +
           std::to_string(plan_.arena_base) + " or arena size " + std::to_string(plan_.arena_size) +
           " is not a multiple of " + std::to_string(a));
    if (plan_.arena_base < plan_.persistent_bytes)
      fail("the arena base " + std::to_string(plan_.arena_base) +
           " lies inside the persistent region [0, " + std::to_string(plan_.persistent_bytes) +
           ")");
    if (plan_.arena_size > std::numeric_limits<uint64_t>::max() - plan_.arena_base ||
        plan_.dram_size != plan_.arena_base + plan_.arena_size)
      fail("dram size " + std::to_string(plan_.dram_size) + " is not arena base " +
           std::to_string(plan_.arena_base) + " + arena size " + std::to_string(plan_.arena_size));
  }

  void check_buffer(size_t i) {
    const Buffer& b = buffers_[i];
    if (b.first > b.last)
      fail("buffer " + describe(i) + " ends at step " + std::to_string(b.last) +
           " before it starts at step " + std::to_string(b.first));
    const uint64_t address = plan_.address[i];
    if (!aligned(address))
      fail("buffer " + describe(i) + " at address " + std::to_string(address) +
           " is not aligned to " + std::to_string(plan_.alignment));
    if (b.size > std::numeric_limits<uint64_t>::max() - plan_.alignment)
      fail("buffer " + describe(i) + " has an impossible size " + std::to_string(b.size));
    const uint64_t reserved = align_up(b.size, plan_.alignment);
    if (address > std::numeric_limits<uint64_t>::max() - reserved)
      fail("buffer " + describe(i) + " at address " + std::to_string(address) +
           " wraps around the address space");
    end_[i] = address + reserved;
  }

  // Sweep the buffers by first step, keeping those still live ordered by address. Live
  // ranges verified so far are disjoint, so a new range can only overlap its two neighbours
  // in address order: the last one starting at or below it and the first one above it.
  void check_overlaps() const {
    std::vector<size_t> by_first;
    for (size_t i = 0; i < buffers_.size(); ++i)
      if (end_[i] > plan_.address[i] && !host(i)) by_first.push_back(i);
    std::stable_sort(by_first.begin(), by_first.end(),
                     [&](size_t a, size_t b) { return first(a) < first(b); });
    using Expiry = std::pair<uint32_t, size_t>;  // (last step, buffer)
    std::priority_queue<Expiry, std::vector<Expiry>, std::greater<Expiry>> expiring;
    std::map<uint64_t, size_t> live;  // address -> buffer
    for (const size_t i : by_first) {
      const uint32_t step = first(i);
      while (!expiring.empty() && expiring.top().first < step) {
        live.erase(plan_.address[expiring.top().second]);
        expiring.pop();
      }
      const auto above = live.upper_bound(plan_.address[i]);
      if (above != live.begin() && end_[std::prev(above)->second] > plan_.address[i])
        overlap(std::prev(above)->second, i, step);
      if (above != live.end() && above->first < end_[i]) overlap(above->second, i, step);
      live.emplace(plan_.address[i], i);
      expiring.emplace(last(i), i);
    }
  }

  [[noreturn]] void overlap(size_t a, size_t b, uint32_t step) const {
    fail(describe(a) + " " + range(a) + " and " + describe(b) + " " + range(b) +
         " are both live at step " + std::to_string(step) + " and overlap in address");
  }

  bool host(size_t i) const { return buffers_[i].space == isa::MemSpace::Host; }

  // Host buffers have a slot each: they may not share a byte at all.
  void check_host() const {
    std::vector<size_t> slots;
    for (size_t i = 0; i < buffers_.size(); ++i)
      if (host(i) && end_[i] > plan_.address[i]) slots.push_back(i);
    std::sort(slots.begin(), slots.end(),
              [&](size_t a, size_t b) { return plan_.address[a] < plan_.address[b]; });
    for (size_t k = 1; k < slots.size(); ++k)
      if (end_[slots[k - 1]] > plan_.address[slots[k]])
        fail("host buffers " + describe(slots[k - 1]) + " " + range(slots[k - 1]) + " and " +
             describe(slots[k]) + " " + range(slots[k]) + " overlap");
  }

  void check_region(size_t i) const {
    if (host(i)) {
      if (end_[i] > plan_.host_size)
        fail("host buffer " + describe(i) + " " + range(i) + " lies outside host memory [0, " +
             std::to_string(plan_.host_size) + ")");
      return;
    }
    const bool persistent = buffers_[i].persistent;
    const uint64_t low = persistent ? 0 : plan_.arena_base;
    const uint64_t high = persistent ? plan_.persistent_bytes : plan_.dram_size;
    if (plan_.address[i] < low || end_[i] > high)
      fail("buffer " + describe(i) + " " + range(i) + " lies outside the " +
           (persistent ? "persistent region" : "arena") + " [" + std::to_string(low) + ", " +
           std::to_string(high) + ")");
  }

  const std::vector<Buffer>& buffers_;
  const MemoryPlan& plan_;
  std::vector<uint64_t> end_;  // address + reserved size, per buffer
};

}  // namespace

void verify_plan(const std::vector<Buffer>& buffers, const MemoryPlan& plan) {
  Verifier(buffers, plan).run();
}

}  // namespace s2::memory
