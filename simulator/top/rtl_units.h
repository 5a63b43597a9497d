#pragma once
// `s2sim run --rtl pe_array,ppu`: the SystemC Verilator builds of the RTL units
// (rtl_models/pe_array/pe_array_sc.h, rtl_models/ppu/ppu_sc.h), clocked at the target's
// accelerator clock. They are sc_modules, so they are created once per process before the first
// sc_start() (SystemC cannot add modules later) and live as long as the process. They run twice
// per step:
//  * in the timing simulation, the PE-array and PPU units run their tiles on them from their
//    own threads (rtl_tile_clock.h): the RTL's clock is the units' clock;
//  * after it, the functional replay streams every pass's data through them (between
//    sc_start() calls; simulator/rtl/rtl_pe_gemm.h, rtl_ppu_lanes.h).
// The timing model lets the PE array's epilogue overlap PPU instructions (the epilogue stage
// streams from the accumulator while the PPU runs other work), so `ppu` is built twice: one
// instance for the PPU unit, one behind the PE array for the epilogues.
#include <string>

#include "isa/target/target_desc.h"
#include "rtl_models/pe_array/pe_array_sc.h"
#include "rtl_models/ppu/ppu_sc.h"

namespace s2::sim::top {

struct RtlSelection {
  bool pe_array = false;
  bool ppu = false;
  bool any() const { return pe_array || ppu; }
};

// "pe_array", "ppu" or both, comma-separated (empty: none); anything else is a UserError
// listing the units.
RtlSelection parse_rtl_units(const std::string& list);

struct RtlUnits {
  s2::rtl::RtlPeArraySc* pe_array = nullptr;  // null unless selected
  s2::rtl::RtlPpuSc* ppu = nullptr;           // the PPU unit's; null unless selected
  s2::rtl::RtlPpuSc* epilogue_ppu = nullptr;  // the PE array's epilogue stage; with ppu
  uint64_t period_ps = 0;                     // their clock period
  bool any() const { return pe_array != nullptr || ppu != nullptr; }
};

// The selected units for this target, created on first use (call before the first
// simulation of the process). A size the RTL is not built for is the harness's UserError, and
// so is a clock period that is not an even whole number of picoseconds; a second call with
// another selection or array size is a UserError too (the modules exist).
RtlUnits rtl_units(const RtlSelection& selection, const target::TargetDesc& target);

// Starts VCD dumps of the selected units: `prefix`.pe_array.vcd and `prefix`.ppu.vcd (a
// trailing ".vcd" on prefix is dropped).
void open_rtl_vcd(const RtlUnits& units, const std::string& prefix);

}  // namespace s2::sim::top
