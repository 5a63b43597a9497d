// TensorAttribution against a brute-force reading of its contract (tensor_attribution.h) on
// random tensor tables where entries share addresses, sizes and lifetimes, then the size that
// was quadratic before.
#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "simulator/checker/tensor_attribution.h"

namespace s2::sim::checker {
namespace {

// Every entry, in table order, checked against the rules one by one.
TensorAttribution::Attribution brute_attribute(const std::vector<isa::TensorEntry>& tensors,
                                               uint64_t addr, uint64_t end, uint32_t instruction,
                                               bool written) {
  TensorAttribution::Attribution out;
  std::tuple<bool, bool, bool, uint64_t, uint32_t> best{};
  for (uint32_t c = 0; c < tensors.size(); ++c) {
    const isa::TensorEntry& t = tensors[c];
    if (addr < t.addr || addr - t.addr >= t.size) continue;
    if (instruction < t.first || instruction > t.last) continue;
    const bool holds_data = t.first < instruction || t.has_data();
    const bool fits = written ? t.first == instruction : holds_data;
    const std::tuple<bool, bool, bool, uint64_t, uint32_t> key{!fits, end - t.addr > t.size,
                                                               t.addr != addr, t.size, c};
    if (out.primary < 0 || key < best) {
      out.primary = c;
      best = key;
    }
    if (holds_data && out.readable.size() < TensorAttribution::kMaxReadable)
      out.readable.push_back(c);
  }
  return out;
}

TEST(CheckerAttribution, EveryOperandIsAttributedAsTheContractSays) {
  std::mt19937 rng(3);
  auto pick = [&](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 200; ++trial) {
    // Few places and lifetimes, so that groups of equal address and size and live overlaps
    // are common; some entries never live (first > last), some with data.
    std::vector<isa::TensorEntry> tensors(pick(1, 40));
    for (isa::TensorEntry& t : tensors) {
      t.addr = 16 * pick(0, 6);
      t.size = 16 * pick(1, 4);
      t.first = pick(0, 12);
      t.last = pick(0, 12);
      if (pick(0, 4) == 0) t.data_offset = 0;
      if (pick(0, 3) != 0) t.last = std::max(t.first, t.last);
    }
    const TensorAttribution a(tensors);
    for (uint64_t addr = 0; addr < 160; addr += 8)
      for (uint32_t inst = 0; inst <= 13; ++inst)
        for (const bool written : {false, true}) {
          const uint64_t end = addr + 8 * pick(1, 8);
          const TensorAttribution::Attribution want =
              brute_attribute(tensors, addr, end, inst, written);
          const TensorAttribution::Attribution got =
              a.attribute(addr, end, inst, written, !written);
          ASSERT_EQ(got.primary, want.primary) << "trial " << trial << " addr " << addr
                                               << " instruction " << inst << " written " << written;
          if (!written) {
            ASSERT_EQ(got.readable, want.readable) << "trial " << trial;
          }
        }
    // The first entry containing an address, live or not.
    for (uint64_t addr = 0; addr < 160; addr += 8) {
      int64_t first = -1;
      for (uint32_t c = 0; c < tensors.size() && first < 0; ++c)
        if (addr >= tensors[c].addr && addr - tensors[c].addr < tensors[c].size) first = c;
      ASSERT_EQ(a.any_containing(addr), first) << "trial " << trial << " addr " << addr;
    }
  }
}

// 40,000 entries on the same 64 bytes, each live for two instructions: each attribution sees
// only the live ones (the scan of every entry there took 20 s for the checker over them).
TEST(CheckerAttribution, ThousandsOfEntriesOnOneAddressAreOneGroup) {
  constexpr uint32_t kEntries = 40000;
  std::vector<isa::TensorEntry> tensors(kEntries);
  for (uint32_t i = 0; i < kEntries; ++i) {
    tensors[i].size = 64;
    tensors[i].first = i;
    tensors[i].last = i + 1;
  }
  const TensorAttribution a(tensors);
  for (uint32_t i = 1; i < kEntries; ++i) {
    const TensorAttribution::Attribution read = a.attribute(0, 64, i, false, true);
    ASSERT_EQ(read.primary, i - 1);
    ASSERT_EQ(read.readable, std::vector<uint32_t>{i - 1});
    ASSERT_EQ(a.attribute(0, 64, i, true, false).primary, i);
  }
}

}  // namespace
}  // namespace s2::sim::checker
