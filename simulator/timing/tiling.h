#pragma once
// The sequencer's tiling plan: how one instruction is cut into tiles that fit the on-chip
// buffers, and the DRAM traffic and unit cycles of each tile.
//
// Double buffering: while one tile computes, the next one loads, so every tile's operands
// must fit in HALF of each buffer it loads through (input, weight, output). The accumulator is
// the exception: only the array writes it, the epilogue takes each output row as the array
// drains it (pe_array_model.h), and a tile computes until its streamed epilogue has finished
// (Tile::compute_cycles), so the next tile starts on an empty accumulator and may use all of
// it. A tile that does not fit is split further (never truncated); when even the smallest
// tile does not fit, tiling throws a UserError naming the instruction and the buffer.
//
// PE instructions (gemm_view.h gives the implicit GEMM M x N x K per group). A tile is an
// M_b x N_b x K_b block whose extents are boxes on each GEMM axis. Footprints (E bytes per
// multiplicand, f32 partial sums):
//   input        M_b * K_b * E   the streamed operand as the array consumes it (the
//                                sequencer expands convolution windows while filling it)
//   weight       K_b * N_b * E
//   accumulator  M_b * N_b * 4   partial sums across K blocks (the whole buffer, above)
//   output       M_b * N_b * (out + residual + gate) + N_b * (bias + 2 * stats)
// Loop order: group, N block, M block, K block (innermost), so a tile's partial sums stay in
// the accumulator across its K blocks. Loads per tile: the streamed block always; the
// stationary block unless it is still resident (a single K block, so the N block's weights
// stay in their half of the weight buffer across M blocks); bias, residual and gate with the
// last K block. Stores: the output block with the last K block; statistics when the last M
// block of an N block finishes.
// Orientation. The array reduces K down its rows and streams one operand's rows through them;
// the streamed rows are the pass's long dimension (up to the accumulator rows per column),
// the held operand's columns its short one (up to the array's columns), and every pass pays
// the weight load and the fill of the whole array once. When M is the short side (M < N: a GEMM
// of a few rows, a fully-connected layer at batch 4) the sequencer may instead compute the
// transpose, out^T[N, M] = stationary^T[N, K] x streamed^T[K, M]: the array holds the streamed
// operand's K_b x M_b block (from the weight buffer) and streams the stationary operand's N_b
// columns as rows (from the input buffer); the tile's passes are then N_b x M_b x K_b
// (Tile::shape, Tile::transposed), the input and weight footprints trade places, and the loop
// order is group, M block, N block, K block, so the held block stays resident across N blocks
// when there is a single K block. Each output is still the same sum in the same K order, so
// the numerics do not change. An instruction whose epilogue has per-column operands (bias,
// statistics) keeps the normal orientation: the PPU applies those per lane, and a transposed
// pass would deliver them per row.
// Block sizes: along N and M the powers of two from the array edge up and the full extents
// (and the largest block the buffers allow on the streamed side); along K also the sizes
// that are both whole filter windows and whole multiples of the pass depth (R rows, times
// the MACs per PE), so a K block of a 3x3 convolution is 288 (32 channels x 9 taps) rather
// than 27 or 63 taps that leave array rows idle. The sequencer picks the blocking (and
// orientation) with the least estimated time max(PE cycles, DRAM cycles), then the fewest
// bytes. PE cycles are the passes' own costs (pe_array_model.h), so fill and weight loads are
// amortised over as many streamed rows as the buffers allow. DRAM cycles: the first tile's
// block of each operand class (streamed, stationary, epilogue) is served alone by the
// target's DRAM model, from idle and without its first burst's latency, and each class costs
// that time per block it moves; so runs of a few bursts in far-apart DRAM rows cost what the
// DRAM makes of them, not their bytes at the peak. Only candidates whose bound max(PE cycles,
// bytes / peak) could still win are served (pe_tiling.cpp).
// A tile's pe_cycles is PeArrayModel::tile_cycles of its shape; on its last K block its
// ppu_cycles is the epilogue's work (epilogue_cycles) and its epilogue_tail the cycles the
// epilogue, streaming the array's output rows as they drain, runs past the array
// (pe_array_model.h).
// Grouped convolutions whose groups are small (depthwise: K = R*S, N = 1) would use a sliver of
// the array per tile. When the dataflow can place P = PeArrayModel::groups_per_pass(K, N) >= 2
// whole groups side by side (block-diagonal weights), the sequencer also considers tiles of P
// groups: M_b x (P*N) x (P*K), one per M block of each pack of P consecutive groups, loading and
// storing every group's blocks of that tile; it takes them when their estimated time is no
// worse. The numerics do not change (each column sums its own group's products in order).
//
// PPU and DMA instructions (ppu_model.h gives their passes): each pass is split into T tiles,
// T the smallest count whose share of every streamed operand (equal flat parts, rounded
// down at the boundaries) plus the pass's small per-channel operands fits half of the output
// buffer (the PPU staging buffer). Each tile is a PPU pass of its elements (ppu_pass_cycles).

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "isa/encoding/instruction.h"
#include "isa/target/target_desc.h"
#include "simulator/timing/dram_access.h"
#include "simulator/timing/pe_array_model.h"

