#pragma once
// The roofline bound of an instruction: no schedule can beat
//     max(MACs / (rows * cols * m), DRAM bytes / peak DRAM bytes per accelerator cycle)
// accelerator cycles, m the MACs per PE per cycle of the instruction's multiply mode (the
// element type of its multiplicands, pe_array.datatypes; 1 for f32). MACs are the instruction's
// true multiply-accumulates (gemm_view.h; 0 for PPU, DMA and control instructions). DRAM bytes are
// the sum of the footprints of the operands read plus those written (the bytes each operand's
// elements occupy, counted once: a strided slice of a larger buffer less than its span, a broadcast
// axis nothing, overlapping axes their distinct elements); an in-place operand counts twice. Peak
// DRAM bytes per cycle: all channels transferring every beat (DramDesc::peak_bandwidth_bytes_per_s)
// divided by the accelerator clock.
//
// A copy with an operand in host memory (isa::MemSpace::Host) moves that operand over the host
// link instead: its bytes count on the link's side, max(bytes to the host, bytes from the host) /
// the link's bytes per cycle (full duplex), and the bound is the largest of the three.

#include <cstdint>
#include <map>

#include "isa/encoding/instruction.h"
#include "isa/target/target_desc.h"

namespace s2::sim::timing {

struct Roofline {
  uint64_t macs = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t host_bytes_read = 0;  // host memory, over the link (not in bytes())
  uint64_t host_bytes_written = 0;
  uint64_t compute_cycles = 0;  // ceil(macs / (rows * cols * m))
  uint64_t memory_cycles = 0;   // ceil(bytes / peak bytes per cycle)
  uint64_t link_cycles = 0;     // ceil(larger direction's host bytes / link bytes per cycle)
  uint64_t cycles = 0;          // the bound, max of the three

  uint64_t bytes() const { return bytes_read + bytes_written; }  // DRAM bytes
  uint64_t host_bytes() const { return host_bytes_read + host_bytes_written; }
};

double dram_bytes_per_cycle(const target::TargetDesc& target);
// Bytes the host link moves per accelerator cycle in each direction (0 without a link).
double host_link_bytes_per_cycle(const target::TargetDesc& target);

Roofline roofline(const isa::Instruction& inst, const target::TargetDesc& target);

// The operands' bytes as roofline() counts them (read plus written), by element type.
std::map<isa::DType, uint64_t> operand_bytes_by_dtype(const isa::Instruction& inst);

}  // namespace s2::sim::timing
