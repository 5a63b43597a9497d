#pragma once
// `s2sim run --rtl pe_array,ppu`: the SystemC Verilator builds of the RTL units
// (rtl_models/pe_array/pe_array_sc.h, rtl_models/ppu/ppu_sc.h), clocked at the target's
// accelerator clock. They are sc_modules, so they exist before the first sc_start() of the
// process (SystemC cannot add modules later): the Top owns them (top.h), created with it. They
// run twice per step:
//  * in the timing simulation, the PE-array and PPU units run their tiles on them from their
//    own threads (rtl_tile_clock.h): the RTL's clock is the units' clock;
//  * after it, with `--vcd`, the functional replay streams every pass's data through them
//    (between sc_start() calls; simulator/rtl/rtl_pe_gemm.h, rtl_ppu_lanes.h). Without
//    `--vcd` the replay, which needs no simulated time, runs on the plain C++ builds of the
//    same RTL instead (run_program.cpp), which clock faster.
// The timing model lets the PE array's epilogue overlap PPU instructions (the epilogue stage
// streams from the accumulator while the PPU runs other work), so `ppu` is built twice: one
// instance for the PPU unit, one behind the PE array for the epilogues.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "isa/target/target_desc.h"
#include "rtl_models/pe_array/pe_array_sc.h"
#include "rtl_models/ppu/ppu_sc.h"
#include "simulator/top/rtl_selection.h"

namespace s2::sim::top {

// Non-owning view of the selected units.
struct RtlUnits {
  s2::rtl::RtlPeArraySc* pe_array = nullptr;  // null unless selected
  s2::rtl::RtlPpuSc* ppu = nullptr;           // the PPU unit's; null unless selected
  s2::rtl::RtlPpuSc* epilogue_ppu = nullptr;  // the PE array's epilogue stage; with ppu
  uint64_t period_ps = 0;                     // their clock period
  bool any() const { return pe_array != nullptr || ppu != nullptr; }
};

// The selected RTL units for a target, owned. A size the RTL is not built for is the
// harness's UserError, and so is a clock period that is not an even whole number of
// picoseconds.
class RtlUnitSet {
 public:
  RtlUnitSet(const RtlSelection& selection, const target::TargetDesc& target);
  RtlUnitSet(const RtlUnitSet&) = delete;
  RtlUnitSet& operator=(const RtlUnitSet&) = delete;

  RtlUnits units() const;
  const RtlSelection& selection() const { return selection_; }
  // Whether these units serve `selection` on `target` (the same units, array size and clock).
  bool serves(const RtlSelection& selection, const target::TargetDesc& target) const;
  // Starts VCD dumps of the selected units: vcd_paths(prefix, selection).
  void open_vcd(const std::string& prefix) const;

 private:
  RtlSelection selection_;
  uint32_t rows_ = 0, cols_ = 0;
  uint64_t period_ps_ = 0;
  std::unique_ptr<s2::rtl::RtlPeArraySc> pe_array_;
  std::unique_ptr<s2::rtl::RtlPpuSc> ppu_;
  std::unique_ptr<s2::rtl::RtlPpuSc> epilogue_ppu_;
};

}  // namespace s2::sim::top
