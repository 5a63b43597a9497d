// The sequencer's tiling: box decomposition, buffer fits, coverage, the orientation and block
// choice, and the error when not even the smallest tile fits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <set>
#include <vector>

#include "isa/common/errors.h"
#include "isa/container/executable.h"
#include "simulator/timing/attention_tiling.h"
#include "simulator/timing/dram_access.h"
#include "simulator/timing/plan.h"
#include "timing_test_util.h"

namespace s2::sim::timing {
namespace {

using isa::Opcode;
using isa::Slot;
using test::config;
using test::f32;

// What a PE tile may use of buffer b: half of the input, weight and output buffers (the other
// half double-buffers), the whole accumulator (tiling.h).
uint64_t room(const target::TargetDesc& t, unsigned b) {
  return buffer_desc(t, static_cast<Buffer>(b)).size_bytes / (b == 2 ? 1 : 2);
}

// Flat indices a list of boxes covers, in order.
std::vector<uint64_t> flat_indices(const isa::TensorDesc& d, const std::vector<Box>& boxes) {
  std::vector<uint64_t> out;
  for (const Box& b : boxes)
    for (uint64_t i = b.lo[0]; i < b.hi[0]; ++i)
      for (uint64_t j = b.lo[1]; j < b.hi[1]; ++j)
        for (uint64_t k = b.lo[2]; k < b.hi[2]; ++k)
          for (uint64_t l = b.lo[3]; l < b.hi[3]; ++l)
            out.push_back(((i * d.shape[1] + j) * d.shape[2] + k) * d.shape[3] + l);
  return out;
}

TEST(TimingTiling, FlatRangeBoxesCoverExactlyTheRange) {
  const auto d = f32(0, {2, 3, 4, 5});
  for (uint64_t a = 0; a < 120; ++a)
    for (uint64_t b = a + 1; b <= 120; ++b) {
      const auto boxes = flat_range_boxes(d, a, b);
      EXPECT_LE(boxes.size(), 7u);
      const auto idx = flat_indices(d, boxes);
      ASSERT_EQ(idx.size(), b - a) << a << ".." << b;
      for (uint64_t i = 0; i < idx.size(); ++i)
        ASSERT_EQ(idx[i], a + i) << a << ".." << b;
    }
}

TEST(TimingTiling, BoxAccessesMergeDenseRowsAndSplitTheRest) {
  const auto d = f32(0x1000, {2, 3, 4, 5});
  std::vector<DramAccess> out;
  box_accesses(d, Box::whole(d), false, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (DramAccess{0x1000, 480, false}));
  // Rows 1..2 of every (n, c) plane: 6 ranges of 2 rows x 5 elements.
  out.clear();
  Box b = Box::whole(d);
  b.lo[2] = 1;
  b.hi[2] = 3;
  box_accesses(d, b, true, out);
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0], (DramAccess{0x1000 + 5 * 4, 40, true}));
  EXPECT_EQ(out[1], (DramAccess{0x1000 + 25 * 4, 40, true}));
  // A transposed view of a dense [3, 4] matrix is read in memory order: one range.
  isa::TensorDesc t = f32(0x2000, {4, 3});
  t.strides = {1, 4, 0, 0};
  out.clear();
  box_accesses(t, Box::whole(t), false, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (DramAccess{0x2000, 12 * 4, false}));
  // A strided innermost dimension (every other element of a row) spans its gaps.
  isa::TensorDesc s = f32(0x3000, {4, 3});
  s.strides = {8, 2, 0, 0};
  out.clear();
  box_accesses(s, Box::whole(s), false, out);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[1], (DramAccess{0x3000 + 8 * 4, 5 * 4, false}));
}

