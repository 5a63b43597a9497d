#pragma once
// TargetDesc: one S2Train accelerator configuration, as loaded from YAML by target_loader.h.
//
// Plain values only, shared by the compiler (fusion consults the epilogue features, tiling
// hints consult buffer sizes) and the simulator (which builds its units from it). Every value
// has been range-checked by the loader; docs/target.md gives the YAML keys, units and ranges.
//
// The enumerations below are written in YAML by the names in the matching k...Names array;
// enumerator i is spelled names[i].

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "isa/encoding/isa_table.h"

namespace s2::target {

// ---- PE array ----------------------------------------------------------------------------

enum class Dataflow : uint8_t { WeightStationary, OutputStationary };
inline constexpr std::array<std::string_view, 2> kDataflowNames{"weight_stationary",
                                                                "output_stationary"};

// What the PE array's results can flow through on their way to the PPU without a round trip
// to DRAM. The compiler's fusion pass fuses an epilogue op into a PE instruction only when the
// target lists its feature.
enum class EpilogueFeature : uint8_t {
  Bias,        // per-output-channel bias add
  Activation,  // element-wise activation (ReLU and friends)
  Residual,    // element-wise add of a second tensor (skip connection)
  Gate,        // activation-backward mask: multiply by the saved activation's derivative
  Stats,       // per-channel sum and sum of squares, for batch-norm statistics
};
inline constexpr std::array<std::string_view, 5> kEpilogueFeatureNames{"bias", "activation",
                                                                       "residual", "gate", "stats"};

// The activation functions of the ISA (isa.def, Activation) other than none.
std::set<isa::Activation> all_activations();

struct PeArrayDesc {
  uint32_t rows = 0;  // 1..1024
  uint32_t cols = 0;  // 1..1024
  Dataflow dataflow = Dataflow::WeightStationary;
  std::set<EpilogueFeature> epilogue;
  // The functions the epilogue's activation stage computes (with EpilogueFeature::Activation);
  // the compiler fuses only these into PE instructions.
  std::set<isa::Activation> activations = all_activations();
  // The element types the array multiplies (an instruction's multiplicands, isa/encoding/
  // semantics.h), each with its MACs per PE per cycle: f32 1 unless the YAML says otherwise.
  // A PE instruction of a type not listed cannot run on this array.
  std::map<isa::DType, uint32_t> datatypes{{isa::DType::F32, 1}};

  uint64_t macs() const { return uint64_t{rows} * cols; }
  // MACs per PE per cycle in `dtype`; 0 when the array does not multiply it.
  uint32_t macs_per_pe(isa::DType dtype) const {
    const auto it = datatypes.find(dtype);
    return it == datatypes.end() ? 0 : it->second;
  }
  // The K-tile of the array's accumulation (isa/numerics/pe_gemm.h): a weight-stationary
  // column sums `rows` products per pass; an output-stationary PE sums the whole K (0).
  uint32_t k_tile() const { return dataflow == Dataflow::WeightStationary ? rows : 0; }
  bool supports(EpilogueFeature feature) const { return epilogue.count(feature) != 0; }
  bool supports(isa::Activation act) const {
    return act == isa::Activation::None ||
           (supports(EpilogueFeature::Activation) && activations.count(act) != 0);
  }
};

// ---- on-chip SRAM ------------------------------------------------------------------------

// A buffer is `banks` banks side by side, each `bank_width_bytes` wide and bank_depth() deep.
struct SramBufferDesc {
  uint64_t size_bytes = 0;        // 1 B .. 1 GiB, a multiple of banks * bank_width_bytes
  uint32_t banks = 0;             // power of two, 1..64
  uint32_t bank_width_bytes = 0;  // bytes one bank reads or writes per cycle, 1..4096

