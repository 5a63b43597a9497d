// The hazard scan and the dependency closure against brute force on random programs: the
// closure answers exactly what a full reachability matrix does, and the scan reports exactly
// the pairs hazard_scan.h says it examines that are unordered: only real hazards, and at
// least one whenever the program has any. Then a size that was quadratic before.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <utility>

#include "simulator/checker/dependency_closure.h"
#include "simulator/checker/shadow_checker.h"

namespace s2::sim::checker {
namespace {

// Waits-for by brute force: row i is i's dependencies, their rows, and for a fence (or
// after one) everything before it.
std::vector<std::vector<bool>> brute_closure(const std::vector<isa::Instruction>& p) {
  const size_t n = p.size();
  std::vector<std::vector<bool>> w(n, std::vector<bool>(n, false));
  int64_t fence = -1;
  for (size_t i = 0; i < n; ++i) {
    const bool is_fence =
        p[i].opcode() == isa::Opcode::Barrier || p[i].opcode() == isa::Opcode::End;
    auto take = [&](size_t d) {
      w[i][d] = true;
      for (size_t k = 0; k < d; ++k)
        if (w[d][k]) w[i][k] = true;
    };
    if (is_fence) {
      for (size_t j = 0; j < i; ++j)
        w[i][j] = true;
      fence = static_cast<int64_t>(i);
      continue;
    }
    if (fence >= 0) take(static_cast<size_t>(fence));
    for (uint32_t d : p[i].deps)
      if (d < i) take(d);
  }
  return w;
}

// A random program of `n` instructions: fills and copies of 8 floats at multiples of 16
// bytes in 256 (so operands overlap partly and fully), random dependencies on recent ones,
// a barrier now and then.
isa::Executable random_program(std::mt19937& rng, size_t n) {
  isa::Executable exe;
  exe.plan.dram_size = 0x200;
  auto desc = [&] {
    const uint64_t addr = 16 * std::uniform_int_distribution<uint64_t>(0, 14)(rng);
    return isa::TensorDesc::contiguous(addr, isa::DType::F32, {8});
  };
  for (size_t i = 0; i < n; ++i) {
    const int kind = std::uniform_int_distribution<int>(0, 19)(rng);
    isa::Instruction inst(kind == 0  ? isa::Opcode::Barrier
                          : kind < 8 ? isa::Opcode::Fill
                                     : isa::Opcode::Copy);
    if (inst.opcode() == isa::Opcode::Copy) inst.set_operand(isa::Slot::Src, desc());
    if (inst.opcode() != isa::Opcode::Barrier) inst.set_operand(isa::Slot::Dst, desc());
    const int deps = std::uniform_int_distribution<int>(0, 3)(rng);
    for (int k = 0; k < deps && i > 0; ++k) {
      const auto back = std::uniform_int_distribution<uint32_t>(
          1, std::min<uint32_t>(6, static_cast<uint32_t>(i)))(rng);
      inst.deps.push_back(static_cast<uint32_t>(i) - back);
    }
    exe.instructions.push_back(inst);
    exe.debug.push_back({"op" + std::to_string(i)});
  }
  return exe;
}

struct Bytes {
  uint64_t begin = 0, end = 0;  // empty when begin == end
  bool meets(const Bytes& o) const { return begin < o.end && o.begin < end; }
};

Bytes bytes_of(const isa::Instruction& inst, isa::Slot slot) {
  const isa::Opcode op = inst.opcode();
  const bool has = slot == isa::Slot::Src ? op == isa::Opcode::Copy
                                          : op == isa::Opcode::Copy || op == isa::Opcode::Fill;
  if (!has) return {};
  const std::optional<isa::TensorDesc> d = inst.operand(slot);
  return d ? Bytes{d->addr, d->addr + 32} : Bytes{};
}

// Every (later, earlier) pair that conflicts in DRAM with no path between them.
std::set<std::pair<uint32_t, uint32_t>> brute_hazards(const isa::Executable& exe) {
  const auto w = brute_closure(exe.instructions);
  std::set<std::pair<uint32_t, uint32_t>> out;
  const auto& p = exe.instructions;
  for (uint32_t i = 0; i < p.size(); ++i) {
    const Bytes ri = bytes_of(p[i], isa::Slot::Src), wi = bytes_of(p[i], isa::Slot::Dst);
    for (uint32_t j = 0; j < i; ++j) {
      const Bytes rj = bytes_of(p[j], isa::Slot::Src), wj = bytes_of(p[j], isa::Slot::Dst);
      if (!w[i][j] && (ri.meets(wj) || wi.meets(rj) || wi.meets(wj))) out.insert({i, j});
    }
  }
  return out;
}

TEST(CheckerHazardScan, TheClosureAgreesWithAFullReachabilityMatrix) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 200; ++trial) {
    const isa::Executable exe = random_program(rng, 60);
    const auto w = brute_closure(exe.instructions);
    const DependencyClosure c(exe.instructions);
    for (uint32_t i = 0; i < exe.instructions.size(); ++i)
      for (uint32_t j = 0; j < exe.instructions.size(); ++j)
        ASSERT_EQ(c.waits_for(i, j), j < i && w[i][j])
            << "trial " << trial << ": " << i << " waits for " << j;
  }
}

