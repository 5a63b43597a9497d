// Target descriptions: the shipped configs and DRAM presets, preset overrides, and the exact
// `FILE:LINE: KEY.PATH: problem` of schema and DRAM-relation errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "isa/common/errors.h"
#include "isa/target/target_loader.h"
#include "simulator/dram/load_target.h"

namespace s2::target {
namespace {

namespace fs = std::filesystem;

const std::string kConfigs = std::string(S2_SOURCE_DIR) + "/configs";
const std::string kPresets = kConfigs + "/dram";
constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = kKiB * 1024;
constexpr uint64_t kGiB = kMiB * 1024;

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

// Replaces the one occurrence of `from` in `text` (keeping line numbers when both are one line).
std::string replace(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Everything but the dram mapping: exactly 18 lines, so `dram:` is line 19 below.
const std::string kPrefix = R"(name: test
clock_mhz: 1000
pe_array:
  rows: 32
  cols: 32
sram:
  input: {size: 64KiB, banks: 4, bank_width: 16}
  weight: {size: 64KiB, banks: 4, bank_width: 16}
  accumulator: {size: 32KiB, banks: 4, bank_width: 16}
  output: {size: 32KiB, banks: 4, bank_width: 16}
ppu:
  lanes: 16
  ops:
    default: {throughput: 1, latency: 4}
dma:
  engines: 1
  width: 32
  max_outstanding: 8
)";

// A DDR4-3200 channel written out in full (no preset): lines 19-47 after kPrefix.
const std::string kExplicitDram = R"(dram:
  channels: 1
  ranks: 1
  clock_mhz: 1600
  data_rate: 2
  bus_width_bits: 64
  burst_length: 8
  bank_groups: 4
  banks_per_group: 4
  row_size: 8KiB
  rows_per_bank: 65536
  timing:
    tRCD: 22
    tCL: 22
    tCWL: 16
    tRP: 22
    tRAS: 52
    tRC: 74
    tCCD_S: 4
    tCCD_L: 8
    tRRD_S: 4
    tRRD_L: 8
    tFAW: 34
    tWR: 24
    tWTR_S: 4
    tWTR_L: 12
    tRTP: 12
    tREFI: 12480
    tRFC: 560
)";

TargetDesc parse(const std::string& text, const std::string& preset_dir = kPresets) {
  return parse_target(text, "t.yaml", preset_dir);
}

std::string parse_error(const std::string& text, const std::string& preset_dir = kPresets) {
  return error_of([&] { parse(text, preset_dir); });
}

// A fresh directory for preset files written by one test.
class TempPresets {
 public:
  explicit TempPresets(const std::string& name)
      : dir_(fs::path(testing::TempDir()) / ("s2_target_test_" + name)) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~TempPresets() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  TempPresets(const TempPresets&) = delete;
  TempPresets& operator=(const TempPresets&) = delete;

  std::string dir() const { return dir_.string(); }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path path = dir_ / (name + ".yaml");
    std::ofstream(path) << text;
    return path.string();
  }

 private:
  fs::path dir_;
};

// kExplicitDram as a preset file: the dram mapping's keys at the top level (lines 1-28).
std::string explicit_dram_as_preset() {
  std::string text;
  std::size_t start = kExplicitDram.find('\n') + 1;
  while (start < kExplicitDram.size()) {
    const std::size_t end = kExplicitDram.find('\n', start);
    text += kExplicitDram.substr(start + 2, end - start - 2) + "\n";
    start = end + 1;
  }
  return text;
}

TEST(TargetTest, PrefixLineCountIsWhatTheTestsAssume) {
  EXPECT_EQ(std::count(kPrefix.begin(), kPrefix.end(), '\n'), 18);
  EXPECT_EQ(explicit_dram_as_preset().substr(0, 12), "channels: 1\n");
}

// ---- shipped configurations --------------------------------------------------------------

TEST(TargetTest, BaseConfig) {
  const TargetDesc t = load_target(kConfigs + "/s2train_base.yaml");
  EXPECT_EQ(t.name, "s2train_base");
  EXPECT_EQ(t.source_file, kConfigs + "/s2train_base.yaml");
  EXPECT_EQ(t.clock_mhz, 1000.0);
  EXPECT_EQ(t.pe_array.rows, 32u);
  EXPECT_EQ(t.pe_array.cols, 32u);
  EXPECT_EQ(t.pe_array.dataflow, Dataflow::WeightStationary);
  EXPECT_EQ(t.pe_array.epilogue.size(), 5u);
  EXPECT_TRUE(t.pe_array.supports(EpilogueFeature::Stats));
  EXPECT_EQ(t.sram.input.size_bytes, 256 * kKiB);
  EXPECT_EQ(t.sram.accumulator.banks, 8u);
  EXPECT_EQ(t.sram.output.bank_width_bytes, 16u);
  EXPECT_EQ(t.sram.input.bank_depth(), 2048u);
  EXPECT_EQ(t.ppu.lanes, 32u);
  EXPECT_EQ(t.ppu.cost(PpuOp::BnFwd).throughput, 0.5);
  EXPECT_EQ(t.ppu.cost(PpuOp::BnFwd).latency, 8u);
  EXPECT_EQ(t.ppu.cost(PpuOp::Eltwise).throughput, 1.0);  // from default
  EXPECT_EQ(t.ppu.cost(PpuOp::Eltwise).latency, 4u);
  EXPECT_EQ(t.ppu.cost(PpuOp::Reduce).throughput, 1.0);  // own latency, default throughput
  EXPECT_EQ(t.ppu.cost(PpuOp::Reduce).latency, 8u);
  EXPECT_EQ(t.dma.engines, 2u);
  EXPECT_EQ(t.dma.width_bytes, 64u);
  EXPECT_EQ(t.dma.max_outstanding, 16u);
  EXPECT_EQ(t.dram.preset, "DDR4-3200");
  EXPECT_EQ(t.dram.channels, 2u);
  EXPECT_EQ(t.dram.capacity_bytes, 8 * kGiB);
  EXPECT_EQ(t.dram.addressable_bytes(), 16 * kGiB);
  EXPECT_EQ(t.dram.burst_bytes(), 64u);
  EXPECT_DOUBLE_EQ(t.dram.peak_bandwidth_bytes_per_s(), 51.2e9);
}

