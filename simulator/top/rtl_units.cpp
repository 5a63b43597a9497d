#include "simulator/top/rtl_units.h"

#include <fmt/format.h>

#include <cmath>

#include "isa/common/errors.h"

namespace s2::sim::top {
namespace {

// The accelerator clock period in picoseconds. The RTL runs on the units' clock edges, so the
// period must be a whole, even number of picoseconds (the RTL clocks are high for half of it).
uint64_t period_ps(const target::TargetDesc& t) {
  const double exact = 1e6 / t.clock_mhz;
  const auto ps = static_cast<uint64_t>(std::llround(exact));
  if (std::fabs(exact - static_cast<double>(ps)) > 1e-6 || ps < 2 || ps % 2 != 0) {
    const std::string got = fmt::format("{:.6g} ps", exact);
    t.fail("clock_mhz",
           "--rtl clocks the RTL units on the accelerator clock, whose period must be an even "
           "whole number of picoseconds; " +
               std::to_string(t.clock_mhz) + " MHz gives " + got);
  }
  return ps;
}

}  // namespace

RtlUnitSet::RtlUnitSet(const RtlSelection& selection, const target::TargetDesc& target)
    : selection_(selection),
      rows_(target.pe_array.rows),
      cols_(target.pe_array.cols),
      period_ps_(selection.any() ? period_ps(target) : 0) {
  if (selection.ppu && target.ppu.lanes != s2::rtl::RtlPpuSc::kLanes)
    target.fail("ppu.lanes", "the PPU RTL's SystemC build has " +
                                 std::to_string(s2::rtl::RtlPpuSc::kLanes) +
                                 " lanes, the configuration " + std::to_string(target.ppu.lanes) +
                                 "; --rtl ppu needs them equal");
  if (selection.pe_array)
    pe_array_ = std::make_unique<s2::rtl::RtlPeArraySc>("rtl_pe_array", rows_, cols_, period_ps_);
  if (selection.ppu) {
    ppu_ = std::make_unique<s2::rtl::RtlPpuSc>("rtl_ppu", period_ps_);
    epilogue_ppu_ = std::make_unique<s2::rtl::RtlPpuSc>("rtl_epilogue_ppu", period_ps_);
  }
}

RtlUnits RtlUnitSet::units() const {
  return {pe_array_.get(), ppu_.get(), epilogue_ppu_.get(), period_ps_};
}

bool RtlUnitSet::serves(const RtlSelection& selection, const target::TargetDesc& target) const {
  if (!(selection == selection_)) return false;
  if (!selection.any()) return true;
  if (selection.pe_array && (rows_ != target.pe_array.rows || cols_ != target.pe_array.cols))
    return false;
  return period_ps_ == period_ps(target);
}

void RtlUnitSet::open_vcd(const std::string& prefix) const {
  const std::vector<std::string> paths = vcd_paths(prefix, {pe_array_ != nullptr, ppu_ != nullptr});
  size_t at = 0;
  if (pe_array_) pe_array_->open_vcd(paths.at(at++));
  if (ppu_) ppu_->open_vcd(paths.at(at++));
}

}  // namespace s2::sim::top