// What the scan examines, byte by byte (every operand here covers whole 16-byte units): for
// each unit an instruction touches, the latest earlier writer, and when it writes, the
// readers since; the unordered ones among them.
std::set<std::pair<uint32_t, uint32_t>> brute_examined(const isa::Executable& exe) {
  const auto w = brute_closure(exe.instructions);
  const auto& p = exe.instructions;
  std::vector<int64_t> writer(exe.plan.dram_size / 16, -1);
  std::vector<std::vector<uint32_t>> readers(writer.size());
  std::set<std::pair<uint32_t, uint32_t>> out;
  auto units = [](const Bytes& b) { return std::make_pair(b.begin / 16, b.end / 16); };
  for (uint32_t i = 0; i < p.size(); ++i) {
    const auto [r0, r1] = units(bytes_of(p[i], isa::Slot::Src));
    const auto [w0, w1] = units(bytes_of(p[i], isa::Slot::Dst));
    auto check = [&](uint32_t j) {
      if (j != i && !w[i][j]) out.insert({i, j});
    };
    for (uint64_t u = r0; u < r1; ++u)
      if (writer[u] >= 0) check(static_cast<uint32_t>(writer[u]));
    for (uint64_t u = w0; u < w1; ++u) {
      if (writer[u] >= 0) check(static_cast<uint32_t>(writer[u]));
      for (uint32_t j : readers[u])
        check(j);
    }
    for (uint64_t u = r0; u < r1; ++u)
      readers[u].push_back(i);
    for (uint64_t u = w0; u < w1; ++u) {
      writer[u] = i;
      readers[u].clear();
    }
  }
  return out;
}

TEST(CheckerHazardScan, ReportsExactlyTheUnorderedLatestAccessesAndAHazardWheneverThereIsOne) {
  std::mt19937 rng(2);
  int with_hazards = 0;
  int fewer_than_all = 0;
  for (int trial = 0; trial < 300; ++trial) {
    // Few instructions so that some programs are clean.
    const isa::Executable exe = random_program(rng, static_cast<size_t>(4 + trial % 12));
    const std::set<std::pair<uint32_t, uint32_t>> all = brute_hazards(exe);
    std::set<std::pair<uint32_t, uint32_t>> reported;
    for (const Finding& f : check_executable(exe)) {
      if (f.kind != FindingKind::Hazard) continue;
      ASSERT_TRUE(all.count({f.instruction.index, f.other.index}))
          << "trial " << trial << ": not a hazard: " << format_finding(f);
      reported.insert({f.instruction.index, f.other.index});
    }
    ASSERT_EQ(reported, brute_examined(exe)) << "trial " << trial;
    ASSERT_EQ(reported.empty(), all.empty()) << "trial " << trial;
    with_hazards += !all.empty();
    fewer_than_all += reported.size() < all.size();
  }
  // Both kinds of program occur, and the scan does skip pairs all-pairs would report.
  EXPECT_GT(with_hazards, 50);
  EXPECT_LT(with_hazards, 290);
  EXPECT_GT(fewer_than_all, 0);
}

