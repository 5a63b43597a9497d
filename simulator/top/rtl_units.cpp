#include "simulator/top/rtl_units.h"

#include <cmath>
#include <cstdio>

#include "isa/common/errors.h"

namespace s2::sim::top {
namespace {

// The accelerator clock period in picoseconds. The RTL runs on the units' clock edges, so the
// period must be a whole, even number of picoseconds (the RTL clocks are high for half of it).
uint64_t period_ps(const target::TargetDesc& t) {
  const double exact = 1e6 / t.clock_mhz;
  const auto ps = static_cast<uint64_t>(std::llround(exact));
  if (std::fabs(exact - static_cast<double>(ps)) > 1e-6 || ps < 2 || ps % 2 != 0) {
    char got[64];
    std::snprintf(got, sizeof got, "%.6g ps", exact);
    throw UserError(t.source_file +
                    ": clock_mhz: --rtl clocks the RTL units on the accelerator "
                    "clock, whose period must be an even whole number of picoseconds; " +
                    std::to_string(t.clock_mhz) + " MHz gives " + got);
  }
  return ps;
}

}  // namespace

RtlSelection parse_rtl_units(const std::string& list) {
  RtlSelection s;
  if (list.empty()) return s;
  size_t start = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    if (i < list.size() && list[i] != ',') continue;
    const std::string unit = list.substr(start, i - start);
    start = i + 1;
    if (unit == "pe_array")
      s.pe_array = true;
    else if (unit == "ppu")
      s.ppu = true;
    else
      throw UserError("--rtl: unknown unit '" + unit +
                      "'; the RTL units are pe_array and ppu (e.g. --rtl pe_array,ppu)");
  }
  return s;
}

RtlUnits rtl_units(const RtlSelection& selection, const target::TargetDesc& target) {
  static RtlUnits units;
  static bool created = false;
  static RtlSelection made;
  static uint32_t rows = 0, cols = 0;
  if (created) {
    if (made.pe_array != selection.pe_array || made.ppu != selection.ppu ||
        (selection.pe_array && (rows != target.pe_array.rows || cols != target.pe_array.cols)) ||
        units.period_ps != period_ps(target))
      throw UserError(
          "--rtl: the RTL units of this process are already elaborated with "
          "another selection, array size or clock");
    return units;
  }
  if (selection.ppu && target.ppu.lanes != s2::rtl::RtlPpuSc::kLanes)
    throw UserError(target.source_file + ": ppu.lanes: the PPU RTL's SystemC build has " +
                    std::to_string(s2::rtl::RtlPpuSc::kLanes) + " lanes, the configuration " +
                    std::to_string(target.ppu.lanes) + "; --rtl ppu needs them equal");
  const uint64_t period = period_ps(target);
  if (selection.pe_array)
    units.pe_array = new s2::rtl::RtlPeArraySc("rtl_pe_array", target.pe_array.rows,
                                               target.pe_array.cols, period);
  if (selection.ppu) {
    units.ppu = new s2::rtl::RtlPpuSc("rtl_ppu", period);
    units.epilogue_ppu = new s2::rtl::RtlPpuSc("rtl_epilogue_ppu", period);
  }
  units.period_ps = period;
  created = true;
  made = selection;
  rows = target.pe_array.rows;
  cols = target.pe_array.cols;
  return units;
}

void open_rtl_vcd(const RtlUnits& units, const std::string& prefix) {
  std::string base = prefix;
  if (base.size() > 4 && base.compare(base.size() - 4, 4, ".vcd") == 0)
    base.resize(base.size() - 4);
  if (units.pe_array != nullptr) units.pe_array->open_vcd(base + ".pe_array.vcd");
  if (units.ppu != nullptr) units.ppu->open_vcd(base + ".ppu.vcd");
}

}  // namespace s2::sim::top
