#pragma once
// Which RTL units `s2sim run --rtl` swaps in for the models (rtl_units.h builds them). Plain
// C++: the run options carry it without SystemC.
#include <string>
#include <vector>

#include "isa/common/registry.h"

namespace s2::sim::top {

struct RtlSelection {
  bool pe_array = false;
  bool ppu = false;
  bool any() const { return pe_array || ppu; }
  bool operator==(const RtlSelection& o) const { return pe_array == o.pe_array && ppu == o.ppu; }
};

// The units that have RTL, by the name --rtl takes (each selects itself in a RtlSelection).
using RtlUnitRegistry = Registry<bool RtlSelection::*>;
const RtlUnitRegistry& rtl_unit_registry();

// "pe_array", "ppu" or both, comma-separated (empty: none); an unknown name is a UserError
// "--rtl: unknown RTL unit 'x'; known: pe_array, ppu".
RtlSelection parse_rtl_units(const std::string& list);

// The waveform files --vcd PREFIX writes for the selected units: PREFIX.pe_array.vcd and
// PREFIX.ppu.vcd (a trailing ".vcd" on PREFIX is dropped).
std::vector<std::string> vcd_paths(const std::string& prefix, const RtlSelection& selection);

}  // namespace s2::sim::top