// The host link (issue 20): a preset from configs/host_link/, each key overridable, and the
// shipped configs' links.
TEST(TargetTest, HostLinkPresetAndOverrides) {
  EXPECT_FALSE(parse(kPrefix + kExplicitDram).host_link.has_value()) << "optional";
  const TargetDesc base = load_target(kConfigs + "/s2train_base.yaml");
  ASSERT_TRUE(base.host_link.has_value());
  EXPECT_EQ(base.host_link->preset, "PCIe4-x16");
  EXPECT_EQ(base.host_link->bandwidth_gb_s, 26.0);
  EXPECT_EQ(base.host_link->latency_ns, 800.0);
  EXPECT_EQ(base.host_link->memory_bytes, 256 * kGiB);
  EXPECT_EQ(base.host_link->energy_pj_per_bit, 3.9);
  // The preset's keys are located in the preset file, the config's own in the config.
  EXPECT_NE(base.where("host_link.latency_ns").find("configs/host_link/PCIe4-x16.yaml:"),
            std::string::npos)
      << base.where("host_link.latency_ns");
  EXPECT_NE(base.where("host_link.memory").find("s2train_base.yaml:"), std::string::npos);
  const TargetDesc small = load_target(kConfigs + "/s2train_small.yaml");
  EXPECT_EQ(small.host_link->bandwidth_gb_s, 6.5) << "overrides the preset's";
  EXPECT_EQ(small.host_link->latency_ns, 800.0);
  EXPECT_EQ(small.host_link->memory_bytes, 16 * kGiB);
  EXPECT_EQ(load_target(kConfigs + "/s2train_large.yaml").host_link->preset, "PCIe5-x16");
  // Fully explicit.
  const TargetDesc t = parse(kPrefix + kExplicitDram +
                             "host_link: {bandwidth_gb_s: 8, latency_ns: 0, memory: 1GiB, "
                             "energy_pj_per_bit: 2.5}\n");
  EXPECT_TRUE(t.host_link->preset.empty());
  EXPECT_EQ(t.host_link->bandwidth_gb_s, 8.0);
  EXPECT_EQ(t.host_link->latency_ns, 0.0);
  EXPECT_EQ(t.host_link->memory_bytes, kGiB);
  EXPECT_EQ(t.host_link->energy_pj_per_bit, 2.5);
}