  uint64_t bank_depth() const { return size_bytes / (uint64_t{banks} * bank_width_bytes); }
};

struct SramDesc {
  SramBufferDesc input;        // activations streamed into the array
  SramBufferDesc weight;       // weights held in (or streamed through) the array
  SramBufferDesc accumulator;  // partial sums across K tiles
  SramBufferDesc output;       // PPU input/output staging before DMA to DRAM
};

// ---- PPU ---------------------------------------------------------------------------------

// The PPU operations that have a cost: the epilogue a PE instruction streams through the PPU,
// then every PPU instruction of the ISA in table order (isa/encoding/isa.def, Unit Ppu), so
// PpuOp::BnFwd mirrors Opcode::BnFwd and a new PPU instruction needs a cost in every config.
// An instruction unit missing from the list below fails to compile here, deliberately.
#define S2_TARGET_PPU_Ppu(...) __VA_ARGS__
#define S2_TARGET_PPU_Pe(...)
#define S2_TARGET_PPU_Dma(...)
#define S2_TARGET_PPU_Control(...)

enum class PpuOp : uint8_t {
  Epilogue,
#define S2_OPCODE(Id, code, mnemonic, Unit, summary, operands, fields) S2_TARGET_PPU_##Unit(Id, )
#include "isa/encoding/isa.def"
};

inline constexpr std::size_t kPpuOpCount = 1
#define S2_OPCODE(Id, code, mnemonic, Unit, summary, operands, fields) S2_TARGET_PPU_##Unit(+1)
#include "isa/encoding/isa.def"
    ;

// YAML spellings: "epilogue", then the instructions' mnemonics.
inline constexpr std::array<std::string_view, kPpuOpCount> kPpuOpNames{
    "epilogue",
#define S2_OPCODE(Id, code, mnemonic, Unit, summary, operands, fields) \
  S2_TARGET_PPU_##Unit(mnemonic, )
#include "isa/encoding/isa.def"
};

#undef S2_TARGET_PPU_Ppu
#undef S2_TARGET_PPU_Pe
#undef S2_TARGET_PPU_Dma
#undef S2_TARGET_PPU_Control

struct PpuOpCost {
  double throughput = 0;  // output elements per lane per cycle, > 0 (0.5: two cycles each)
  uint32_t latency = 0;   // cycles from the first input to the first output
};

struct PpuDesc {
  uint32_t lanes = 0;  // 1..4096
  std::array<PpuOpCost, kPpuOpCount> ops{};

  const PpuOpCost& cost(PpuOp op) const { return ops[static_cast<std::size_t>(op)]; }
};

// ---- DMA ---------------------------------------------------------------------------------

// ---- host link ---------------------------------------------------------------------------

// The port to host memory (a PCIe or CXL link) that the DMA engines cross for a `copy` naming
// host memory (isa::MemSpace::Host): the swap space of a program trained under a memory
// budget. Full duplex: each direction moves `bandwidth` on its own. A transfer of B bytes in
// one direction holds that direction for B / bandwidth and ends `latency` after its last byte
// was sent (simulator/top/host_link.h). Presets in configs/host_link/ give measured figures
// with their sources (docs/target.md).
struct HostLinkDesc {
  std::string preset;         // the preset file it started from; empty when fully explicit
  double bandwidth_gb_s = 0;  // GB/s (1e9 bytes/s) per direction, after protocol overhead
  double latency_ns = 0;      // a read request to its first data, ns
  uint64_t memory_bytes = 0;  // host memory the accelerator may use, bytes
  // Energy of one bit across the link: a transmitter's and a receiver's PHY, pJ.
  double energy_pj_per_bit = 0;

