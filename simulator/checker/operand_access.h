#pragma once
// The DRAM bytes each instruction reads and writes, per operand, from the ISA table: operands
// whose access is In or InOut are read, Out or InOut written, over the exact element bytes of
// their descriptors (byte_runs.h). Each operand is attributed to a tensor-table entry
// (tensor_attribution.h); bytes outside that entry or outside DRAM become out-of-bounds
// findings here, since they do not depend on the execution order.

#include <cstdint>
#include <vector>

#include "isa/container/executable.h"
#include "simulator/checker/byte_runs.h"
#include "simulator/checker/finding.h"
#include "simulator/checker/tensor_attribution.h"

namespace s2::sim::checker {

struct OperandAccess {
  isa::Slot slot = isa::Slot::X;
  bool read = false;
  bool write = false;
  ByteSet bytes;        // every element byte inside DRAM
  int64_t tensor = -1;  // attributed entry, -1 when no live entry contains the first byte
  // Bytes inside the attributed entry (all of `bytes` when there is none): the ones the
  // order-dependent checks look at, so an out-of-bounds access is not reported twice.
  ByteSet in_tensor;
  // Read operands: every live entry already holding data that contains the first byte. More
  // than one only under an overlapped plan; the stale-read check runs against each.
  std::vector<uint32_t> readable;
};

struct InstructionAccess {
  std::vector<OperandAccess> operands;  // in the opcode's operand order; absent ones left out
  ByteSet reads;                        // union over read operands
  ByteSet writes;                       // union over written operands
  std::vector<Finding> out_of_bounds;
};

// One entry per instruction of `exe`. `dram_bytes` is the size of DRAM (addresses at or past
// it are outside).
std::vector<InstructionAccess> collect_accesses(const isa::Executable& exe,
                                                const TensorAttribution& attribution,
                                                uint64_t dram_bytes);

}  // namespace s2::sim::checker
