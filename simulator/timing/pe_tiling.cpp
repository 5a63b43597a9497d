// PE instruction tiling (tiling.h): block-size choice and the tile list.
#include <algorithm>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "isa/common/errors.h"
#include "simulator/dram/dram_model.h"
#include "simulator/timing/gemm_view.h"
#include "simulator/timing/roofline.h"
#include "simulator/timing/tiling.h"

namespace s2::sim::timing {
namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

// Box extents on a 3-D axis of at most `t` indices: the inner dimension is split first, an
// outer one only once the inner ones are whole, so every block is a box.
Dims3 aligned(const Dims3& d, uint64_t t) {
  if (t >= GemmView::size(d)) return d;
  if (t >= d[1] * d[2]) return {t / (d[1] * d[2]), d[1], d[2]};
  if (t >= d[2]) return {1, t / d[2], d[2]};
  return {1, 1, std::max<uint64_t>(t, 1)};
}

uint64_t blocks(const Dims3& d, const Dims3& b) {
  return ceil_div(d[0], b[0]) * ceil_div(d[1], b[1]) * ceil_div(d[2], b[2]);
}

// Bytes per element of each buffer's contents. The input and weight buffers hold the
// multiplicands (the multiply mode's element size), the accumulator f32 partial sums; the
// output buffer holds the epilogue's outputs and per-pixel inputs (residual, gate) in their own
// element types, and its per-column inputs (bias, and the two statistics rows).
struct Needs {
  uint64_t operand = kF32Bytes;  // input and weight buffers
  uint64_t per_pixel = 0;        // output buffer, per output element
  uint64_t per_column = 0;       // output buffer, per output column
};

Needs needs_of(const GemmView& v, const isa::Instruction& inst, const PeArrayModel& model) {
  Needs n;
  n.operand = model.element_bytes();
  for (const GemmOperand& op : v.operands) {
    const uint64_t bytes = isa::dtype_bytes(inst.get(op.slot).dtype);
    if (op.role == GemmRole::Out || op.role == GemmRole::PerPixel) n.per_pixel += bytes;
    if (op.role == GemmRole::PerColumn) n.per_column += bytes;
    if (op.role == GemmRole::Stats) n.per_column += 2 * bytes;
  }
  return n;
}

// Bytes of each buffer an M_b x N_b x K_b block uses; `transposed`: the streamed block is held
// in the weight buffer and the stationary one streams from the input buffer.
std::array<uint64_t, 4> footprint(uint64_t m, uint64_t n, uint64_t k, const Needs& e,
                                  bool transposed = false) {
  const uint64_t streamed = m * k * e.operand, stationary = k * n * e.operand;
  return {transposed ? stationary : streamed, transposed ? streamed : stationary, m * n * kF32Bytes,
          m * n * e.per_pixel + n * e.per_column};
}

// The shape of the passes' space of an M_b x N_b x K_b block (Tile::shape).
PassShape pass_space(uint64_t m, uint64_t n, uint64_t k, bool transposed) {
  return transposed ? PassShape{n, m, k} : PassShape{m, n, k};
}

// K block sizes: the power-of-two candidates, and the sizes that are both whole filter windows
// (multiples of the inner two index dimensions, so a block is a box) and whole passes
// (multiples of `k_edge`), doubling below the full extent (tiling.h, block sizes).
std::set<uint64_t> k_block_candidates(const Dims3& k, uint64_t k_edge) {
  const uint64_t size = GemmView::size(k);
  std::set<uint64_t> out = block_size_candidates(size, k_edge);
  const uint64_t window = k[1] * k[2];
  if (window > 1 && k[0] > 1)
    for (uint64_t t = std::lcm(window, k_edge); t < size; t *= 2)
      out.insert(t);
  return out;
}

struct Blocking {
  Dims3 m, n, k;
  bool transposed = false;  // the array holds the streamed block, streams N (tiling.h)
  double time = 0;
  double bytes = 0;
  uint64_t tiles = 0;
  uint64_t pack = 1;  // channel groups per tile, side by side (PeArrayModel::groups_per_pass)
  double pe = 0;      // PE cycles of every tile
  // How many times the sequencer moves a block of each operand class (BlockClass).
  std::array<uint64_t, 3> moves{};
};

// What a PE tile may use of buffer b: half of the input, weight and output buffers (double
// buffering: the next tile loads while this one computes), the whole accumulator (tiling.h).
uint64_t tile_room(const target::TargetDesc& target, unsigned b) {
  return buffer_desc(target, static_cast<Buffer>(b)).size_bytes /
         (static_cast<Buffer>(b) == Buffer::Accumulator ? 1 : 2);
}

[[noreturn]] void does_not_fit(const isa::Instruction& inst, const target::TargetDesc& target,
                               const Needs& needs) {
  const auto need = footprint(1, 1, 1, needs);
  for (unsigned b = 0; b < 4; ++b) {
    const uint64_t room = tile_room(target, b);
    if (need[b] > room)
      throw UserError(std::string(inst.info().mnemonic) +
                      ": even the smallest tile (1 x 1 x 1) needs " + std::to_string(need[b]) +
                      " bytes of the " + kBufferNames[b] + " buffer, but " +
                      (static_cast<Buffer>(b) == Buffer::Accumulator
                           ? "all of it"
                           : "half of it (the other half double-buffers)") +
                      " is " + std::to_string(room) + " bytes in target '" + target.name +
                      "'; enlarge sram." + kBufferNames[b]);
  }
  throw InternalError("timing: no tiling found for " + std::string(inst.info().mnemonic) +
                      " although a 1 x 1 x 1 tile fits");
}

// Odometer over the block positions of one axis: the box of block `pos`.
Range3 block_range(const Dims3& d, const Dims3& b, const Dims3& pos) {
  Range3 r;
  for (unsigned i = 0; i < 3; ++i) {
    r.lo[i] = pos[i] * b[i];
    r.hi[i] = std::min(d[i], r.lo[i] + b[i]);
  }
  return r;
}

// The DRAM side of the block choice. Bytes alone rank blockings badly: a K block of 32 reads
// runs of 128 bytes, each in another DRAM row when the rows of the operand lie far apart
// (gpt2-small's LM-head gradient reads [4096, 50257] logits), and such runs move at a fraction
// of the peak (activations, partial bursts); a K block of 256 reads the same bytes in 1 KiB
// runs near the peak. So a candidate's first tile is cut into its blocks of each operand class,
// and each class's block is served alone, from idle, by the target's own DRAM model; the
// instruction's DRAM time is then the sum over classes of (blocks moved) x (that time). The
// blocks of one class share their shape and strides, so the first stands for the rest (up to
// halos clipped at the borders and where it falls in the DRAM rows).
enum BlockClass : unsigned { kStreamed, kStationary, kEpilogue };  // Blocking::moves index

class BlockCosts {
 public:
  BlockCosts(const GemmView& v, const isa::Instruction& inst, const target::TargetDesc& target)
      : v_(v), inst_(inst), target_(target), peak_(dram_bytes_per_cycle(target)) {}

