// RtlTileClock (simulator/top/rtl_tile_clock.h): a unit's tile runs on the SystemC RTL from a
// thread, time advances by exactly the RTL's cycles, the cycles agree with the model, and a
// tile whose model cycles differ from the RTL's is a divergence naming instruction, tile and
// shape. Own sc_main: the RTL modules must exist before the first sc_start().
#include "simulator/top/rtl_tile_clock.h"

#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <string>
#include <systemc>

#include "isa/common/errors.h"
#include "simulator/dram/load_target.h"
#include "simulator/timing/pe_array_model.h"
#include "simulator/timing/ppu_model.h"

namespace s2::sim::top {
namespace {

// Runs jobs in a SystemC thread, as the simulator's units do.
class Runner : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Runner);
  explicit Runner(sc_core::sc_module_name name) : sc_core::sc_module(name) { SC_THREAD(loop); }

  // Runs `job` in the thread; returns the simulated picoseconds it took.
  uint64_t run(std::function<void()> job) {
    job_ = std::move(job);
    error_ = nullptr;
    posted_.notify(sc_core::SC_ZERO_TIME);
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    sc_core::sc_start();
    if (error_) std::rethrow_exception(error_);
    return static_cast<uint64_t>((sc_core::sc_time_stamp() - start).value());
  }

 private:
  void loop() {
    for (;;) {
      while (!job_)
        sc_core::wait(posted_);
      try {
        job_();
      } catch (...) {
        error_ = std::current_exception();
      }
      job_ = nullptr;
    }
  }

  std::function<void()> job_;
  std::exception_ptr error_;
  sc_core::sc_event posted_;
};

target::TargetDesc& base() {
  static target::TargetDesc t =
      target::load_target(std::string(S2_SOURCE_DIR) + "/configs/s2train_base.yaml");
  return t;
}

Runner* g_runner = nullptr;
RtlUnits g_units;

timing::Tile pe_tile(const timing::PeArrayModel& model, timing::PassShape shape, bool last_k,
                     const target::TargetDesc& target = base()) {
  timing::Tile t;
  t.shape = shape;
  t.pe_cycles = model.tile_cycles(shape);
  t.streamed_epilogue = true;
  if (last_k) {
    t.ppu_cycles = timing::epilogue_cycles(target, shape.m * shape.n);
    t.epilogue_tail = timing::epilogue_tail(target, model, shape);
  }
  return t;
}

// The base config with an epilogue of half the lanes' rate: 16 elements per cycle, so a row
// of 32 columns takes the PPU two cycles and the PPU falls behind an array that drains one row
// per cycle.
target::TargetDesc slow_epilogue() {
  target::TargetDesc t = base();
  t.ppu.ops[static_cast<size_t>(target::PpuOp::Epilogue)].throughput = 0.5;
  return t;
}

TEST(RtlTileClock, PeTileRunsEveryPassOnTheRtlInTheModelsCycles) {
  rtl::CosimLog log;
  RtlTileClock clock(g_units, base(), log);
  const auto model = timing::make_pe_array_model(base());
  // 100 x 40 x 70 on 32x32: 2 column blocks x 3 K blocks x 1 row block.
  const timing::Tile tile = pe_tile(*model, {100, 40, 70}, true);
  isa::Instruction conv(isa::Opcode::Conv2d);
  conv.set_raw(isa::Field::Act, static_cast<uint32_t>(isa::Activation::Relu));
  uint64_t cycles = 0;
  const uint64_t ps =
      g_runner->run([&] { cycles = clock.compute(isa::Unit::Pe, 3, "conv", conv, 0, tile); });
  EXPECT_EQ(cycles, tile.pe_cycles + tile.epilogue_tail);
  EXPECT_EQ(ps, cycles * g_units.period_ps);  // the RTL's clock is the unit's clock
  EXPECT_EQ(log.timing_pe_array.tiles, 1u);
  EXPECT_EQ(log.timing_pe_array.passes, 6u);
  EXPECT_EQ(log.timing_pe_array.rtl_cycles, tile.pe_cycles);
  EXPECT_EQ(log.timing_epilogue.passes, 1u);
  // The PPU keeps up with the rows (32 lanes, one row per cycle): after the last row only its
  // pipeline, latency 4, remains.
  EXPECT_EQ(tile.epilogue_tail, 4u);
  EXPECT_EQ(log.timing_epilogue.rtl_cycles, tile.epilogue_tail);
  EXPECT_FALSE(log.diverged()) << log.timing_pe_array.first << log.timing_epilogue.first;
}

