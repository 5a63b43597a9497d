#pragma once
// What one simulated training step produced: the data every report (summary, JSON, trace,
// memory CSV) is rendered from. Filled by the SystemC top (simulator/top/top.h); times are in
// accelerator cycles from the start of the run.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "isa/encoding/isa_table.h"
#include "simulator/dram/dram_model.h"
#include "simulator/energy/energy_model.h"
#include "simulator/timing/activity.h"
#include "simulator/top/dependency_tracker.h"
#include "simulator/top/memory_tracker.h"

namespace s2::sim::report {

struct InstructionRecord {
  uint32_t index = 0;
  std::string op;  // first source op name from the debug section, else the mnemonic
  std::string mnemonic;
  isa::Unit unit = isa::Unit::Control;
  uint64_t start_cycle = 0;
  uint64_t end_cycle = 0;
  uint64_t compute_cycles = 0;  // PE plus PPU cycles of its tiles
  uint64_t tiles = 0;
  // PE instructions: the cycles the array computes (its tiles' PE cycles, epilogue left out)
  // and the first tile's M x N x K block, the split the sequencer chose (all zero for fused
  // attention, whose tiles run several products, and for other units), and its orientation
  // (tiling.h: transposed, the array holds the streamed operand and streams N).
  uint64_t pe_cycles = 0;
  uint64_t block_m = 0, block_n = 0, block_k = 0;
  bool transposed = false;
  uint64_t macs = 0;
  uint32_t macs_per_pe = 1;  // the array's MACs per PE per cycle in its multiply mode
  uint64_t bytes = 0;        // roofline bytes
  uint64_t dram_bytes = 0;   // what its tiles load and store in DRAM (the timing plan)
  uint64_t host_bytes = 0;   // ... and in host memory, over the host link
  uint64_t roofline_cycles = 0;
  timing::Activity activity;  // what its tiles made the hardware do (energy counters)

