#pragma once
// `s2sim run --rtl`: the RTL units clock the timing simulation's units. Where the model's unit
// (unit.h) would wait a tile's formula cycles, the unit's thread runs the tile on the RTL
// instead and continues when the RTL's clock has run it:
//  * PE-array tiles: every pass of the tile (the model's cut: N blocks of the columns, K blocks
//    of the rows, M blocks of the accumulator rows per column, in that order) on the PE-array
//    RTL; on the tile's last K block the epilogue streams behind the array as the hardware
//    does (pe_array_model.h): one PPU RTL pass of M_b x N_b elements with the instruction's
//    stages (bias, residual, relu, gate), clocked in step with the array, takes each output
//    row as the array's drain port delivers it (pe_array.sv, ppu.sv), and the tile ends when
//    the PPU has written its last result. With the PPU selected and not the array, the array's
//    passes wait the model's cycles and the model's drain times feed the PPU RTL; with the
//    array and not the PPU, the epilogue's tail waits the model's cycles;
//  * PPU tiles of the ops the PPU RTL implements (eltwise, sgd): one pass of the tile's
//    elements. Other PPU ops (batch norm, pooling, softmax, reduce) have no RTL: their tiles
//    wait the model's cycles and are counted as such.
// Timing has no data: the passes stream zeros (the RTL's cycles do not depend on the values;
// the functional replay checks the bits). Each tile's and each pass's RTL cycles are compared
// with the model's; a difference is a divergence in the CosimLog, naming the instruction, the
// tile and the pass. The unit takes the RTL's cycles either way: the RTL is the clock.
//
// Repeated tiles. With no data, what the RTL does with a tile is fixed by what the clock hands
// it: the pass shapes, the multiply mode, the epilogue's stages and the PPU op, and the RTL
// starts and ends every tile idle. A tile identical in all of these to one already clocked in
// this run takes that tile's RTL cycles (and its pass divergence, if any) without clocking the
// RTL again, and the unit waits them: the same cycles, the same log. A training step repeats
// its tile shapes many times over (resnet18 batch 4 on 32x32: 64 distinct of 1877 PE-array
// tiles, docs/rtl.md), and the functional replay still clocks every pass with its data.
// `reuse` false (`s2sim run --rtl-clock-every-tile`) clocks every tile; the tests run both ways
// and compare.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "isa/encoding/instruction.h"
#include "isa/target/target_desc.h"
#include "simulator/rtl/cosim_log.h"
#include "simulator/timing/pe_array_model.h"
#include "simulator/timing/tiling.h"
#include "simulator/top/rtl_units.h"

namespace s2::sim::top {

class DrainedEpilogue;  // rtl_tile_clock.cpp

class RtlTileClock {
 public:
  // The units must describe the target (a UserError naming the config key otherwise:
  // rtl::check_rtl_pe_target, and the PPU's lanes, throughputs and latencies).
  RtlTileClock(const RtlUnits& units, const target::TargetDesc& target, rtl::CosimLog& log,
               bool reuse = true);

  // Whether tiles of `unit` run here (PE array or PPU with their RTL selected).
  bool clocks(isa::Unit unit) const;

  // Runs the compute of tile `tile_index` of instruction `index` (named `op` in reports) from
  // the calling SystemC thread, starting now, on a clock edge. Returns its cycles; simulated
  // time has then advanced by exactly that many clock periods.
  uint64_t compute(isa::Unit unit, uint32_t index, const std::string& op,
                   const isa::Instruction& inst, size_t tile_index, const timing::Tile& tile);

 private:
  // What clocking a tile gave, for its repeats: the passes and cycles of the array's part,
  // its first pass divergence, and the epilogue's tail (PE tiles with a streamed epilogue).
  struct Clocked {
    uint64_t passes = 0, cycles = 0, tail = 0;
    std::string divergence;
  };

  // The PE array's cycles of one product of a tile in multiply mode `mode`; model_cycles is
  // the model's figure for it.
  uint64_t pe_product(const std::string& where, const timing::PassShape& shape,
                      uint64_t model_cycles, isa::DType mode) {
    return pe_passes(where, shape, model_cycles, mode, nullptr).cycles;
  }
  // A PE tile: its passes, and on its last K block the streamed epilogue.
  uint64_t pe_tile(const std::string& where, const isa::Instruction& inst, const timing::Tile& tile,
                   isa::DType mode);
  // The passes of a tile of shape `s`; with `epilogue`, clocked in step with them and fed the
  // rows of the last K block's passes.
  Clocked pe_passes(const std::string& where, const timing::PassShape& s, uint64_t model_cycles,
                    isa::DType mode, DrainedEpilogue* epilogue);
  // Records a PE tile's array part (clocked now or earlier) in the log's pe_array timing.
  void record_pe(const std::string& where, const timing::PassShape& s, isa::DType mode,
                 const Clocked& clocked, uint64_t model_cycles);
  uint64_t ppu_tile(const std::string& where, const isa::Instruction& inst,
                    const timing::Tile& tile);
  // Waits `cycles` of the model (a part the RTL does not run).
  void wait_cycles(uint64_t cycles) const;
  // One PPU pass of `elements` zeros on `ppu`; returns the RTL's cycles.
  uint64_t ppu_pass(s2::rtl::RtlPpuSc& ppu, s2::rtl::PpuPass pass, target::PpuOp cost,
                    uint64_t elements);

  // PE products and tiles: M_b, N_b, K_b, mode, and the epilogue's stages (bias, residual,
  // gate, relu; -1 without an epilogue).
  using PeKey = std::tuple<uint64_t, uint64_t, uint64_t, isa::DType, int>;
  // PPU passes: the RTL op, the cost entry, the elements.
  using PpuKey = std::tuple<int, target::PpuOp, uint64_t>;

  RtlUnits units_;
  const target::TargetDesc& target_;
  rtl::CosimLog& log_;
  bool reuse_;
  std::map<PeKey, Clocked> pe_clocked_;
  std::map<PpuKey, uint64_t> ppu_clocked_;
  timing::PeArrayModels models_;  // one per multiply mode of the target
  // Zero operands, grown to the largest pass seen; outputs are scratch.
  std::vector<uint32_t> zeros_;
  std::vector<uint32_t> out0_, out1_;
  // The streamed epilogue's: zeros for bias, residual and gate, the drained rows, the results.
  std::vector<uint32_t> ep_zeros_, ep_rows_, ep_out0_, ep_out1_;
};

}  // namespace s2::sim::top
