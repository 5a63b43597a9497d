#pragma once
// The DRAM bytes each instruction reads and writes, per operand, from the ISA table: operands
// whose access is In or InOut are read, Out or InOut written, over the exact element bytes of
// their descriptors (byte_runs.h). Each operand is attributed to a tensor-table entry
// (tensor_attribution.h); bytes outside that entry or outside DRAM become out-of-bounds
// findings here, since they do not depend on the execution order.
//
// Host memory (isa::MemSpace::Host) is checked the same way in one address line with DRAM:
// the checker places host address a at host_base() + a, right after DRAM, so the byte sets,
// the shadow and the hazard scan cover both spaces at once; findings are given back in the
// space's own addresses (Finding::host).

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
  // Read operands: the live entries already holding data that contain the first byte (the
  // first TensorAttribution::kMaxReadable in table order). More than one only under an
  // overlapped plan; the stale-read check runs against each.
  std::vector<uint32_t> readable;
};

// The checker's address line: DRAM at [0, dram_bytes), host memory after it.
struct CheckedSpaces {
  uint64_t dram_bytes = 0;
  uint64_t host_bytes = 0;

  uint64_t host_base() const { return dram_bytes; }
  uint64_t base(isa::MemSpace space) const {
    return space == isa::MemSpace::Host ? host_base() : 0;
  }
  uint64_t size(isa::MemSpace space) const {
    return space == isa::MemSpace::Host ? host_bytes : dram_bytes;
  }
  // A finding's range back in its space's addresses (host ones marked as such).
  void localise(Finding& f) const;
};

// The tensor table with each host entry's address on the checker's line.
std::vector<isa::TensorEntry> checked_tensors(const std::vector<isa::TensorEntry>& tensors,
                                              const CheckedSpaces& spaces);

struct InstructionAccess {
  std::vector<OperandAccess> operands;  // in the opcode's operand order; absent ones left out
  ByteSet reads;                        // union over read operands
  ByteSet writes;                       // union over written operands
  std::vector<Finding> out_of_bounds;
};

// One entry per instruction of `exe`, on the checker's address line: `tensors` is
// checked_tensors() of exe's, `attribution` over them. Out-of-bounds findings are localised.
std::vector<InstructionAccess> collect_accesses(const isa::Executable& exe,
                                                const std::vector<isa::TensorEntry>& tensors,
                                                const TensorAttribution& attribution,
                                                const CheckedSpaces& spaces);

}  // namespace s2::sim::checker