// A permuted descriptor is read in memory order: dy of ViT's patch embedding, [N, K, P, Q]
// stored channels-last (token order). 256 of its 768 channels over 2 x 14 pixels are 28 runs
// of 256 channels, exactly the box's bytes, not one span of the whole 2 x 14 block per channel.
TEST(TimingTiling, BoxAccessesOfAPermutedDescriptorFollowMemoryOrder) {
  const uint32_t k = 768, p = 14, q = 14;
  isa::TensorDesc d = f32(0x10000, {1, p, q, k});
  d.shape = {1, k, p, q};
  d.strides = {p * q * k, 1, q * k, k};
  Box b = Box::whole(d);
  b.lo[1] = 512;
  b.hi[1] = 768;
  b.lo[2] = 2;
  b.hi[2] = 4;
  std::vector<DramAccess> out;
  box_accesses(d, b, false, out);
  ASSERT_EQ(out.size(), 28u);
  for (std::size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(out[i], (DramAccess{0x10000 + ((2 * q + i) * k + 512) * 4, 256 * 4, false})) << i;
}

TEST(TimingTiling, BigConvOnTheSmallConfigFitsItsBuffersAndCoversItsOperands) {
  const auto t = config("small");
  isa::Instruction conv(Opcode::Conv2d);
  conv.set_raw(isa::Field::PadTop, 1);
  conv.set_raw(isa::Field::PadLeft, 1);
  conv.set_raw(isa::Field::PadBottom, 1);
  conv.set_raw(isa::Field::PadRight, 1);
  conv.set_operand(Slot::X, f32(0, {4, 64, 16, 16}));
  conv.set_operand(Slot::W, f32(0x1000000, {128, 64, 3, 3}));
  conv.set_operand(Slot::Bias, f32(0x2000000, {128}));
  conv.set_operand(Slot::Residual, f32(0x3000000, {4, 128, 16, 16}));
  conv.set_operand(Slot::Y, f32(0x4000000, {4, 128, 16, 16}));
  conv.set_operand(Slot::Stats, f32(0x5000000, {2, 128}));
  const InstructionPlan plan = plan_instruction(conv, t);
  ASSERT_GT(plan.tiles.size(), 1u);
  uint64_t y_bytes = 0, stats_bytes = 0;
  std::set<uint64_t> y_addresses;
  for (const Tile& tile : plan.tiles) {
    for (unsigned b = 0; b < 4; ++b)
      EXPECT_LE(tile.footprint[b], room(t, b));
    for (const DramAccess& a : tile.stores) {
      if (a.address >= 0x5000000) {
        stats_bytes += a.bytes;
      } else {
        y_bytes += a.bytes;
        EXPECT_TRUE(y_addresses.insert(a.address).second) << "y range stored twice";
      }
    }
  }
  EXPECT_EQ(y_bytes, 4u * 128 * 16 * 16 * 4);  // every output byte exactly once
  EXPECT_EQ(stats_bytes, 2u * 128 * 4);
  EXPECT_GE(plan.pe_cycles() * t.pe_array.macs(), plan.macs);
  EXPECT_EQ(plan.macs, 4u * 16 * 16 * 128 * 64 * 9);
}

// The epilogue's pre output is a second result per element: stored once, like y, and
// counted in the output buffer and the epilogue's write port.
TEST(TimingTiling, PreIsStoredOnceBesideY) {
  const auto t = config("base");
  isa::Instruction g = test::gemm(64, 96, 128);
  const InstructionPlan plain = plan_instruction(g, t);
  g.set_raw(isa::Field::Act, static_cast<uint32_t>(isa::Activation::Gelu));
  g.set_operand(Slot::Pre, f32(0x9000000, {64, 96}));
  const InstructionPlan with_pre = plan_instruction(g, t);
  uint64_t y_bytes = 0, pre_bytes = 0, plain_bytes = 0, loads = 0, plain_loads = 0;
  for (const Tile& tile : with_pre.tiles) {
    for (const DramAccess& a : tile.stores)
      (a.address >= 0x9000000 ? pre_bytes : y_bytes) += a.bytes;
    for (const DramAccess& a : tile.loads)
      loads += a.bytes;
  }
  for (const Tile& tile : plain.tiles) {
    for (const DramAccess& a : tile.stores)
      plain_bytes += a.bytes;
    for (const DramAccess& a : tile.loads)
      plain_loads += a.bytes;
  }
  EXPECT_EQ(pre_bytes, 64u * 96 * 4);
  EXPECT_EQ(y_bytes, 64u * 96 * 4);
  EXPECT_EQ(plain_bytes, 64u * 96 * 4);
  EXPECT_GE(loads, plain_loads);
}

TEST(TimingTiling, SmallestPeTileThatCannotFitNamesInstructionAndBuffer) {
  auto t = config("base");
  t.sram.output.size_bytes = 16;  // half: 8 bytes; one y + residual + gate element is 12
  isa::Instruction g = test::gemm(8, 8, 8);
  g.set_operand(Slot::Residual, f32(0x9000000, {8, 8}));
  g.set_operand(Slot::Gate, f32(0xa000000, {8, 8}));
  try {
    plan_instruction(g, t);
    FAIL() << "no error";
  } catch (const UserError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("gemm"), std::string::npos) << msg;
    EXPECT_NE(msg.find("output buffer"), std::string::npos) << msg;
    EXPECT_NE(msg.find("12 bytes"), std::string::npos) << msg;
  }
  // Through plan_program the message also carries the instruction index.
  isa::Executable exe;
  exe.instructions.push_back(isa::Instruction(Opcode::Barrier));
  exe.instructions.push_back(g);
  try {
    plan_program(exe, t);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("instruction 1: gemm:", 0), 0u) << e.what();
  }
}

