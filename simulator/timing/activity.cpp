#include "simulator/timing/activity.h"

#include <algorithm>
#include <cmath>

#include "simulator/timing/tiling.h"

namespace s2::sim::timing {
namespace {

constexpr uint64_t kE = 4;  // f32 bytes

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

uint64_t bytes_of(const std::vector<DramAccess>& accesses) {
  uint64_t bytes = 0;
  for (const DramAccess& a : accesses)
    bytes += a.bytes;
  return bytes;
}

constexpr size_t kInput = static_cast<size_t>(Buffer::Input);
constexpr size_t kWeight = static_cast<size_t>(Buffer::Weight);
constexpr size_t kAcc = static_cast<size_t>(Buffer::Accumulator);
constexpr size_t kOutput = static_cast<size_t>(Buffer::Output);

// One product of the array: its buffer reads and writes by the dataflow.
void add_product(const PassShape& s, const target::TargetDesc& t, Activity& a) {
  const uint64_t rows = t.pe_array.rows, cols = t.pe_array.cols;
  a.sram_read_bytes[kInput] += s.m * s.k * ceil_div(s.n, cols) * kE;
  if (t.pe_array.dataflow == target::Dataflow::WeightStationary) {
    a.sram_read_bytes[kWeight] += s.k * s.n * kE;
    const uint64_t partials = s.m * s.n * ceil_div(s.k, rows) * kE;
    a.sram_read_bytes[kAcc] += partials;
    a.sram_write_bytes[kAcc] += partials;
  } else {
    a.sram_read_bytes[kWeight] += s.k * s.n * ceil_div(s.m, rows) * kE;
    a.sram_write_bytes[kAcc] += s.m * s.n * kE;
  }
}

}  // namespace

Activity& Activity::operator+=(const Activity& o) {
  macs += o.macs;
  macs_16bit += o.macs_16bit;
  for (size_t b = 0; b < 4; ++b) {
    sram_read_bytes[b] += o.sram_read_bytes[b];
    sram_write_bytes[b] += o.sram_write_bytes[b];
  }
  ppu_ops += o.ppu_ops;
  dma_bytes += o.dma_bytes;
  return *this;
}

Activity instruction_activity(const InstructionPlan& plan, const target::TargetDesc& target) {
  Activity a;
  a.macs = plan.macs;
  if (plan.mode == isa::DType::BF16 || plan.mode == isa::DType::F16) a.macs_16bit = plan.macs;
  for (const Tile& tile : plan.tiles) {
    const uint64_t loads = bytes_of(tile.loads);
    const uint64_t stores = bytes_of(tile.stores);
    a.dma_bytes += loads + stores;
    if (tile.streamed) continue;  // through the DMA engine's own buffer, no SRAM
    const bool pe = tile.shape.m != 0 || !tile.products.empty();
    if (pe) {
      if (tile.products.empty()) add_product(tile.shape, target, a);
      for (const PassShape& p : tile.products)
        add_product(p, target, a);
      // The DMA fills the input block, then the weight block, then epilogue operands.
      uint64_t rest = loads;
      for (size_t b : {kInput, kWeight}) {
        const uint64_t part = std::min(rest, tile.footprint[b]);
        a.sram_write_bytes[b] += part;
        rest -= part;
      }
      a.sram_write_bytes[kOutput] += rest;
      if (stores != 0 && tile.products.empty())
        a.sram_write_bytes[kOutput] += tile.shape.m * tile.shape.n * kE;
      a.sram_read_bytes[kOutput] += stores;
      a.ppu_ops += tile.ppu_cycles * target.ppu.lanes;
      continue;
    }
    // PPU and DMA tiles: everything through the output buffer.
    a.sram_write_bytes[kOutput] += loads + stores;
    a.sram_read_bytes[kOutput] += loads + stores;
    if (tile.ppu_op) {
      const double throughput = target.ppu.cost(*tile.ppu_op).throughput;
      a.ppu_ops += static_cast<uint64_t>(
          std::ceil(static_cast<double>(tile.elements) / std::max(throughput, 1e-9)));
    }
  }
  return a;
}

}  // namespace s2::sim::timing
