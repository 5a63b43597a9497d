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
    // An embedding table streams the rows the ids pick, `work` elements (ppu_model.h).
    out.push_back({s, pass.table == s ? pass.work : d.elements(), isa::dtype_bytes(d.dtype)});
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

// Largest footprint of any of the T tiles of a pass: the streamed parts, plus the small
// operands whole, or (split per channel) the slices of the channels one part can touch.
struct SmallOperands {
  uint64_t bytes = 0;  // all of them, whole
  bool split = false;  // per channel, as each tile needs them
  uint64_t channels = 0, stride = 0, work = 0;

  uint64_t tile_bytes(uint64_t parts) const {
    if (!split) return bytes;
    const uint64_t part = (work + parts - 1) / parts;
    const uint64_t touched = std::min(channels, (part + stride - 1) / stride + 1);
    return bytes / channels * touched;
  }
};

uint64_t max_footprint(const std::vector<Stream>& streams, uint64_t parts,
                       const SmallOperands& small) {
  uint64_t total = small.tile_bytes(parts);
  for (const Stream& s : streams)
    total += ((s.elements + parts - 1) / parts) * s.elem_bytes;
  return total;
}

// The per-channel boxes (last dimension restricted) a flat part [b, e) of the streamed
// [N, C, S] operands touches: one channel range, or two when it wraps to the next sample.
std::vector<Box> channel_boxes(const isa::TensorDesc& d, const SmallOperands& small, uint64_t b,
                               uint64_t e) {
  const Box whole = Box::whole(d);
  if (e <= b) return {};
  const uint64_t first = b / small.stride, last = (e - 1) / small.stride;
  if (last - first + 1 >= small.channels) return {whole};
  const uint64_t c0 = first % small.channels, c1 = last % small.channels;
  auto range = [&](uint64_t lo, uint64_t hi) {
    Box box = whole;
    box.lo[d.rank - 1] = lo;
    box.hi[d.rank - 1] = hi;
    return box;
  };
  if (c0 <= c1) return {range(c0, c1 + 1)};
  return {range(c0, small.channels), range(0, c1 + 1)};
}

