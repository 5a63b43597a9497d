#include "simulator/energy/energy_model.h"

#include <algorithm>
#include <cmath>

#include "isa/common/errors.h"

namespace s2::sim::energy {
namespace {

constexpr double kUm2PerMm2 = 1e6;

const target::TechDesc& tech_of(const target::TargetDesc& t) {
  S2_CHECK(t.tech.has_value(), "energy model: target '" + t.name + "' has no technology");
  return *t.tech;
}

const target::SramBufferDesc& buffer(const target::TargetDesc& t, size_t b) {
  const target::SramBufferDesc* buffers[] = {&t.sram.input, &t.sram.weight, &t.sram.accumulator,
                                             &t.sram.output};
  return *buffers[b];
}

}  // namespace

double AreaBreakdown::sram_total_mm2() const {
  return sram_mm2[0] + sram_mm2[1] + sram_mm2[2] + sram_mm2[3];
}

double AreaBreakdown::total_mm2() const {
  return pe_array_mm2 + sram_total_mm2() + ppu_mm2 + dma_mm2;
}

double pe_area_um2(const target::TechDesc& tech, uint32_t slots) {
  return tech.mac_area_um2 + (slots - 1) * tech.add_area_um2 +
         pe_register_bits(slots) * tech.register_bit_area_um2;
}

AreaBreakdown area(const target::TargetDesc& t) {
  const target::TechDesc& tech = tech_of(t);
  AreaBreakdown a;
  uint32_t slots = 1;
  for (const auto& [dtype, macs] : t.pe_array.datatypes)
    slots = std::max(slots, macs);
  a.pe_array_mm2 = static_cast<double>(t.pe_array.macs()) * pe_area_um2(tech, slots) / kUm2PerMm2;
  for (size_t b = 0; b < 4; ++b)
    a.sram_mm2[b] = sram_area_um2(tech, buffer(t, b)) / kUm2PerMm2;
  a.ppu_mm2 = t.ppu.lanes * tech.ppu_lane_area_um2 / kUm2PerMm2;
  // Each engine: its address generation and descriptor (the technology's figure) and a
  // staging register of dma.width bytes.
  a.dma_mm2 = t.dma.engines *
              (tech.dma_engine_area_um2 + t.dma.width_bytes * 8.0 * tech.register_bit_area_um2) /
              kUm2PerMm2;
  return a;
}

SramLayout sram_layout(const target::TechDesc& tech, const target::SramBufferDesc& b) {
  const auto ceil_div = [](uint64_t n, uint64_t d) { return (n + d - 1) / d; };
  const uint64_t depth = std::max<uint64_t>(b.bank_depth(), 1);
  const uint64_t word_bits = uint64_t{b.bank_width_bytes} * 8;
  // The power of two nearest (on a log scale) to the words per row of a square array,
  // sqrt(depth x word bits) / word bits, within 1..16 and the depth.
  const double square = std::sqrt(static_cast<double>(depth) * static_cast<double>(word_bits)) /
                        static_cast<double>(word_bits);
  const long log2_m = std::clamp<long>(std::lround(std::log2(std::max(square, 1.0))), 0, 4);
  SramLayout l;
  l.words_per_row = uint64_t{1} << log2_m;
  while (l.words_per_row > 1 && l.words_per_row > depth)
    l.words_per_row /= 2;
  l.rows = ceil_div(depth, l.words_per_row);
  l.columns = word_bits * l.words_per_row;
  l.mats_down = ceil_div(l.rows, tech.sram_mat_rows);
  l.mats_across = ceil_div(l.columns, tech.sram_mat_columns);
  l.mat_rows = ceil_div(l.rows, l.mats_down);
  l.mat_columns = ceil_div(l.columns, l.mats_across);
  return l;
}

double sram_area_um2(const target::TechDesc& tech, const target::SramBufferDesc& b) {
  const SramLayout l = sram_layout(tech, b);
  const double r = static_cast<double>(l.mat_rows), c = static_cast<double>(l.mat_columns);
  const double mat =
      tech.sram_cell_area_um2 * r * c + tech.sram_row_area_um2 * r + tech.sram_column_area_um2 * c;
  const double bank =
      static_cast<double>(l.mats_down * l.mats_across) * mat + tech.sram_bank_area_um2;
  return b.banks * bank;
}

double sram_access_energy_pj(const target::TechDesc& tech, const target::SramBufferDesc& b) {
  const double bank_bytes = static_cast<double>(b.size_bytes) / b.banks;
  return tech.sram_access_energy_pj * b.bank_width_bytes / tech.sram_reference_width_bytes *
         std::sqrt(bank_bytes / static_cast<double>(tech.sram_reference_bytes));
}

DramEventEnergy dram_event_energy(const target::DramDesc& d) {
  DramEventEnergy e;
  if (!d.power) return e;
  const double tck_ns = d.tck_ns();
  const double devices = static_cast<double>(d.bus_width_bits) / d.power->device_width_bits;
  const double burst_ns = static_cast<double>(d.burst_length) / d.data_rate * tck_ns;
  const double trc = d.timing.tRC * tck_ns, tras = d.timing.tRAS * tck_ns;
  const double trfc = d.timing.tRFC * tck_ns;
  const bool open = d.controller.row_policy == target::RowPolicy::Open;
  for (const target::DramRail& r : d.power->rails) {
    // mA x V x ns = pJ.
    e.activate_pj += devices * r.vdd * (r.idd0 * trc - (r.idd3n * tras + r.idd2n * (trc - tras)));
    e.read_pj += devices * r.vdd * (r.idd4r - r.idd3n) * burst_ns;
    e.write_pj += devices * r.vdd * (r.idd4w - r.idd3n) * burst_ns;
    e.refresh_pj += devices * r.vdd * (r.idd5b - r.idd3n) * trfc;
    // An open-page controller leaves a row open: active standby; a closed-page one precharges.
    e.standby_pj_per_ns += devices * d.ranks * d.channels * r.vdd * (open ? r.idd3n : r.idd2n);
  }
  if (d.power->io) {
    const double burst_bits = static_cast<double>(d.burst_bytes()) * 8.0;
    e.io_read_pj = burst_bits * d.power->io->read_pj_per_bit;
    e.io_write_pj = burst_bits * d.power->io->write_pj_per_bit;
  }
  return e;
}

double EnergyBreakdown::sram_total_pj() const {
  return sram_pj[0] + sram_pj[1] + sram_pj[2] + sram_pj[3];
}

double EnergyBreakdown::dram_total_pj() const {
  return dram_activate_pj + dram_read_pj + dram_write_pj + dram_refresh_pj + dram_standby_pj +
         dram_io_pj;
}

double EnergyBreakdown::total_pj() const {
  double total = 0;
  for (const auto& [name, pj] : parts())
    total += pj;
  return total;
}

std::vector<std::pair<std::string, double>> EnergyBreakdown::parts() const {
  return {{"pe.mac", pe_mac_pj},
          {"pe.registers", pe_register_pj},
          {"sram.input", sram_pj[0]},
          {"sram.weight", sram_pj[1]},
          {"sram.accumulator", sram_pj[2]},
          {"sram.output", sram_pj[3]},
          {"ppu", ppu_pj},
          {"dma", dma_pj},
          {"dram.activate", dram_activate_pj},
          {"dram.read", dram_read_pj},
          {"dram.write", dram_write_pj},
          {"dram.refresh", dram_refresh_pj},
          {"dram.standby", dram_standby_pj},
          {"dram.io", dram_io_pj},
          {"host_link", host_link_pj},
          {"leakage", leakage_pj}};
}

EnergyBreakdown step_energy(const target::TargetDesc& t, const timing::Activity& a,
                            const dram::DramStats& dram, double seconds, uint64_t host_link_bytes) {
  const target::TechDesc& tech = tech_of(t);
  EnergyBreakdown e;
  const double macs = static_cast<double>(a.macs);
  e.pe_mac_pj = static_cast<double>(a.macs - a.macs_16bit) * tech.mac_energy_pj +
                static_cast<double>(a.macs_16bit) * tech.mac_16bit_energy_pj;
  e.pe_register_pj = macs * kPeRegisterBitsPerMac * tech.register_bit_energy_pj;
  for (size_t b = 0; b < 4; ++b) {
    const target::SramBufferDesc& buf = buffer(t, b);
    const double accesses =
        static_cast<double>(a.sram_read_bytes[b] + a.sram_write_bytes[b]) / buf.bank_width_bytes;
    e.sram_pj[b] = accesses * sram_access_energy_pj(tech, buf);
  }
  e.ppu_pj = static_cast<double>(a.ppu_ops) * tech.ppu_op_energy_pj;
  e.dma_pj = static_cast<double>(a.dma_bytes) * tech.dma_byte_energy_pj;
  if (t.dram.power) {
    e.dram_modelled = true;
    const DramEventEnergy d = dram_event_energy(t.dram);
    e.dram_activate_pj = static_cast<double>(dram.activates) * d.activate_pj;
    e.dram_read_pj = static_cast<double>(dram.read_bursts) * d.read_pj;
    e.dram_write_pj = static_cast<double>(dram.write_bursts) * d.write_pj;
    e.dram_refresh_pj = static_cast<double>(dram.refreshes) * d.refresh_pj;
    e.dram_standby_pj = seconds * 1e9 * d.standby_pj_per_ns;
    e.dram_io_pj = static_cast<double>(dram.read_bursts) * d.io_read_pj +
                   static_cast<double>(dram.write_bursts) * d.io_write_pj;
  }
  if (t.host_link)
    e.host_link_pj = static_cast<double>(host_link_bytes) * 8.0 * t.host_link->energy_pj_per_bit;
  // mW/mm^2 x mm^2 x s = mJ = 1e9 pJ.
  e.leakage_pj = tech.leakage_mw_per_mm2 * area(t).total_mm2() * seconds * 1e9;
  return e;
}

}  // namespace s2::sim::energy