  // Fills b.bytes, the bytes its blocks move, and b.time with the bound max(PE cycles,
  // bytes / peak DRAM bytes per cycle), which measure() never goes below.
  void bound(Blocking& b) const {
    b.bytes = 0;
    const auto blocks = first_blocks(b);
    for (unsigned c = 0; c < 3; ++c) {
      uint64_t bytes = 0;
      for (const DramAccess& a : blocks[c])
        bytes += a.bytes;
      b.bytes += static_cast<double>(b.moves[c]) * static_cast<double>(bytes);
    }
    b.time = std::max(b.pe, b.bytes / peak_);
  }

  // b.time = max(PE cycles, DRAM cycles of its blocks as the DRAM model serves them).
  void measure(Blocking& b) const {
    double dram = 0;
    const auto blocks = first_blocks(b);
    for (unsigned c = 0; c < 3; ++c)
      if (b.moves[c] > 0) dram += static_cast<double>(b.moves[c]) * cycles(blocks[c]);
    b.time = std::max(b.pe, dram);
  }

 private:
  // The accesses of the first tile's blocks, by class (a packed blocking: those of its first
  // `pack` groups, which one tile moves). Statistics (2 x N values once per N block) are
  // left out.
  std::array<std::vector<DramAccess>, 3> first_blocks(const Blocking& b) const {
    const Range3 mr = block_range(v_.m, b.m, {}), nr = block_range(v_.n, b.n, {}),
                 kr = block_range(v_.k, b.k, {});
    std::array<std::vector<DramAccess>, 3> out;
    for (uint64_t g = 0; g < std::min(b.pack, v_.groups); ++g)
      for (const GemmOperand& op : v_.operands) {
        if (op.role == GemmRole::Stats) continue;
        const unsigned c = op.role == GemmRole::Streamed     ? kStreamed
                           : op.role == GemmRole::Stationary ? kStationary
                                                             : kEpilogue;
        box_accesses(inst_.get(op.slot), operand_box(v_, inst_, op.slot, g, mr, nr, kr),
                     op.role == GemmRole::Out, out[c]);
      }
    return out;
  }