  double bytes_per_ps() const { return bandwidth_gb_s * 1e-3; }
};

struct DmaDesc {
  uint32_t engines = 0;          // 1..16, each moves one transfer at a time
  uint32_t width_bytes = 0;      // bytes per accelerator cycle per engine, power of two
  uint32_t max_outstanding = 0;  // DRAM bursts in flight per engine, 1..1024
};

// ---- DRAM --------------------------------------------------------------------------------

// JEDEC timing parameters, in DRAM clock cycles (nCK). The names are the JEDEC ones; _S is
// between bank groups, _L within one bank group (equal on devices without bank groups).
struct DramTiming {
  uint32_t tRCD = 0;    // ACT to RD/WR, same bank
  uint32_t tCL = 0;     // RD to first data (read latency)
  uint32_t tCWL = 0;    // WR to first data (write latency)
  uint32_t tRP = 0;     // PRE to ACT, same bank
  uint32_t tRAS = 0;    // ACT to PRE, same bank
  uint32_t tRC = 0;     // ACT to ACT, same bank
  uint32_t tCCD_S = 0;  // column command to column command
  uint32_t tCCD_L = 0;
  uint32_t tRRD_S = 0;  // ACT to ACT, different banks
  uint32_t tRRD_L = 0;
  uint32_t tFAW = 0;    // window in which at most four ACTs may issue
  uint32_t tWR = 0;     // end of write data to PRE
  uint32_t tWTR_S = 0;  // end of write data to RD
  uint32_t tWTR_L = 0;
  uint32_t tRTP = 0;   // RD to PRE
  uint32_t tREFI = 0;  // average interval between REF commands
  uint32_t tRFC = 0;   // REF to ACT or REF
};

// The timings by their YAML key, in the order docs/target.md lists them.
struct DramTimingField {
  const char* key;  // the JEDEC name: "tRCD"
  uint32_t DramTiming::*member;
};
inline constexpr std::array<DramTimingField, 17> kDramTimingFields{{
    {"tRCD", &DramTiming::tRCD},
    {"tCL", &DramTiming::tCL},
    {"tCWL", &DramTiming::tCWL},
    {"tRP", &DramTiming::tRP},
    {"tRAS", &DramTiming::tRAS},
    {"tRC", &DramTiming::tRC},
    {"tCCD_S", &DramTiming::tCCD_S},
    {"tCCD_L", &DramTiming::tCCD_L},
    {"tRRD_S", &DramTiming::tRRD_S},
    {"tRRD_L", &DramTiming::tRRD_L},
    {"tFAW", &DramTiming::tFAW},
    {"tWR", &DramTiming::tWR},
    {"tWTR_S", &DramTiming::tWTR_S},
    {"tWTR_L", &DramTiming::tWTR_L},
    {"tRTP", &DramTiming::tRTP},
    {"tREFI", &DramTiming::tREFI},
    {"tRFC", &DramTiming::tRFC},
}};

// The memory controller in front of the devices (`dram.controller`). The defaults are the
// controller every result before these keys existed was simulated with.
enum class DramScheduler : uint8_t {
  FrFcfs,  // first ready, first come first served: the burst whose column command can issue
           // first, row hits before misses on a tie, oldest otherwise (bounded bypass)
  Fcfs,    // strictly in arrival order
};
inline constexpr std::array<std::string_view, 2> kDramSchedulerNames{"frfcfs", "fcfs"};

enum class RowPolicy : uint8_t {
  Open,    // a row stays open after its access, until a conflict or a refresh closes it
  Closed,  // a bank is precharged (auto-precharge) after its access unless another queued
           // burst wants the same row
};
inline constexpr std::array<std::string_view, 2> kRowPolicyNames{"open", "closed"};

// The fields a burst address is cut into; `dram.controller.address_mapping` lists all six,
// most significant first.
enum class AddressField : uint8_t { Row, Rank, Bank, Column, BankGroup, Channel };
inline constexpr std::array<std::string_view, 6> kAddressFieldNames{
    "row", "rank", "bank", "column", "bank_group", "channel"};
using AddressOrder = std::array<AddressField, 6>;
// Consecutive bursts over the channels, then the bank groups, then the columns of one row
// (simulator/dram/address_mapping.h says why).
inline constexpr AddressOrder kDefaultAddressOrder{AddressField::Row,       AddressField::Rank,
                                                   AddressField::Bank,      AddressField::Column,
                                                   AddressField::BankGroup, AddressField::Channel};

// How the channel, bank group and bank fields are hashed after the address is cut into fields
// (simulator/dram/address_mapping.h).
enum class AddressHash : uint8_t {
  None,  // the fields as cut
  Xor,   // each of channel, bank group and bank XORed with a fold of the fields above it, so
         // that power-of-two strides spread over channels, bank groups and banks
};
inline constexpr std::array<std::string_view, 2> kAddressHashNames{"none", "xor"};

struct DramControllerDesc {
  static constexpr uint32_t kMaxQueue = 128;  // the most bursts one queue holds