TEST(TimingTiling, SmallestPpuTileThatCannotFitNamesTheOutputBuffer) {
  auto t = config("base");
  t.sram.output.size_bytes = 16;
  isa::Instruction sgd(Opcode::Sgd);
  sgd.set_operand(Slot::Weight, f32(0, {100}));
  sgd.set_operand(Slot::Grad, f32(0x1000, {100}));
  sgd.set_operand(Slot::Velocity, f32(0x2000, {100}));
  try {
    plan_instruction(sgd, t);
    FAIL() << "no error";
  } catch (const UserError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("sgd:", 0), 0u) << msg;
    EXPECT_NE(msg.find("output buffer"), std::string::npos) << msg;
  }
  // Two elements' worth (24 bytes) in half: tiles of 2 elements, every byte once.
  t.sram.output.size_bytes = 48;
  const InstructionPlan plan = plan_instruction(sgd, t);
  EXPECT_EQ(plan.tiles.size(), 50u);
  EXPECT_EQ(plan.load_bytes(), 1200u);
  EXPECT_EQ(plan.store_bytes(), 800u);
}

// Batch norm over more channels than the output buffer holds per-channel values for
// (regnet_y_128gf: 7392): the per-channel operands travel with the tiles, each tile loading and
// storing the slices of the channels its part touches. Every byte is stored once, and with two
// samples every per-channel value is read about twice.
TEST(TimingTiling, BatchNormOverThousandsOfChannelsSplitsItsPerChannelOperands) {
  const auto t = config("base");
  const uint32_t n = 2, c = 7392;
  isa::Instruction bn(Opcode::BnFwd);
  bn.set_operand(Slot::X, f32(0, {n, c, 2, 2}));
  bn.set_operand(Slot::Y, f32(0x1000000, {n, c, 2, 2}));
  const uint64_t per[] = {0x2000000, 0x2100000, 0x2200000, 0x2300000, 0x2400000, 0x2500000};
  bn.set_operand(Slot::Gamma, f32(per[0], {c}));
  bn.set_operand(Slot::Beta, f32(per[1], {c}));
  bn.set_operand(Slot::Mean, f32(per[2], {c}));
  bn.set_operand(Slot::InvStd, f32(per[3], {c}));
  bn.set_operand(Slot::RunningMean, f32(per[4], {c}));
  bn.set_operand(Slot::RunningVar, f32(per[5], {c}));
  const InstructionPlan plan = plan_instruction(bn, t);
  ASSERT_GT(plan.tiles.size(), 2u);
  std::set<uint64_t> y_addresses, mean_stored;
  uint64_t y_bytes = 0, gamma_bytes = 0;
  for (const Tile& tile : plan.tiles) {
    EXPECT_LE(tile.footprint[static_cast<unsigned>(Buffer::Output)], t.sram.output.size_bytes / 2);
    for (const DramAccess& a : tile.stores) {
      if (a.address >= 0x1000000 && a.address < 0x2000000) {
        y_bytes += a.bytes;
        EXPECT_TRUE(y_addresses.insert(a.address).second) << "y range stored twice";
      }
      if (a.address >= per[2] && a.address < per[3])
        for (uint64_t b = a.address; b < a.address + a.bytes; b += 4)
          mean_stored.insert(b);
    }
    for (const DramAccess& a : tile.loads)
      if (a.address >= per[0] && a.address < per[1]) gamma_bytes += a.bytes;
  }
  EXPECT_EQ(y_bytes, uint64_t{n} * c * 4 * 4);
  EXPECT_EQ(mean_stored.size(), c);  // every channel's mean written
  EXPECT_GE(gamma_bytes, uint64_t{n} * c * 4);
  EXPECT_LE(gamma_bytes, uint64_t{n} * c * 4 + plan.tiles.size() * 2 * 4);
}

