#include "simulator/timing/roofline.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "simulator/timing/attention_tiling.h"
#include "simulator/timing/gemm_view.h"

namespace s2::sim::timing {
namespace {

// The bytes an operand's elements occupy, each counted once: what reading or writing it moves
// at the least. A slice of a larger buffer (a placed concat part: [N,C,H,W] inside
// [N,C_total,H,W]) occupies fewer bytes than its span; a broadcast axis (stride 0) adds none.
// Descriptors whose axes overlap some other way count their span.
uint64_t footprint_bytes(const isa::TensorDesc& d) {
  std::vector<std::pair<uint64_t, uint64_t>> axes;  // (stride, extent) of the axes that move
  for (unsigned k = 0; k < d.rank; ++k)
    if (d.shape[k] > 1 && d.strides[k] > 0) axes.emplace_back(d.strides[k], d.shape[k]);
  std::sort(axes.begin(), axes.end());
  uint64_t elements = 1, reach = 1;  // reach: elements an axis's stride must clear
  for (const auto& [stride, extent] : axes) {
    if (stride < reach) return d.span_bytes();
    elements *= extent;
    reach = stride * extent;
  }
  return std::min(d.span_bytes(), elements * isa::dtype_bytes(d.dtype));
}

}  // namespace

double dram_bytes_per_cycle(const target::TargetDesc& target) {
  return target.dram.peak_bandwidth_bytes_per_s() / (target.clock_mhz * 1e6);
}

Roofline roofline(const isa::Instruction& inst, const target::TargetDesc& target) {
  Roofline r;
  if (inst.opcode() == isa::Opcode::AttnFwd || inst.opcode() == isa::Opcode::AttnBwd)
    r.macs = attention_macs(inst);
  else if (inst.info().unit == isa::Unit::Pe)
    r.macs = gemm_view(inst).macs;
  for (const isa::OperandSig& sig : inst.info().operands) {
    const auto& desc = inst.operand(sig.slot);
    if (!desc) continue;
    uint64_t span = footprint_bytes(*desc);
    // A gather reads only the table rows its ids name: at most one row per id.
    if (sig.slot == isa::Slot::Table)
      span = std::min(span, inst.get(isa::Slot::Ids).elements() * desc->shape[1] *
                                isa::dtype_bytes(desc->dtype));
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