namespace s2::sim::timing {

enum class Buffer : uint8_t { Input, Weight, Accumulator, Output };
inline constexpr std::array<const char*, 4> kBufferNames{"input", "weight", "accumulator",
                                                         "output"};
const target::SramBufferDesc& buffer_desc(const target::TargetDesc& target, Buffer buffer);

struct Tile {
  std::vector<DramAccess> loads;
  std::vector<DramAccess> stores;
  uint64_t pe_cycles = 0;
  uint64_t ppu_cycles = 0;
  // A PE tile (of conv2d, conv2d_bwd_*, gemm): its epilogue streams behind the array, so its
  // ppu_cycles overlap pe_cycles but for epilogue_tail (zero on a tile before its last K block).
  bool streamed_epilogue = false;
  uint64_t epilogue_tail = 0;
  // The unit's compute time for the tile: the array and the streamed epilogue's tail, or
  // otherwise the array's products (fused attention) and the PPU one after the other.
  uint64_t compute_cycles() const {
    return pe_cycles + (streamed_epilogue ? epilogue_tail : ppu_cycles);
  }
  // A PE tile: its passes' space, M_b x N_b x K_b of the GEMM, or N_b x M_b x K_b when
  // `transposed` (the array holds the streamed operand's block and streams the stationary
  // operand's columns, computing the block's transpose); zero otherwise.
  PassShape shape;
  bool transposed = false;
  // Fused attention (attention_tiling.h): every product the tile runs on the array, pe_cycles
  // their sum; ppu_cycles is then the PPU's softmax work, not an epilogue. Empty otherwise.
  std::vector<PassShape> products;
  uint64_t elements = 0;                // PPU/DMA tile: work elements (E of its pass part)
  std::optional<target::PpuOp> ppu_op;  // PPU tile: the cost entry of its pass (none: DMA)
  std::array<uint64_t, 4> footprint{};  // bytes used in each Buffer
  // A DMA stream (a copy with a side in host memory): `loads` holds the source's reads and the
  // destination's writes, which one engine moves together through its own buffer, not staged
  // in the SRAMs; `stores` is empty (dma_engines.h).
  bool streamed = false;
};

// Block sizes the sequencer tries along an axis of `size` indices for an array edge `edge`:
// the powers of two from the edge below the size, the size itself, and the powers of two below
// the edge.
std::set<uint64_t> block_size_candidates(uint64_t size, uint64_t edge);

// What a tiling fills in. Cycles: every field of every tile but its loads and stores, which
// stay empty; the tiles, their cycles and footprints are the same as with them (the sequencer
// still serves a first tile's blocks by the DRAM model to choose its blocking). The compiler's
// cost table needs only the cycles, and a large instruction's access lists are most of its
// planning time (gpt2-small's LM head at batch 8: millions of runs of a logits row).
enum class TileDetail : uint8_t { Accesses, Cycles };

// Tiles of a PE instruction (conv2d, conv2d_bwd_data, conv2d_bwd_weight, gemm).
std::vector<Tile> tile_pe_instruction(const isa::Instruction& inst,
                                      const target::TargetDesc& target, const PeArrayModel& model,
                                      TileDetail detail = TileDetail::Accesses);

// Tiles of a PPU or DMA instruction. A copy to or from host memory is one streamed tile
// (Tile::streamed): the link's latency is paid once, as a DMA engine with many reads in
// flight pays it, not once per staged tile.
std::vector<Tile> tile_stream_instruction(const isa::Instruction& inst,
                                          const target::TargetDesc& target,
                                          TileDetail detail = TileDetail::Accesses);

}  // namespace s2::sim::timing