// An embedding lookup reads one table row per id, not the table: gpt2-small's 50257 x 768
// token table (154 MB) costs a 512-token batch 512 rows. Its backward writes the whole
// gradient (zeroed) once, then reads and writes back one row per id.
TEST(TimingTiling, EmbeddingsMoveOneTableRowPerId) {
  const auto t = config("base");
  const uint32_t v = 50257, d = 768, n = 512;
  isa::Instruction gather(Opcode::Gather);
  gather.set_operand(Slot::Table, f32(0, {v, d}));
  isa::TensorDesc ids = f32(0x10000000, {2, n / 2});
  ids.dtype = isa::DType::I32;
  gather.set_operand(Slot::Ids, ids);
  gather.set_operand(Slot::Y, f32(0x20000000, {2, n / 2, d}));
  const InstructionPlan fwd = plan_instruction(gather, t);
  EXPECT_EQ(fwd.load_bytes(), uint64_t{n} * 4 + uint64_t{n} * d * 4);
  EXPECT_EQ(fwd.store_bytes(), uint64_t{n} * d * 4);
  for (const Tile& tile : fwd.tiles)
    EXPECT_LE(tile.footprint[static_cast<unsigned>(Buffer::Output)], t.sram.output.size_bytes / 2);
  isa::Instruction scatter(Opcode::ScatterAdd);
  scatter.set_operand(Slot::Dy, f32(0x20000000, {2, n / 2, d}));
  scatter.set_operand(Slot::Ids, ids);
  scatter.set_operand(Slot::Dw, f32(0, {v, d}));
  const InstructionPlan bwd = plan_instruction(scatter, t);
  EXPECT_EQ(bwd.load_bytes(), uint64_t{n} * 4 + 2 * uint64_t{n} * d * 4);
  EXPECT_EQ(bwd.store_bytes(), uint64_t{v} * d * 4 + uint64_t{n} * d * 4);
}

TEST(TimingTiling, WeightsStayResidentWhenKIsOneBlock) {
  const auto t = config("base");
  // 4096 rows do not fit one tile; K = 32 does: weights load once.
  const InstructionPlan plan = plan_instruction(test::gemm(4096, 32, 32), t);
  ASSERT_GT(plan.tiles.size(), 1u);
  uint64_t weight_loads = 0;
  for (const Tile& tile : plan.tiles)
    for (const DramAccess& a : tile.loads)
      if (a.address >= 0x4000000 && a.address < 0x8000000) weight_loads += a.bytes;
  EXPECT_EQ(weight_loads, 32u * 32 * 4);
}

// An LM head's input gradient in miniature: dlogits [M, K] x embedding [K, N] with a long,
// odd-sized K, so the rows of dlogits lie 64 KiB apart and every K block of the streamed operand
// reads one run per row, each in another DRAM row. Bytes alone tie every K block (the traffic
// depends on M and N blocks only), and the smallest won: runs of 128 bytes, at a third of the
// peak on DDR4. Ranked by what the DRAM model makes of the blocks, the runs are long.
TEST(TimingTiling, BlockChoiceReadsLongRunsOfFarApartRows) {
  const uint32_t m = 1024, n = 768, k = 16411;
  isa::Instruction gemm(Opcode::Gemm);
  gemm.set_operand(Slot::A, f32(0, {m, k}));
  gemm.set_operand(Slot::B, f32(0x10000000, {k, n}));
  gemm.set_operand(Slot::Y, f32(0x20000000, {m, n}));
  const InstructionPlan plan = plan_instruction(gemm, config("base"));
  uint64_t runs = 0, bytes = 0;
  for (const Tile& tile : plan.tiles)
    for (const DramAccess& a : tile.loads)
      if (a.address < 0x10000000) {
        ++runs;
        bytes += a.bytes;
      }
  ASSERT_GT(runs, 0u);
  EXPECT_GE(bytes / runs, 512u) << runs << " runs of dlogits";
}

