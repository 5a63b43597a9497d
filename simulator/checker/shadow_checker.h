#pragma once
// The shadow-memory checker of s2sim --check (issue 6): follows a program's instructions in
// an execution order and reports, as structured findings (never exceptions):
//   * stale-read: bytes of a live tensor read after a different tensor overwrote them;
//   * never-written: bytes read that neither the initial data nor an earlier instruction wrote;
//   * out-of-bounds: an operand past its tensor's reserved bytes, matching no tensor live at
//     that instruction, or past the end of DRAM;
//   * hazard: two instructions touching overlapping bytes (one writing) with no dependency
//     path between them.
// Host memory is checked the same way (operand_access.h: one address line after DRAM).
// Every DRAM byte carries the tensor-table entry and instruction that last wrote it (initial
// data: its own entry, no instruction). An instruction's reads are checked before its writes
// are applied, so an in-place update reads its old value.
//
// Usage: construct it over an executable (which must outlive it), call complete(i) for each
// instruction as it completes (the SystemC top feeds the simulated completion order;
// check_executable() uses program order), then finish(). Out-of-bounds findings are reported
// when their instruction completes, hazards (order-independent) by finish().

#include <cstdint>
#include <vector>

#include "isa/container/executable.h"
#include "simulator/checker/dependency_closure.h"
#include "simulator/checker/finding.h"
#include "simulator/checker/operand_access.h"
#include "simulator/checker/shadow_memory.h"
#include "simulator/checker/tensor_attribution.h"

namespace s2::sim::checker {

struct CheckOptions {
  // Bytes of DRAM; 0 takes the executable's plan.dram_size (or, when that is 0 too, the end of
  // the highest tensor).
  uint64_t dram_bytes = 0;
};

class ShadowChecker {
 public:
  explicit ShadowChecker(const isa::Executable& exe, const CheckOptions& options = {});

  // Instruction `index` has completed: check its reads against the shadow, then tag the bytes
  // it writes. An index outside the program is an internal error (the caller's bug).
  void complete(uint32_t index);

  // Adds the hazard findings (once) and returns every finding so far.
  const std::vector<Finding>& finish();

  const std::vector<Finding>& findings() const { return findings_; }
  uint64_t dram_bytes() const { return dram_bytes_; }

 private:
  void check_reads(uint32_t index, const OperandAccess& op);
  // Records a finding found on the checker's address line, in its space's addresses.
  void add(Finding f);

  const isa::Executable& exe_;
  uint64_t dram_bytes_;
  CheckedSpaces spaces_;
  std::vector<isa::TensorEntry> tensors_;  // exe's, host entries placed after DRAM
  TensorAttribution attribution_;
  std::vector<InstructionAccess> accesses_;
  ShadowMemory shadow_;
  std::vector<Finding> findings_;
  bool finished_ = false;
};

// Runs the checker over `exe` in program order.
std::vector<Finding> check_executable(const isa::Executable& exe, const CheckOptions& options = {});

}  // namespace s2::sim::checker
