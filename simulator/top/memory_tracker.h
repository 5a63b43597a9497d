#pragma once
// Live DRAM bytes over simulated time, from the tensor table's planned lifetimes.
//
// Contract: a tensor becomes live when the instruction `first` of its lifetime starts and
// dies when the instruction `last` completes (tensor live from the start of instruction 0 to
// the end of the program if persistent, which the compiler records as 0..end). Live bytes are
// the sum of the reserved sizes (TensorEntry::size) of live DRAM tensors (host tensors, in
// host memory, are not counted). In a sequential run
// (window 1) the peak therefore equals planned_peak(): the maximum over instructions i of the
// bytes of the tensors whose lifetime contains i. An overlapping run can exceed it, which is
// exactly what the memory trace is for.

#include <cstdint>
#include <vector>

#include "isa/container/executable.h"

namespace s2::sim::top {

struct MemorySample {
  uint64_t cycle = 0;
  uint64_t live_bytes = 0;
};

class MemoryTracker {
 public:
  explicit MemoryTracker(const isa::Executable& exe);

  void started(uint32_t instruction, uint64_t cycle);
  void completed(uint32_t instruction, uint64_t cycle);

  uint64_t live_bytes() const { return live_; }
  uint64_t peak_bytes() const { return peak_; }
  // One sample per change, several at one cycle kept in order, so the samples' maximum is
  // the peak.
  const std::vector<MemorySample>& samples() const { return samples_; }

 private:
  void record(uint64_t cycle);

  const isa::Executable& exe_;
  std::vector<std::vector<uint32_t>> born_;  // tensors whose lifetime starts at instruction i
  std::vector<std::vector<uint32_t>> dies_;  // tensors whose lifetime ends at instruction i
  std::vector<uint8_t> state_;               // 0 not yet live, 1 live, 2 dead
  uint64_t live_ = 0;
  uint64_t peak_ = 0;
  std::vector<MemorySample> samples_;
};

// max over instructions of the planned live bytes (the static counterpart of the tracker).
uint64_t planned_peak(const isa::Executable& exe);

}  // namespace s2::sim::top