// Attention's scores: bmm(q, k, trans_b=1) over [N=2, H=4] batches of T=128 x dh=64 heads, q and
// k read as head splits of [N, T, H, dh] projections. One group per batch index: the PE time is
// that of 8 gemms of the same size, every score stored once, q and k each read whole.
TEST(TimingTiling, BmmIsOneGemmPerBatchIndexOverStridedHeads) {
  const uint32_t n = 2, t = 128, h = 4, dh = 64;
  isa::Instruction bmm(Opcode::Bmm);
  isa::TensorDesc q = f32(0x100000, {n, t, h, dh});
  q.shape = {n, h, t, dh};
  q.strides = {t * h * dh, dh, h * dh, 1};
  isa::TensorDesc k = q;
  k.addr = 0x4000000;
  bmm.set_operand(Slot::A, q);
  bmm.set_operand(Slot::B, k);
  bmm.set_operand(Slot::Y, f32(0x8000000, {n, h, t, t}));
  bmm.set_raw(isa::Field::TransB, 1);
  const auto base = config("base");
  const InstructionPlan plan = plan_instruction(bmm, base);
  isa::Instruction one = test::gemm(t, t, dh);
  one.set_operand(Slot::B, f32(0x4000000, {t, dh}));
  one.set_raw(isa::Field::TransB, 1);
  const InstructionPlan single = plan_instruction(one, base);
  EXPECT_EQ(plan.macs, uint64_t{n} * h * t * t * dh);
  EXPECT_EQ(plan.pe_cycles(), uint64_t{n} * h * single.pe_cycles());
  std::set<uint64_t> y_addresses;
  uint64_t y_bytes = 0, q_bytes = 0;
  for (const Tile& tile : plan.tiles) {
    for (unsigned b = 0; b < 4; ++b)
      EXPECT_LE(tile.footprint[b], room(base, b));
    for (const DramAccess& a : tile.stores) {
      y_bytes += a.bytes;
      EXPECT_TRUE(y_addresses.insert(a.address).second) << "y range stored twice";
    }
    for (const DramAccess& a : tile.loads)
      if (a.address < 0x4000000) q_bytes += a.bytes;
  }
  EXPECT_EQ(y_bytes, uint64_t{n} * h * t * t * 4);
  EXPECT_GE(q_bytes, uint64_t{n} * t * h * dh * 4);
}

