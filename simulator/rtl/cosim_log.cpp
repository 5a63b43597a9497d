#include "simulator/rtl/cosim_log.h"

namespace s2::sim::rtl {
namespace {

void print_unit(std::ostream& out, const char* name, const UnitCosim& u) {
  if (u.passes == 0) return;
  out << "  " << name << ": " << u.passes << " passes, " << u.rtl_cycles << " RTL cycles ("
      << "model " << u.model_cycles << "), " << u.elements << " output elements compared, "
      << (u.divergences == 0 ? std::string("cycles and bits identical")
                             : std::to_string(u.divergences) + " passes diverge")
      << "\n";
  if (!u.first.empty()) out << "    first divergence: " << u.first << "\n";
}

}  // namespace

void CosimLog::print(std::ostream& out) const {
  out << "RTL co-simulation\n";
  print_unit(out, "pe_array", pe_array);
  print_unit(out, "ppu", ppu);
}

}  // namespace s2::sim::rtl
