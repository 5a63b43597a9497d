// PPU and DMA instruction tiling (tiling.h): passes split into equal flat parts that fit
// half of the output buffer.
#include <algorithm>
#include <string>

#include "isa/common/errors.h"
#include "simulator/timing/ppu_model.h"
#include "simulator/timing/tiling.h"

namespace s2::sim::timing {
namespace {

// Each streamed operand once (an in-place operand shares its buffer slot between load and
// store), with its element count and element size.
struct Stream {
  isa::Slot slot;
  uint64_t elements;
  uint64_t elem_bytes;
};

std::vector<Stream> streams_of(const isa::Instruction& inst, const StreamPass& pass) {
  std::vector<Stream> out;
  auto add = [&](isa::Slot s) {
    for (const Stream& st : out)
      if (st.slot == s) return;
    const isa::TensorDesc& d = inst.get(s);
    out.push_back({s, d.elements(), isa::dtype_bytes(d.dtype)});
  };
  for (isa::Slot s : pass.loads)
    add(s);
  for (isa::Slot s : pass.stores)
    add(s);
  return out;
}

uint64_t small_bytes(const isa::Instruction& inst, const StreamPass& pass) {
  std::vector<isa::Slot> seen;
  uint64_t total = 0;
  for (const auto* list : {&pass.small_loads, &pass.small_stores})
    for (isa::Slot s : *list) {
      if (std::find(seen.begin(), seen.end(), s) != seen.end()) continue;
      seen.push_back(s);
      const isa::TensorDesc& d = inst.get(s);
      total += d.elements() * isa::dtype_bytes(d.dtype);
    }
  return total;
}

__extension__ using u128 = unsigned __int128;

// Part i of T of a range of n: [floor(i*n/T), floor((i+1)*n/T)).
uint64_t part_begin(uint64_t n, uint64_t i, uint64_t parts) {
  return static_cast<uint64_t>((static_cast<u128>(n) * i) / parts);
}

// Largest footprint of any of the T tiles of a pass.
uint64_t max_footprint(const std::vector<Stream>& streams, uint64_t parts, uint64_t small) {
  uint64_t total = small;
  for (const Stream& s : streams)
    total += ((s.elements + parts - 1) / parts) * s.elem_bytes;
  return total;
}

}  // namespace

const target::SramBufferDesc& buffer_desc(const target::TargetDesc& target, Buffer buffer) {
  switch (buffer) {
    case Buffer::Input:
      return target.sram.input;
    case Buffer::Weight:
      return target.sram.weight;
    case Buffer::Accumulator:
      return target.sram.accumulator;
    case Buffer::Output:
      break;
  }
  return target.sram.output;
}

std::vector<Tile> tile_stream_instruction(const isa::Instruction& inst,
                                          const target::TargetDesc& target) {
  const uint64_t half = target.sram.output.size_bytes / 2;
  std::vector<Tile> tiles;
  for (const StreamPass& pass : stream_passes(inst)) {
    const std::vector<Stream> streams = streams_of(inst, pass);
    const uint64_t small = small_bytes(inst, pass);
    uint64_t most = 1;  // with this many parts every streamed part holds at most one element
    uint64_t total = small;
    for (const Stream& s : streams) {
      most = std::max(most, s.elements);
      total += s.elements * s.elem_bytes;
    }
    if (max_footprint(streams, most, small) > half)
      throw UserError(std::string(inst.info().mnemonic) +
                      ": even the smallest tile (one element of each streamed operand plus " +
                      std::to_string(small) + " bytes of per-channel operands) needs " +
                      std::to_string(max_footprint(streams, most, small)) +
                      " bytes of the output buffer, but half of it (the other half "
                      "double-buffers) is " +
                      std::to_string(half) + " bytes in target '" + target.name +
                      "'; enlarge sram.output");
    // The footprint falls as the part count grows: start from the ideal count and bisect up.
    uint64_t lo = std::max<uint64_t>(
        1, (total - small + (half - small) - 1) / std::max<uint64_t>(1, half - small));
    lo = std::min(lo, most);
    uint64_t hi = most;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (max_footprint(streams, mid, small) <= half)
        hi = mid;
      else
        lo = mid + 1;
    }
    const uint64_t parts = lo;
    for (uint64_t i = 0; i < parts; ++i) {
      Tile t;
      t.elements = part_begin(pass.work, i + 1, parts) - part_begin(pass.work, i, parts);
      t.ppu_op = pass.op;
      if (pass.op) t.ppu_cycles = ppu_pass_cycles(target, *pass.op, t.elements);
      uint64_t bytes = 0;
      for (const Stream& s : streams) {
        const uint64_t b = part_begin(s.elements, i, parts),
                       e = part_begin(s.elements, i + 1, parts);
        bytes += (e - b) * s.elem_bytes;
        const isa::TensorDesc& d = inst.get(s.slot);
        for (const Box& box : flat_range_boxes(d, b, e)) {
          if (std::find(pass.loads.begin(), pass.loads.end(), s.slot) != pass.loads.end())
            box_accesses(d, box, false, t.loads);
          if (std::find(pass.stores.begin(), pass.stores.end(), s.slot) != pass.stores.end())
            box_accesses(d, box, true, t.stores);
        }
      }
      if (i == 0)
        for (isa::Slot s : pass.small_loads)
          box_accesses(inst.get(s), Box::whole(inst.get(s)), false, t.loads);
      if (i + 1 == parts)
        for (isa::Slot s : pass.small_stores)
          box_accesses(inst.get(s), Box::whole(inst.get(s)), true, t.stores);
      t.footprint[static_cast<unsigned>(Buffer::Output)] = bytes + small;
      tiles.push_back(std::move(t));
    }
  }
  return tiles;
}

}  // namespace s2::sim::timing
