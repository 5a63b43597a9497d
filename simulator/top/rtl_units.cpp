#include "simulator/top/rtl_units.h"

#include <cmath>

#include "isa/common/errors.h"

namespace s2::sim::top {
namespace {

// The accelerator clock period in whole picoseconds, rounded to even (the RTL clocks are high
// for half a period).
uint64_t period_ps(const target::TargetDesc& t) {
  const auto ps = static_cast<uint64_t>(std::llround(1e6 / t.clock_mhz));
  return std::max<uint64_t>(2, ps + (ps % 2));
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
    if (unit == "pe_array") s.pe_array = true;
    else if (unit == "ppu") s.ppu = true;
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
        (selection.pe_array && (rows != target.pe_array.rows || cols != target.pe_array.cols)))
      throw UserError("--rtl: the RTL units of this process are already elaborated with "
                      "another selection or array size");
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
  if (selection.ppu) units.ppu = new s2::rtl::RtlPpuSc("rtl_ppu", period);
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