// A chain of copies each depending on the one before, every tensor live throughout, and 2000
// reads of one written tensor each writing the same bytes: the all-pairs scan examined every
// pair (n^2 / 2, with an n^2 / 8-byte matrix: 1.2 GB at 100,000); this one examines the
// neighbours. Both are clean.
TEST(CheckerHazardScan, ALongChainIsCheckedAgainstItsNeighbours) {
  constexpr uint32_t kCopies = 100000;
  isa::Executable exe;
  exe.plan.dram_size = 64 * (kCopies + 1);
  for (uint32_t i = 0; i < kCopies; ++i) {
    isa::Instruction inst(isa::Opcode::Copy);
    inst.set_operand(isa::Slot::Src, isa::TensorDesc::contiguous(64 * i, isa::DType::F32, {16}));
    inst.set_operand(isa::Slot::Dst,
                     isa::TensorDesc::contiguous(64 * (i + 1), isa::DType::F32, {16}));
    if (i > 0) inst.deps = {i - 1};
    exe.instructions.push_back(inst);
  }
  exe.instructions.emplace_back(isa::Opcode::End);
  std::vector<Finding> found = check_executable(exe);
  for (const Finding& f : found)
    EXPECT_NE(f.kind, FindingKind::Hazard) << format_finding(f);

  // Drop one dependency in the middle: exactly that pair is reported.
  exe.instructions[kCopies / 2].deps.clear();
  found.clear();
  for (const Finding& f : check_executable(exe))
    if (f.kind == FindingKind::Hazard) found.push_back(f);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].instruction.index, kCopies / 2);
  EXPECT_EQ(found[0].other.index, kCopies / 2 - 1);
  EXPECT_EQ(found[0].detail, "RAW");
}

// Two interleaved chains: instruction 0 writes t0; even instructions read it, each waiting for
// the even one before it (the path to 0) and the odd one just before (its latest dependency,
// so the spanning tree runs through the odd chain, which never reaches 0). Every read is
// ordered only off the tree: each search would walk the even chain back to 0 (quadratic, 0.91 s
// at 40,000), but stops where the last search succeeded. Dropping one even link leaves every
// read after it unordered, which the remembered answers must not hide.
TEST(CheckerHazardScan, ReadsOrderedOffTheSpanningTreeAreFoundOnce) {
  constexpr uint32_t kInstructions = 60000;
  isa::Executable exe;
  exe.plan.dram_size = 64 * (kInstructions + 1);
  auto tensor = [](uint32_t i) {
    return isa::TensorDesc::contiguous(64 * i, isa::DType::F32, {16});
  };
  for (uint32_t i = 0; i < kInstructions; ++i) {
    isa::Instruction inst(i % 2 == 0 && i > 0 ? isa::Opcode::Copy : isa::Opcode::Fill);
    if (inst.opcode() == isa::Opcode::Copy) {
      inst.set_operand(isa::Slot::Src, tensor(0));
      inst.deps = {i - 2, i - 1};
    } else if (i >= 2) {
      inst.deps = {i - 2};
    }
    inst.set_operand(isa::Slot::Dst, tensor(i));
    exe.instructions.push_back(inst);
  }
  exe.instructions.emplace_back(isa::Opcode::End);
  auto hazards = [&] {
    std::vector<Finding> out;
    for (const Finding& f : check_executable(exe))
      if (f.kind == FindingKind::Hazard) out.push_back(f);
    return out;
  };
  EXPECT_TRUE(hazards().empty());

  constexpr uint32_t kBroken = kInstructions / 2;  // even
  exe.instructions[kBroken].deps = {kBroken - 1};
  const std::vector<Finding> found = hazards();
  ASSERT_EQ(found.size(), (kInstructions - kBroken) / 2);
  for (size_t k = 0; k < found.size(); ++k) {
    EXPECT_EQ(found[k].instruction.index, kBroken + 2 * k);
    EXPECT_EQ(found[k].other.index, 0u);
    EXPECT_EQ(found[k].detail, "RAW");
  }
}

}  // namespace
}  // namespace s2::sim::checker