// An epilogue slower than the array's drain: the PPU RTL queues the drained rows and the tile
// ends when it has worked through them, in the model's cycles.
TEST(RtlTileClock, ASlowEpilogueFallsBehindTheDrainAsTheModelSays) {
  const target::TargetDesc t = slow_epilogue();
  rtl::CosimLog log;
  RtlTileClock clock(g_units, t, log);
  const auto model = timing::make_pe_array_model(t);
  // 100 x 64 x 40: 2 column blocks x 2 K blocks (32, 8) x 1 row block.
  const timing::Tile tile = pe_tile(*model, {100, 64, 40}, true, t);
  // The last pass's 100 rows, one per cycle, are 200 beats: the last is captured 100 cycles
  // after the array's last edge, and written after the pipeline's 4.
  EXPECT_EQ(tile.epilogue_tail, 104u);
  isa::Instruction conv(isa::Opcode::Conv2d);
  uint64_t cycles = 0;
  const uint64_t ps =
      g_runner->run([&] { cycles = clock.compute(isa::Unit::Pe, 5, "conv", conv, 1, tile); });
  EXPECT_EQ(cycles, tile.pe_cycles + tile.epilogue_tail);
  EXPECT_EQ(ps, cycles * g_units.period_ps);
  EXPECT_EQ(log.timing_pe_array.passes, 4u);
  EXPECT_EQ(log.timing_epilogue.rtl_cycles, tile.epilogue_tail);
  EXPECT_FALSE(log.diverged()) << log.timing_pe_array.first << log.timing_epilogue.first;
}

// With the PPU's RTL and not the array's, the array's passes wait the model's cycles and the
// rows the model makes final feed the PPU RTL.
TEST(RtlTileClock, ThePpuRtlAloneTakesTheRowsTheModelDrains) {
  const target::TargetDesc t = slow_epilogue();
  RtlUnits units = g_units;
  units.pe_array = nullptr;
  rtl::CosimLog log;
  RtlTileClock clock(units, t, log);
  const auto model = timing::make_pe_array_model(t);
  const timing::Tile tile = pe_tile(*model, {100, 40, 70}, true, t);
  isa::Instruction conv(isa::Opcode::Conv2d);
  conv.set_raw(isa::Field::Act, static_cast<uint32_t>(isa::Activation::Relu));
  uint64_t cycles = 0;
  const uint64_t ps =
      g_runner->run([&] { cycles = clock.compute(isa::Unit::Pe, 6, "conv", conv, 0, tile); });
  EXPECT_EQ(cycles, tile.pe_cycles + tile.epilogue_tail);
  EXPECT_EQ(ps, cycles * units.period_ps);
  EXPECT_EQ(log.timing_pe_array.tiles, 0u);
  EXPECT_EQ(log.timing_epilogue.tiles, 1u);
  EXPECT_EQ(log.timing_epilogue.rtl_cycles, tile.epilogue_tail);
  EXPECT_FALSE(log.diverged()) << log.timing_epilogue.first;
}

// A bf16 instruction's tile runs in the RTL's bf16 mode: passes of up to 32 x 4 reduction
// steps (4 MACs per PE on the base config), two cycles per row of 128 bf16 inputs from the
// 128-byte input port, in the bf16 model's cycles.
TEST(RtlTileClock, Bf16TilesRunInTheRtlsBf16Mode) {
  rtl::CosimLog log;
  RtlTileClock clock(g_units, base(), log);
  const timing::PeArrayModels models(base());
  const timing::PeArrayModel& bf16 = models.get(isa::DType::BF16);
  ASSERT_EQ(bf16.max_pass().k, 128u);
  // 100 x 40 x 300 on 32x32 in bf16: 2 column blocks x 3 K blocks (128, 128, 44).
  const timing::Tile tile = pe_tile(bf16, {100, 40, 300}, false);
  ASSERT_NE(tile.pe_cycles, models.get(isa::DType::F32).tile_cycles({100, 40, 300}));
  isa::Instruction gemm(isa::Opcode::Gemm);
  gemm.set_operand(isa::Slot::A, isa::TensorDesc::contiguous(0, isa::DType::BF16, {100, 300}));
  gemm.set_operand(isa::Slot::B, isa::TensorDesc::contiguous(0, isa::DType::BF16, {300, 40}));
  uint64_t cycles = 0;
  g_runner->run([&] { cycles = clock.compute(isa::Unit::Pe, 2, "fc", gemm, 0, tile); });
  EXPECT_EQ(cycles, tile.pe_cycles);
  EXPECT_EQ(log.timing_pe_array.passes, 6u);
  EXPECT_EQ(log.timing_pe_array.rtl_cycles, tile.pe_cycles);
  EXPECT_FALSE(log.diverged()) << log.timing_pe_array.first;
}

