#pragma once
// The tensors `--dump` asks for, taken from the functional replay's DRAM image at the end of
// their planned lives (run_program.h, step 3).
//
// The replay runs in the simulated completion order, not in program order, so "the end of a
// tensor's life" is not one instruction:
//  * a tensor is taken once every instruction of its life (first..last) that touches its bytes
//    has run; instruction `last` may complete before an earlier one that writes another part
//    (a concat's branches, each writing its own slice);
//  * an instruction after its life (a later tenant of some of its bytes, by index) may run
//    before that: two instructions touching different parts of a buffer need not wait for each
//    other. The bytes a tenant changes are saved as it runs, and the capture takes them.
// Both are exact when the order respects every dependency (what the shadow-memory checker
// proves): each byte a tenant writes holds the tensor's final value just before the tenant's
// first write to it, and every write of the tensor's own life to that byte came earlier.
//
// Use: before(i) and after(i) around each instruction i of the replay's last step, then
// finish() (which takes the tensors no instruction of their life touches).

#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "isa/container/executable.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim {

class TensorCapture {
 public:
  // `tensors`: tensor-table indices (each below exe.tensors.size()).
  TensorCapture(const isa::Executable& exe, const std::vector<size_t>& tensors);

  // Before instruction `index` runs on `image`: remembers the pending tensors' bytes it may
  // overwrite as a later tenant.
  void before(uint32_t index, const functional::DramImage& image);
  // After it ran: keeps the bytes a tenant changed, and takes every tensor whose life's
  // instructions have now all run.
  void after(uint32_t index, const functional::DramImage& image);

  // After the last instruction: takes what is left.
  void finish(const functional::DramImage& image);

  // Per tensor-table entry: the dense bytes of a captured tensor, empty for the others (and
  // for a tensor not yet taken).
  std::vector<std::vector<uint8_t>>& captured() { return captured_; }

 private:
  struct Pending {
    size_t outstanding = 0;         // instructions of its life that touch it and have not run
    std::vector<uint8_t> saved;     // its bytes as the first tenant that changed each found them
    std::vector<bool> kept;         // which of `saved` hold a value
    std::vector<uint8_t> snapshot;  // its bytes before the running tenant (empty otherwise)
  };
  bool touches(uint32_t index, size_t tensor) const;
  void take(size_t tensor, const functional::DramImage& image);

  const isa::Executable& exe_;
  std::vector<Pending> pending_;                 // by tensor-table index
  std::vector<std::vector<size_t>> touched_by_;  // instruction -> tensors of its life it touches
  std::set<std::pair<uint32_t, size_t>> open_;   // (last, tensor) of those not yet taken
  std::vector<size_t> watched_;                  // tensors the running instruction is a tenant of
  std::vector<std::vector<uint8_t>> captured_;
};

}  // namespace s2::sim
