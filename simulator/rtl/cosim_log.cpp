#include "simulator/rtl/cosim_log.h"

namespace s2::sim::rtl {
namespace {

std::string verdict(uint64_t divergences, const char* what) {
  return divergences == 0 ? std::string(what) + " identical"
                          : std::to_string(divergences) + " diverge";
}

void print_timing(std::ostream& out, const char* name, const TimingCosim& u) {
  if (u.tiles + u.model_timed_tiles == 0) return;
  out << "    " << name << ": " << u.tiles << " tiles, " << u.passes << " passes, " << u.rtl_cycles
      << " RTL cycles (model " << u.model_cycles << "), " << verdict(u.divergences, "cycles")
      << "\n";
  if (u.reused_tiles > 0)
    out << "      " << u.reused_tiles << " of the tiles repeat an earlier tile's shape and stages "
        << "and took its RTL cycles (--rtl-clock-every-tile clocks them)\n";
  if (u.model_timed_tiles > 0) {
    out << "      " << u.model_timed_tiles << " tiles (" << u.model_timed_cycles
        << " cycles) timed by the model: the RTL has no ";
    const char* sep = "";
    for (const std::string& op : u.model_timed_ops) {
      out << sep << op;
      sep = ", ";
    }
    out << "\n";
  }
  if (!u.first.empty()) out << "      first divergence: " << u.first << "\n";
}

void print_unit(std::ostream& out, const char* name, const UnitCosim& u) {
  if (u.passes + u.model_passes == 0) return;
  out << "    " << name << ": " << u.passes << " passes, " << u.rtl_cycles << " RTL cycles ("
      << "model " << u.model_cycles << "), " << u.elements << " output elements compared, "
      << verdict(u.divergences, "cycles and bits") << "\n";
  if (u.model_passes > 0) {
    out << "      " << u.model_passes << " passes computed by the model: the RTL has no ";
    const char* sep = "";
    for (const std::string& op : u.model_ops) {
      out << sep << op;
      sep = ", ";
    }
    out << "\n";
  }
  if (!u.first.empty()) out << "      first divergence: " << u.first << "\n";
}

}  // namespace

void CosimLog::print(std::ostream& out) const {
  out << "RTL co-simulation\n";
  if (timing_pe_array.tiles + timing_epilogue.tiles + timing_ppu.tiles +
          timing_ppu.model_timed_tiles + timing_epilogue.model_timed_tiles >
      0) {
    out << "  timing (the RTL clocks the units, tile by tile; the operands carry no data):\n";
    print_timing(out, "pe_array", timing_pe_array);
    print_timing(out, "epilogue (ppu RTL)", timing_epilogue);
    print_timing(out, "ppu", timing_ppu);
  }
  if (pe_array.passes + ppu.passes + ppu.model_passes > 0) {
    out << "  datapath (the functional replay through the RTL, bits compared):\n";
    print_unit(out, "pe_array", pe_array);
    print_unit(out, "ppu", ppu);
  }
}

}  // namespace s2::sim::rtl
