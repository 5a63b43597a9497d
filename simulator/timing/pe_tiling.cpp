// PE instruction tiling (tiling.h): block-size choice and the tile list.
#include <algorithm>
#include <set>
#include <string>

#include "isa/common/errors.h"
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

struct Needs {  // what the epilogue adds to the output buffer
  uint64_t per_pixel = 0, per_column = 0;
};

Needs needs_of(const GemmView& v) {
  Needs n;
  for (const GemmOperand& op : v.operands) {
    if (op.role == GemmRole::PerPixel) ++n.per_pixel;
    if (op.role == GemmRole::PerColumn) n.per_column += 1;
    if (op.role == GemmRole::Stats) n.per_column += 2;
  }
  return n;
}

std::array<uint64_t, 4> footprint(uint64_t m, uint64_t n, uint64_t k, const Needs& e) {
  return {m * k * kF32Bytes, k * n * kF32Bytes, m * n * kF32Bytes,
          m * n * kF32Bytes * (1 + e.per_pixel) + n * kF32Bytes * e.per_column};
}

struct Blocking {
  Dims3 m, n, k;
  double time = 0;
  double bytes = 0;
  uint64_t tiles = 0;
  uint64_t pack = 1;  // channel groups per tile, side by side (PeArrayModel::groups_per_pass)
};

[[noreturn]] void does_not_fit(const isa::Instruction& inst, const target::TargetDesc& target,
                               const Needs& needs) {
  const auto need = footprint(1, 1, 1, needs);
  for (unsigned b = 0; b < 4; ++b) {
    const uint64_t half = buffer_desc(target, static_cast<Buffer>(b)).size_bytes / 2;
    if (need[b] > half)
      throw UserError(
          std::string(inst.info().mnemonic) + ": even the smallest tile (1 x 1 x 1) needs " +
          std::to_string(need[b]) + " bytes of the " + kBufferNames[b] +
          " buffer, but half of it (the other half double-buffers) is " + std::to_string(half) +
          " bytes in target '" + target.name + "'; enlarge sram." + kBufferNames[b]);
  }
  throw InternalError("timing: no tiling found for " + std::string(inst.info().mnemonic) +
                      " although a 1 x 1 x 1 tile fits");
}

