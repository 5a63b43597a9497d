// Dependencies from DRAM ranges: read-after-write, write-after-read and write-after-write on
// small hand-made programs, partial and strided overlaps, transitive reduction, barriers
// beyond 255 dependencies, the final `end`, the hazards created by a memory plan that reuses
// an address, and the independent hazard check that must notice a missing dependency.
#include <gtest/gtest.h>

#include <random>

#include "compiler/lower/dependencies.h"
#include "compiler/lower/hazards.h"
#include "compiler/lower/lower.h"
#include "compiler/lower/reachability.h"
#include "compiler/ops/registry.h"

namespace s2::lower {
namespace {

using isa::Instruction;
using isa::Opcode;
using isa::Slot;
using Deps = std::vector<uint32_t>;

// n f32 elements from byte address `addr`.
isa::TensorDesc span(uint64_t addr, uint32_t n = 16) {
  return isa::TensorDesc::contiguous(addr, isa::DType::F32, {n});
}

// y = relu(a): reads `a`, writes `y`.
Instruction relu(const isa::TensorDesc& a, const isa::TensorDesc& y) {
  Instruction inst(Opcode::Eltwise);
  inst.set_raw(isa::Field::Op, static_cast<uint32_t>(isa::EltwiseOp::Relu));
  inst.set_operand(Slot::A, a);
  inst.set_operand(Slot::Y, y);
  return inst;
}

Instruction add(const isa::TensorDesc& a, const isa::TensorDesc& b, const isa::TensorDesc& y) {
  Instruction inst(Opcode::Eltwise);
  inst.set_raw(isa::Field::Op, static_cast<uint32_t>(isa::EltwiseOp::Add));
  inst.set_operand(Slot::A, a);
  inst.set_operand(Slot::B, b);
  inst.set_operand(Slot::Y, y);
  return inst;
}

constexpr uint64_t A = 0x000, B = 0x100, C = 0x200, D = 0x300;

TEST(LowerDependencies, ReadAfterWrite) {
  const Program p = add_dependencies({relu(span(A), span(B)), relu(span(B), span(C))});
  ASSERT_EQ(p.instructions.size(), 3u);
  EXPECT_EQ(p.instructions[1].deps, Deps{0});
  EXPECT_EQ(p.instructions[2].opcode(), Opcode::End);
  EXPECT_EQ(p.instructions[2].deps, Deps{1});
  EXPECT_EQ(p.index_of, (Deps{0, 1}));
}

TEST(LowerDependencies, WriteAfterRead) {
  const Program p = add_dependencies({relu(span(A), span(B)), relu(span(C), span(A))});
  EXPECT_EQ(p.instructions[1].deps, Deps{0});
}

TEST(LowerDependencies, WriteAfterWrite) {
  const Program p = add_dependencies({relu(span(A), span(B)), relu(span(C), span(B))});
  EXPECT_EQ(p.instructions[1].deps, Deps{0});
}

TEST(LowerDependencies, DisjointRangesAreIndependentAndEndWaitsForBoth) {
  const Program p = add_dependencies({relu(span(A), span(B)), relu(span(C), span(D))});
  EXPECT_EQ(p.instructions[1].deps, Deps{});
  EXPECT_EQ(p.instructions[2].deps, (Deps{0, 1}));
}

// Ranges conflict when any byte is shared, and not when they only touch.
TEST(LowerDependencies, PartialOverlapConflictsTouchingDoesNot) {
  const Program p = add_dependencies({relu(span(A), span(B, 16)),           // writes B..B+64
                                      relu(span(B + 60, 4), span(C, 4)),    // reads the last float
                                      relu(span(B + 64, 4), span(D, 4))});  // reads just past it
  EXPECT_EQ(p.instructions[1].deps, Deps{0});
  EXPECT_EQ(p.instructions[2].deps, Deps{});
}

// A strided operand counts as its whole span, the bytes between its elements included.
TEST(LowerDependencies, StridedOperandsAreTakenAsTheirSpan) {
  isa::TensorDesc every_eighth = span(B, 2);
  every_eighth.strides[0] = 8;  // elements at B and B+32
  const Program p =
      add_dependencies({relu(span(A, 2), every_eighth), relu(span(B + 16, 1), span(C, 1))});
  EXPECT_EQ(p.instructions[1].deps, Deps{0});
}

// Every reader since the last write must finish before the next write (WAR); the WAW on the
// last writer is then implied through them and dropped.
TEST(LowerDependencies, AWriteWaitsForEveryReaderSinceTheLastWrite) {
  const Program p = add_dependencies({relu(span(C), span(A)), relu(span(A), span(B)),
                                      relu(span(A), span(D)), relu(span(C), span(A))});
  EXPECT_EQ(p.instructions[3].deps, (Deps{1, 2}));
  EXPECT_EQ(uncovered_hazards(p.instructions), std::vector<std::string>{});
}

// 2 reads what 0 and 1 wrote, but 1 already waits for 0: only 1 is listed.
TEST(LowerDependencies, DependenciesImpliedTransitivelyAreDropped) {
  const Program p = add_dependencies(
      {relu(span(C), span(A)), relu(span(A), span(B)), add(span(A), span(B), span(D))});
  EXPECT_EQ(p.instructions[1].deps, Deps{0});
  EXPECT_EQ(p.instructions[2].deps, Deps{1});
  EXPECT_EQ(p.instructions[3].deps, Deps{2});
}

// An in-place operand (sgd's weight) is read and written: the next reader waits for it.
TEST(LowerDependencies, InPlaceUpdatesAreWrites) {
  Instruction sgd(Opcode::Sgd);
  sgd.set_f32(isa::Field::Lr, 0.1f);
  sgd.set_operand(Slot::Weight, span(A));
  sgd.set_operand(Slot::Grad, span(B));
  const Program p = add_dependencies({relu(span(A), span(C)), sgd, relu(span(A), span(D))});
  EXPECT_EQ(p.instructions[1].deps, Deps{0});  // WAR: the weight's earlier reader
  EXPECT_EQ(p.instructions[2].deps, Deps{1});  // RAW: the updated weight
}

// 300 readers of disjoint pieces of R, then one write over all of R: 300 dependencies do not
// fit the encoding, so a barrier goes first and the write waits for it alone.
TEST(LowerDependencies, MoreThan255DependenciesGoThroughABarrier) {
  constexpr uint64_t R = 0x10000, Out = 0x20000;
  std::vector<Instruction> body;
  for (uint64_t i = 0; i < 300; ++i)
    body.push_back(relu(span(R + 4 * i, 1), span(Out + 4 * i, 1)));
  body.push_back(relu(span(A, 300), span(R, 300)));
  const Program p = add_dependencies(body);
  ASSERT_EQ(p.instructions.size(), 303u);
  EXPECT_EQ(p.instructions[300].opcode(), Opcode::Barrier);
  EXPECT_EQ(p.instructions[301].deps, Deps{300});
  EXPECT_EQ(p.index_of[300], 301u);
  EXPECT_EQ(p.instructions[302].deps, Deps{301});  // everything else is behind the barrier
  EXPECT_EQ(uncovered_hazards(p.instructions), std::vector<std::string>{});
}

TEST(LowerDependencies, EndWaitingForMoreThan255GoesThroughABarrier) {
  std::vector<Instruction> body;
  for (uint64_t i = 0; i < 300; ++i)
    body.push_back(relu(span(A + 64 * i), span(0x100000 + 64 * i)));
  const Program p = add_dependencies(body);
  ASSERT_EQ(p.instructions.size(), 302u);
  EXPECT_EQ(p.instructions[300].opcode(), Opcode::Barrier);
  EXPECT_EQ(p.instructions[301].opcode(), Opcode::End);
  EXPECT_EQ(p.instructions[301].deps, Deps{300});
}

TEST(LowerDependencies, TheHazardCheckNamesAMissingDependency) {
  Program p = add_dependencies({relu(span(A), span(B)), relu(span(B), span(C)),
                                relu(span(D), span(A)), relu(span(D), span(C))});
  EXPECT_EQ(uncovered_hazards(p.instructions), std::vector<std::string>{});
  auto without = [&](size_t i) {
    std::vector<Instruction> broken = p.instructions;
    broken[i].deps.clear();
    const std::vector<std::string> found = uncovered_hazards(broken);
    return found.empty() ? std::string("(none)") : found.front();
  };
  EXPECT_EQ(without(1),
            "instruction 1 (eltwise) reads 0x100..0x140, which instruction 0 "
            "(eltwise) writes, without waiting for it (RAW)");
  EXPECT_NE(without(2).find("instruction 2 (eltwise) writes 0x0..0x40, which instruction 0 "
                            "(eltwise) reads"),
            std::string::npos);
  EXPECT_NE(without(2).find("(WAR)"), std::string::npos);
  EXPECT_NE(without(3).find("(WAW)"), std::string::npos);
}

// x -> relu -> r -> scale -> s (output), and independently x2 -> relu -> q -> add(q, s).
// Nothing in the graph orders scale before the second relu, but once the plan gives q the
// bytes r had, the second relu overwrites what scale reads: its instruction must wait.
TEST(LowerDependencies, AddressReuseByThePlanCreatesAWriteAfterRead) {
  ir::Graph g("reuse");
  const auto x = g.add_parameter("x", isa::TensorRole::Input, isa::DType::F32, {16});
  const auto x2 = g.add_parameter("x2", isa::TensorRole::Input, isa::DType::F32, {16});
  const auto r = g.add(ir::OpType::Relu, "relu", ir::OpCategory::Forward, {x});
  const auto s = g.add(ir::OpType::Scale, "scale", ir::OpCategory::Forward, {r},
                       ir::Attrs{{"alpha", 2.0}, {"beta", 0.0}});
  const auto q = g.add(ir::OpType::Relu, "relu2", ir::OpCategory::Forward, {x2});
  g.mark_output(g.add(ir::OpType::Add, "sum", ir::OpCategory::Forward, {q, s}));
  const std::vector<ir::OpId> order = {g.find_op("relu"), g.find_op("scale"), g.find_op("relu2"),
                                       g.find_op("sum")};
  // Buffers: x, x2 (persistent), r [0,1], s [1,3], q [2,3], the sum [3,3].
  std::vector<memory::Buffer> buffers;
  std::vector<ir::DataId> data;
  auto buffer = [&](ir::TensorId t, uint32_t first, uint32_t last, bool persistent) {
    const ir::Data& d = g.data(g.tensor(t).data);
    buffers.push_back({d.name, d.role, 64, first, last, persistent});
    data.push_back(g.tensor(t).data);
  };
  buffer(x, 0, 3, true);
  buffer(x2, 0, 3, true);
  buffer(r, 0, 1, false);
  buffer(s, 1, 3, false);
  buffer(q, 2, 3, false);
  buffer(g.outputs()[0], 3, 3, false);
  auto plan = [&](uint64_t q_address) {
    memory::MemoryPlan p;
    p.planner = "test";
    p.address = {0, 64, 128, 192, q_address, 320};
    p.persistent_bytes = p.arena_base = 128;
    p.arena_size = 256;
    p.dram_size = 384;
    p.lower_bound = 192;
    return lower_to_executable(g, order, buffers, data, p, LowerOptions{}).instructions;
  };
  const std::vector<Instruction> apart = plan(256);
  EXPECT_EQ(apart[2].deps, Deps{});
  const std::vector<Instruction> reused = plan(128);  // q over r, dead after step 1
  EXPECT_EQ(reused[2].deps, Deps{1});
  EXPECT_EQ(uncovered_hazards(reused), std::vector<std::string>{});
}

// Reachability answers exactly what a full matrix does, on random programs whose instructions
// depend on several recent ones (paths off the spanning tree) and on barriers.
TEST(LowerReachability, AgreesWithAFullMatrixOnRandomPrograms) {
  std::mt19937 rng(5);
  auto pick = [&](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 200; ++trial) {
    const uint32_t n = pick(1, 80);
    Reachability reach;
    std::vector<std::vector<bool>> full(n, std::vector<bool>(n, false));
    for (uint32_t i = 0; i < n; ++i) {
      const bool barrier = pick(0, 24) == 0;
      Deps deps;
      for (uint32_t k = pick(0, 3); k > 0 && i > 0; --k)
        deps.push_back(i - pick(1, std::min(i, 8u)));
      if (barrier) {
        for (uint32_t j = 0; j < i; ++j)
          full[i][j] = true;
      } else {
        for (uint32_t d : deps) {
          full[i][d] = true;
          for (uint32_t j = 0; j < d; ++j)
            if (full[d][j]) full[i][j] = true;
        }
      }
      reach.add(deps, barrier);
    }
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t j = 0; j < n; ++j)
        ASSERT_EQ(reach.waits_for(i, j), j < i && full[i][j])
            << "trial " << trial << ": " << i << " waits for " << j;
  }
}

// A 200,000-long chain with a second path every so often: linear memory (the matrix was
// 5 GB), and the far ends are still ordered.
TEST(LowerReachability, ALongChainIsOrderedEndToEnd) {
  constexpr uint32_t kLength = 200000;
  Reachability reach;
  reach.add({}, false);
  for (uint32_t i = 1; i < kLength; ++i)
    reach.add(i % 1000 == 0 && i >= 7 ? Deps{i - 7, i - 1} : Deps{i - 1}, false);
  reach.add({}, false);  // unrelated
  EXPECT_TRUE(reach.waits_for(kLength - 1, 0));
  EXPECT_TRUE(reach.waits_for(kLength - 1, kLength / 2));
  EXPECT_FALSE(reach.waits_for(kLength, 0));
  EXPECT_FALSE(reach.waits_for(kLength, kLength - 1));
}

// Two interleaved chains, each instruction's latest dependency on the odd one that never
// reaches instruction 0: the even ones wait for 0 only off the spanning tree, and each query
// stops where the previous one succeeded instead of walking the chain back again.
TEST(LowerReachability, WaitsOffTheSpanningTreeAreFoundOnce) {
  constexpr uint32_t kLength = 100000;
  Reachability reach;
  reach.add({}, false);
  reach.add({}, false);
  for (uint32_t i = 2; i < kLength; ++i)
    reach.add(i % 2 == 0 ? Deps{i - 2, i - 1} : Deps{i - 2}, false);
  for (uint32_t i = 2; i < kLength; i += 2)
    ASSERT_TRUE(reach.waits_for(i, 0)) << i;
  EXPECT_FALSE(reach.waits_for(kLength - 1, 0));  // odd: never
}

}  // namespace
}  // namespace s2::lower
