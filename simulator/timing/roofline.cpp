#include "simulator/timing/roofline.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "isa/container/dram_layout.h"
#include "isa/encoding/semantics.h"
#include "simulator/timing/attention_tiling.h"
#include "simulator/timing/gemm_view.h"

namespace s2::sim::timing {
namespace {

// Descriptors of overlapping axes up to this many elements have their distinct elements
// counted exactly (sorting their addresses: 8 bytes of memory each).
constexpr uint64_t kMaxCountedElements = uint64_t{1} << 22;

// The distinct elements of a descriptor whose axes overlap: counted exactly when it has at
// most kMaxCountedElements, otherwise `lower_bound`.
uint64_t distinct_elements(const isa::TensorDesc& d, uint64_t lower_bound) {
  if (d.elements() > kMaxCountedElements) return lower_bound;
  std::vector<uint64_t> addresses;
  addresses.reserve(static_cast<std::size_t>(d.elements()));
  isa::for_each_element_address(d, [&](std::size_t, uint64_t at) { addresses.push_back(at); });
  std::sort(addresses.begin(), addresses.end());
  return static_cast<uint64_t>(std::unique(addresses.begin(), addresses.end()) - addresses.begin());
}

// The bytes an operand's elements occupy, each counted once: what reading or writing it moves
// at the least. A slice of a larger buffer (a placed concat part: [N,C,H,W] inside
// [N,C_total,H,W]) occupies fewer bytes than its span; a broadcast axis (stride 0) adds none.
// Axes that overlap some other way (strides {s, s+1}: the elements repeat and leave gaps) are
// counted element by element, or, beyond kMaxCountedElements, as the box of the axes before
// the first overlap (a lower bound: those elements are distinct). Never the span, which can
// be far more than any schedule moves.
uint64_t footprint_bytes(const isa::TensorDesc& d) {
  std::vector<std::pair<uint64_t, uint64_t>> axes;  // (stride, extent) of the axes that move
  for (unsigned k = 0; k < d.rank; ++k)
    if (d.shape[k] > 1 && d.strides[k] > 0) axes.emplace_back(d.strides[k], d.shape[k]);
  std::sort(axes.begin(), axes.end());
  uint64_t elements = 1, reach = 1;  // reach: elements an axis's stride must clear
  for (const auto& [stride, extent] : axes) {
    if (stride < reach) {
      elements = distinct_elements(d, elements);
      break;
    }
    elements *= extent;
    reach = stride * extent;
  }
  return std::min(d.span_bytes(), elements * isa::dtype_bytes(d.dtype));
}

// The bytes of one operand: its footprint, and for a gather's table at most one row per id.
uint64_t operand_bytes(const isa::Instruction& inst, isa::Slot slot, const isa::TensorDesc& desc) {
  uint64_t span = footprint_bytes(desc);
  if (slot == isa::Slot::Table)
    span = std::min(
        span, inst.get(isa::Slot::Ids).elements() * desc.shape[1] * isa::dtype_bytes(desc.dtype));
  return span;
}

}  // namespace

std::map<isa::DType, uint64_t> operand_bytes_by_dtype(const isa::Instruction& inst) {
  std::map<isa::DType, uint64_t> out;
  for (const isa::OperandSig& sig : inst.info().operands)
    if (const auto& desc = inst.operand(sig.slot)) {
      const uint64_t bytes = operand_bytes(inst, sig.slot, *desc);
      out[desc->dtype] += sig.access == isa::Access::InOut ? 2 * bytes : bytes;
    }
  return out;
}

double dram_bytes_per_cycle(const target::TargetDesc& target) {
  return target.dram.peak_bandwidth_bytes_per_s() / (target.clock_mhz * 1e6);
}

double host_link_bytes_per_cycle(const target::TargetDesc& target) {
  return target.host_link ? target.host_link->bandwidth_gb_s * 1e9 / (target.clock_mhz * 1e6) : 0;
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
    // A gather reads only the table rows its ids name: at most one row per id.
    const uint64_t span = operand_bytes(inst, sig.slot, *desc);
    const bool host = desc->space == isa::MemSpace::Host;
    if (sig.access != isa::Access::Out) (host ? r.host_bytes_read : r.bytes_read) += span;
    if (sig.access != isa::Access::In) (host ? r.host_bytes_written : r.bytes_written) += span;
  }
  // The peak of the instruction's multiply mode: MACs per PE per cycle of its multiplicands'
  // type (1 for f32, and for instructions that multiply nothing).
  const std::optional<isa::DType> mode = isa::multiplicand_dtype(inst);
  const uint64_t per_pe = mode ? std::max<uint32_t>(target.pe_array.macs_per_pe(*mode), 1) : 1;
  const uint64_t peak = target.pe_array.macs() * per_pe;
  r.compute_cycles = (r.macs + peak - 1) / peak;
  r.memory_cycles = static_cast<uint64_t>(
      std::ceil(static_cast<double>(r.bytes()) / dram_bytes_per_cycle(target)));
  if (const double link = host_link_bytes_per_cycle(target); link > 0)
    r.link_cycles = static_cast<uint64_t>(
        std::ceil(static_cast<double>(std::max(r.host_bytes_read, r.host_bytes_written)) / link));
  r.cycles = std::max({r.compute_cycles, r.memory_cycles, r.link_cycles});
  return r;
}

}  // namespace s2::sim::timing
