#pragma once
// `s2sim run --rtl pe_array,ppu`: the SystemC Verilator builds of the RTL units
// (rtl_models/pe_array/pe_array_sc.h, rtl_models/ppu/ppu_sc.h), clocked at the target's
// accelerator clock. They are sc_modules, so they are created once per process before the first
// sc_start() (SystemC cannot add modules later) and live as long as the process; their passes
// run after the timing simulation, between sc_start() calls, when the functional model replays
// the step through them (simulator/rtl/rtl_pe_gemm.h, rtl_ppu_lanes.h).
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
  s2::rtl::RtlPpuSc* ppu = nullptr;
};

// The selected units for this target, created on first use (call before the first
// simulation of the process). A size the RTL is not built for is the harness's UserError; a
// second call with another selection or array size is a UserError too (the modules exist).
RtlUnits rtl_units(const RtlSelection& selection, const target::TargetDesc& target);

// Starts VCD dumps of the selected units: `prefix`.pe_array.vcd and `prefix`.ppu.vcd (a
// trailing ".vcd" on prefix is dropped).
void open_rtl_vcd(const RtlUnits& units, const std::string& prefix);

}  // namespace s2::sim::top