// Fused attention over [N=2, H=4] heads of T=256 x dh=64 (causal), head splits of [N, T, H, dh]
// projections: blocks the compiler's rule picks for the base config fit half of every buffer;
// y and lse are stored once; no tile moves anything of the T x T scores, so forward plus
// backward move far fewer bytes than the unfused chain's scores and probabilities alone; the
// causal forward runs only the blocks on or below the diagonal.
TEST(TimingTiling, FusedAttentionKeepsTheScoresOnChip) {
  const uint32_t n = 2, t = 256, h = 4, dh = 64;
  auto head_split = [&](uint64_t addr) {
    isa::TensorDesc d = f32(addr, {n, t, h, dh});
    d.shape = {n, h, t, dh};
    d.strides = {t * h * dh, dh, h * dh, 1};
    return d;
  };
  const auto base = config("base");
  AttentionShape shape{uint64_t{n} * h, t, t, dh, dh, true, false};
  const auto blocks = choose_attention_blocks(base, shape);
  ASSERT_TRUE(blocks.has_value());
  isa::Instruction fwd(Opcode::AttnFwd), bwd(Opcode::AttnBwd);
  for (isa::Instruction* inst : {&fwd, &bwd}) {
    inst->set_operand(Slot::Q, head_split(0x100000));
    inst->set_operand(Slot::K, head_split(0x1100000));
    inst->set_operand(Slot::V, head_split(0x2100000));
    inst->set_raw(isa::Field::Causal, 1);
    inst->set_raw(isa::Field::BlockQ, static_cast<uint32_t>(blocks->q));
    inst->set_raw(isa::Field::BlockK, static_cast<uint32_t>(blocks->k));
  }
  fwd.set_operand(Slot::Y, f32(0x4000000, {n, h, t, dh}));
  fwd.set_operand(Slot::Lse, f32(0x5000000, {n, h, t}));
  bwd.set_operand(Slot::Y, f32(0x4000000, {n, h, t, dh}));
  bwd.set_operand(Slot::Dy, f32(0x6000000, {n, h, t, dh}));
  bwd.set_operand(Slot::Lse, f32(0x5000000, {n, h, t}));
  bwd.set_operand(Slot::DQ, f32(0x7000000, {n, h, t, dh}));
  bwd.set_operand(Slot::DK, f32(0x8000000, {n, h, t, dh}));
  bwd.set_operand(Slot::DV, f32(0x9000000, {n, h, t, dh}));
  const InstructionPlan f = plan_instruction(fwd, base), bw = plan_instruction(bwd, base);
  uint64_t y_bytes = 0, lse_bytes = 0;
  for (const InstructionPlan* plan : {&f, &bw})
    for (const Tile& tile : plan->tiles)
      for (unsigned i = 0; i < 4; ++i)
        EXPECT_LE(tile.footprint[i], buffer_desc(base, static_cast<Buffer>(i)).size_bytes / 2);
  for (const Tile& tile : f.tiles)
    for (const DramAccess& a : tile.stores)
      (a.address < 0x5000000 ? y_bytes : lse_bytes) += a.bytes;
  EXPECT_EQ(y_bytes, uint64_t{n} * h * t * dh * 4);
  EXPECT_EQ(lse_bytes, uint64_t{n} * h * t * 4);
  uint64_t kept = 0;  // (query block, key block) pairs on or below the diagonal
  for (uint64_t i0 = 0; i0 < t; i0 += blocks->q)
    for (uint64_t j0 = 0; j0 < std::min<uint64_t>(t, i0 + blocks->q); j0 += blocks->k)
      ++kept;
  EXPECT_EQ(f.tiles.size(), uint64_t{n} * h * kept);
  // The unfused chain on the same operands: scores, softmax, context; dp, dv, softmax_bwd, dq,
  // dk, each T x T tensor dense at its own address.
  auto bmm = [&](isa::TensorDesc a, isa::TensorDesc b, isa::TensorDesc y, bool ta, bool tb) {
    isa::Instruction i(Opcode::Bmm);
    i.set_operand(Slot::A, a);
    i.set_operand(Slot::B, b);
    i.set_operand(Slot::Y, y);
    i.set_raw(isa::Field::TransA, ta ? 1 : 0);
    i.set_raw(isa::Field::TransB, tb ? 1 : 0);
    return plan_instruction(i, base);
  };
  const isa::TensorDesc q = head_split(0x100000), k = head_split(0x1100000),
                        v = head_split(0x2100000), o = f32(0x4000000, {n, h, t, dh}),
                        dy = f32(0x6000000, {n, h, t, dh}), scores = f32(0x10000000, {n, h, t, t}),
                        p = f32(0x20000000, {n, h, t, t}), dp = f32(0x30000000, {n, h, t, t}),
                        ds = f32(0x40000000, {n, h, t, t});
  isa::Instruction softmax(Opcode::Softmax), softmax_bwd(Opcode::SoftmaxBwd);
  softmax.set_operand(Slot::X, scores);
  softmax.set_operand(Slot::Y, p);
  softmax.set_raw(isa::Field::Causal, 1);
  softmax_bwd.set_operand(Slot::Dy, dp);
  softmax_bwd.set_operand(Slot::Y, p);
  softmax_bwd.set_operand(Slot::Dx, ds);
  const std::vector<InstructionPlan> unfused{
      bmm(q, k, scores, false, true),
      plan_instruction(softmax, base),
      bmm(p, v, o, false, false),
      bmm(dy, v, dp, false, true),
      bmm(p, dy, f32(0x9000000, {n, h, t, dh}), true, false),
      plan_instruction(softmax_bwd, base),
      bmm(ds, k, f32(0x7000000, {n, h, t, dh}), false, false),
      bmm(ds, q, f32(0x8000000, {n, h, t, dh}), true, false)};
  uint64_t unfused_bytes = 0;
  for (const InstructionPlan& plan : unfused)
    unfused_bytes += plan.load_bytes() + plan.store_bytes();
  const uint64_t fused_bytes =
      f.load_bytes() + f.store_bytes() + bw.load_bytes() + bw.store_bytes();
  EXPECT_LT(fused_bytes, unfused_bytes);
  // At T = 256 the re-reads of q, k, v per block cost about two thirds of the scores' traffic;
  // the saving grows with T (the scores grow as T^2, the re-reads as T^2 / block).
  EXPECT_LT(static_cast<double>(fused_bytes), 0.8 * static_cast<double>(unfused_bytes))
      << fused_bytes << " fused, " << unfused_bytes << " unfused";
  EXPECT_GT(f.macs, 0u);
  EXPECT_GT(bw.macs, 2 * f.macs);
}