  // Accelerator cycles the DRAM model takes for `accesses`, served as one group on an idle
  // device. A sequencer streams block after block, so the first burst's unloaded latency
  // (measured on its own) overlaps the previous block and is not counted: the time is from
  // that burst's data to the last, plus one burst at the peak rate, and never below bytes /
  // peak. A perfect stream thus measures exactly its bytes at the peak.
  double cycles(const std::vector<DramAccess>& accesses) const {
    std::vector<dram::Access> group;
    group.reserve(accesses.size());
    uint64_t bytes = 0;
    for (const DramAccess& a : accesses) {
      if (a.bytes == 0) continue;
      group.push_back(to_dram(a));
      bytes += a.bytes;
    }
    if (bytes == 0) return 0;
    const dram::Access probe{group[0].address, 1, group[0].kind};
    const double latency =
        static_cast<double>(dram::make_dram_model(target_.dram)->serve({probe}, 0).done_ps);
    const auto model = dram::make_dram_model(target_.dram);
    const double ps = static_cast<double>(model->serve(group, 0).done_ps) - latency;
    const double at_peak = static_cast<double>(bytes) / peak_;
    return std::max(at_peak, ps * target_.clock_mhz * 1e-6 + model->burst_bytes() / peak_);
  }

  const GemmView& v_;
  const isa::Instruction& inst_;
  const target::TargetDesc& target_;
  double peak_;
};

// The blocking with the least estimated time max(PE cycles, DRAM cycles), then the fewest bytes
// and tiles. Candidates are ranked first on the bound of BlockCosts::bound(), which their
// estimate never beats, so the DRAM model serves blocks only for those that can still win.
Blocking choose(const GemmView& v, const isa::Instruction& inst, const target::TargetDesc& target,
                const PeArrayModel& model) {
  const Needs needs = needs_of(v, inst, model);
  const uint64_t e = needs.operand;
  std::array<uint64_t, 4> room{};
  for (unsigned b = 0; b < 4; ++b)
    room[b] = tile_room(target, b);
  const BlockCosts costs(v, inst, target);
  const uint64_t msize = GemmView::size(v.m), nsize = GemmView::size(v.n);
  const uint64_t per_pixel_bytes = needs.per_pixel;
  // K blocks step by what one pass reduces (R rows, times the MACs per PE of the mode).
  const uint64_t k_edge = std::max<uint64_t>(target.pe_array.rows, model.max_pass().k);
  std::vector<Dims3> k_blocks;
  std::set<uint64_t> seen_k;
  for (uint64_t kt : k_block_candidates(v.k, k_edge)) {
    const Dims3 kd = aligned(v.k, kt);
    if (seen_k.insert(GemmView::size(kd)).second) k_blocks.push_back(kd);
  }
  std::vector<Blocking> candidates;
  // Adds the blocking (md, nb, kd) in `transposed` orientation: its tiles, PE cycles and moves.
  auto add = [&](const Dims3& md, uint64_t nb, const Dims3& kd, bool transposed) {
    const uint64_t mb = GemmView::size(md), kb = GemmView::size(kd);
    const uint64_t nm = blocks(v.m, md), nn = ceil_div(nsize, nb), nk = blocks(v.k, kd);
    Blocking c{md, {1, 1, nb}, kd, transposed};
    c.tiles = v.groups * nm * nn * nk;
    c.pe = static_cast<double>(c.tiles) *
           static_cast<double>(model.tile_cycles(pass_space(mb, nb, kb, transposed)));
    // The held block stays resident across the blocks of the streamed side only when there is
    // a single K block: loop order group, N, M, K (normal) or group, M, N, K (transposed).
    const uint64_t held = v.groups * nk * (nk == 1 ? 1 : (transposed ? nn : nm));
    c.moves = {transposed ? held * nm : c.tiles, transposed ? c.tiles : held * nn,
               v.groups * nm * nn};
    candidates.push_back(c);
  };
  for (uint64_t nb : block_size_candidates(nsize, target.pe_array.cols)) {
    const uint64_t column_bytes = nb * needs.per_column;
    if (column_bytes >= room[3]) continue;
    for (const Dims3& kd : k_blocks) {
      const uint64_t kb = GemmView::size(kd);
      if (kb * nb * e > room[1]) continue;
      const uint64_t mt = std::min({msize, room[0] / (kb * e), room[2] / (nb * kF32Bytes),
                                    (room[3] - column_bytes) / (nb * per_pixel_bytes)});
      if (mt == 0) continue;
      add(aligned(v.m, mt), nb, kd, false);
    }
  }
  // The transposed orientation, when M is the short side: M blocks of the held side, N as
  // long as the buffers allow.
  if (needs.per_column == 0 && msize < nsize)
    for (uint64_t mt : block_size_candidates(msize, target.pe_array.cols)) {
      const Dims3 md = aligned(v.m, mt);
      const uint64_t mb = GemmView::size(md);
      for (const Dims3& kd : k_blocks) {
        const uint64_t kb = GemmView::size(kd);
        if (mb * kb * e > room[1]) continue;
        const uint64_t nb = std::min({nsize, room[0] / (kb * e), room[2] / (mb * kF32Bytes),
                                      room[3] / (mb * per_pixel_bytes)});
        if (nb == 0) continue;
        add(md, nb, kd, true);
      }
    }
  if (candidates.empty()) does_not_fit(inst, target, needs);
  // Small groups (depthwise: one channel, k = R*S) packed side by side: each group whole (one
  // K block, one N block), `pack` groups per tile, the block-diagonal weights dense in the
  // weight buffer as the array loads them. The same operands move; only the PE time shrinks.
  const uint64_t ksize = GemmView::size(v.k);
  const uint64_t pack = std::min(v.groups, model.groups_per_pass(ksize, nsize));
  const uint64_t pack_columns = pack * nsize * needs.per_column;
  if (pack >= 2 && pack_columns < room[3] && pack * ksize * pack * nsize * e <= room[1]) {
    const uint64_t packs = ceil_div(v.groups, pack), last = v.groups - (packs - 1) * pack;
    for (uint64_t mt : block_size_candidates(msize, target.pe_array.cols)) {
      mt = std::min({mt, room[0] / (pack * ksize * e), room[2] / (pack * nsize * kF32Bytes),
                     (room[3] - pack_columns) / (pack * nsize * per_pixel_bytes)});
      if (mt == 0) continue;
      const Dims3 md = aligned(v.m, mt);
      const uint64_t mb = GemmView::size(md), nm = blocks(v.m, md);
      uint64_t pe_cycles = 0;  // the pe time of one M block of every pack
      for (uint64_t p : {pack, last})
        pe_cycles += (p == pack ? packs - 1 : 1) * model.tile_cycles({mb, p * nsize, p * ksize});
      Blocking c{md, v.n, v.k};
      c.tiles = packs * nm;
      c.pack = pack;
      c.pe = static_cast<double>(nm) * static_cast<double>(pe_cycles);
      c.moves = {c.tiles, packs, c.tiles};  // weights loaded with each pack's first M block
      candidates.push_back(c);
    }
  }
  for (Blocking& c : candidates)
    costs.bound(c);
  const auto ahead = [](const Blocking& a, const Blocking& b) {
    return a.time < b.time ||
           (a.time == b.time && (a.bytes < b.bytes || (a.bytes == b.bytes && a.tiles < b.tiles)));
  };
  std::stable_sort(candidates.begin(), candidates.end(), ahead);
  std::optional<Blocking> best;
  for (Blocking& c : candidates) {
    if (best && c.time >= best->time) break;  // the bound cannot beat what was measured
    costs.measure(c);
    if (!best || ahead(c, *best)) best = c;
  }
  return *best;
}

bool next_pos(const Dims3& d, const Dims3& b, Dims3& pos) {
  for (unsigned i = 3; i-- > 0;) {
    if (++pos[i] < ceil_div(d[i], b[i])) return true;
    pos[i] = 0;
  }
  return false;
}

uint64_t extent(const Range3& r) {
  return (r.hi[0] - r.lo[0]) * (r.hi[1] - r.lo[1]) * (r.hi[2] - r.lo[2]);
}

}  // namespace

