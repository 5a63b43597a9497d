#pragma once
// Energy and area of a training step, from the simulation's counters and the target's
// technology (docs/energy.md gives every formula and every number's source).
//
// Area: the PE array (rows x cols x (a MAC + the PE's registers)), each SRAM buffer (its
// banks' cell arrays and periphery, by their shape), the PPU lanes and the DMA engines.
// Energy: MACs and the PE registers they switch; each buffer's accesses (bytes / bank width)
// at the energy of one access to one of its banks; PPU lane operations; DMA bytes; the DRAM's
// activate-precharge pairs, read and write bursts, refreshes and standby from the device's
// datasheet currents (Micron TN-40-07, as DRAMPower computes them) and its interface's energy
// per bit transferred; the host link's bits at
// its PHYs' energy per bit; leakage of the whole area
// over the step's time. Nothing is a fixed guess: every term is a count times an energy.

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "isa/target/target_desc.h"
#include "simulator/dram/dram_model.h"
#include "simulator/timing/activity.h"

namespace s2::sim::energy {

// The registers of one PE (rtl_models/pe_array/pe_array_pe.sv): the stationary weight, the
// input passed right and the partial sum passed down (32 bits each) and their two valid bits;
// a MAC writes the input and partial-sum registers and their valid bits.
inline constexpr uint32_t kPeRegisterBits = 98;
inline constexpr uint32_t kPeRegisterBitsPerMac = 66;

// The register bits of a PE with `slots` MAC slots (the most MACs per PE per cycle that
// pe_array.datatypes lists), as pe_array_pe.sv has them: per slot a stationary weight and a
// partial sum (32 bits each), the input word (32 bits, or 16 per slot when that is wider) and
// the two valid bits. kPeRegisterBits for one slot.
inline constexpr uint32_t pe_register_bits(uint32_t slots) {
  return 64 * slots + (16 * slots > 32 ? 16 * slots : 32) + 2;
}
static_assert(pe_register_bits(1) == kPeRegisterBits);

// The area of one PE, um^2: the f32 MAC, a chain adder for each further slot (the 16-bit modes'
// products come from the f32 multiplier, split), and pe_register_bits(slots).
double pe_area_um2(const target::TechDesc& tech, uint32_t slots);

// How a buffer's bank is laid out for its area: `words_per_row` words of bank_width bytes side
// by side in each row (a column multiplexer of that degree), so the array is near square;
// rows x columns cells, tiled from mats_down x mats_across mats of at most the technology's
// sram_mat_rows x sram_mat_columns (each mat its own row and column circuits).
struct SramLayout {
  uint64_t words_per_row = 0;  // a power of two, 1..16
  uint64_t rows = 0;           // ceil(bank depth / words_per_row)
  uint64_t columns = 0;        // bank_width x 8 x words_per_row
  uint64_t mats_down = 0;      // ceil(rows / sram_mat_rows)
  uint64_t mats_across = 0;    // ceil(columns / sram_mat_columns)
  uint64_t mat_rows = 0;       // ceil(rows / mats_down)
  uint64_t mat_columns = 0;    // ceil(columns / mats_across)
};
SramLayout sram_layout(const target::TechDesc& tech, const target::SramBufferDesc& buffer);

// The area of a whole buffer, um^2: per bank, per mat (cells + a row circuit per row + a
// column circuit per column) plus the bank's own overhead.
double sram_area_um2(const target::TechDesc& tech, const target::SramBufferDesc& buffer);

struct AreaBreakdown {
  double pe_array_mm2 = 0;
  std::array<double, 4> sram_mm2{};  // input, weight, accumulator, output
  double ppu_mm2 = 0;
  double dma_mm2 = 0;
  double sram_total_mm2() const;  // the four buffers
  double total_mm2() const;
};

// Needs target.tech.
AreaBreakdown area(const target::TargetDesc& target);

// One access of bank_width bytes to one bank of `buffer`, pJ.
double sram_access_energy_pj(const target::TechDesc& tech, const target::SramBufferDesc& buffer);

// The DRAM's energy per event, pJ, summed over the devices of a rank and the rails; standby per
// nanosecond for the whole memory (every device of every rank and channel).
struct DramEventEnergy {
  double activate_pj = 0;  // one activate and its precharge
  double read_pj = 0;      // one read burst
  double write_pj = 0;     // one write burst
  double refresh_pj = 0;   // one all-bank refresh of one rank
  double standby_pj_per_ns = 0;
  // The interface (power.io): one read or write burst's bits across the DQ pins.
  double io_read_pj = 0;
  double io_write_pj = 0;
};
DramEventEnergy dram_event_energy(const target::DramDesc& dram);

struct EnergyBreakdown {
  double pe_mac_pj = 0;
  double pe_register_pj = 0;
  std::array<double, 4> sram_pj{};
  double ppu_pj = 0;
  double dma_pj = 0;
  double dram_activate_pj = 0;
  double dram_read_pj = 0;
  double dram_write_pj = 0;
  double dram_refresh_pj = 0;
  double dram_standby_pj = 0;
  double dram_io_pj = 0;    // the bursts' bits across the interface (power.io)
  double host_link_pj = 0;  // bytes across the host link (swapping), both directions
  double leakage_pj = 0;
  bool dram_modelled = false;  // the target's DRAM has power data

  double sram_total_pj() const;  // the four buffers
  double dram_total_pj() const;  // activate, read, write, refresh, standby, io
  double total_pj() const;
  // Every part by name ("pe.mac", "sram.input", ..., "leakage"), in a fixed order; they sum
  // to total_pj().
  std::vector<std::pair<std::string, double>> parts() const;
};

// Needs target.tech. `seconds`: the step's simulated time (leakage and DRAM standby);
// `host_link_bytes`: the bytes that crossed target.host_link, both directions.
EnergyBreakdown step_energy(const target::TargetDesc& target, const timing::Activity& activity,
                            const dram::DramStats& dram, double seconds,
                            uint64_t host_link_bytes = 0);

}  // namespace s2::sim::energy
