// The energy and area model's formulas (simulator/energy/energy_model.h) and the activity
// counters (simulator/timing/activity.h), each on values computed by hand.
#include "simulator/energy/energy_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "simulator/dram/load_target.h"
#include "simulator/timing/activity.h"
#include "simulator/timing/tiling.h"

namespace s2::sim::energy {
namespace {

// Round numbers, so every expectation below is a sum one can check on paper.
target::TechDesc round_tech() {
  target::TechDesc t;
  t.name = "round";
  t.node_nm = 45;
  t.mac_energy_pj = 4;
  t.mac_area_um2 = 1000;
  t.mac_16bit_energy_pj = 1.5;
  t.add_area_um2 = 400;
  t.register_bit_energy_pj = 0.01;
  t.register_bit_area_um2 = 1;
  t.sram_access_energy_pj = 10;
  t.sram_reference_width_bytes = 8;
  t.sram_reference_bytes = 8192;
  t.sram_cell_area_um2 = 0.5;
  t.sram_row_area_um2 = 2;
  t.sram_column_area_um2 = 1;
  t.sram_bank_area_um2 = 100;
  t.sram_mat_rows = 64;
  t.sram_mat_columns = 256;
  t.ppu_op_energy_pj = 2;
  t.ppu_lane_area_um2 = 100;
  t.dma_byte_energy_pj = 0.5;
  t.dma_engine_area_um2 = 50;
  t.leakage_mw_per_mm2 = 10;
  return t;
}

target::TargetDesc small_target() {
  target::TargetDesc t;
  t.name = "small";
  t.clock_mhz = 1000;
  t.pe_array.rows = 2;
  t.pe_array.cols = 4;
  for (target::SramBufferDesc* b :
       {&t.sram.input, &t.sram.weight, &t.sram.accumulator, &t.sram.output})
    *b = {1024, 2, 8};
  t.sram.input = {32768, 2, 16};
  t.ppu.lanes = 4;
  for (target::PpuOpCost& c : t.ppu.ops)
    c = {1.0, 4};
  t.dma.engines = 2;
  t.dma.width_bytes = 8;
  t.dram.channels = 2;
  t.dram.ranks = 1;
  t.dram.clock_mhz = 1000;  // tCK 1 ns
  t.dram.data_rate = 2;
  t.dram.bus_width_bits = 64;
  t.dram.burst_length = 8;  // a burst: 8 / 2 x 1 ns = 4 ns
  t.dram.timing.tRC = 40;
  t.dram.timing.tRAS = 30;
  t.dram.timing.tRFC = 100;
  target::DramPowerDesc power;
  power.device_width_bits = 8;  // 8 devices per rank
  power.rails.push_back({1.0, 60, 30, 40, 140, 120, 240});
  t.dram.power = power;
  t.tech = round_tech();
  return t;
}

TEST(EnergyModel, AreaOfEachUnit) {
  const AreaBreakdown a = area(small_target());
  EXPECT_DOUBLE_EQ(a.pe_array_mm2, 8 * (1000 + kPeRegisterBits * 1.0) / 1e6);  // 8 PEs
  // The layouts of SramAreaFollowsTheShapeOfTheBanks.
  EXPECT_DOUBLE_EQ(a.sram_mm2[0], 2 * (8 * 8576 + 100) / 1e6);
  EXPECT_DOUBLE_EQ(a.sram_mm2[1], 2 * (2240 + 100) / 1e6);
  EXPECT_DOUBLE_EQ(a.ppu_mm2, 4 * 100 / 1e6);
  EXPECT_DOUBLE_EQ(a.dma_mm2, 2 * (50 + 8 * 8 * 1.0) / 1e6);  // engine + 8-byte staging
  EXPECT_DOUBLE_EQ(a.total_mm2(),
                   a.pe_array_mm2 + a.sram_mm2[0] + 3 * a.sram_mm2[1] + a.ppu_mm2 + a.dma_mm2);
  // A bigger array costs more area.
  target::TargetDesc big = small_target();
  big.pe_array.rows *= 2;
  EXPECT_GT(area(big).total_mm2(), a.total_mm2());
  // Four bf16 MACs per PE: three more chain adders, and per further slot a weight and a
  // partial sum; the input word is 4 x 16 = 64 bits. An f16 mode of 2 shares those slots.
  target::TargetDesc wide = small_target();
  wide.pe_array.datatypes = {{isa::DType::F32, 1}, {isa::DType::BF16, 4}, {isa::DType::F16, 2}};
  EXPECT_EQ(pe_register_bits(4), 4u * 64u + 64u + 2u);
  EXPECT_DOUBLE_EQ(area(wide).pe_array_mm2, 8 * (1000 + 3 * 400 + 322 * 1.0) / 1e6);
  EXPECT_DOUBLE_EQ(area(wide).sram_total_mm2(), a.sram_total_mm2());
}

TEST(EnergyModel, SramAreaFollowsTheShapeOfTheBanks) {
  const target::TechDesc tech = round_tech();  // mats of at most 64 rows x 256 columns
  // 32 KiB in 2 banks of 16 B: 1024 words of 128 bits per bank. A square array would put
  // sqrt(1024 x 128) / 128 = 2.83 words in a row: 4 (log2 1.5 rounds up), so 256 rows x 512
  // columns, tiled as 4 x 2 mats of 64 x 256.
  const SramLayout l = sram_layout(tech, {32768, 2, 16});
  EXPECT_EQ(l.words_per_row, 4u);
  EXPECT_EQ(l.rows, 256u);
  EXPECT_EQ(l.columns, 512u);
  EXPECT_EQ(l.mats_down, 4u);
  EXPECT_EQ(l.mats_across, 2u);
  EXPECT_EQ(l.mat_rows, 64u);
  EXPECT_EQ(l.mat_columns, 256u);
  // A mat: 0.5 x 64 x 256 cells + 2 x 64 rows + 1 x 256 columns = 8576; a bank: 8 mats + 100.
  EXPECT_DOUBLE_EQ(sram_area_um2(tech, {32768, 2, 16}), 2 * (8 * 8576.0 + 100));
  // 1 KiB in 2 banks of 8 B: 64 words of 64 bits, square with one word per row: one mat of
  // 0.5 x 4096 + 2 x 64 + 64 = 2240.
  EXPECT_EQ(sram_layout(tech, {1024, 2, 8}).words_per_row, 1u);
  EXPECT_DOUBLE_EQ(sram_area_um2(tech, {1024, 2, 8}), 2 * (2240.0 + 100));
  // A deep, narrow bank stops at 16 words per row (sqrt(65536 x 8) / 8 = 90.5); a bank two
  // words deep keeps one word per row.
  EXPECT_EQ(sram_layout(tech, {65536, 1, 1}).words_per_row, 16u);
  EXPECT_EQ(sram_layout(tech, {65536, 1, 1}).rows, 4096u);
  EXPECT_EQ(sram_layout(tech, {64, 1, 32}).words_per_row, 1u);
  EXPECT_EQ(sram_layout(tech, {64, 1, 32}).rows, 2u);
  // The same 32 KiB in more banks of the same width: each bank's periphery and overhead again.
  EXPECT_GT(sram_area_um2(tech, {32768, 16, 16}), sram_area_um2(tech, {32768, 2, 16}));
  // The shipped technology: 256 KiB of 16-byte banks costs more area in 64 banks than in 1,
  // and the periphery never reaches half the cells' own area (64 banks: 38%).
  const target::TargetDesc base =
      target::load_target(std::string(S2_SOURCE_DIR) + "/configs/s2train_base.yaml");
  const target::TechDesc& cmos45 = *base.tech;
  double previous = 0;
  for (uint32_t banks : {1u, 4u, 16u, 64u}) {
    const double um2 = sram_area_um2(cmos45, {256 * 1024, banks, 16});
    EXPECT_GT(um2, previous) << banks << " banks";
    EXPECT_LT(um2, 1.5 * 256 * 1024 * 8 * cmos45.sram_cell_area_um2) << banks;
    previous = um2;
  }
}

TEST(EnergyModel, SramAccessScalesWithWidthAndTheSquareRootOfTheBank) {
  const target::TechDesc tech = round_tech();
  // The reference itself: 8 bytes from an 8 KiB bank.
  EXPECT_DOUBLE_EQ(sram_access_energy_pj(tech, {8192, 1, 8}), 10);
  // 16 bytes (x2) from a 16 KiB bank (32 KiB in 2 banks: x sqrt 2).
  EXPECT_DOUBLE_EQ(sram_access_energy_pj(tech, {32768, 2, 16}), 10 * 2 * std::sqrt(2.0));
  // Four times the capacity in one bank: twice the energy (Horowitz: 8 KB 10 pJ, 32 KB 20 pJ).
  EXPECT_DOUBLE_EQ(sram_access_energy_pj(tech, {32768, 1, 8}), 20);
}

TEST(EnergyModel, DramEventsFromDatasheetCurrents) {
  const DramEventEnergy e = dram_event_energy(small_target().dram);
  // 8 devices x 1 V x (IDD0 tRC - (IDD3N tRAS + IDD2N (tRC - tRAS))) = 8 (2400 - 1500) pJ.
  EXPECT_DOUBLE_EQ(e.activate_pj, 8 * (60 * 40 - (40 * 30 + 30 * 10)));
  EXPECT_DOUBLE_EQ(e.read_pj, 8 * (140 - 40) * 4.0);
  EXPECT_DOUBLE_EQ(e.write_pj, 8 * (120 - 40) * 4.0);
  EXPECT_DOUBLE_EQ(e.refresh_pj, 8 * (240 - 40) * 100.0);
  // Open pages: active standby of 8 devices x 1 rank x 2 channels.
  EXPECT_DOUBLE_EQ(e.standby_pj_per_ns, 16 * 40.0);
  target::DramDesc closed = small_target().dram;
  closed.controller.row_policy = target::RowPolicy::Closed;
  EXPECT_DOUBLE_EQ(dram_event_energy(closed).standby_pj_per_ns, 16 * 30.0);
  // No interface figure: no interface energy. With one: each burst's 64 bytes x 8 bits.
  EXPECT_EQ(e.io_read_pj, 0);
  target::DramDesc io = small_target().dram;
  io.power->io = target::DramIoDesc{2.0, 1.0};
  EXPECT_DOUBLE_EQ(dram_event_energy(io).io_read_pj, 512 * 2.0);
  EXPECT_DOUBLE_EQ(dram_event_energy(io).io_write_pj, 512 * 1.0);
  // Two rails add.
  target::DramDesc two = small_target().dram;
  two.power->rails.push_back({2.0, 5, 2, 3, 3, 3, 13});
  EXPECT_DOUBLE_EQ(dram_event_energy(two).refresh_pj, 8 * 200 * 100.0 + 8 * 2.0 * 10 * 100.0);
}

TEST(EnergyModel, StepEnergyIsCountsTimesEnergiesAndTheTotalIsTheSumOfItsParts) {
  const target::TargetDesc t = small_target();
  timing::Activity a;
  a.macs = 1000;
  a.sram_read_bytes = {160, 80, 0, 0};
  a.sram_write_bytes = {0, 8, 0, 16};
  a.ppu_ops = 50;
  a.dma_bytes = 200;
  dram::DramStats d;
  d.activates = 3;
  d.read_bursts = 10;
  d.write_bursts = 4;
  d.refreshes = 1;
  const double seconds = 1e-6;
  const EnergyBreakdown e = step_energy(t, a, d, seconds);
  EXPECT_DOUBLE_EQ(e.pe_mac_pj, 4000);
  // MACs of 16-bit operands cost the 16-bit MAC's energy.
  timing::Activity half = a;
  half.macs_16bit = 400;
  EXPECT_DOUBLE_EQ(step_energy(t, half, d, seconds).pe_mac_pj, 600 * 4.0 + 400 * 1.5);
  EXPECT_DOUBLE_EQ(e.pe_register_pj, 1000 * kPeRegisterBitsPerMac * 0.01);
  // input: 160 bytes = 10 accesses of 16 bytes at 20 sqrt 2 pJ; weight: 88 bytes = 11 of 8 at
  // 10 sqrt(1/16) = 2.5 pJ; output: 2 accesses at 2.5 pJ.
  EXPECT_DOUBLE_EQ(e.sram_pj[0], 10 * 20 * std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(e.sram_pj[1], 11 * 2.5);
  EXPECT_DOUBLE_EQ(e.sram_pj[2], 0);
  EXPECT_DOUBLE_EQ(e.sram_pj[3], 2 * 2.5);
  EXPECT_DOUBLE_EQ(e.ppu_pj, 100);
  EXPECT_DOUBLE_EQ(e.dma_pj, 100);
  EXPECT_DOUBLE_EQ(e.dram_activate_pj, 3 * 7200.0);
  EXPECT_DOUBLE_EQ(e.dram_read_pj, 10 * 3200.0);
  EXPECT_DOUBLE_EQ(e.dram_write_pj, 4 * 2560.0);
  EXPECT_DOUBLE_EQ(e.dram_refresh_pj, 160000.0);
  EXPECT_DOUBLE_EQ(e.dram_standby_pj, 1000 * 640.0);  // 1 us = 1000 ns
  // 10 mW/mm^2 x area x 1 us.
  EXPECT_DOUBLE_EQ(e.leakage_pj, 10 * area(t).total_mm2() * seconds * 1e9);
  double sum = 0;
  for (const auto& [name, pj] : e.parts())
    sum += pj;
  EXPECT_DOUBLE_EQ(e.total_pj(), sum);
  EXPECT_EQ(e.parts().size(), 16u);
  EXPECT_EQ(e.dram_io_pj, 0) << "no interface figure";

  // The interface: 10 read bursts of 512 bits at 2 pJ, 4 write bursts at 1 pJ, in the DRAM's
  // total and the step's.
  target::TargetDesc with_io = t;
  with_io.dram.power->io = target::DramIoDesc{2.0, 1.0};
  const EnergyBreakdown w = step_energy(with_io, a, d, seconds);
  EXPECT_DOUBLE_EQ(w.dram_io_pj, 10 * 1024.0 + 4 * 512.0);
  EXPECT_DOUBLE_EQ(w.dram_total_pj(), e.dram_total_pj() + w.dram_io_pj);
  EXPECT_DOUBLE_EQ(w.total_pj(), e.total_pj() + w.dram_io_pj);
  EXPECT_EQ(e.host_link_pj, 0) << "no host link";

  // Bytes across a host link: 8 bits each at its energy per bit, in the total.
  target::TargetDesc linked = t;
  linked.host_link = target::HostLinkDesc{};
  linked.host_link->energy_pj_per_bit = 3.9;
  const EnergyBreakdown h = step_energy(linked, a, d, seconds, 1000);
  EXPECT_DOUBLE_EQ(h.host_link_pj, 1000 * 8 * 3.9);
  EXPECT_DOUBLE_EQ(h.total_pj(), e.total_pj() + h.host_link_pj);

  // Without the DRAM's power data its parts are zero and flagged.
  target::TargetDesc unpowered = t;
  unpowered.dram.power.reset();
  const EnergyBreakdown u = step_energy(unpowered, a, d, seconds);
  EXPECT_FALSE(u.dram_modelled);
  EXPECT_EQ(u.dram_read_pj, 0);
  EXPECT_NEAR(u.total_pj(),
              e.total_pj() - e.dram_activate_pj - e.dram_read_pj - e.dram_write_pj -
                  e.dram_refresh_pj - e.dram_standby_pj,
              1e-9 * e.total_pj());
}

TEST(EnergyModel, ActivityOfPeAndPpuTilesByTheDataflowsRules) {
  target::TargetDesc t = small_target();  // 2 x 4 array, 4 lanes
  timing::InstructionPlan plan;
  plan.macs = 4 * 8 * 6;
  timing::Tile pe;
  pe.shape = {4, 8, 6};
  pe.loads = {{0, 300, false}};
  pe.stores = {{4096, 128, true}};
  pe.ppu_cycles = 5;
  pe.footprint = {96, 192, 128, 128};
  timing::Tile ppu;
  ppu.elements = 100;
  ppu.ppu_op = target::PpuOp::Epilogue;
  t.ppu.ops[0].throughput = 0.25;
  ppu.loads = {{0, 400, false}};
  ppu.stores = {{8192, 400, true}};
  plan.tiles = {pe, ppu};
  const timing::Activity a = timing::instruction_activity(plan, t);
  EXPECT_EQ(a.macs, 192u);
  // Weight-stationary: input 4 x 6 x ceil(8 / 4) x 4 B; weights 6 x 8 x 4 B; partial sums
  // 4 x 8 x ceil(6 / 2) x 4 B read and written; loads fill input 96, weight 192, output 12;
  // the stored block is staged in the output buffer (4 x 8 x 4 B) and read out.
  EXPECT_EQ(a.sram_read_bytes[0], 192u);
  EXPECT_EQ(a.sram_read_bytes[1], 192u);
  EXPECT_EQ(a.sram_read_bytes[2], 384u);
  EXPECT_EQ(a.sram_write_bytes[2], 384u);
  EXPECT_EQ(a.sram_write_bytes[0], 96u);
  EXPECT_EQ(a.sram_write_bytes[1], 192u);
  // Output: 12 + 128 from the PE tile, 800 from the PPU tile; reads 128 + 800.
  EXPECT_EQ(a.sram_write_bytes[3], 12u + 128u + 800u);
  EXPECT_EQ(a.sram_read_bytes[3], 128u + 800u);
  // The epilogue's 5 cycles on 4 lanes, then 100 elements at a quarter per lane operation.
  EXPECT_EQ(a.ppu_ops, 20u + 400u);
  EXPECT_EQ(a.dma_bytes, 300u + 128u + 800u);

  // Output-stationary: weights stream once per row pass of M; the PEs accumulate.
  t.pe_array.dataflow = target::Dataflow::OutputStationary;
  const timing::Activity os = timing::instruction_activity(plan, t);
  EXPECT_EQ(os.sram_read_bytes[1], 6u * 8 * 2 * 4);
  EXPECT_EQ(os.sram_read_bytes[2], 0u);
  EXPECT_EQ(os.sram_write_bytes[2], 4u * 8 * 4);
}

TEST(EnergyModel, ShippedTechnologyLoadsWithTheShippedConfigurations) {
  for (const char* name : {"s2train_base", "s2train_small", "s2train_large"}) {
    const target::TargetDesc t =
        target::load_target(std::string(S2_SOURCE_DIR) + "/configs/" + name + ".yaml");
    ASSERT_TRUE(t.tech.has_value()) << name;
    EXPECT_EQ(t.tech->name, "cmos45");
    EXPECT_DOUBLE_EQ(t.tech->mac_energy_pj, 3.7 + 0.9);
    EXPECT_DOUBLE_EQ(t.tech->mac_16bit_energy_pj, 1.1 + 0.9);
    EXPECT_DOUBLE_EQ(t.tech->add_area_um2, 4184);
    EXPECT_GT(area(t).total_mm2(), 0);
    // Every shipped DRAM preset states its interface's energy.
    ASSERT_TRUE(t.dram.power && t.dram.power->io) << name;
    EXPECT_GT(t.dram.power->io->read_pj_per_bit, 0) << name;
  }
}

}  // namespace
}  // namespace s2::sim::energy