  uint64_t cycles() const { return end_cycle - start_cycle; }
};

struct UnitSummary {
  uint64_t busy_cycles = 0;     // cycles holding an instruction (one at a time per unit)
  uint64_t compute_cycles = 0;  // cycles its datapath computed (PE or PPU cycles of tiles)
  uint64_t instructions = 0;
};

// One DRAM group (a tile's loads or stores) as the DRAM model served it.
struct DramEvent {
  uint64_t start_cycle = 0;
  uint64_t end_cycle = 0;
  uint64_t bytes = 0;       // every byte the transfer moved
  uint64_t host_bytes = 0;  // of which over the host link (a copy's host side)
  bool write = false;
};

// What crossed the host link (target.host_link) in a run: the host side of copies that name
// host memory (swapping to and from host memory).
struct HostLinkSummary {
  double bandwidth_gb_s = 0;  // per direction
  double latency_ns = 0;
  uint64_t memory_bytes = 0;  // host memory the target gives the accelerator
  uint64_t used_bytes = 0;    // the executable's plan: host_size
  uint64_t to_host_bytes = 0;
  uint64_t from_host_bytes = 0;
  uint64_t to_host_busy_cycles = 0;  // cycles each direction was moving data
  uint64_t from_host_busy_cycles = 0;
  // Cycles the PE array and the PPU waited for such copies (top.cpp, host_copy_waits): what
  // swapping cost the step.
  uint64_t compute_wait_cycles = 0;
};

// The recomputations `s2c compile --memory-budget` inserted (instructions whose op is named
// `*.recompute*`): what recomputing instead of keeping cost the step, measured as those
// instructions' cycles on their units.
struct RecomputeSummary {
  uint32_t instructions = 0;
  uint64_t cycles = 0;  // end - start of each, summed
};

// The units that run instructions from their own queue (isa.def S2_UNIT), in report order.
inline constexpr const auto& kTimedUnits = isa::kQueuedUnits;

// One element type's share of a step: the PE instructions that multiply in it, and the bytes
// of every instruction's operands of that type (roofline footprints, read plus written).
struct DatatypeSummary {
  uint32_t macs_per_pe = 0;  // the array's MACs per PE per cycle in it (0: nothing multiplied)
  uint64_t pe_instructions = 0;
  uint64_t macs = 0;
  uint64_t pe_cycles = 0;  // the array's computing cycles of those instructions
  uint64_t bytes = 0;
  // MACs / (PEs x MACs per PE x PE cycles), 0..1: how well the array ran in this mode.
  double utilization(uint32_t pe_count) const;
};

struct RunResult {
  std::string program;  // executable path
  std::string config;   // target name
  // The target the executable was compiled for (its header), when it is not `config`'s: the
  // memory plan and the compiler's choices are that target's. Empty otherwise.
  std::string compiled_for;
  double clock_mhz = 0;
  uint32_t pe_count = 0;
  uint32_t window = 0;
  uint64_t total_cycles = 0;
  std::vector<InstructionRecord> instructions;       // program order, completed ones only
  std::array<UnitSummary, isa::kUnitCount> units{};  // indexed by isa::Unit
  dram::DramStats dram;
  double dram_peak_bytes_per_s = 0;
  uint64_t dram_capacity_bytes = 0;
  uint64_t dram_addressable_bytes = 0;  // channels x ranks x banks x rows x row size
  std::string dram_backend;             // the DRAM model (dram.backend)
  target::DramControllerDesc dram_controller;
  std::vector<DramEvent> dram_events;        // one per DMA transfer
  std::optional<HostLinkSummary> host_link;  // targets with a host link
  RecomputeSummary recompute;
  uint32_t dma_engines = 0;
  uint64_t dma_wait_cycles = 0;  // transfers waiting for a free DMA engine, summed
  std::vector<top::MemorySample> memory;
  uint64_t memory_peak = 0;         // simulated
  uint64_t planned_peak = 0;        // from the tensor table's lifetimes (top::planned_peak)
  uint64_t planned_arena = 0;       // the executable's memory plan: arena size
  uint64_t planned_persistent = 0;  // bytes below the arena (arena_base)
  uint64_t total_macs = 0;
  uint64_t total_bytes = 0;
  // Per element type of the program's operands; see mixed_precision().
  std::map<isa::DType, DatatypeSummary> datatypes;
  uint64_t roofline_cycles = 0;  // whole step: max(total MACs / PEs, total bytes / peak)
  timing::Activity activity;     // the instructions' activity summed
  // With a technology (target.tech): the step's energy from the counters and the area.
  std::optional<energy::EnergyBreakdown> energy;
  std::optional<energy::AreaBreakdown> area;
  std::vector<top::StuckInstruction> deadlock;  // non-empty: the run stopped there
  double wall_seconds = 0;

  const UnitSummary& unit(isa::Unit u) const { return units[static_cast<size_t>(u)]; }
  double milliseconds() const { return static_cast<double>(total_cycles) / (clock_mhz * 1e3); }
  double seconds() const { return milliseconds() / 1e3; }
  double dram_bandwidth_bytes_per_s() const;  // achieved: bytes moved / simulated time
  double roofline_ratio() const;              // simulated / whole-step roofline
  // MACs / (PEs x cycles), 0..1, a MAC of a mode with m MACs per PE per cycle counting 1/m.
  double mac_utilization() const;
  // The MACs in single-MAC PE-cycles: a MAC of a mode with m MACs per PE per cycle counts
  // 1/m. Divided by the PEs, the compute side of the whole step's roofline.
  double peak_macs() const;
  // Whether any operand is bf16 or f16: the reports then give the per-type figures (an f32
  // program's reports stay as they were).
  bool mixed_precision() const;
  double busy_fraction(isa::Unit u) const;  // the unit's busy cycles / cycles, 0..1
  double average_power_w() const;           // energy / simulated time (0 without energy)
  // DRAM bytes the peak bandwidth moves per accelerator cycle.
  double dram_bytes_per_cycle() const;
  // "compute" when MACs / PEs exceeds bytes / DRAM bytes per cycle (the roofline's compute
  // side dominates), else "memory": which resource bounds work of this size on this target.
  const char* bound(uint64_t macs, uint64_t bytes) const;
};

}  // namespace s2::sim::report
