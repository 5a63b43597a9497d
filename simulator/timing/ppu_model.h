#pragma once
// The PPU's cost model and the passes of every PPU and DMA instruction.
//
// The PPU is `lanes` vector lanes. An operation has, per the config's ppu ops table, a
// throughput (output elements per lane per cycle) and a pipeline latency. Its results go
// through the output (staging) buffer, whose port takes P = banks * bank_width / 4 fp32
// values per cycle. One pass of an op over E elements costs
//     latency + ceil(E / min(lanes * throughput, P))      cycles (0 for E = 0).
// (Every shipped configuration has P = lanes: the port keeps up with the lanes at throughput 1.)
// An instruction is one or more passes; each pass streams its operands from DRAM through the
// output (PPU staging) buffer, so a two-pass op reads its inputs twice. The passes and what
// E counts ("work"):
//
//   bn_fwd       1. statistics: read x, E = |x|      (skipped when `stats` is given: the PE
//                                                      epilogue already accumulated them)
//                2. normalise: read x, write y, E = |x|; per-channel gamma, beta (and stats,
//                   running statistics) read, mean, invstd (and running statistics) written
//   bn_bwd       1. reductions of dy and dy*(x - mean): read dy, x (gate), E = |x|; mean and
//                   invstd read, dgamma and dbeta written at its end
//                2. dx: read dy, x (gate), write dx, E = |x|; gamma, mean, invstd read
//   maxpool_fwd  read x, write y (and idx), E = |y|
//   maxpool_bwd  read dy, idx, write dx, E = |dx| (zero, then scatter to the argmax)
//   avgpool_fwd  read x, write y, E = |y|
//   avgpool_bwd  read dy, write dx, E = |dx|
//   eltwise      read a (b), write y, E = |y|
//   softmax_ce   read logits, labels, write dlogits (loss at the end), E = |logits|
//   sgd          read weight, grad (velocity), write weight (velocity), E = |weight|; grad_scale
//                (gradient clipping) read with the first tile
//   adamw        read weight, grad, exp_avg, exp_avg_sq, write weight, exp_avg, exp_avg_sq,
//                E = |weight|; the step count (and grad_scale) read with the first tile, the
//                step written with the last
//   clip_scale   read sumsq, write grad_scale and total_norm at the end, E = |sumsq|
//   reduce       read x, write y, E = |x| (the reduction consumes every input)
//   gather       read ids and one table row per id, write y, E = |y|
//   scatter_add  1. zero dw (stores only, no PPU cycles)
//                2. read dy, ids and the dw row of each id, add, write the row back, E = |dy|
//   copy, fill   DMA: read src / write dst through the output buffer, no PPU cycles
//
// In a tiled pass every tile is a pass of its own and pays the latency: the PPU accepts a new
// pass only once the previous one has drained (rtl_models/ppu/ppu.sv; its operands are already
// in the other half of the staging buffer, so only the pipeline latency is exposed).

#include <cstdint>
#include <optional>
#include <vector>

#include "isa/encoding/instruction.h"
#include "isa/target/target_desc.h"

namespace s2::sim::timing {

// Cycles of one pass of `op` over `elements` elements, with the latency. The output buffer's
// port caps the rate at its bytes per cycle over `element_bytes`, the size of the results the
// pass writes (4 for f32; 2 when they are bf16 or f16).
uint64_t ppu_pass_cycles(const target::TargetDesc& target, target::PpuOp op, uint64_t elements,
                         uint64_t element_bytes = 4);
// The rate of that pass: min(lanes * throughput, output port bytes / element_bytes) elements
// per cycle (> 0; an internal error for a target whose op has no throughput).
double ppu_rate(const target::TargetDesc& target, target::PpuOp op, uint64_t element_bytes = 4);

struct StreamPass {
  // Operands streamed element by element, chunked into equal flat parts per tile.
  std::vector<isa::Slot> loads;
  std::vector<isa::Slot> stores;
  // Small per-channel operands: read whole with the first tile, written with the last.
  std::vector<isa::Slot> small_loads;
  std::vector<isa::Slot> small_stores;
  uint64_t work = 0;                // E of the pass
  std::optional<target::PpuOp> op;  // none for DMA passes
  // Batch norm: the small operands hold one value per channel (their last dimension) of the
  // streamed [N, C, S] operands, element i in channel (i / channel_stride) % channels. When
  // they do not fit the output buffer whole (thousands of channels), each tile loads and
  // stores the slices of the channels its part touches. 0: not per-channel.
  uint64_t channels = 0;
  uint64_t channel_stride = 0;
  // Embedding lookups: the operand `table` [V, D] (listed in loads, and in stores when
  // written back) is touched one row per id, not whole: it streams as `work` elements, element
  // k in row (k / D) mod V. Which rows the ids name is data the timing model does not see, so
  // it takes consecutive rows: the bytes and the bursts of each row are exact, the DRAM page
  // locality between rows is assumed.
  std::optional<isa::Slot> table = std::nullopt;
};

// The passes of a PPU or DMA instruction, listing only the operands present; an internal
// error for a PE or control instruction.
std::vector<StreamPass> stream_passes(const isa::Instruction& inst);

// The PPU op of a PPU instruction (its cost entry), or none for DMA.
std::optional<target::PpuOp> ppu_op_of(isa::Opcode opcode);

// Untiled PPU cycles of a whole instruction: the sum over its passes.
uint64_t ppu_instruction_cycles(const isa::Instruction& inst, const target::TargetDesc& target);

// The element size that sets a pass's port rate: the largest of its streamed outputs (4 when
// it streams none).
uint64_t pass_element_bytes(const isa::Instruction& inst, const StreamPass& pass);

}  // namespace s2::sim::timing
