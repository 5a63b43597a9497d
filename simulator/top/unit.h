#pragma once
// A execution unit (PE array, PPU or DMA): one SC_THREAD that takes instructions from its
// controller queue and replays their timing plan (simulator/timing/plan.h), planned as the
// instruction issues. The whole PE array is this one process, never one per PE.
//
// Per tile t, with double buffering (a tile's operands fit half of each buffer, tiling.h):
//   loads(t+1) issue to the DRAM when tile t starts computing (the half that tile t-1 used is
//            free by then);
//   compute(t) starts at max(loads(t) done, compute(t-1) end), on a clock edge, and takes
//            Tile::compute_cycles(): a PE tile's pe_cycles plus the tail of its epilogue, which
//            streams the array's output rows through the PPU as they drain
//            (pe_array_model.h); a PPU tile's ppu_cycles;
//   stores(t) issue when compute(t) ends.
// The instruction ends when its last compute has ended and every store has completed. A group
// handed to the DRAM is finished (its completion asked for) only when the unit must wait for it:
// loads(t+1) when compute(t) ends, the stores when the last compute ends. Until then the groups
// other units hand over share the DRAM controller's queues with it (dram_model.h). Time
// advances by at most four wait()s per tile, never per cycle -- except with --rtl, where the
// RTL units run the tiles' compute cycle by cycle (rtl_tile_clock.h).

#include <systemc>

#include "simulator/top/interfaces.h"
#include "simulator/top/run_context.h"

namespace s2::sim::top {

class Unit : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Unit);
  Unit(sc_core::sc_module_name name, isa::Unit unit);

  sc_core::sc_port<IssueIf> issue;
  sc_core::sc_port<DramIf> dram;

  void begin(RunContext& ctx) { ctx_ = &ctx; }

 private:
  void run();
  void execute(uint32_t index);
  uint64_t now_ps() const;
  void wait_until(uint64_t cycle);
  // A group handed to the DRAM at `cycle`, or none (an empty group, complete at `cycle`).
  struct Handed {
    bool empty = true;
    uint64_t ticket = 0;
    uint64_t cycle = 0;
  };
  Handed hand_over(uint64_t cycle, const std::vector<timing::DramAccess>& group);
  // The cycle `handed` completes at (asking the DRAM to decide it).
  uint64_t finish(const Handed& handed);

  isa::Unit unit_;
  RunContext* ctx_ = nullptr;
};

}  // namespace s2::sim::top