// A depthwise 3x3 convolution (96 groups of one channel: K = 9, N = 1) on the 32x32 base array:
// 3 groups side by side per tile (32 / 9), the output and the weights each moved once, and
// about a third of the PE time of one group per tile. The output-stationary array cannot pack.
TEST(TimingTiling, DepthwiseGroupsShareTheArray) {
  isa::Instruction conv(Opcode::Conv2d);
  for (isa::Field f :
       {isa::Field::PadTop, isa::Field::PadLeft, isa::Field::PadBottom, isa::Field::PadRight})
    conv.set_raw(f, 1);
  conv.set_raw(isa::Field::Groups, 96);
  conv.set_operand(Slot::X, f32(0, {8, 96, 16, 16}));
  conv.set_operand(Slot::W, f32(0x1000000, {96, 1, 3, 3}));
  conv.set_operand(Slot::Y, f32(0x2000000, {8, 96, 16, 16}));
  const auto base = config("base");
  const InstructionPlan plan = plan_instruction(conv, base);
  uint64_t y_bytes = 0, w_bytes = 0;
  for (const Tile& tile : plan.tiles) {
    EXPECT_EQ(tile.shape.n, 3u);
    EXPECT_EQ(tile.shape.k, 27u);
    for (unsigned b = 0; b < 4; ++b)
      EXPECT_LE(tile.footprint[b], room(base, b));
    for (const DramAccess& a : tile.stores)
      y_bytes += a.bytes;
    for (const DramAccess& a : tile.loads)
      if (a.address >= 0x1000000) w_bytes += a.bytes;
  }
  EXPECT_EQ(y_bytes, 8u * 96 * 16 * 16 * 4);
  EXPECT_EQ(w_bytes, 96u * 9 * 4);
  EXPECT_EQ(plan.macs, 8u * 96 * 16 * 16 * 9);

  auto os = base;
  os.pe_array.dataflow = target::Dataflow::OutputStationary;
  for (const Tile& tile : plan_instruction(conv, os).tiles)
    EXPECT_EQ(tile.shape.n, 1u);
  // One group per tile would take about 3x the PE cycles on the weight-stationary array.
  auto one = base;
  one.pe_array.rows = 16;  // 16 / 9: one group per pass
  const uint64_t single = plan_instruction(conv, one).pe_cycles();
  EXPECT_LT(3 * plan.pe_cycles(), single + single / 4) << plan.pe_cycles() << " vs " << single;
}

