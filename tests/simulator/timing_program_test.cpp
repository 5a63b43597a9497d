// Whole programs: resnet18 and lenet5, compiled by s2c for each shipped config, planned on
// that config. Every tile fits half of every buffer, every instruction's PE cycles reach its
// compute roofline, and the tiles' DRAM accesses cover every operand byte.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "../common/run_command.h"
#include "isa/container/reader.h"
#include "simulator/timing/plan.h"
#include "timing_test_util.h"

namespace s2::sim::timing {
namespace {

// Compiles `model` for `cfg` once per test binary run, into a private temp directory.
const isa::Executable& compiled(const std::string& model, const std::string& cfg) {
  static std::map<std::string, isa::Executable> cache;
  static const std::string dir = [] {
    char tmpl[] = "/tmp/s2_timing_test_XXXXXX";
    const char* made = mkdtemp(tmpl);
    return std::string(made == nullptr ? "/tmp" : made);
  }();
  const std::string key = model + "." + cfg;
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const std::string out = dir + "/" + key + ".bin";
  const auto r = s2::test::run_command(
      std::string(S2C_PATH) + " compile " + model + " --force --config " +
      s2::test::shell_quoted(std::string(S2_SOURCE_DIR) + "/configs/s2train_" + cfg + ".yaml") +
      " -o " + s2::test::shell_quoted(out));
  EXPECT_EQ(r.status, 0) << r.out;
  isa::Executable exe = isa::load_executable(out);
  std::remove(out.c_str());
  return cache.emplace(key, std::move(exe)).first->second;
}

// Whether the union of `accesses` (of one direction) covers [addr, addr + bytes).
bool covers(std::vector<std::pair<uint64_t, uint64_t>> ranges, uint64_t addr, uint64_t bytes) {
  std::sort(ranges.begin(), ranges.end());
  uint64_t reached = addr;
  for (const auto& [a, e] : ranges) {
    if (a > reached) break;
    reached = std::max(reached, e);
    if (reached >= addr + bytes) return true;
  }
  return reached >= addr + bytes;
}

struct Case {
  std::string model, cfg;
};

class TimingProgram : public ::testing::TestWithParam<Case> {};

TEST_P(TimingProgram, TilesFitPhysicsHoldsAndBytesAreCovered) {
  const Case c = GetParam();
  const target::TargetDesc t = test::config(c.cfg);
  const isa::Executable& exe = compiled(c.model, c.cfg);
  ASSERT_FALSE(exe.instructions.empty());
  const std::vector<InstructionPlan> plans = plan_program(exe, t);
  ASSERT_EQ(plans.size(), exe.instructions.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    const InstructionPlan& p = plans[i];
    const std::string where =
        "instruction " + std::to_string(i) + " " + std::string(inst.info().mnemonic);
    EXPECT_EQ(p.unit, inst.info().unit) << where;
    for (const Tile& tile : p.tiles)
      for (unsigned b = 0; b < 4; ++b)
        ASSERT_LE(tile.footprint[b], buffer_desc(t, static_cast<Buffer>(b)).size_bytes / 2)
            << where << " buffer " << kBufferNames[b];
    // Physics: the PE array cannot do more than rows*cols MACs per cycle.
    EXPECT_GE(p.pe_cycles() * t.pe_array.macs(), p.macs) << where;
    if (inst.info().unit == isa::Unit::Pe) {
      EXPECT_GT(p.macs, 0u) << where;
    }
    if (inst.info().unit == isa::Unit::Control) {
      EXPECT_TRUE(p.tiles.empty()) << where;
    }
    // Coverage: every operand read is loaded, every operand written is stored.
    std::vector<std::pair<uint64_t, uint64_t>> loads, stores;
    for (const Tile& tile : p.tiles) {
      for (const DramAccess& a : tile.loads)
        loads.emplace_back(a.address, a.address + a.bytes);
      for (const DramAccess& a : tile.stores)
        stores.emplace_back(a.address, a.address + a.bytes);
    }
    uint64_t in_bytes = 0, out_bytes = 0;
    for (const isa::OperandSig& sig : inst.info().operands) {
      const auto& d = inst.operand(sig.slot);
      if (!d) continue;
      const uint64_t dense = d->elements() * isa::dtype_bytes(d->dtype);
      const bool reads = sig.access != isa::Access::Out;
      const bool writes = sig.access != isa::Access::In;
      if (reads) in_bytes += dense;
      if (writes) out_bytes += dense;
      if (!d->is_contiguous()) continue;  // strided: the byte sums below still apply
      if (reads) {
        EXPECT_TRUE(covers(loads, d->addr, dense))
            << where << " operand " << isa::slot_info(sig.slot).name << " not fully loaded";
      }
      if (writes) {
        EXPECT_TRUE(covers(stores, d->addr, dense))
            << where << " operand " << isa::slot_info(sig.slot).name << " not fully stored";
      }
    }
    EXPECT_GE(p.load_bytes(), in_bytes) << where;
    EXPECT_GE(p.store_bytes(), out_bytes) << where;
    EXPECT_EQ(p.bytes, [&] {
      uint64_t span = 0;
      for (const isa::OperandSig& sig : inst.info().operands)
        if (const auto& d = inst.operand(sig.slot))
          span += d->span_bytes() * (sig.access == isa::Access::InOut ? 2 : 1);
      return span;
    }()) << where;
  }
}

// TileDetail::Cycles (the compiler's cost table) plans the same tiles without their DRAM
// accesses: same count, cycles, shapes and footprints, and the same roofline.
void expect_cycles_only_plans_alike(const isa::Executable& exe, const target::TargetDesc& t) {
  const PeArrayModels models(t);
  for (size_t i = 0; i < exe.instructions.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    const std::string where =
        "instruction " + std::to_string(i) + " " + std::string(inst.info().mnemonic);
    const InstructionPlan full = plan_instruction(inst, t, models);
    const InstructionPlan cycles = plan_instruction(inst, t, models, TileDetail::Cycles);
    ASSERT_EQ(cycles.tiles.size(), full.tiles.size()) << where;
    for (size_t k = 0; k < full.tiles.size(); ++k) {
      const Tile& a = full.tiles[k];
      const Tile& b = cycles.tiles[k];
      EXPECT_TRUE(b.loads.empty() && b.stores.empty()) << where << " tile " << k;
      EXPECT_EQ(b.pe_cycles, a.pe_cycles) << where << " tile " << k;
      EXPECT_EQ(b.ppu_cycles, a.ppu_cycles) << where << " tile " << k;
      EXPECT_EQ(b.epilogue_tail, a.epilogue_tail) << where << " tile " << k;
      EXPECT_EQ(b.compute_cycles(), a.compute_cycles()) << where << " tile " << k;
      EXPECT_EQ(b.footprint, a.footprint) << where << " tile " << k;
      EXPECT_EQ(b.elements, a.elements) << where << " tile " << k;
      EXPECT_EQ(b.shape.m, a.shape.m) << where << " tile " << k;
      EXPECT_EQ(b.shape.n, a.shape.n) << where << " tile " << k;
      EXPECT_EQ(b.shape.k, a.shape.k) << where << " tile " << k;
      EXPECT_EQ(b.transposed, a.transposed) << where << " tile " << k;
      EXPECT_EQ(b.products.size(), a.products.size()) << where << " tile " << k;
    }
    EXPECT_EQ(cycles.roofline_cycles, full.roofline_cycles) << where;
    EXPECT_EQ(cycles.bytes, full.bytes) << where;
    EXPECT_EQ(cycles.macs, full.macs) << where;
    if (i + 1 < exe.instructions.size() && ::testing::Test::HasFailure()) return;
  }
}

TEST_P(TimingProgram, CyclesOnlyPlansTheSameTiles) {
  const Case c = GetParam();
  expect_cycles_only_plans_alike(compiled(c.model, c.cfg), test::config(c.cfg));
}

// The tiling's other paths: fused attention (attn_fwd, attn_bwd), layer norm, softmax and the
// embeddings of a transformer, and batch norm's per-channel operands split across tiles
// (mobilenet_v2's wide layers on the small configuration).
TEST(TimingProgramOthers, CyclesOnlyPlansTheSameTiles) {
  expect_cycles_only_plans_alike(compiled("gpt --fuse-attention", "base"), test::config("base"));
  expect_cycles_only_plans_alike(compiled("bert", "base"), test::config("base"));
  expect_cycles_only_plans_alike(compiled("mobilenet_v2", "small"), test::config("small"));
}

INSTANTIATE_TEST_SUITE_P(Zoo, TimingProgram,
                         ::testing::Values(Case{"resnet18", "base"}, Case{"resnet18", "small"},
                                           Case{"resnet18", "large"}, Case{"lenet5", "base"},
                                           Case{"lenet5", "small"}, Case{"lenet5", "large"}),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           return param_info.param.model + "_" + param_info.param.cfg;
                         });

}  // namespace
}  // namespace s2::sim::timing
