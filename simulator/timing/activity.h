#pragma once
// What an instruction makes the hardware do, counted from its timing plan for the energy
// model (simulator/energy/energy_model.h, docs/energy.md "Counters"): MACs, the bytes each
// SRAM buffer reads and writes, the PPU's element operations and the bytes the DMA engines
// move. The SRAM traffic follows the dataflow's rules for each tile's block (tiling.h):
//
//  PE tile M_b x N_b x K_b on a rows x cols array (E = 4 bytes), weight-stationary:
//    input reads        M_b * K_b * ceil(N_b / cols) * E   (the block streams once per column
//                                                           pass of the array)
//    weight reads       K_b * N_b * E                      (loaded into the PEs once)
//    accumulator        M_b * N_b * ceil(K_b / rows) * E   read and written (a read-modify-write
//                                                           per pass of `rows` K indices)
//  output-stationary: input reads as above; weight reads K_b * N_b * ceil(M_b / rows) * E; the
//    accumulator written M_b * N_b * E once (the PEs accumulate);
//  a tile that stores its block also writes it to the output buffer (the epilogue's staging):
//    M_b * N_b * E. Fused attention counts each product of the tile the same way.
//  DMA: every loaded byte is written into a buffer (a PE tile's loads fill its input block,
//    then its weight block, then the output buffer's epilogue operands, as the footprints
//    say) and every stored byte is read from the output buffer.
//  PPU and DMA tiles stage everything in the output buffer: the loads are written by the DMA
//    and read by the lanes, the results written by the lanes and read by the DMA.
//  PPU element operations: a PPU tile's elements / the op's throughput (an op of throughput
//    0.25 takes four lane operations per element); an epilogue's lane cycles x lanes.

#include <array>
#include <cstdint>

#include "isa/target/target_desc.h"
#include "simulator/timing/plan.h"

namespace s2::sim::timing {

struct Activity {
  uint64_t macs = 0;
  uint64_t macs_16bit = 0;                    // of them, MACs of bf16 or f16 operands
  std::array<uint64_t, 4> sram_read_bytes{};  // per Buffer (tiling.h)
  std::array<uint64_t, 4> sram_write_bytes{};
  uint64_t ppu_ops = 0;    // lane operations, one element each
  uint64_t dma_bytes = 0;  // moved between DRAM and the buffers

  Activity& operator+=(const Activity& o);
};

Activity instruction_activity(const InstructionPlan& plan, const target::TargetDesc& target);

}  // namespace s2::sim::timing