// A fully-connected layer at batch 4 (M = 4 rows, N = 1000, K = 512): in the normal
// orientation every pass streams 4 rows past a whole weight load and fill; transposed, the
// array holds a 32 x 4 block of the input and streams the 1000 weight columns as rows. With a
// bias the epilogue has a per-column operand and the normal orientation stays.
TEST(TimingTiling, AShortGemmStreamsItsLongSideTransposed) {
  const auto base = config("base");
  const auto model = make_pe_array_model(base);
  const InstructionPlan plan = plan_instruction(test::gemm(4, 1000, 512), base);
  ASSERT_FALSE(plan.tiles.empty());
  uint64_t y_bytes = 0, macs = 0;
  for (const Tile& tile : plan.tiles) {
    EXPECT_TRUE(tile.transposed);
    EXPECT_EQ(tile.shape.n, 4u) << "M is the held side";
    EXPECT_EQ(tile.shape.m, 1000u) << "N streams";
    macs += tile.shape.m * tile.shape.n * tile.shape.k;
    // The streamed (b) block in the input buffer, the held (a) block in the weight buffer.
    EXPECT_EQ(tile.footprint[0], tile.shape.m * tile.shape.k * 4);
    EXPECT_EQ(tile.footprint[1], tile.shape.n * tile.shape.k * 4);
    for (unsigned b = 0; b < 4; ++b)
      EXPECT_LE(tile.footprint[b], room(base, b));
    for (const DramAccess& a : tile.stores)
      y_bytes += a.bytes;
  }
  EXPECT_EQ(macs, 4u * 1000 * 512);
  EXPECT_EQ(y_bytes, 4u * 1000 * 4);  // every output once
  // Each K block of 32 is one pass of 1000 rows.
  EXPECT_EQ(plan.pe_cycles(), 16 * model->pass_cycles({1000, 4, 32}));

  isa::Instruction with_bias = test::gemm(4, 1000, 512);
  with_bias.set_operand(Slot::Bias, f32(0xC000000, {1000}));
  const InstructionPlan normal = plan_instruction(with_bias, base);
  for (const Tile& tile : normal.tiles) {
    EXPECT_FALSE(tile.transposed);
    EXPECT_EQ(tile.shape.m, 4u);
  }
  // 4-row passes over 32 column blocks (the last of 8 columns) and 16 K blocks.
  EXPECT_EQ(normal.pe_cycles(),
            16 * (31 * model->pass_cycles({4, 32, 32}) + model->pass_cycles({4, 8, 32})));
  EXPECT_LT(2 * plan.pe_cycles(), normal.pe_cycles());
  // A tall GEMM keeps the normal orientation: M already streams the long side.
  for (const Tile& tile : plan_instruction(test::gemm(4096, 64, 64), base).tiles)
    EXPECT_FALSE(tile.transposed);
}

// A 3x3 backward-data convolution over 64 channels at 4x4 (M = 64 pixels, N = 64, K = 576
// taps). K blocks must be whole filter windows (multiples of 9) to be boxes; the sizes cut
// from powers of two give 63 taps (7 channels), ten blocks of which take 19 passes of the 32
// rows. A block that is both whole windows and whole passes (288 = 32 channels x 9) takes the
// 18 passes the reduction needs, and its 64 x 288 input block fits the buffer, so it wins.
TEST(TimingTiling, KBlocksOfWholeWindowsFillTheArrayRows) {
  const auto base = config("base");
  const auto model = make_pe_array_model(base);
  isa::Instruction conv(Opcode::Conv2dBwdData);
  for (isa::Field f :
       {isa::Field::PadTop, isa::Field::PadLeft, isa::Field::PadBottom, isa::Field::PadRight})
    conv.set_raw(f, 1);
  conv.set_operand(Slot::Dy, f32(0, {4, 64, 4, 4}));
  conv.set_operand(Slot::W, f32(0x1000000, {64, 64, 3, 3}));
  conv.set_operand(Slot::Dx, f32(0x2000000, {4, 64, 4, 4}));
  const InstructionPlan plan = plan_instruction(conv, base);
  ASSERT_FALSE(plan.tiles.empty());
  uint64_t macs = 0;
  for (const Tile& tile : plan.tiles) {
    EXPECT_EQ(tile.shape.k, 288u) << tile.shape.m << "x" << tile.shape.n << "x" << tile.shape.k;
    macs += tile.shape.m * tile.shape.n * tile.shape.k;
  }
  EXPECT_EQ(macs, 64u * 64 * 576);
  const uint64_t per_column_block = 2 * model->tile_cycles({64, 32, 288});
  EXPECT_EQ(plan.pe_cycles(), 2 * per_column_block);
  // The 63-tap blocking the power-of-two sizes give: one more pass per column block.
  EXPECT_LT(plan.pe_cycles(),
            2 * (9 * model->tile_cycles({64, 32, 63}) + model->tile_cycles({64, 32, 9})));
}

}  // namespace
}  // namespace s2::sim::timing