std::set<uint64_t> block_size_candidates(uint64_t size, uint64_t edge) {
  std::set<uint64_t> out{size};
  for (uint64_t s = edge; s < size; s *= 2)
    out.insert(s);
  for (uint64_t s = edge; s > 0; s /= 2)
    out.insert(std::min(s, size));
  return out;
}

std::vector<Tile> tile_pe_instruction(const isa::Instruction& inst,
                                      const target::TargetDesc& target, const PeArrayModel& model,
                                      TileDetail detail) {
  const GemmView v = gemm_view(inst);
  const Blocking blk = choose(v, inst, target, model);
  const Needs needs = needs_of(v, inst, model);
  // The epilogue writes each output operand's type (y, and pre when given) through the
  // output buffer's port: that many bytes per result.
  uint64_t out_bytes = 0;
  for (const GemmOperand& op : v.operands)
    if (op.role == GemmRole::Out) out_bytes += isa::dtype_bytes(inst.get(op.slot).dtype);
  if (out_bytes == 0) out_bytes = kF32Bytes;
  std::vector<Tile> tiles;
  tiles.reserve(blk.tiles);
  const uint64_t nk_total = blocks(v.k, blk.k);
  // The operands' descriptors, looked up once rather than per tile.
  std::vector<const isa::TensorDesc*> descs;
  descs.reserve(v.operands.size());
  for (const GemmOperand& op : v.operands)
    descs.push_back(&inst.get(op.slot));
  // Adds group g's loads and stores of the block (mr, nr, kr) to tile t.
  // Adds group g's loads and stores of the block (mr, nr, kr) to tile t. `first_pass` is the
  // tile of the first block along the streamed side (M normally, N transposed) of its held
  // block, which a single K block leaves resident after that; `last_m` the tile of the last M
  // block.
  const GemmRole held = blk.transposed ? GemmRole::Streamed : GemmRole::Stationary;
  auto add_accesses = [&](Tile& t, uint64_t g, const Range3& mr, const Range3& nr, const Range3& kr,
                          bool first_pass, bool last_m, bool last_k) {
    if (detail == TileDetail::Cycles) return;
    for (std::size_t o = 0; o < v.operands.size(); ++o) {
      const GemmOperand& op = v.operands[o];
      bool load = false, store = false;
      switch (op.role) {
        case GemmRole::Streamed:
        case GemmRole::Stationary:
          load = op.role != held || nk_total > 1 || first_pass;
          break;
        case GemmRole::PerPixel:
        case GemmRole::PerColumn:
          load = last_k;
          break;
        case GemmRole::Out:
          store = last_k;
          break;
        case GemmRole::Stats:
          store = last_k && last_m;
          break;
      }
      if (!load && !store) continue;
      const Box box = operand_box(v, inst, op.slot, g, mr, nr, kr);
      box_accesses(*descs[o], box, store, store ? t.stores : t.loads);
    }
  };
  if (blk.pack > 1) {  // whole groups side by side: one tile per M block of each pack
    const Range3 nr = block_range(v.n, v.n, {}), kr = block_range(v.k, v.k, {});
    const uint64_t n = GemmView::size(v.n), k = GemmView::size(v.k);
    for (uint64_t g0 = 0; g0 < v.groups; g0 += blk.pack) {
      const uint64_t p = std::min(blk.pack, v.groups - g0);
      Dims3 mpos{};
      bool first_m = true, more_m = true;
      while (more_m) {
        const Range3 mr = block_range(v.m, blk.m, mpos);
        more_m = next_pos(v.m, blk.m, mpos);
        Tile t;
        t.shape = {extent(mr), p * n, p * k};
        t.footprint = footprint(t.shape.m, t.shape.n, t.shape.k, needs);
        t.pe_cycles = model.tile_cycles(t.shape);
        t.ppu_cycles = epilogue_cycles(target, t.shape.m * t.shape.n, out_bytes);
        t.streamed_epilogue = true;
        t.epilogue_tail = epilogue_tail(target, model, t.shape, out_bytes);
        for (uint64_t g = g0; g < g0 + p; ++g)
          add_accesses(t, g, mr, nr, kr, first_m, !more_m, true);
        tiles.push_back(std::move(t));
        first_m = false;
      }
    }
    return tiles;
  }
  // Loop order group, then the held side's blocks (N normally, M transposed), the streamed
  // side's, and K innermost.
  const Dims3& outer_d = blk.transposed ? v.m : v.n;
  const Dims3& outer_b = blk.transposed ? blk.m : blk.n;
  const Dims3& inner_d = blk.transposed ? v.n : v.m;
  const Dims3& inner_b = blk.transposed ? blk.n : blk.m;
  for (uint64_t g = 0; g < v.groups; ++g) {
    Dims3 opos{};
    bool more_o = true;
    while (more_o) {
      const Range3 outer = block_range(outer_d, outer_b, opos);
      more_o = next_pos(outer_d, outer_b, opos);
      Dims3 ipos{};
      bool first_i = true;
      bool more_i = true;
      while (more_i) {
        const Range3 inner = block_range(inner_d, inner_b, ipos);
        more_i = next_pos(inner_d, inner_b, ipos);
        const Range3& mr = blk.transposed ? outer : inner;
        const Range3& nr = blk.transposed ? inner : outer;
        const bool last_m = blk.transposed ? !more_o : !more_i;
        Dims3 kpos{};
        bool more_k = true;
        while (more_k) {
          const Range3 kr = block_range(v.k, blk.k, kpos);
          more_k = next_pos(v.k, blk.k, kpos);
          const bool last_k = !more_k;
          Tile t;
          t.transposed = blk.transposed;
          t.shape = pass_space(extent(mr), extent(nr), extent(kr), blk.transposed);
          t.footprint = footprint(extent(mr), extent(nr), extent(kr), needs, blk.transposed);
          t.pe_cycles = model.tile_cycles(t.shape);
          t.streamed_epilogue = true;
          if (last_k) {
            t.ppu_cycles = epilogue_cycles(target, t.shape.m * t.shape.n, out_bytes);
            t.epilogue_tail = epilogue_tail(target, model, t.shape, out_bytes);
          }
          add_accesses(t, g, mr, nr, kr, first_i, last_m, last_k);
          tiles.push_back(std::move(t));
        }
        first_i = false;
      }
    }
  }
  return tiles;
}

}  // namespace s2::sim::timing