  DramScheduler scheduler = DramScheduler::FrFcfs;
  RowPolicy row_policy = RowPolicy::Open;
  AddressOrder address_mapping = kDefaultAddressOrder;
  AddressHash address_hash = AddressHash::None;
  // Per channel, shared by every requester's bursts: reads wait in one queue, writes in the
  // other (1..kMaxQueue bursts each).
  uint32_t read_queue = 32;
  uint32_t write_queue = 32;
  // Write draining: the controller serves reads until the write queue holds
  // write_high_watermark bursts (or no read is queued), then writes until it holds
  // write_low_watermark or fewer with a read waiting (or none). 0 <= low < high <= write_queue;
  // the loader derives them from write_queue (3/4 and 1/4) when not given.
  uint32_t write_high_watermark = 24;
  uint32_t write_low_watermark = 8;
  // DRAM clock cycles from a request's arrival to its entry into the queue.
  uint32_t frontend_latency = 0;
};

// The power of a DRAM device (`dram.power`), as Micron's power calculator (TN-40-07) and
// DRAMPower take it: per supply rail, its voltage and the datasheet currents of the IDD tests.
// The energy model (simulator/energy/energy_model.h, docs/energy.md) turns them into energy per
// activate-precharge pair, per read and write burst, per refresh and per standby cycle.
struct DramRail {
  double vdd = 0;    // V
  double idd0 = 0;   // mA: one bank activate-precharge cycling at tRC
  double idd2n = 0;  // mA: precharge standby (all banks closed)
  double idd3n = 0;  // mA: active standby (a bank open)
  double idd4r = 0;  // mA: burst read
  double idd4w = 0;  // mA: burst write
  double idd5b = 0;  // mA: burst refresh (an all-bank REF every tRFC)
};

// The energy of moving data across the DRAM's interface (its DQ pins: drivers, termination,
// the lines' capacitance), per bit transferred; the preset says what its figure includes
// (docs/energy.md). None: the interface's energy is not modelled.
struct DramIoDesc {
  double read_pj_per_bit = 0;
  double write_pj_per_bit = 0;
};

struct DramPowerDesc {
  // Data bits of one device; a rank is bus_width_bits / device_width_bits devices.
  uint32_t device_width_bits = 0;
  std::vector<DramRail> rails;  // VDD, then VPP (DDR4) or VDD2 (LPDDR4) ...
  std::optional<DramIoDesc> io;
};

struct DramDesc {
  std::string preset;  // name of the preset file it started from; empty when fully explicit
  // The DRAM model, a name of simulator/dram/dram_registry.h: `dram.backend`, or by default
  // the preset's family (its name up to the first '-', lower-cased: "DDR4-3200" -> "ddr4",
  // "HBM2" -> "hbm2"), or "jedec" (a device written out in full).
  std::string backend;
  uint32_t channels = 0;        // independent channels, 1..64
  uint32_t ranks = 0;           // ranks per channel, 1..16
  uint64_t capacity_bytes = 0;  // total over all channels, <= addressable_bytes()
  double clock_mhz = 0;         // DRAM command clock (not the accelerator clock)
  uint32_t data_rate = 0;       // transfers per clock: 2 for DDR
  uint32_t bus_width_bits = 0;  // data bus of one channel
  uint32_t burst_length = 0;    // transfers per burst (BL)
  uint32_t bank_groups = 0;     // per rank; 1 when the device has none
  uint32_t banks_per_group = 0;
  uint64_t row_size_bytes = 0;  // row (page) of one bank across the channel's bus width
  uint32_t rows_per_bank = 0;
  // 1: row (PRE, ACT) and column (RD, WR) commands share one command bus (DDR4, LPDDR4);
  // 2: each has its own (HBM's separate row and column command interfaces).
  uint32_t command_buses = 1;
  DramTiming timing;
  DramControllerDesc controller;
  std::optional<DramPowerDesc> power;  // none: the DRAM's energy is not modelled

