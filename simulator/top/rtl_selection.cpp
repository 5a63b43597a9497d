#include "simulator/top/rtl_selection.h"

#include "isa/common/errors.h"

namespace s2::sim::top {

const RtlUnitRegistry& rtl_unit_registry() {
  static const RtlUnitRegistry registry = [] {
    RtlUnitRegistry r("RTL unit");
    r.add("pe_array", &RtlSelection::pe_array);
    r.add("ppu", &RtlSelection::ppu);
    return r;
  }();
  return registry;
}

RtlSelection parse_rtl_units(const std::string& list) {
  RtlSelection s;
  if (list.empty()) return s;
  size_t start = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    if (i < list.size() && list[i] != ',') continue;
    const std::string unit = list.substr(start, i - start);
    start = i + 1;
    const auto* member = rtl_unit_registry().find(unit);
    if (member == nullptr)
      throw UserError("--rtl: " + rtl_unit_registry().unknown_message(unit) +
                      " (e.g. --rtl pe_array,ppu)");
    s.*(*member) = true;
  }
  return s;
}

std::vector<std::string> vcd_paths(const std::string& prefix, const RtlSelection& selection) {
  std::string base = prefix;
  if (base.size() > 4 && base.compare(base.size() - 4, 4, ".vcd") == 0)
    base.resize(base.size() - 4);
  std::vector<std::string> paths;
  if (selection.pe_array) paths.push_back(base + ".pe_array.vcd");
  if (selection.ppu) paths.push_back(base + ".ppu.vcd");
  return paths;
}

}  // namespace s2::sim::top
