#include "simulator/timing/roofline.h"

#include <algorithm>
#include <cmath>

#include "simulator/timing/gemm_view.h"

namespace s2::sim::timing {

double dram_bytes_per_cycle(const target::TargetDesc& target) {
  return target.dram.peak_bandwidth_bytes_per_s() / (target.clock_mhz * 1e6);
}

Roofline roofline(const isa::Instruction& inst, const target::TargetDesc& target) {
  Roofline r;
  if (inst.info().unit == isa::Unit::Pe) r.macs = gemm_view(inst).macs;
  for (const isa::OperandSig& sig : inst.info().operands) {
    const auto& desc = inst.operand(sig.slot);
    if (!desc) continue;
    const uint64_t span = desc->span_bytes();
    if (sig.access != isa::Access::Out) r.bytes_read += span;
    if (sig.access != isa::Access::In) r.bytes_written += span;
  }
  const uint64_t pes = target.pe_array.macs();
  r.compute_cycles = (r.macs + pes - 1) / pes;
  r.memory_cycles = static_cast<uint64_t>(
      std::ceil(static_cast<double>(r.bytes()) / dram_bytes_per_cycle(target)));
  r.cycles = std::max(r.compute_cycles, r.memory_cycles);
  return r;
}

}  // namespace s2::sim::timing
