#include "simulator/timing/attention_tiling.h"

#include <algorithm>
#include <string>

#include "isa/common/errors.h"
#include "simulator/timing/ppu_model.h"

namespace s2::sim::timing {
namespace {

using isa::Opcode;
using isa::Slot;

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

// Query block [i0, i1) meets key block starting at j0 unless causal leaves it out entirely.
bool kept(const AttentionShape& s, uint64_t i1, uint64_t j0) {
  return !s.causal || j0 + 1 <= i1;
}

// Kept (query block, key block) pairs of one batch index.
uint64_t kept_pairs(const AttentionShape& s, const AttentionBlocks& b) {
  const uint64_t nk = ceil_div(s.tk, b.k);
  if (!s.causal) return ceil_div(s.tq, b.q) * nk;
  uint64_t pairs = 0;
  for (uint64_t i0 = 0; i0 < s.tq; i0 += b.q) {
    const uint64_t i1 = std::min(s.tq, i0 + b.q);
    pairs += std::min(nk, ceil_div(i1, b.k));
  }
  return pairs;
}

uint64_t sum_cycles(const PeArrayModel& model, const std::vector<PassShape>& products) {
  uint64_t cycles = 0;
  for (const PassShape& p : products)
    cycles += model.tile_cycles(p);
  return cycles;
}

// Box of rows [r0, r1) (dimension rank-2) and columns [c0, c1) (the last) of batch index b of
// a [B..., rows, cols] descriptor; a [B..., rows] one (lse) takes only the rows.
Box batch_box(const isa::TensorDesc& desc, unsigned batch_rank, uint64_t b, uint64_t r0,
              uint64_t r1, uint64_t c0, uint64_t c1) {
  Box box;
  if (batch_rank == 2) {
    box.lo[0] = b / desc.shape[1];
    box.lo[1] = b % desc.shape[1];
  } else {
    box.lo[0] = b;
  }
  for (unsigned i = 0; i < batch_rank; ++i)
    box.hi[i] = box.lo[i] + 1;
  box.lo[batch_rank] = r0;
  box.hi[batch_rank] = r1;
  if (desc.rank > batch_rank + 1) {
    box.lo[batch_rank + 1] = c0;
    box.hi[batch_rank + 1] = c1;
  }
  return box;
}

}  // namespace

AttentionShape attention_shape(const isa::Instruction& inst) {
  const isa::TensorDesc& q = inst.get(Slot::Q);
  const isa::TensorDesc& k = inst.get(Slot::K);
  const isa::TensorDesc& v = inst.get(Slot::V);
  const unsigned r = q.rank;
  AttentionShape s;
  s.tq = q.shape[r - 2];
  s.d = q.shape[r - 1];
  s.tk = k.shape[r - 2];
  s.dv = v.shape[r - 1];
  s.batches = q.elements() / (s.tq * s.d);
  s.causal = inst.flag(isa::Field::Causal);
  s.mask = inst.operand(Slot::Mask).has_value();
  s.elem = isa::dtype_bytes(q.dtype);
  s.dq_acc = inst.has_slot(Slot::DqAcc) && inst.operand(Slot::DqAcc).has_value();
  return s;
}

std::array<uint64_t, 4> attention_footprint(const AttentionShape& s, const AttentionBlocks& b,
                                            bool backward) {
  const uint64_t mask = s.mask ? b.q * b.k : 0;
  const uint64_t e = s.elem, f = kF32Bytes;
  if (!backward)
    return {(b.q * s.d + b.q * b.k) * e, b.k * (s.d + s.dv) * e, (b.q * b.k + b.q * s.dv) * f,
            b.q * s.dv * e + (3 * b.q + mask) * f};
  return {(b.q * (s.d + s.dv) + b.q * b.k) * e, b.k * (s.d + s.dv) * e,
          (b.q * b.k + b.k * (s.d + s.dv) + b.q * s.d) * f, (2 * b.q + s.tq + mask) * f};
}

uint64_t attention_dram_bytes(const AttentionShape& s, const AttentionBlocks& b) {
  const uint64_t pairs = kept_pairs(s, b);
  const uint64_t nq = ceil_div(s.tq, b.q);
  const uint64_t e = s.elem, f = kF32Bytes;
  const uint64_t run = s.dq_acc ? f : e;  // an element of the running dq
  // Forward: q, y, lse once; k and v once per kept pair (a block of Bk rows); the mask's kept
  // blocks.
  uint64_t per_batch = s.tq * (s.d + s.dv) * e + s.tq * f + pairs * b.k * (s.d + s.dv) * e;
  // Backward: y and dy for Dr; k, v, dk, dv once; per kept pair q, dy, lse and the running dq
  // written (and read back after the first key block); a 16-bit dq once more, rounded.
  per_batch += 2 * s.tq * s.dv * e + 2 * s.tk * (s.d + s.dv) * e +
               pairs * b.q * ((s.d + s.dv) * e + f + s.d * run) +
               (pairs - std::min(pairs, nq)) * b.q * s.d * run;
  if (s.dq_acc) per_batch += s.tq * s.d * e;
  if (s.mask) per_batch += 2 * pairs * b.q * b.k * f;
  return s.batches * per_batch;
}

std::optional<AttentionBlocks> choose_attention_blocks(const target::TargetDesc& target,
                                                       const AttentionShape& s) {
  std::array<uint64_t, 4> half{};
  for (unsigned i = 0; i < 4; ++i)
    half[i] = buffer_desc(target, static_cast<Buffer>(i)).size_bytes / 2;
  std::optional<AttentionBlocks> best;
  uint64_t best_bytes = 0;
  for (uint64_t bq : block_size_candidates(s.tq, target.pe_array.cols)) {
    for (uint64_t bk : block_size_candidates(s.tk, target.pe_array.rows)) {
      const AttentionBlocks b{bq, bk};
      bool fits = true;
      for (bool backward : {false, true}) {
        const auto f = attention_footprint(s, b, backward);
        for (unsigned i = 0; i < 4; ++i)
          fits = fits && f[i] <= half[i];
      }
      if (!fits) continue;
      const uint64_t bytes = attention_dram_bytes(s, b);
      const bool better = !best || bytes < best_bytes ||
                          (bytes == best_bytes && (bq * bk > best->q * best->k ||
                                                   (bq * bk == best->q * best->k && bk > best->k)));
      if (better) {
        best = b;
        best_bytes = bytes;
      }
    }
  }
  return best;
}

uint64_t attention_macs(const isa::Instruction& inst) {
  const AttentionShape s = attention_shape(inst);
  const AttentionBlocks b{inst.u(isa::Field::BlockQ), inst.u(isa::Field::BlockK)};
  // Full blocks are an upper bound for the partial ones at the edges; count them exactly.
  uint64_t cells = 0;  // kept query x key cells, whole blocks
  for (uint64_t i0 = 0; i0 < s.tq; i0 += b.q) {
    const uint64_t i1 = std::min(s.tq, i0 + b.q);
    for (uint64_t j0 = 0; j0 < s.tk && kept(s, i1, j0); j0 += b.k)
      cells += (i1 - i0) * (std::min(s.tk, j0 + b.k) - j0);
  }
  const uint64_t per_cell = inst.opcode() == Opcode::AttnFwd ? s.d + s.dv : 3 * s.d + 2 * s.dv;
  return s.batches * cells * per_cell;
}

std::vector<Tile> tile_attention(const isa::Instruction& inst, const target::TargetDesc& target,
                                 const PeArrayModel& model, TileDetail detail) {
  const AttentionShape s = attention_shape(inst);
  const AttentionBlocks blk{inst.u(isa::Field::BlockQ), inst.u(isa::Field::BlockK)};
  const bool backward = inst.opcode() == Opcode::AttnBwd;
  const auto footprint = attention_footprint(s, blk, backward);
  for (unsigned i = 0; i < 4; ++i) {
    const uint64_t half = buffer_desc(target, static_cast<Buffer>(i)).size_bytes / 2;
    if (footprint[i] > half)
      throw UserError(std::string(inst.info().mnemonic) + ": blocks of " + std::to_string(blk.q) +
                      " x " + std::to_string(blk.k) + " need " + std::to_string(footprint[i]) +
                      " bytes of the " + kBufferNames[i] + " buffer, but half of it is " +
                      std::to_string(half) + " bytes in target '" + target.name +
                      "'; compile for this target (s2c compile --config)");
  }
  const unsigned batch_rank = inst.get(Slot::Q).rank - 2;
  auto add = [&](std::vector<DramAccess>& out, Slot slot, uint64_t b, uint64_t r0, uint64_t r1,
                 uint64_t c0, uint64_t c1, bool write) {
    if (detail == TileDetail::Cycles || !inst.operand(slot).has_value()) return;
    box_accesses(inst.get(slot), batch_box(inst.get(slot), batch_rank, b, r0, r1, c0, c1), write,
                 out);
  };
  const auto softmax = target::PpuOp::Softmax;
  std::vector<Tile> tiles;
  for (uint64_t b = 0; b < s.batches; ++b) {
    if (!backward) {
      for (uint64_t i0 = 0; i0 < s.tq; i0 += blk.q) {
        const uint64_t i1 = std::min(s.tq, i0 + blk.q), bq = i1 - i0;
        for (uint64_t j0 = 0; j0 < s.tk && kept(s, i1, j0); j0 += blk.k) {
          const uint64_t j1 = std::min(s.tk, j0 + blk.k), bk = j1 - j0;
          Tile t;
          t.shape = {bq, bk, s.d};
          t.footprint = footprint;
          t.products = std::vector<PassShape>{{bq, bk, s.d}, {bq, s.dv, bk}};
          t.pe_cycles = sum_cycles(model, t.products);
          t.ppu_cycles = ppu_pass_cycles(target, softmax, bq * bk);
          if (j0 > 0) t.ppu_cycles += ppu_pass_cycles(target, target::PpuOp::Eltwise, bq * s.dv);
          if (j0 == 0) add(t.loads, Slot::Q, b, i0, i1, 0, s.d, false);
          add(t.loads, Slot::K, b, j0, j1, 0, s.d, false);
          add(t.loads, Slot::V, b, j0, j1, 0, s.dv, false);
          add(t.loads, Slot::Mask, b, i0, i1, j0, j1, false);
          if (j1 == s.tk || !kept(s, i1, j1)) {
            add(t.stores, Slot::Y, b, i0, i1, 0, s.dv, true);
            add(t.stores, Slot::Lse, b, i0, i1, 0, 0, true);
          }
          tiles.push_back(std::move(t));
        }
      }
      continue;
    }
    for (uint64_t i0 = 0; i0 < s.tq; i0 += blk.q) {  // Dr = rowsum(dy * y)
      const uint64_t i1 = std::min(s.tq, i0 + blk.q);
      Tile t;
      t.footprint = footprint;
      t.ppu_cycles = ppu_pass_cycles(target, target::PpuOp::Reduce, (i1 - i0) * s.dv);
      add(t.loads, Slot::Y, b, i0, i1, 0, s.dv, false);
      add(t.loads, Slot::Dy, b, i0, i1, 0, s.dv, false);
      tiles.push_back(std::move(t));
    }
    for (uint64_t j0 = 0; j0 < s.tk; j0 += blk.k) {
      const uint64_t j1 = std::min(s.tk, j0 + blk.k), bk = j1 - j0;
      // The first query block that keeps this key block (causal starts at the diagonal).
      uint64_t first = 0;
      while (first < s.tq && !kept(s, std::min(s.tq, first + blk.q), j0))
        first += blk.q;
      for (uint64_t i0 = first; i0 < s.tq; i0 += blk.q) {
        const uint64_t i1 = std::min(s.tq, i0 + blk.q), bq = i1 - i0;
        Tile t;
        t.shape = {bq, bk, s.d};
        t.footprint = footprint;
        t.products = std::vector<PassShape>{
            {bq, bk, s.d}, {bk, s.dv, bq}, {bq, bk, s.dv}, {bq, s.d, bk}, {bk, s.d, bq}};
        t.pe_cycles = sum_cycles(model, t.products);
        t.ppu_cycles = ppu_pass_cycles(target, softmax, bq * bk) +
                       ppu_pass_cycles(target, target::PpuOp::SoftmaxBwd, bq * bk);
        if (i0 == first) {
          add(t.loads, Slot::K, b, j0, j1, 0, s.d, false);
          add(t.loads, Slot::V, b, j0, j1, 0, s.dv, false);
        }
        add(t.loads, Slot::Q, b, i0, i1, 0, s.d, false);
        add(t.loads, Slot::Dy, b, i0, i1, 0, s.dv, false);
        add(t.loads, Slot::Lse, b, i0, i1, 0, 0, false);
        add(t.loads, Slot::Mask, b, i0, i1, j0, j1, false);
        const Slot running = s.dq_acc ? Slot::DqAcc : Slot::DQ;
        if (j0 > 0) add(t.loads, running, b, i0, i1, 0, s.d, false);
        add(t.stores, running, b, i0, i1, 0, s.d, true);
        if (s.dq_acc && (j1 == s.tk || !kept(s, i1, j1)))
          add(t.stores, Slot::DQ, b, i0, i1, 0, s.d, true);
        if (i1 == s.tq) {
          add(t.stores, Slot::DK, b, j0, j1, 0, s.d, true);
          add(t.stores, Slot::DV, b, j0, j1, 0, s.dv, true);
        }
        tiles.push_back(std::move(t));
      }
    }
  }
  return tiles;
}

}  // namespace s2::sim::timing