TEST(TargetTest, HostLinkErrorsNameTheKey) {
  const std::string err =
      parse_error(kPrefix + kExplicitDram + "host_link: {bandwidth_gb_s: 0, latency_ns: -1}\n");
  EXPECT_NE(err.find("t.yaml:48: host_link.bandwidth_gb_s: must be greater than 0"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("t.yaml:48: host_link.latency_ns:"), std::string::npos) << err;
  EXPECT_NE(err.find("t.yaml:48: host_link.memory: missing required key"), std::string::npos)
      << err;
  EXPECT_NE(err.find("t.yaml:48: host_link.energy_pj_per_bit: missing required key"),
            std::string::npos)
      << err;
  const std::string unknown =
      parse_error(kPrefix + kExplicitDram + "host_link: {preset: PCIe9-x32}\n");
  EXPECT_NE(unknown.find("t.yaml:48: host_link.preset: unknown host link preset \"PCIe9-x32\"; "
                         "presets in "),
            std::string::npos)
      << unknown;
  for (const char* name : {"CXL2-x16", "PCIe4-x16", "PCIe5-x16"})
    EXPECT_NE(unknown.find(name), std::string::npos) << unknown;
  const std::string misspelt =
      parse_error(kPrefix + kExplicitDram + "host_link: {preset: PCIe4-x16, bandwith_gb_s: 20}\n");
  EXPECT_NE(misspelt.find("t.yaml:48: host_link.bandwith_gb_s: unknown key"), std::string::npos)
      << misspelt;
}

TEST(TargetTest, SmallConfig) {
  const TargetDesc t = load_target(kConfigs + "/s2train_small.yaml");
  EXPECT_EQ(t.name, "s2train_small");
  EXPECT_EQ(t.clock_mhz, 800.0);
  EXPECT_EQ(t.pe_array.rows, 16u);
  EXPECT_EQ(t.pe_array.cols, 16u);
  EXPECT_EQ(t.pe_array.epilogue,
            (std::set<EpilogueFeature>{EpilogueFeature::Bias, EpilogueFeature::Activation,
                                       EpilogueFeature::Residual}));
  EXPECT_FALSE(t.pe_array.supports(EpilogueFeature::Gate));
  EXPECT_EQ(t.sram.weight.size_bytes, 64 * kKiB);
  EXPECT_EQ(t.ppu.lanes, 16u);
  EXPECT_EQ(t.ppu.cost(PpuOp::SoftmaxCe).throughput, 0.125);
  EXPECT_EQ(t.dma.engines, 1u);
  EXPECT_EQ(t.dram.preset, "LPDDR4-4266");
  EXPECT_EQ(t.dram.channels, 2u);
  EXPECT_EQ(t.dram.capacity_bytes, 1 * kGiB);  // default: what the organisation addresses
  EXPECT_EQ(t.dram.burst_bytes(), 32u);
  EXPECT_DOUBLE_EQ(t.dram.peak_bandwidth_bytes_per_s(), 2 * 2 * 2 * 2133e6);
}

TEST(TargetTest, LargeConfig) {
  const TargetDesc t = load_target(kConfigs + "/s2train_large.yaml");
  EXPECT_EQ(t.name, "s2train_large");
  EXPECT_EQ(t.pe_array.macs(), 128u * 128u);
  EXPECT_EQ(t.sram.input.size_bytes, 4 * kMiB);
  EXPECT_EQ(t.sram.input.banks, 16u);
  EXPECT_EQ(t.ppu.lanes, 128u);
  EXPECT_EQ(t.ppu.cost(PpuOp::Sgd).throughput, 0.5);
  EXPECT_EQ(t.dma.engines, 4u);
  EXPECT_EQ(t.dram.preset, "HBM2");
  EXPECT_EQ(t.dram.channels, 8u);
  EXPECT_EQ(t.dram.capacity_bytes, 4 * kGiB);
  EXPECT_DOUBLE_EQ(t.dram.peak_bandwidth_bytes_per_s(), 256e9);
}

TEST(TargetTest, DescribeSummarisesWhatWasUnderstood) {
  const std::string text = describe_target(load_target(kConfigs + "/s2train_base.yaml"));
  for (const char* fact :
       {"s2train_base", "1000 MHz", "32 x 32 weight_stationary", "256 KiB in 8 banks", "32 lanes",
        "2 engines x 64 B/cycle", "preset DDR4-3200", "2 channels x 1 rank", "8 GiB",
        "peak 51.2 GB/s", "tCL=22",
        "backend ddr4, scheduler frfcfs, open page, address "
        "row:rank:bank:column:bank_group:channel"}) {
    EXPECT_NE(text.find(fact), std::string::npos) << fact << " not in:\n" << text;
  }
}

// ---- presets -----------------------------------------------------------------------------

TEST(TargetTest, Ddr4Preset) {
  const DramDesc d = parse(kPrefix + "dram: {preset: DDR4-3200}\n").dram;
  EXPECT_EQ(d.clock_mhz, 1600.0);
  EXPECT_EQ(d.bus_width_bits, 64u);
  EXPECT_EQ(d.burst_length, 8u);
  EXPECT_EQ(d.banks_per_rank(), 16u);
  EXPECT_EQ(d.row_size_bytes, 8 * kKiB);
  EXPECT_EQ(d.capacity_bytes, 8 * kGiB);
  const DramTiming& t = d.timing;
  EXPECT_EQ(t.tRCD, 22u);
  EXPECT_EQ(t.tCL, 22u);
  EXPECT_EQ(t.tRP, 22u);
  EXPECT_EQ(t.tRAS, 52u);
  EXPECT_EQ(t.tRC, 74u);
  EXPECT_EQ(t.tCCD_L, 8u);
  EXPECT_EQ(t.tFAW, 34u);
  EXPECT_EQ(t.tREFI, 12480u);
  EXPECT_EQ(t.tRFC, 560u);
}

TEST(TargetTest, Lpddr4Preset) {
  const DramDesc d = parse(kPrefix + "dram: {preset: LPDDR4-4266}\n").dram;
  EXPECT_EQ(d.clock_mhz, 2133.0);
  EXPECT_EQ(d.bus_width_bits, 16u);
  EXPECT_EQ(d.burst_length, 16u);
  EXPECT_EQ(d.bank_groups, 1u);
  EXPECT_EQ(d.banks_per_group, 8u);
  EXPECT_EQ(d.capacity_bytes, 512 * kMiB);
  EXPECT_EQ(d.timing.tRCD, 39u);
  EXPECT_EQ(d.timing.tCL, 36u);
  EXPECT_EQ(d.timing.tRC, 129u);
  EXPECT_EQ(d.timing.tCCD_S, d.timing.tCCD_L);
  EXPECT_EQ(d.timing.tFAW, 86u);
  EXPECT_EQ(d.timing.tRFC, 384u);
}

TEST(TargetTest, Hbm2Preset) {
  const DramDesc d = parse(kPrefix + "dram: {preset: HBM2}\n").dram;
  EXPECT_EQ(d.channels, 8u);
  EXPECT_EQ(d.clock_mhz, 1000.0);
  EXPECT_EQ(d.bus_width_bits, 128u);
  EXPECT_EQ(d.burst_bytes(), 64u);
  EXPECT_EQ(d.capacity_bytes, 4 * kGiB);
  EXPECT_EQ(d.timing.tRAS, 33u);
  EXPECT_EQ(d.timing.tRC, 47u);
  EXPECT_EQ(d.timing.tREFI, 3900u);
}

TEST(TargetTest, DramInterfaceEnergyFromThePresetOrTheConfig) {
  // Each shipped preset states its interface's energy per bit (docs/energy.md).
  EXPECT_DOUBLE_EQ(parse(kPrefix + "dram: {preset: DDR4-3200}\n").dram.power->io->read_pj_per_bit,
                   3.666);
  EXPECT_DOUBLE_EQ(
      parse(kPrefix + "dram: {preset: LPDDR4-4266}\n").dram.power->io->write_pj_per_bit, 1.166);
  EXPECT_DOUBLE_EQ(parse(kPrefix + "dram: {preset: HBM2}\n").dram.power->io->read_pj_per_bit,
                   0.864);
  // A config's power replaces the preset's whole: without `io` there is no interface figure.
  const std::string rails =
      "  power:\n    device_width_bits: 8\n    rails:\n"
      "      - {vdd: 1.2, idd0: 57, idd2n: 37, idd3n: 52, idd4r: 168, "
      "idd4w: 150, idd5b: 250}\n";
  const TargetDesc without = parse(kPrefix + "dram:\n  preset: DDR4-3200\n" + rails);
  ASSERT_TRUE(without.dram.power.has_value());
  EXPECT_FALSE(without.dram.power->io.has_value());
  const TargetDesc with = parse(kPrefix + "dram:\n  preset: DDR4-3200\n" + rails +
                                "    io: {read_pj_per_bit: 2, write_pj_per_bit: 0.5}\n");
  EXPECT_DOUBLE_EQ(with.dram.power->io->write_pj_per_bit, 0.5);
  // Errors name the key and its line (the prefix is 18 lines: io is line 25).
  const std::string err = parse_error(kPrefix + "dram:\n  preset: DDR4-3200\n" + rails +
                                      "    io: {read_pj_per_bit: -1, write_pj: 1}\n");
  EXPECT_NE(err.find("t.yaml:25: dram.power.io.read_pj_per_bit:"), std::string::npos) << err;
  EXPECT_NE(err.find("t.yaml:25: dram.power.io.write_pj_per_bit: missing required key"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("t.yaml:25: dram.power.io.write_pj: unknown key"), std::string::npos) << err;
}

TEST(TargetTest, ConfigOverridesPresetValues) {
  const TargetDesc t = parse(kPrefix + R"(dram:
  preset: DDR4-3200
  channels: 2
  capacity: 8GiB
  timing: {tCL: 24}
)");
  EXPECT_EQ(t.dram.preset, "DDR4-3200");
  EXPECT_EQ(t.dram.channels, 2u);
  EXPECT_EQ(t.dram.capacity_bytes, 8 * kGiB);
  EXPECT_EQ(t.dram.timing.tCL, 24u);
  EXPECT_EQ(t.dram.timing.tRCD, 22u);  // untouched
  EXPECT_EQ(t.dram.timing.tRFC, 560u);
}

TEST(TargetTest, ExplicitDramNeedsNoPreset) {
  const TargetDesc t = parse(kPrefix + kExplicitDram);
  EXPECT_TRUE(t.dram.preset.empty());
  EXPECT_EQ(t.dram.capacity_bytes, 8 * kGiB);
  EXPECT_EQ(t.dram.timing.tRFC, 560u);
}

TEST(TargetTest, UnknownPresetListsPresets) {
  TempPresets presets("unknown");
  presets.write("A-1", explicit_dram_as_preset());
  presets.write("B-2", explicit_dram_as_preset());
  presets.write("notes", "");  // a .yaml: listed; other files are not
  std::ofstream(fs::path(presets.dir()) / "README.txt") << "not a preset\n";
  EXPECT_EQ(parse_error(kPrefix + "dram:\n  channels: 2\n  preset: DDR5-4800\n", presets.dir()),
            "t.yaml:21: dram.preset: unknown DRAM preset \"DDR5-4800\"; presets in " +
                presets.dir() + ": A-1, B-2, notes");
  // A name that would leave the directory is just unknown.
  EXPECT_NE(parse_error(kPrefix + "dram: {preset: ../dram/A-1}\n", presets.dir())
                .find("t.yaml:19: dram.preset: unknown DRAM preset \"../dram/A-1\""),
            std::string::npos);
  // The shipped presets are listed too.
  const std::string shipped = parse_error(kPrefix + "dram: {preset: DDR5}\n");
  for (const char* name : {"DDR4-3200", "LPDDR4-4266", "HBM2"}) {
    EXPECT_NE(shipped.find(name), std::string::npos) << shipped;
  }
}

// The DRAM model is named: by `dram.backend`, or by the preset's family. A family the simulator
// has no model for is refused by the loader, so s2c and s2sim refuse it alike.
TEST(TargetTest, DramBackendComesFromThePresetOrTheBackendKey) {
  EXPECT_EQ(parse(kPrefix + "dram: {preset: DDR4-3200}\n").dram.backend, "ddr4");
  EXPECT_EQ(parse(kPrefix + "dram: {preset: HBM2}\n").dram.backend, "hbm2");
  EXPECT_EQ(parse(kPrefix + "dram: {preset: DDR4-3200, backend: jedec}\n").dram.backend, "jedec");
  EXPECT_EQ(parse_error(kPrefix + "dram: {preset: DDR4-3200, backend: ddr5}\n"),
            "t.yaml:19: dram.backend: unknown DRAM backend 'ddr5'; known: ddr4, hbm2, jedec, "
            "lpddr4");
  TempPresets presets("ddr5");
  presets.write("DDR5-4800", explicit_dram_as_preset());
  EXPECT_EQ(parse_error(kPrefix + "dram:\n  preset: DDR5-4800\n", presets.dir()),
            "t.yaml:20: dram.preset: unknown DRAM backend 'ddr5'; known: ddr4, hbm2, jedec, "
            "lpddr4 (the preset 'DDR5-4800' selects the backend named by its family, the part "
            "before '-'; set dram.backend to choose another)");
  // ... and with a backend that models it, the same preset works.
  EXPECT_EQ(
      parse(kPrefix + "dram:\n  preset: DDR5-4800\n  backend: jedec\n", presets.dir()).dram.backend,
      "jedec");
}

TEST(TargetTest, ErrorsInsideAPresetNameThePresetFile) {
  TempPresets presets("bad_preset");
  const std::string path =
      presets.write("DDR4-Bad", replace(explicit_dram_as_preset(), "  tCL: 22", "  tCL: fast"));
  EXPECT_EQ(parse_error(kPrefix + "dram: {preset: DDR4-Bad}\n", presets.dir()),
            path + ":13: timing.tCL: expected a positive integer, got \"fast\"");
  // A preset cannot chain to another preset: `preset` is not a key of a preset file.
  const std::string chained =
      presets.write("DDR4-Chained", "preset: DDR4-Bad\n" + explicit_dram_as_preset());
  const std::string chain_error =
      parse_error(kPrefix + "dram: {preset: DDR4-Chained}\n", presets.dir());
  EXPECT_EQ(chain_error.rfind(chained + ":1: preset: unknown key; known keys: channels, ", 0), 0u)
      << chain_error;
  const std::string missing =
      presets.write("DDR4-Missing", replace(explicit_dram_as_preset(), "  tRFC: 560\n", ""));
  EXPECT_EQ(parse_error(kPrefix + "dram: {preset: DDR4-Missing}\n", presets.dir()),
            missing + ":11: timing.tRFC: missing required key");
}

// ---- schema errors -----------------------------------------------------------------------

TEST(TargetTest, UnknownKeysListKnownKeys) {
  EXPECT_EQ(parse_error(kPrefix + "dram: {preset: HBM2}\nclock_ghz: 1\n"),
            "t.yaml:20: clock_ghz: unknown key; did you mean \"clock_mhz\"?; known keys: name, "
            "clock_mhz, pe_array, sram, ppu, dma, dram");
  EXPECT_EQ(parse_error(replace(kPrefix, "  cols: 32", "  colz: 32") + "dram: {preset: HBM2}\n"),
            "t.yaml:3: pe_array.cols: missing required key (is \"colz\" at line 5 a misspelling "
            "of \"cols\"?)\n"
            "t.yaml:5: pe_array.colz: unknown key; did you mean \"cols\"?; known keys: rows, cols, "
            "dataflow, epilogue, activations");
  // A misspelt override is caught before any DRAM relation is checked.
  EXPECT_EQ(parse_error(kPrefix + "dram:\n  preset: DDR4-3200\n  timing:\n    tcl: 24\n"),
            "t.yaml:22: dram.timing.tcl: unknown key; did you mean \"tCL\"?; known keys: tRCD, "
            "tCL, tCWL, tRP, tRAS, tRC, tCCD_S, tCCD_L, tRRD_S, tRRD_L, tFAW, tWR, tWTR_S, "
            "tWTR_L, tRTP, tREFI, tRFC");
}

// Issue 19: every problem of a config, and of the preset it names, in one error, one line
// each, sorted by file and line.
TEST(TargetTest, EveryProblemIsReportedAtOnce) {
  std::string text = kPrefix + kExplicitDram;
  text = replace(text, "clock_mhz: 1000", "clock_mhz: -5");  // line 2
  text = replace(text, "  cols: 32", "  colums: 32");        // line 5
  text = replace(text, "weight: {size: 64KiB, banks: 4,", "weight: {size: 1000, banks: 4,");
  text = replace(text, "  width: 32", "  width: 24");                      // line 17
  text = replace(text, "  bus_width_bits: 64", "  bus_width_bits: wide");  // line 24
  text = replace(text, "    tCL: 22", "    tCL: 22\n    tCK: 1");          // line 33
  EXPECT_EQ(parse_error(text),
            "t.yaml:2: clock_mhz: must be between 0 and 100000, got -5\n"
            "t.yaml:3: pe_array.cols: missing required key (is \"colums\" at line 5 a "
            "misspelling of \"cols\"?)\n"
            "t.yaml:5: pe_array.colums: unknown key; did you mean \"cols\"?; known keys: rows, "
            "cols, dataflow, epilogue, activations\n"
            "t.yaml:8: sram.weight.size: must be a multiple of banks x bank_width = 64 bytes so "
            "that every bank has whole rows, got 1000 bytes\n"
            "t.yaml:17: dma.width: must be a power of two, got 24\n"
            "t.yaml:24: dram.bus_width_bits: expected a positive integer, got \"wide\"\n"
            "t.yaml:33: dram.timing.tCK: unknown key; did you mean \"tCL\"?; known keys: tRCD, "
            "tCL, tCWL, tRP, tRAS, tRC, tCCD_S, tCCD_L, tRRD_S, tRRD_L, tFAW, tWR, tWTR_S, tWTR_L, "
            "tRTP, tREFI, tRFC");
}

// A bad value is read on as a placeholder, never reported again through what it feeds: no
// relation is checked in a mapping with a problem, a missing or malformed section is one
// problem (not one per key), and a section a fail() ends leaves its unread keys alone.
TEST(TargetTest, ProblemsDoNotCascade) {
  const std::string dram = "dram: {preset: HBM2}\n";
  // banks is bad: the size check it feeds is not made.
  EXPECT_EQ(parse_error(replace(kPrefix, "input: {size: 64KiB, banks: 4,",
                                "input: {size: 1000, banks: x,") +
                        dram),
            "t.yaml:7: sram.input.banks: expected a positive integer, got \"x\"");
  // A whole section missing, or not a mapping.
  const std::string sram_section =
      kPrefix.substr(kPrefix.find("sram:"), kPrefix.find("ppu:") - kPrefix.find("sram:"));
  EXPECT_EQ(parse_error(replace(kPrefix, sram_section, "") + dram),
            "t.yaml:1: sram: missing required key");
  EXPECT_EQ(parse_error(replace(kPrefix, sram_section, "sram: 64KiB\n") + dram),
            "t.yaml:6: sram: expected a mapping of keys, got \"64KiB\"");
  // The preset cannot be read: the dram mapping's other keys are not reported.
  EXPECT_EQ(parse_error(kPrefix + "dram: {preset: [HBM2], channelz: 2}\n"),
            "t.yaml:19: dram.preset: expected a string, got a list");
  const std::string unknown =
      parse_error(kPrefix + "dram: {preset: HBM9, channelz: 2}\n" + "clock_ghz: 1\n");
  EXPECT_EQ(unknown.rfind("t.yaml:19: dram.preset: unknown DRAM preset \"HBM9\"; presets in ", 0),
            0u)
      << unknown;
  EXPECT_EQ(unknown.find("channelz"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("\nt.yaml:20: clock_ghz: unknown key; did you mean \"clock_mhz\"?"),
            std::string::npos)
      << unknown;
  // A bad name is not also an empty one.
  EXPECT_EQ(parse_error(replace(kPrefix, "name: test", "name: [a]") + dram),
            "t.yaml:1: name: expected a string, got a list");
}

// Every duplicate key and every bad item of a list, and the relations of a DRAM mapping
// whose values all read well.
TEST(TargetTest, EveryDuplicateItemAndRelationIsReported) {
  const std::string dram = "dram: {preset: HBM2}\n";
  EXPECT_EQ(parse_error(replace(kPrefix, "  cols: 32", "  cols: 32\n  rows: 8\n  cols: 8") + dram),
            "t.yaml:6: pe_array.rows: duplicate key (first given at line 4)\n"
            "t.yaml:7: pe_array.cols: duplicate key (first given at line 5)");
  EXPECT_EQ(parse_error(replace(kPrefix, "  cols: 32",
                                "  cols: 32\n  epilogue: [bais, bias, gate, "
                                "bias]") +
                        dram),
            "t.yaml:6: pe_array.epilogue[0]: unknown value \"bais\"; did you mean \"bias\"?; "
            "allowed: bias, activation, residual, gate, stats\n"
            "t.yaml:6: pe_array.epilogue[3]: \"bias\" is listed twice");
  const std::string base = kPrefix + kExplicitDram;
  EXPECT_EQ(
      parse_error(replace(replace(base, "tRAS: 52", "tRAS: 20"), "tREFI: 12480", "tREFI: 500")),
      "t.yaml:35: dram.timing.tRAS: tRAS (20) must be at least tRCD (22): a row cannot be "
      "closed before it can be accessed\n"
      "t.yaml:46: dram.timing.tREFI: tREFI (500) must be greater than tRFC (560), or the "
      "device would do nothing but refresh");
}

// The config's problems come first, then the preset's, each file by line.
TEST(TargetTest, ProblemsOfTheConfigAndItsPresetTogether) {
  TempPresets presets("problems_together");
  const std::string path = presets.write(
      "DDR4-Typo",
      replace(replace(explicit_dram_as_preset(), "  tRFC: 560\n", ""), "ranks: 1", "rank: 1"));
  EXPECT_EQ(parse_error(replace(kPrefix, "  lanes: 16", "  lanes: 0") +
                            "dram: {preset: DDR4-Typo, channels: 99}\n",
                        presets.dir()),
            "t.yaml:12: ppu.lanes: must be between 1 and 4096, got 0\n"
            "t.yaml:19: dram.channels: must be between 1 and 64, got 99\n" +
                path +
                ":1: ranks: missing required key (is \"rank\" at line 2 a misspelling of "
                "\"ranks\"?)\n" +
                path +
                ":2: rank: unknown key; did you mean \"ranks\"?; known keys: channels, ranks, "
                "capacity, clock_mhz, data_rate, bus_width_bits, burst_length, bank_groups, "
                "banks_per_group, row_size, rows_per_bank, command_buses, timing, power\n" +
                path + ":11: timing.tRFC: missing required key");
}

TEST(TargetTest, ValueErrorsNameTheKey) {
  const std::string dram = "dram: {preset: HBM2}\n";
  EXPECT_EQ(parse_error(replace(kPrefix, "  rows: 32", "  rows: abc") + dram),
            "t.yaml:4: pe_array.rows: expected a positive integer, got \"abc\"");
  EXPECT_EQ(parse_error(replace(kPrefix, "  rows: 32", "  rows: 2048") + dram),
            "t.yaml:4: pe_array.rows: must be between 1 and 1024, got 2048");
  EXPECT_EQ(parse_error(replace(kPrefix, "  cols: 32", "  cols: 32\n  dataflow: row") + dram),
            "t.yaml:6: pe_array.dataflow: unknown value \"row\"; allowed: weight_stationary, "
            "output_stationary");
  EXPECT_EQ(
      parse_error(replace(kPrefix, "  cols: 32", "  cols: 32\n  epilogue: [bias, norm]") + dram),
      "t.yaml:6: pe_array.epilogue[1]: unknown value \"norm\"; allowed: bias, activation, "
      "residual, gate, stats");
  EXPECT_EQ(parse_error(replace(kPrefix, "clock_mhz: 1000", "clock_mhz: 0") + dram),
            "t.yaml:2: clock_mhz: must be greater than 0, got 0");
  EXPECT_EQ(parse_error(replace(kPrefix, "name: test", "name: ''") + dram),
            "t.yaml:1: name: must not be empty");
}

// pe_array.datatypes: MACs per PE per cycle of each float type the array multiplies; f32 1
// when the key is absent.
TEST(TargetTest, DatatypesListTheMultiplyModes) {
  const std::string dram = "dram: {preset: HBM2}\n";
  EXPECT_EQ(parse(kPrefix + dram).pe_array.datatypes,
            (std::map<isa::DType, uint32_t>{{isa::DType::F32, 1}}));
  const TargetDesc t = parse(
      replace(kPrefix, "  cols: 32", "  cols: 32\n  datatypes: {f32: 1, bf16: 4, f16: 2}") + dram);
  EXPECT_EQ(t.pe_array.macs_per_pe(isa::DType::BF16), 4u);
  EXPECT_EQ(t.pe_array.macs_per_pe(isa::DType::F16), 2u);
  EXPECT_EQ(t.pe_array.macs_per_pe(isa::DType::I32), 0u);
  EXPECT_NE(describe_target(t).find("f32 1 MAC/PE/cycle (2048 GFLOP/s), bf16 4 "
                                    "MACs/PE/cycle (8192 GFLOP/s), f16 2"),
            std::string::npos)
      << describe_target(t);
  EXPECT_EQ(parse_error(replace(kPrefix, "  cols: 32", "  cols: 32\n  datatypes: {bf8: 4}") + dram),
            "t.yaml:6: pe_array.datatypes.bf8: unknown key; known keys: "
            "f32, bf16, f16");
  EXPECT_EQ(
      parse_error(replace(kPrefix, "  cols: 32", "  cols: 32\n  datatypes: {bf16: 0}") + dram),
      "t.yaml:6: pe_array.datatypes.bf16: must be between 1 and 64, got 0");
  EXPECT_EQ(parse_error(replace(kPrefix, "  cols: 32", "  cols: 32\n  datatypes: {}") + dram),
            "t.yaml:6: pe_array.datatypes: lists no element type; the array must multiply at "
            "least one of f32, bf16, f16");
}

TEST(TargetTest, SramErrors) {
  const std::string dram = "dram: {preset: HBM2}\n";
  EXPECT_EQ(parse_error(replace(kPrefix, "input: {size: 64KiB, banks: 4,",
                                "input: {size: 64KiB, banks: 3,") +
                        dram),
            "t.yaml:7: sram.input.banks: must be a power of two, got 3");
  EXPECT_EQ(parse_error(replace(kPrefix, "weight: {size: 64KiB", "weight: {size: 2GiB") + dram),
            "t.yaml:8: sram.weight.size: must be between 1 B and 1 GiB, got 2 GiB");
  EXPECT_EQ(parse_error(replace(kPrefix, "weight: {size: 64KiB", "weight: {size: 64 kB") + dram),
            "t.yaml:8: sram.weight.size: expected a byte size such as 1024, 64KiB or 2 MiB, got "
            "\"64 kB\" (\"kB\" is ambiguous; write binary units: B, KiB, MiB, GiB, TiB)");
  EXPECT_EQ(
      parse_error(replace(kPrefix, "accumulator: {size: 32KiB", "accumulator: {size: 1000") + dram),
      "t.yaml:9: sram.accumulator.size: must be a multiple of banks x bank_width = 64 "
      "bytes so that every bank has whole rows, got 1000 bytes");
  EXPECT_EQ(parse_error(
                replace(kPrefix, "  output: {size: 32KiB, banks: 4, bank_width: 16}\n", "") + dram),
            "t.yaml:6: sram.output: missing required key");
}

TEST(TargetTest, PpuOpsNeedACostEach) {
  const std::string dram = "dram: {preset: HBM2}\n";
  const std::string no_default = replace(kPrefix, "    default: {throughput: 1, latency: 4}",
                                         "    epilogue: {throughput: 1, latency: 4}");
  EXPECT_EQ(parse_error(no_default + dram)
                .rfind("t.yaml:13: ppu.ops.bn_fwd: missing the costs of PPU ops \"bn_fwd\", "
                       "\"bn_bwd\", \"maxpool_fwd\", ",
                       0),
            0u);
  EXPECT_NE(parse_error(no_default + dram)
                .find("\"amp_update\"; give them, or a `default:` entry for the ops not listed"),
            std::string::npos);
  // One op without a cost is named alone.
  std::string every_op_but_softmax;
  for (std::string_view op : kPpuOpNames)
    if (op != "softmax")
      every_op_but_softmax += "    " + std::string(op) + ": {throughput: 1, latency: 4}\n";
  EXPECT_EQ(parse_error(replace(kPrefix, "    default: {throughput: 1, latency: 4}\n",
                                every_op_but_softmax) +
                        dram),
            "t.yaml:13: ppu.ops.softmax: missing the cost of PPU op \"softmax\"; give it, or a "
            "`default:` entry for the ops not listed");
  EXPECT_EQ(
      parse_error(replace(kPrefix, "    default:", "    bn_fwd: {throughput: 0}\n    default:") +
                  dram),
      "t.yaml:14: ppu.ops.bn_fwd.throughput: must be greater than 0, got 0");
  const std::string error = parse_error(
      replace(kPrefix, "    default:", "    batchnorm: {latency: 3}\n    default:") + dram);
  EXPECT_EQ(error,
            "t.yaml:14: ppu.ops.batchnorm: unknown key; known keys: epilogue, bn_fwd, bn_bwd, "
            "maxpool_fwd, maxpool_bwd, avgpool_fwd, avgpool_bwd, eltwise, softmax_ce, sgd, "
            "reduce, dropout_mask, ln_fwd, ln_bwd, softmax, softmax_bwd, gather, scatter_add, "
            "adamw, clip_scale, cast, amp_check, amp_update, default");
}

// ---- DRAM relations ----------------------------------------------------------------------
// In kPrefix + kExplicitDram: 19 dram, 20 channels, 21 ranks, 22 clock_mhz, 23 data_rate,
// 24 bus_width_bits, 25 burst_length, 28 row_size, 30 timing, 31 tRCD ... 47 tRFC.

TEST(TargetTest, DramRelationsNameTheKey) {
  const std::string base = kPrefix + kExplicitDram;
  const std::string same_group = "the same bank group is never faster than another one";
  EXPECT_EQ(parse_error(replace(base, "tRAS: 52", "tRAS: 20")),
            "t.yaml:35: dram.timing.tRAS: tRAS (20) must be at least tRCD (22): a row cannot be "
            "closed before it can be accessed");
  EXPECT_EQ(parse_error(replace(base, "tRC: 74", "tRC: 60")),
            "t.yaml:36: dram.timing.tRC: tRC (60) must be at least tRAS + tRP = 52 + 22 (JEDEC: "
            "tRC = tRAS + tRP; 1 cycle of rounding is allowed)");
  EXPECT_NO_THROW(parse(replace(base, "tRC: 74", "tRC: 73")));  // the rounding slack
  EXPECT_EQ(parse_error(replace(base, "tCCD_L: 8", "tCCD_L: 3")),
            "t.yaml:38: dram.timing.tCCD_L: tCCD_L (3) must be at least tCCD_S (4): " + same_group);
  EXPECT_EQ(parse_error(replace(base, "tRRD_L: 8", "tRRD_L: 3")),
            "t.yaml:40: dram.timing.tRRD_L: tRRD_L (3) must be at least tRRD_S (4): " + same_group);
  EXPECT_EQ(parse_error(replace(base, "tWTR_L: 12", "tWTR_L: 2")),
            "t.yaml:44: dram.timing.tWTR_L: tWTR_L (2) must be at least tWTR_S (4): " + same_group);
  EXPECT_EQ(parse_error(replace(base, "data_rate: 2", "data_rate: 3")),
            "t.yaml:25: dram.burst_length: burst_length (8) must be a multiple of data_rate (3): "
            "a burst occupies whole clock cycles");
  EXPECT_EQ(parse_error(replace(base, "burst_length: 8", "burst_length: 16")),
            "t.yaml:37: dram.timing.tCCD_S: tCCD_S (4) must be at least burst_length / data_rate "
            "= 8, the cycles one burst occupies the data bus");
  EXPECT_EQ(parse_error(replace(base, "tRFC: 560", "tRFC: 70")),
            "t.yaml:47: dram.timing.tRFC: tRFC (70) must be at least tRC (74): a refresh "
            "includes at least one row cycle");
  EXPECT_EQ(parse_error(replace(base, "tREFI: 12480", "tREFI: 500")),
            "t.yaml:46: dram.timing.tREFI: tREFI (500) must be greater than tRFC (560), or the "
            "device would do nothing but refresh");
  EXPECT_EQ(parse_error(replace(replace(base, "bus_width_bits: 64", "bus_width_bits: 1024"),
                                "row_size: 8KiB", "row_size: 512")),
            "t.yaml:28: dram.row_size: row_size (512 bytes) must be a multiple of the burst size, "
            "bus_width_bits / 8 x burst_length = 1024 bytes");
  EXPECT_EQ(parse_error(replace(base, "  ranks: 1", "  ranks: 1\n  capacity: 32GiB")),
            "t.yaml:22: dram.capacity: capacity 32 GiB exceeds what the organisation addresses: "
            "1 channel x 1 rank x 16 banks x 65536 rows x 8 KiB = 8 GiB");
  EXPECT_EQ(parse_error(replace(base, "bus_width_bits: 64", "bus_width_bits: 48")),
            "t.yaml:24: dram.bus_width_bits: must be a power of two, got 48");
}

TEST(TargetTest, BrokenRelationIsBlamedOnTheOverride) {
  // The preset is consistent; raising tRAS in the config breaks tRC >= tRAS + tRP, so the
  // error points at the override, not at the preset's tRC.
  EXPECT_EQ(parse_error(kPrefix + "dram:\n  preset: DDR4-3200\n  timing:\n    tRAS: 80\n"),
            "t.yaml:22: dram.timing.tRAS: tRC (74) must be at least tRAS + tRP = 80 + 22 (JEDEC: "
            "tRC = tRAS + tRP; 1 cycle of rounding is allowed)");
  EXPECT_EQ(parse_error(kPrefix + "dram:\n  preset: DDR4-3200\n  capacity: 16GiB\n"),
            "t.yaml:21: dram.capacity: capacity 16 GiB exceeds what the organisation addresses: "
            "1 channel x 1 rank x 16 banks x 65536 rows x 8 KiB = 8 GiB");
}

TEST(TargetTest, BrokenPresetIsBlamedOnThePresetUnlessOverridden) {
  TempPresets presets("broken_relation");
  const std::string path =
      presets.write("DDR4-Broken", replace(explicit_dram_as_preset(), "  tRC: 74", "  tRC: 60"));
  EXPECT_EQ(parse_error(kPrefix + "dram: {preset: DDR4-Broken}\n", presets.dir()),
            path +
                ":17: timing.tRC: tRC (60) must be at least tRAS + tRP = 52 + 22 (JEDEC: "
                "tRC = tRAS + tRP; 1 cycle of rounding is allowed)");
  const TargetDesc fixed =
      parse(kPrefix + "dram: {preset: DDR4-Broken, timing: {tRC: 74}}\n", presets.dir());
  EXPECT_EQ(fixed.dram.timing.tRC, 74u);
}

TEST(TargetTest, LoadReportsMissingFiles) {
  EXPECT_EQ(error_of([] { load_target("/nonexistent/s2/base.yaml"); }),
            "/nonexistent/s2/base.yaml: cannot open: No such file or directory");
}

}  // namespace
}  // namespace s2::target