Blocking choose(const GemmView& v, const isa::Instruction& inst, const target::TargetDesc& target,
                const PeArrayModel& model) {
  const Needs needs = needs_of(v);
  std::array<uint64_t, 4> half{};
  for (unsigned b = 0; b < 4; ++b)
    half[b] = buffer_desc(target, static_cast<Buffer>(b)).size_bytes / 2;
  const double dram_rate = dram_bytes_per_cycle(target);
  const uint64_t msize = GemmView::size(v.m), nsize = GemmView::size(v.n),
                 ksize = GemmView::size(v.k);
  const uint64_t per_pixel_bytes = kF32Bytes * (1 + needs.per_pixel);
  bool found = false;
  Blocking best;
  for (uint64_t nb : block_size_candidates(nsize, target.pe_array.cols)) {
    const uint64_t column_bytes = nb * kF32Bytes * needs.per_column;
    if (column_bytes >= half[3]) continue;
    std::set<uint64_t> seen_k;
    for (uint64_t kt : block_size_candidates(ksize, target.pe_array.rows)) {
      const Dims3 kd = aligned(v.k, kt);
      const uint64_t kb = GemmView::size(kd);
      if (!seen_k.insert(kb).second) continue;
      if (kb * nb * kF32Bytes > half[1]) continue;
      const uint64_t mt = std::min({msize, half[0] / (kb * kF32Bytes), half[2] / (nb * kF32Bytes),
                                    (half[3] - column_bytes) / (nb * per_pixel_bytes)});
      if (mt == 0) continue;
      const Dims3 md = aligned(v.m, mt);
      const uint64_t mb = GemmView::size(md);
      const uint64_t nm = blocks(v.m, md), nn = ceil_div(nsize, nb), nk = blocks(v.k, kd);
      const uint64_t tiles = v.groups * nm * nn * nk;
      const double pe =
          static_cast<double>(tiles) * static_cast<double>(model.tile_cycles({mb, nb, kb}));
      const double streamed = static_cast<double>(tiles * mb * kb * kF32Bytes);
      const double stationary =
          static_cast<double>(v.groups * nn * nk * (nk == 1 ? 1 : nm) * kb * nb * kF32Bytes);
      const double out = static_cast<double>(v.groups * msize * nsize * per_pixel_bytes);
      const double bytes = streamed + stationary + out;
      const double time = std::max(pe, bytes / dram_rate);
      const bool better = !found || time < best.time ||
                          (time == best.time &&
                           (bytes < best.bytes || (bytes == best.bytes && tiles < best.tiles)));
      if (better) best = {md, {1, 1, nb}, kd, time, bytes, tiles};
      found = true;
    }
  }
  if (!found) does_not_fit(inst, target, needs);
  // Small groups (depthwise: one channel, k = R*S) packed side by side: each group whole (one
  // K block, one N block), `pack` groups per tile, the block-diagonal weights dense in the
  // weight buffer as the array loads them. The same operands move; only the PE time shrinks.
  const uint64_t pack = std::min(v.groups, model.groups_per_pass(ksize, nsize));
  if (pack < 2) return best;
  const uint64_t column_bytes = pack * nsize * kF32Bytes * needs.per_column;
  if (column_bytes >= half[3] || pack * ksize * pack * nsize * kF32Bytes > half[1]) return best;
  const uint64_t packs = ceil_div(v.groups, pack), last = v.groups - (packs - 1) * pack;
  for (uint64_t mt : block_size_candidates(msize, target.pe_array.cols)) {
    mt = std::min({mt, half[0] / (pack * ksize * kF32Bytes), half[2] / (pack * nsize * kF32Bytes),
                   (half[3] - column_bytes) / (pack * nsize * per_pixel_bytes)});
    if (mt == 0) continue;
    const Dims3 md = aligned(v.m, mt);
    const uint64_t mb = GemmView::size(md), nm = blocks(v.m, md);
    uint64_t pe_cycles = 0;  // the pe time of one M block of every pack
    for (uint64_t p : {pack, last})
      pe_cycles += (p == pack ? packs - 1 : 1) * model.tile_cycles({mb, p * nsize, p * ksize});
    const double pe = static_cast<double>(nm) * static_cast<double>(pe_cycles);
    const double bytes = static_cast<double>(v.groups * nm * mb * ksize * kF32Bytes +
                                             v.groups * ksize * nsize * kF32Bytes +
                                             v.groups * msize * nsize * per_pixel_bytes);
    const double time = std::max(pe, bytes / dram_rate);
    if (time < best.time || (time == best.time && bytes <= best.bytes))
      best = {md, v.n, v.k, time, bytes, packs * nm, pack};
  }
  return best;
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
                                      const target::TargetDesc& target, const PeArrayModel& model) {
  const GemmView v = gemm_view(inst);
  const Blocking blk = choose(v, inst, target, model);
  const Needs needs = needs_of(v);
  std::vector<Tile> tiles;
  tiles.reserve(blk.tiles);
  const uint64_t nk_total = blocks(v.k, blk.k);
  // The operands' descriptors, looked up once rather than per tile.
  std::vector<const isa::TensorDesc*> descs;
  descs.reserve(v.operands.size());
  for (const GemmOperand& op : v.operands)
    descs.push_back(&inst.get(op.slot));
  // Adds group g's loads and stores of the block (mr, nr, kr) to tile t.
  auto add_accesses = [&](Tile& t, uint64_t g, const Range3& mr, const Range3& nr, const Range3& kr,
                          bool first_m, bool last_m, bool last_k) {
    for (std::size_t o = 0; o < v.operands.size(); ++o) {
      const GemmOperand& op = v.operands[o];
      bool load = false, store = false;
      switch (op.role) {
        case GemmRole::Streamed:
          load = true;
          break;
        case GemmRole::Stationary:
          load = nk_total > 1 || first_m;
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
        t.ppu_cycles = epilogue_cycles(target, t.shape.m * t.shape.n);
        for (uint64_t g = g0; g < g0 + p; ++g)
          add_accesses(t, g, mr, nr, kr, first_m, !more_m, true);
        tiles.push_back(std::move(t));
        first_m = false;
      }
    }
    return tiles;
  }
  for (uint64_t g = 0; g < v.groups; ++g) {
    Dims3 npos{};
    do {
      const Range3 nr = block_range(v.n, blk.n, npos);
      Dims3 mpos{};
      bool first_m = true;
      bool more_m = true;
      while (more_m) {
        const Range3 mr = block_range(v.m, blk.m, mpos);
        more_m = next_pos(v.m, blk.m, mpos);
        Dims3 kpos{};
        bool more_k = true;
        while (more_k) {
          const Range3 kr = block_range(v.k, blk.k, kpos);
          more_k = next_pos(v.k, blk.k, kpos);
          const bool last_k = !more_k;
          Tile t;
          t.shape = {extent(mr), extent(nr), extent(kr)};
          t.footprint = footprint(t.shape.m, t.shape.n, t.shape.k, needs);
          t.pe_cycles = model.tile_cycles(t.shape);
          if (last_k) t.ppu_cycles = epilogue_cycles(target, t.shape.m * t.shape.n);
          add_accesses(t, g, mr, nr, kr, first_m, !more_m, last_k);
          tiles.push_back(std::move(t));
        }
        first_m = false;
      }
    } while (next_pos(v.n, blk.n, npos));
  }
  return tiles;
}

}  // namespace s2::sim::timing