TEST(RtlTileClock, PassesAreCutAtTheAccumulatorRowsOfAColumn) {
  rtl::CosimLog log;
  RtlTileClock clock(g_units, base(), log);
  const auto model = timing::make_pe_array_model(base());
  ASSERT_EQ(model->max_pass().m, 1024u);  // 128 KiB / (4 B x 32 columns)
  const timing::Tile tile = pe_tile(*model, {2100, 3, 5}, false);
  isa::Instruction conv(isa::Opcode::Conv2dBwdData);
  g_runner->run([&] { clock.compute(isa::Unit::Pe, 0, "conv", conv, 0, tile); });
  EXPECT_EQ(log.timing_pe_array.passes, 3u);  // 1024 + 1024 + 52 rows
  EXPECT_EQ(log.timing_pe_array.rtl_cycles, tile.pe_cycles);
  EXPECT_EQ(log.timing_epilogue.tiles, 0u);  // not the last K block: no epilogue
  EXPECT_FALSE(log.diverged()) << log.timing_pe_array.first;
}

TEST(RtlTileClock, ATileWhoseModelCyclesDifferIsADivergenceAndTheRtlClocksTheUnit) {
  rtl::CosimLog log;
  RtlTileClock clock(g_units, base(), log);
  const auto model = timing::make_pe_array_model(base());
  timing::Tile tile = pe_tile(*model, {64, 32, 32}, false);
  const uint64_t rtl_cycles = tile.pe_cycles;
  tile.pe_cycles += 1;  // a model that is one cycle off
  isa::Instruction gemm(isa::Opcode::Gemm);
  uint64_t cycles = 0;
  const uint64_t ps =
      g_runner->run([&] { cycles = clock.compute(isa::Unit::Pe, 7, "fc1", gemm, 4, tile); });
  EXPECT_EQ(cycles, rtl_cycles);
  EXPECT_EQ(ps, rtl_cycles * g_units.period_ps);
  EXPECT_TRUE(log.diverged());
  EXPECT_EQ(log.timing_pe_array.divergences, 1u);
  const std::string& first = log.timing_pe_array.first;
  EXPECT_NE(first.find("instruction 7 (fc1), tile 4 (64x32x32 M_b x N_b x K_b, f32)"),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("RTL " + std::to_string(rtl_cycles) + " cycles, model " +
                       std::to_string(rtl_cycles + 1)),
            std::string::npos)
      << first;
}

// A tile identical to one already clocked takes the RTL cycles counted for it: the same
// cycles and time, the same log (a divergence found on the first is found on the repeat, named
// by the repeat's instruction), and the log counts it as reused. Without reuse every tile is
// clocked, with the same figures.
TEST(RtlTileClock, ARepeatedTileTakesTheCyclesTheRtlCountedForTheFirst) {
  const auto model = timing::make_pe_array_model(base());
  const timing::Tile with_epilogue = pe_tile(*model, {100, 40, 70}, true);
  timing::Tile off_by_one = pe_tile(*model, {64, 32, 32}, false);
  const uint64_t rtl_cycles = off_by_one.pe_cycles;
  off_by_one.pe_cycles += 1;
  timing::Tile add_tile;
  add_tile.elements = 1000;
  add_tile.ppu_op = target::PpuOp::Eltwise;
  add_tile.ppu_cycles = timing::ppu_pass_cycles(base(), target::PpuOp::Eltwise, 1000);
  isa::Instruction conv(isa::Opcode::Conv2d);
  conv.set_raw(isa::Field::Act, static_cast<uint32_t>(isa::Activation::Relu));
  isa::Instruction gemm(isa::Opcode::Gemm);
  isa::Instruction add(isa::Opcode::Eltwise);
  add.set_raw(isa::Field::Op, static_cast<uint32_t>(isa::EltwiseOp::Add));

  for (const bool reuse : {true, false}) {
    SCOPED_TRACE(reuse ? "reuse" : "every tile clocked");
    rtl::CosimLog log;
    RtlTileClock clock(g_units, base(), log, reuse);
    for (uint32_t repeat = 0; repeat < 2; ++repeat) {
      uint64_t cycles = 0;
      uint64_t ps = g_runner->run([&] {
        cycles = clock.compute(isa::Unit::Pe, 3 + repeat, "conv", conv, 0, with_epilogue);
      });
      EXPECT_EQ(cycles, with_epilogue.pe_cycles + with_epilogue.epilogue_tail);
      EXPECT_EQ(ps, cycles * g_units.period_ps);
      ps = g_runner->run(
          [&] { cycles = clock.compute(isa::Unit::Pe, 7 + repeat, "fc1", gemm, 4, off_by_one); });
      EXPECT_EQ(cycles, rtl_cycles);
      EXPECT_EQ(ps, rtl_cycles * g_units.period_ps);
      ps = g_runner->run(
          [&] { cycles = clock.compute(isa::Unit::Ppu, 9 + repeat, "add", add, 0, add_tile); });
      EXPECT_EQ(cycles, add_tile.ppu_cycles);
      EXPECT_EQ(ps, cycles * g_units.period_ps);
    }
    EXPECT_EQ(log.timing_pe_array.tiles, 4u);
    EXPECT_EQ(log.timing_pe_array.passes, 2 * (6u + 1u));
    EXPECT_EQ(log.timing_pe_array.rtl_cycles, 2 * (with_epilogue.pe_cycles + rtl_cycles));
    EXPECT_EQ(log.timing_pe_array.divergences, 2u);  // the off-by-one tile, both times
    EXPECT_NE(log.timing_pe_array.first.find("instruction 7 (fc1), tile 4"), std::string::npos)
        << log.timing_pe_array.first;
    EXPECT_EQ(log.timing_epilogue.tiles, 2u);
    EXPECT_EQ(log.timing_epilogue.rtl_cycles, 2 * with_epilogue.epilogue_tail);
    EXPECT_EQ(log.timing_ppu.tiles, 2u);
    EXPECT_EQ(log.timing_ppu.rtl_cycles, 2 * add_tile.ppu_cycles);
    EXPECT_EQ(log.timing_pe_array.reused_tiles, reuse ? 2u : 0u);
    EXPECT_EQ(log.timing_epilogue.reused_tiles, reuse ? 1u : 0u);
    EXPECT_EQ(log.timing_ppu.reused_tiles, reuse ? 1u : 0u);
  }
}