// The boxes of an embedding table [V, D] that the streamed elements [b, e) of its rows touch:
// element k lies in row (k / D) mod V (consecutive rows; ppu_model.h), so the range wraps
// around the table's V * D elements.
std::vector<Box> table_row_boxes(const isa::TensorDesc& table, uint64_t b, uint64_t e) {
  const uint64_t size = table.elements();
  std::vector<Box> boxes;
  if (size == 0) return boxes;
  while (b < e) {
    const uint64_t at = b % size, n = std::min(e - b, size - at);
    for (const Box& box : flat_range_boxes(table, at, at + n))
      boxes.push_back(box);
    b += n;
  }
  return boxes;
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
                                          const target::TargetDesc& target, TileDetail detail) {
  const bool accesses = detail == TileDetail::Accesses;
  if (inst.opcode() == isa::Opcode::Copy &&
      (inst.get(isa::Slot::Src).space == isa::MemSpace::Host ||
       inst.get(isa::Slot::Dst).space == isa::MemSpace::Host)) {
    Tile t;
    t.streamed = true;
    t.elements = inst.get(isa::Slot::Dst).elements();
    const isa::TensorDesc& src = inst.get(isa::Slot::Src);
    const isa::TensorDesc& dst = inst.get(isa::Slot::Dst);
    if (accesses) {
      box_accesses(src, Box::whole(src), false, t.loads);
      box_accesses(dst, Box::whole(dst), true, t.loads);
    }
    return {t};
  }
  const uint64_t half = target.sram.output.size_bytes / 2;
  std::vector<Tile> tiles;
  for (const StreamPass& pass : stream_passes(inst)) {
    const std::vector<Stream> streams = streams_of(inst, pass);
    SmallOperands small;
    small.bytes = small_bytes(inst, pass);
    uint64_t most = 1;  // with this many parts every streamed part holds at most one element
    uint64_t total = small.bytes;
    for (const Stream& s : streams) {
      most = std::max(most, s.elements);
      total += s.elements * s.elem_bytes;
    }
    // Per-channel operands too large to stay whole (batch norm over thousands of channels)
    // travel with the tiles, each loading the channels its part touches.
    if (max_footprint(streams, most, small) > half && pass.channels > 0 && small.bytes > 0) {
      small.split = true;
      small.channels = pass.channels;
      small.stride = std::max<uint64_t>(1, pass.channel_stride);
      small.work = pass.work;
    }
    if (max_footprint(streams, most, small) > half)
      throw UserError(
          std::string(inst.info().mnemonic) +
          ": even the smallest tile (one element of each streamed operand plus " +
          std::to_string(small.tile_bytes(most)) + " bytes of per-channel operands) needs " +
          std::to_string(max_footprint(streams, most, small)) +
          " bytes of the output buffer, but half of it (the other half "
          "double-buffers) is " +
          std::to_string(half) + " bytes in target '" + target.name + "'; enlarge sram.output");
    // The footprint falls as the part count grows: start from the ideal count and bisect up.
    const uint64_t whole_small = small.split ? 0 : small.bytes;
    uint64_t lo = std::max<uint64_t>(1, (total - small.bytes + (half - whole_small) - 1) /
                                            std::max<uint64_t>(1, half - whole_small));
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
    const uint64_t result_bytes = pass_element_bytes(inst, pass);
    for (uint64_t i = 0; i < parts; ++i) {
      Tile t;
      t.elements = part_begin(pass.work, i + 1, parts) - part_begin(pass.work, i, parts);
      t.ppu_op = pass.op;
      if (pass.op) t.ppu_cycles = ppu_pass_cycles(target, *pass.op, t.elements, result_bytes);
      uint64_t bytes = 0;
      for (const Stream& s : streams) {
        const uint64_t b = part_begin(s.elements, i, parts),
                       e = part_begin(s.elements, i + 1, parts);
        bytes += (e - b) * s.elem_bytes;
        if (!accesses) continue;
        const isa::TensorDesc& d = inst.get(s.slot);
        for (const Box& box :
             pass.table == s.slot ? table_row_boxes(d, b, e) : flat_range_boxes(d, b, e)) {
          if (std::find(pass.loads.begin(), pass.loads.end(), s.slot) != pass.loads.end())
            box_accesses(d, box, false, t.loads);
          if (std::find(pass.stores.begin(), pass.stores.end(), s.slot) != pass.stores.end())
            box_accesses(d, box, true, t.stores);
        }
      }
      uint64_t small_tile = small.bytes;
      if (small.split) {
        // This part's channels of every per-channel operand, loaded and stored with it.
        const uint64_t b = part_begin(pass.work, i, parts), e = part_begin(pass.work, i + 1, parts);
        small_tile = 0;
        std::vector<isa::Slot> counted;  // an in-place operand holds one slice of the buffer
        for (const auto* list : {&pass.small_loads, &pass.small_stores})
          for (isa::Slot s : *list) {
            const isa::TensorDesc& d = inst.get(s);
            const bool store = list == &pass.small_stores;
            const bool count = std::find(counted.begin(), counted.end(), s) == counted.end();
            if (count) counted.push_back(s);
            for (const Box& box : channel_boxes(d, small, b, e)) {
              if (accesses) box_accesses(d, box, store, store ? t.stores : t.loads);
              if (count) small_tile += box.elements(d.rank) * isa::dtype_bytes(d.dtype);
            }
          }
      } else if (accesses) {
        if (i == 0)
          for (isa::Slot s : pass.small_loads)
            box_accesses(inst.get(s), Box::whole(inst.get(s)), false, t.loads);
        if (i + 1 == parts)
          for (isa::Slot s : pass.small_stores)
            box_accesses(inst.get(s), Box::whole(inst.get(s)), true, t.stores);
      }
      t.footprint[static_cast<unsigned>(Buffer::Output)] = bytes + small_tile;
      tiles.push_back(std::move(t));
    }
  }
  return tiles;
}

}  // namespace s2::sim::timing