  uint32_t bus_bytes() const { return bus_width_bits / 8; }
  uint32_t burst_bytes() const { return bus_bytes() * burst_length; }
  uint32_t banks_per_rank() const { return bank_groups * banks_per_group; }
  double tck_ns() const { return 1000.0 / clock_mhz; }
  // What the organisation can address: channels x ranks x banks x rows x row size.
  uint64_t addressable_bytes() const {
    return uint64_t{channels} * ranks * banks_per_rank() * rows_per_bank * row_size_bytes;
  }
  // All channels transferring every beat: channels x bus bytes x data rate x clock.
  double peak_bandwidth_bytes_per_s() const {
    return static_cast<double>(channels) * bus_bytes() * data_rate * clock_mhz * 1e6;
  }
};

// ---- technology --------------------------------------------------------------------------

// The silicon the accelerator is built in: the energy of each action and the area of each
// unit (`technology: NAME` loads configs/tech/NAME.yaml; docs/energy.md gives every number's
// source). Energies in pJ, areas in um^2.
struct TechDesc {
  std::string name;  // NAME
  std::string file;  // the file it came from
  double node_nm = 0;
  // The PE's multiply-add of f32 operands (a multiplier and an f32 adder), per MAC and its area.
  double mac_energy_pj = 0;
  double mac_area_um2 = 0;
  // A MAC of two bf16 or f16 operands: a 16-bit multiplier and the f32 adder. Its products
  // come from the f32 MAC's multiplier, split (docs/energy.md); a PE with m MACs per cycle in
  // some mode adds m - 1 chain adders of `add_area_um2` each (an f32 adder).
  double mac_16bit_energy_pj = 0;
  double add_area_um2 = 0;
  // A flip-flop: energy per bit written in a cycle, area per bit (the PE's and lanes' registers).
  double register_bit_energy_pj = 0;
  double register_bit_area_um2 = 0;
  // SRAM: the energy of one access of `sram_reference_width_bytes` to an array of
  // `sram_reference_bytes`; an access of width w to a bank of c bytes costs
  // sram_access_energy_pj * (w / reference width) * sqrt(c / reference bytes).
  double sram_access_energy_pj = 0;
  uint32_t sram_reference_width_bytes = 0;
  uint64_t sram_reference_bytes = 0;
  // SRAM area, by the shape of each bank (simulator/energy/energy_model.h, sram_area_um2): a
  // bank is tiled from mats of at most `sram_mat_rows` x `sram_mat_columns` cells; a mat of r
  // rows and c columns is r x c cells, r row drivers and decoders and c column circuits
  // (precharge, multiplexer, sense amplifier and write driver shares); each bank adds
  // `sram_bank_area_um2` (its select, address latches and data routing).
  double sram_cell_area_um2 = 0;
  double sram_row_area_um2 = 0;
  double sram_column_area_um2 = 0;
  double sram_bank_area_um2 = 0;
  uint32_t sram_mat_rows = 0;
  uint32_t sram_mat_columns = 0;
  // A PPU lane's operation on one element (one f32 multiply-add), and a lane's area.
  double ppu_op_energy_pj = 0;
  double ppu_lane_area_um2 = 0;
  // A DMA engine: energy per byte it moves (its staging registers), and its area.
  double dma_byte_energy_pj = 0;
  double dma_engine_area_um2 = 0;
  // Static power per area of logic and SRAM alike, mW/mm^2.
  double leakage_mw_per_mm2 = 0;
};

// ---- where each key was written ----------------------------------------------------------

struct SourceLocation {
  std::string file;
  int line = 0;  // 1-based
};
// Dotted key path ("sram.accumulator.size", "dram.timing.tRCD") -> where it was written. A
// DRAM key that a preset gave and the config did not override points into the preset file;
// every mapping that was written is there too ("sram.accumulator").
using KeyLocations = std::map<std::string, SourceLocation, std::less<>>;

// ---- the whole target --------------------------------------------------------------------

struct TargetDesc {
  std::string name;
  double clock_mhz = 0;  // accelerator clock: PE array, SRAM, PPU, DMA
  PeArrayDesc pe_array;
  SramDesc sram;
  PpuDesc ppu;
  DmaDesc dma;
  DramDesc dram;
  std::optional<HostLinkDesc> host_link;  // `host_link`; none: no host memory
  std::optional<TechDesc> tech;           // `technology`; none: no energy or area is reported
  std::string source_file;                // the YAML it was loaded from
  KeyLocations locations;                 // filled by the loader; empty for a hand-built target

  // "FILE:LINE: KEY.PATH": where a key was written, as the loader's errors name it: the key's
  // own line, or, for a key left at its default, the line of the closest enclosing mapping
  // that was written; "FILE: KEY.PATH" when nothing is known (a hand-built target).
  std::string where(const std::string& key_path) const;
  // A problem with a value that a model finds after loading (a size its hardware cannot take):
  // UserError "where(key_path): problem".
  [[noreturn]] void fail(const std::string& key_path, const std::string& problem) const;
};

inline std::string_view name(Dataflow value) {
  return kDataflowNames[static_cast<std::size_t>(value)];
}
inline std::string_view name(EpilogueFeature value) {
  return kEpilogueFeatureNames[static_cast<std::size_t>(value)];
}
inline std::string_view name(DramScheduler value) {
  return kDramSchedulerNames[static_cast<std::size_t>(value)];
}
inline std::string_view name(AddressHash value) {
  return kAddressHashNames[static_cast<std::size_t>(value)];
}
inline std::string_view name(RowPolicy value) {
  return kRowPolicyNames[static_cast<std::size_t>(value)];
}
inline std::string_view name(AddressField value) {
  return kAddressFieldNames[static_cast<std::size_t>(value)];
}
inline std::string_view name(PpuOp value) {
  return kPpuOpNames[static_cast<std::size_t>(value)];
}

}  // namespace s2::target
