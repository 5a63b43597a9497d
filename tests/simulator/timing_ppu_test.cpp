// PPU cost probes, written from the formula in simulator/timing/ppu_model.h and the base
// config's ops table (32 lanes; bn_fwd 0.5/8, softmax_ce 0.25/16, default 1/4, reduce 1/8).
#include <gtest/gtest.h>

#include <utility>

#include "simulator/timing/plan.h"
#include "simulator/timing/ppu_model.h"
#include "timing_test_util.h"

namespace s2::sim::timing {
namespace {

using isa::Opcode;
using isa::Slot;
using test::config;
using test::f32;

isa::Instruction bn_fwd(bool with_stats) {
  isa::Instruction inst(Opcode::BnFwd);
  inst.set_operand(Slot::X, f32(0, {4, 64, 8, 8}));
  inst.set_operand(Slot::Gamma, f32(0x100000, {64}));
  inst.set_operand(Slot::Beta, f32(0x101000, {64}));
  inst.set_operand(Slot::Y, f32(0x200000, {4, 64, 8, 8}));
  inst.set_operand(Slot::Mean, f32(0x102000, {64}));
  inst.set_operand(Slot::InvStd, f32(0x103000, {64}));
  if (with_stats) inst.set_operand(Slot::Stats, f32(0x104000, {2, 64}));
  return inst;
}

TEST(TimingPpu, PassFormula) {
  const auto t = config("base");
  EXPECT_EQ(ppu_pass_cycles(t, target::PpuOp::BnFwd, 16384), 8u + 16384u / 16u);
  EXPECT_EQ(ppu_pass_cycles(t, target::PpuOp::SoftmaxCe, 40), 16u + 5u);
  EXPECT_EQ(ppu_pass_cycles(t, target::PpuOp::Eltwise, 1000), 4u + 32u);  // ceil(1000/32)
  EXPECT_EQ(ppu_pass_cycles(t, target::PpuOp::Reduce, 100), 8u + 4u);
  EXPECT_EQ(ppu_pass_cycles(t, target::PpuOp::Eltwise, 0), 0u);
  EXPECT_EQ(ppu_pass_cycles(t, target::PpuOp::Eltwise, 33), 4u + 2u);
}

TEST(TimingPpu, BnFwdTakesTwoPassesUnlessTheEpilogueGaveStatistics) {
  const auto t = config("base");
  EXPECT_EQ(ppu_instruction_cycles(bn_fwd(false), t), 2u * (8u + 1024u));
  EXPECT_EQ(ppu_instruction_cycles(bn_fwd(true), t), 8u + 1024u);
}

TEST(TimingPpu, EveryTileOfATiledPassIsAPassOfItsOwn) {
  const auto t = config("base");
  const InstructionPlan plan = plan_instruction(bn_fwd(true), t);
  // x and y are 64 KiB each: they cannot share half of the 128 KiB output buffer in one tile.
  ASSERT_GT(plan.tiles.size(), 1u);
  uint64_t elements = 0;
  for (const Tile& tile : plan.tiles) {
    elements += tile.elements;
    // The PPU drains between passes (ppu.sv): the latency on every tile.
    EXPECT_EQ(tile.ppu_cycles, 8u + (tile.elements + 15) / 16);
    EXPECT_EQ(tile.ppu_op, target::PpuOp::BnFwd);
  }
  EXPECT_EQ(elements, 16384u);
  // 16384 elements at 16 per cycle, rounded up per tile, plus a latency per tile.
  EXPECT_GE(plan.ppu_cycles(), plan.tiles.size() * 8u + 1024u);
  EXPECT_LE(plan.ppu_cycles(), plan.tiles.size() * 9u + 1024u);
}

TEST(TimingPpu, SoftmaxOnTheSmallConfigIsSlower) {
  isa::Instruction inst(Opcode::SoftmaxCe);
  inst.set_operand(Slot::Logits, f32(0, {4, 10}));
  inst.set_operand(Slot::Labels, isa::TensorDesc::contiguous(0x1000, isa::DType::I32, {4}));
  inst.set_operand(Slot::DLogits, f32(0x2000, {4, 10}));
  // small: 16 lanes at 0.125 = 2 elements per cycle, latency 24
  EXPECT_EQ(ppu_instruction_cycles(inst, config("small")), 24u + 20u);
  EXPECT_EQ(ppu_instruction_cycles(inst, config("base")), 16u + 5u);
}

// The output buffer's port carries twice as many 16-bit results as f32 ones: with a 64-byte
// port (16 f32 per cycle) and 32 lanes, an eltwise into bf16 runs at the lanes' 32 per cycle.
TEST(TimingPpu, SixteenBitResultsPassThePortTwiceAsFast) {
  auto t = config("base");
  t.sram.output.banks = 4;
  for (const auto& [dtype, cycles] :
       {std::pair{isa::DType::F32, 4u + 1024u / 16u}, {isa::DType::BF16, 4u + 1024u / 32u}}) {
    isa::Instruction add(Opcode::Eltwise);
    add.set_raw(isa::Field::Op, static_cast<uint32_t>(isa::EltwiseOp::Add));
    add.set_operand(Slot::A, f32(0, {1024}));
    add.set_operand(Slot::B, f32(0x1000, {1024}));
    add.set_operand(Slot::Y, isa::TensorDesc::contiguous(0x2000, dtype, {1024}));
    EXPECT_EQ(ppu_instruction_cycles(add, t), cycles) << isa::dtype_name(dtype);
    EXPECT_EQ(ppu_pass_cycles(t, target::PpuOp::Epilogue, 1024, isa::dtype_bytes(dtype)), cycles);
  }
}

TEST(TimingPpu, DmaInstructionsUseNoPpuCycles) {
  isa::Instruction copy(Opcode::Copy);
  copy.set_operand(Slot::Src, f32(0, {1000}));
  copy.set_operand(Slot::Dst, f32(0x10000, {1000}));
  const InstructionPlan plan = plan_instruction(copy, config("base"));
  EXPECT_EQ(plan.unit, isa::Unit::Dma);
  EXPECT_EQ(plan.ppu_cycles(), 0u);
  EXPECT_EQ(plan.load_bytes(), 4000u);
  EXPECT_EQ(plan.store_bytes(), 4000u);
}

}  // namespace
}  // namespace s2::sim::timing