TEST(RtlTileClock, PpuTilesOfRtlOpsRunOnTheRtlAndTheOthersOnTheModel) {
  rtl::CosimLog log;
  RtlTileClock clock(g_units, base(), log);
  isa::Instruction add(isa::Opcode::Eltwise);
  add.set_raw(isa::Field::Op, static_cast<uint32_t>(isa::EltwiseOp::Add));
  timing::Tile t;
  t.elements = 1000;
  t.ppu_op = target::PpuOp::Eltwise;
  t.ppu_cycles = timing::ppu_pass_cycles(base(), target::PpuOp::Eltwise, 1000);
  uint64_t cycles = 0;
  uint64_t ps = g_runner->run([&] { cycles = clock.compute(isa::Unit::Ppu, 1, "add", add, 0, t); });
  EXPECT_EQ(cycles, t.ppu_cycles);
  EXPECT_EQ(ps, cycles * g_units.period_ps);
  EXPECT_EQ(log.timing_ppu.tiles, 1u);
  EXPECT_EQ(log.timing_ppu.rtl_cycles, t.ppu_cycles);

  isa::Instruction bn(isa::Opcode::BnFwd);
  timing::Tile b;
  b.elements = 4096;
  b.ppu_op = target::PpuOp::BnFwd;
  b.ppu_cycles = timing::ppu_pass_cycles(base(), target::PpuOp::BnFwd, 4096);
  ps = g_runner->run([&] { cycles = clock.compute(isa::Unit::Ppu, 2, "bn", bn, 0, b); });
  EXPECT_EQ(cycles, b.ppu_cycles);
  EXPECT_EQ(ps, cycles * g_units.period_ps);
  EXPECT_EQ(log.timing_ppu.tiles, 1u);
  EXPECT_EQ(log.timing_ppu.model_timed_tiles, 1u);
  EXPECT_EQ(log.timing_ppu.model_timed_cycles, b.ppu_cycles);
  EXPECT_EQ(log.timing_ppu.model_timed_ops.count("bn_fwd"), 1u);
  EXPECT_FALSE(log.diverged()) << log.timing_ppu.first;
}

TEST(RtlTileClock, AConfigTheRtlCannotStandForIsAUserError) {
  target::TargetDesc t = base();
  t.sram.accumulator.size_bytes *= 4;  // 4096 rows per column: more than the RTL's MAX_M
  rtl::CosimLog log;
  try {
    RtlTileClock clock(g_units, t, log);
    FAIL() << "accepted an accumulator deeper than the RTL's";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("sram.accumulator.size"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace s2::sim::top

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  using namespace s2::sim::top;
  g_runner = new Runner("runner");
  RtlSelection both;
  both.pe_array = true;
  both.ppu = true;
  static RtlUnitSet* units = new RtlUnitSet(both, base());  // SystemC modules: never freed
  g_units = units->units();
  sc_core::sc_start();  // the RTL units' reset, so that every test starts on a clock edge
  return RUN_ALL_TESTS();
}
