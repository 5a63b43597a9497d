#include "isa/target/target_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "isa/common/errors.h"
#include "isa/target/param_reader.h"

namespace s2::target {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kKiB = uint64_t{1} << 10;
constexpr uint64_t kGiB = uint64_t{1} << 30;

bool is_power_of_two(uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

std::string str(uint64_t value) {
  return std::to_string(value);
}

// "1 rank", "2 ranks".
std::string count(uint64_t n, const std::string& noun) {
  return str(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string num(double value) {
  return fmt::format("{:.6g}", value);
}

// A field that is required where it is first defined, and an override with the earlier value
// as fallback where a preset already gave it (`base` non-null).
template <typename T>
T field(ParamReader& reader, const std::string& key, const T* base, T min, T max) {
  return base != nullptr ? reader.get<T>(key, *base, min, max) : reader.required<T>(key, min, max);
}

uint32_t power_of_two_field(ParamReader& reader, const std::string& key, const uint32_t* base,
                            uint32_t min, uint32_t max) {
  const uint32_t value = field<uint32_t>(reader, key, base, min, max);
  if (!is_power_of_two(value)) reader.fail(key, "must be a power of two, got " + str(value));
  return value;
}

// Positive reals: the range check is inclusive, so zero is refused here.
double positive_field(ParamReader& reader, const std::string& key, const double* base, double max) {
  const double value = field<double>(reader, key, base, 0.0, max);
  if (value <= 0) reader.fail(key, "must be greater than 0, got " + num(value));
  return value;
}

// ---- accelerator units -------------------------------------------------------------------

PeArrayDesc read_pe_array(ParamReader reader) {
  PeArrayDesc pe;
  pe.rows = reader.required<uint32_t>("rows", 1, 1024);
  pe.cols = reader.required<uint32_t>("cols", 1, 1024);
  pe.dataflow = reader.get_enum("dataflow", Dataflow::WeightStationary, kDataflowNames);
  std::set<EpilogueFeature> all;
  for (std::size_t i = 0; i < kEpilogueFeatureNames.size(); ++i) {
    all.insert(static_cast<EpilogueFeature>(i));
  }
  pe.epilogue = reader.get_enum_set("epilogue", all, kEpilogueFeatureNames);
  return pe;
}

SramBufferDesc read_buffer(ParamReader reader) {
  SramBufferDesc buffer;
  buffer.size_bytes = reader.required<ByteSize>("size", ByteSize{1}, ByteSize{kGiB}).bytes;
  buffer.banks = power_of_two_field(reader, "banks", nullptr, 1, 64);
  buffer.bank_width_bytes = static_cast<uint32_t>(
      reader.required<ByteSize>("bank_width", ByteSize{1}, ByteSize{4 * kKiB}).bytes);
  const uint64_t row = uint64_t{buffer.banks} * buffer.bank_width_bytes;
  if (buffer.size_bytes % row != 0) {
    reader.fail("size", "must be a multiple of banks x bank_width = " + str(row) +
                            " bytes so that every bank has whole rows, got " +
                            str(buffer.size_bytes) + " bytes");
  }
  return buffer;
}

SramDesc read_sram(ParamReader reader) {
  SramDesc sram;
  sram.input = read_buffer(reader.child("input"));
  sram.weight = read_buffer(reader.child("weight"));
  sram.accumulator = read_buffer(reader.child("accumulator"));
  sram.output = read_buffer(reader.child("output"));
  return sram;
}

PpuOpCost read_cost(ParamReader reader, const PpuOpCost* base) {
  PpuOpCost cost;
  cost.throughput =
      positive_field(reader, "throughput", base ? &base->throughput : nullptr, 1024.0);
  cost.latency = field<uint32_t>(reader, "latency", base ? &base->latency : nullptr, 0, 1000000);
  return cost;
}

// Every op needs a cost. `default:` gives it to the ops not listed, and fills the fields an
// op's own entry leaves out.
PpuDesc read_ppu(ParamReader reader) {
  PpuDesc ppu;
  ppu.lanes = reader.required<uint32_t>("lanes", 1, 4096);
  ParamReader ops = reader.child("ops");
  std::array<std::optional<ParamReader>, kPpuOpCount> given;
  for (std::size_t i = 0; i < kPpuOpCount; ++i) {
    given[i] = ops.optional_child(std::string(kPpuOpNames[i]));
  }
  std::optional<PpuOpCost> fallback;
  if (std::optional<ParamReader> entry = ops.optional_child("default")) {
    fallback = read_cost(*entry, nullptr);
  }
  for (std::size_t i = 0; i < kPpuOpCount; ++i) {
    const std::string op(kPpuOpNames[i]);
    if (given[i]) {
      ppu.ops[i] = read_cost(*given[i], fallback ? &*fallback : nullptr);
    } else if (fallback) {
      ppu.ops[i] = *fallback;
    } else {
      ops.fail(op, "missing the cost of PPU op \"" + op +
                       "\"; give it, or a `default:` entry for the ops not listed");
    }
  }
  return ppu;
}

DmaDesc read_dma(ParamReader reader) {
  DmaDesc dma;
  dma.engines = reader.required<uint32_t>("engines", 1, 16);
  dma.width_bytes = static_cast<uint32_t>(
      reader.required<ByteSize>("width", ByteSize{1}, ByteSize{4 * kKiB}).bytes);
  if (!is_power_of_two(dma.width_bytes)) {
    reader.fail("width", "must be a power of two, got " + str(dma.width_bytes));
  }
  dma.max_outstanding = reader.required<uint32_t>("max_outstanding", 1, 1024);
  return dma;
}

// ---- DRAM --------------------------------------------------------------------------------

struct TimingField {
  const char* key;
  uint32_t DramTiming::*member;
};
constexpr std::array<TimingField, 17> kTimingFields{{
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
constexpr uint32_t kMaxTimingCycles = 10000000;

// One dram mapping as read, with the readers needed to blame a key in it later.
struct DramSource {
  DramDesc desc;
  ParamReader reader;
  ParamReader timing;
};

// Reads a dram mapping (a preset file's top level, or the config's `dram:`). With `base`, every
// key is an override of base's value. capacity_bytes stays 0 when not given: its default
// depends on the final organisation.
DramSource read_dram(ParamReader reader, const DramDesc* base) {
  DramDesc d;
  const auto from = [base](auto member) { return base != nullptr ? &(base->*member) : nullptr; };
  d.channels = field<uint32_t>(reader, "channels", from(&DramDesc::channels), 1, 64);
  d.ranks = field<uint32_t>(reader, "ranks", from(&DramDesc::ranks), 1, 16);
  if (std::optional<ByteSize> capacity =
          reader.optional<ByteSize>("capacity", ByteSize{1}, ByteSize{uint64_t{1} << 60})) {
    d.capacity_bytes = capacity->bytes;
  } else if (base != nullptr) {
    d.capacity_bytes = base->capacity_bytes;
  }
  d.clock_mhz = positive_field(reader, "clock_mhz", from(&DramDesc::clock_mhz), 20000.0);
  d.data_rate = field<uint32_t>(reader, "data_rate", from(&DramDesc::data_rate), 1, 8);
  d.bus_width_bits =
      power_of_two_field(reader, "bus_width_bits", from(&DramDesc::bus_width_bits), 8, 1024);
  d.burst_length = power_of_two_field(reader, "burst_length", from(&DramDesc::burst_length), 1, 64);
  d.bank_groups = power_of_two_field(reader, "bank_groups", from(&DramDesc::bank_groups), 1, 16);
  d.banks_per_group =
      power_of_two_field(reader, "banks_per_group", from(&DramDesc::banks_per_group), 1, 64);
  const ByteSize base_row{base != nullptr ? base->row_size_bytes : 0};
  d.row_size_bytes = field<ByteSize>(reader, "row_size", base != nullptr ? &base_row : nullptr,
                                     ByteSize{64}, ByteSize{64 * kKiB})
                         .bytes;
  if (!is_power_of_two(d.row_size_bytes)) {
    reader.fail("row_size", "must be a power of two, got " + str(d.row_size_bytes) + " bytes");
  }
  d.rows_per_bank =
      field<uint32_t>(reader, "rows_per_bank", from(&DramDesc::rows_per_bank), 1, 1u << 24);

  ParamReader timing = base != nullptr ? reader.child_or_empty("timing") : reader.child("timing");
  for (const TimingField& f : kTimingFields) {
    const uint32_t* fallback = base != nullptr ? &(base->timing.*f.member) : nullptr;
    d.timing.*f.member = field<uint32_t>(timing, f.key, fallback, 1, kMaxTimingCycles);
  }
  return DramSource{d, reader, timing};
}

bool valid_preset_name(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

std::vector<std::string> presets_in(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".yaml" && it->is_regular_file(error)) {
      names.push_back(it->path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string preset_path(ParamReader& dram, const std::string& preset,
                        const std::string& preset_dir) {
  const fs::path path = fs::path(preset_dir) / (preset + ".yaml");
  std::error_code error;
  if (valid_preset_name(preset) && fs::is_regular_file(path, error)) return path.string();
  const std::vector<std::string> known = presets_in(preset_dir);
  std::string problem = "unknown DRAM preset \"" + preset + "\"; ";
  if (known.empty()) {
    problem += "no presets found in " + preset_dir;
  } else {
    problem += "presets in " + preset_dir + ": ";
    for (std::size_t i = 0; i < known.size(); ++i)
      problem += (i ? ", " : "") + known[i];
  }
  dram.fail("preset", problem);
}

// Where the final DRAM values came from: the config's dram mapping and, with a preset, the
// preset file. A broken relation is blamed on a key the config sets when there is one (its
// override broke the relation), otherwise on the first key in the file that defined them all.
struct DramOrigin {
  DramSource config;
  std::optional<DramSource> preset;

  // `keys` are relative to the dram mapping ("burst_length", "timing.tRC"), the first being
  // the one the message is about.
  [[noreturn]] void fail(std::initializer_list<std::string> keys,
                         const std::string& problem) const {
    for (const std::string& key : keys) {
      const auto [reader, local_key] = locate(config, key);
      if (reader.has(local_key)) reader.fail(local_key, problem);
    }
    const auto [reader, local_key] = locate(preset ? *preset : config, *keys.begin());
    reader.fail(local_key, problem);
  }

 private:
  static std::pair<ParamReader, std::string> locate(const DramSource& source,
                                                    const std::string& key) {
    const std::string timing = "timing.";
    if (key.compare(0, timing.size(), timing) == 0) {
      return {source.timing, key.substr(timing.size())};
    }
    return {source.reader, key};
  }
};

// Relations that hold for every JEDEC device and speed bin, so that a violation is a typo
// rather than an exotic part. They are checked in cycles; where JEDEC states an equality of
// ns values (tRC = tRAS + tRP) one cycle of slack allows for rounding each term up on its own.
// Not checked, because rounding or real parts break them: tFAW >= 4 x tRRD_S (LPDDR4-4266:
// tFAW 40 ns = 86 nCK < 4 x 22 nCK) and tCL >= tCWL.
void check_dram(const DramDesc& d, const DramOrigin& origin) {
  const DramTiming& t = d.timing;
  // Opening a row must complete before it may be closed: tRAS(min) > tRCD(min).
  if (t.tRAS < t.tRCD) {
    origin.fail({"timing.tRAS", "timing.tRCD"},
                "tRAS (" + str(t.tRAS) + ") must be at least tRCD (" + str(t.tRCD) +
                    "): a row cannot be closed before it can be accessed");
  }
  // The row cycle is activate-to-precharge plus precharge: tRC = tRAS + tRP.
  if (uint64_t{t.tRC} + 1 < uint64_t{t.tRAS} + t.tRP) {
    origin.fail({"timing.tRC", "timing.tRAS", "timing.tRP"},
                "tRC (" + str(t.tRC) + ") must be at least tRAS + tRP = " + str(t.tRAS) + " + " +
                    str(t.tRP) + " (JEDEC: tRC = tRAS + tRP; 1 cycle of rounding is allowed)");
  }
  // Within one bank group commands are never allowed closer together than across groups.
  struct LongShort {
    const char* long_key;
    uint32_t long_value;
    const char* short_key;
    uint32_t short_value;
  };
  for (const LongShort& pair : {LongShort{"tCCD_L", t.tCCD_L, "tCCD_S", t.tCCD_S},
                                LongShort{"tRRD_L", t.tRRD_L, "tRRD_S", t.tRRD_S},
                                LongShort{"tWTR_L", t.tWTR_L, "tWTR_S", t.tWTR_S}}) {
    if (pair.long_value < pair.short_value) {
      origin.fail({std::string("timing.") + pair.long_key, std::string("timing.") + pair.short_key},
                  std::string(pair.long_key) + " (" + str(pair.long_value) + ") must be at least " +
                      pair.short_key + " (" + str(pair.short_value) +
                      "): the same bank group is never faster than another one");
    }
  }
  // A burst occupies whole clock cycles on the data bus ...
  if (d.burst_length % d.data_rate != 0) {
    origin.fail({"burst_length", "data_rate"},
                "burst_length (" + str(d.burst_length) + ") must be a multiple of data_rate (" +
                    str(d.data_rate) + "): a burst occupies whole clock cycles");
  }
  // ... and two bursts cannot overlap there.
  const uint32_t burst_cycles = d.burst_length / d.data_rate;
  if (t.tCCD_S < burst_cycles) {
    origin.fail({"timing.tCCD_S", "burst_length", "data_rate"},
                "tCCD_S (" + str(t.tCCD_S) + ") must be at least burst_length / data_rate = " +
                    str(burst_cycles) + ", the cycles one burst occupies the data bus");
  }
  // A refresh performs at least one row cycle, and must leave time between refreshes.
  if (t.tRFC < t.tRC) {
    origin.fail({"timing.tRFC", "timing.tRC"}, "tRFC (" + str(t.tRFC) + ") must be at least tRC (" +
                                                   str(t.tRC) +
                                                   "): a refresh includes at least one row cycle");
  }
  if (t.tREFI <= t.tRFC) {
    origin.fail({"timing.tREFI", "timing.tRFC"},
                "tREFI (" + str(t.tREFI) + ") must be greater than tRFC (" + str(t.tRFC) +
                    "), or the device would do nothing but refresh");
  }
  // A burst never straddles two rows.
  if (d.row_size_bytes % d.burst_bytes() != 0) {
    origin.fail({"row_size", "burst_length", "bus_width_bits"},
                "row_size (" + str(d.row_size_bytes) +
                    " bytes) must be a multiple of the burst size, bus_width_bits / 8 x "
                    "burst_length = " +
                    str(d.burst_bytes()) + " bytes");
  }
  // Every address must map to a channel, rank, bank, row and column.
  if (d.capacity_bytes > d.addressable_bytes()) {
    origin.fail({"capacity", "channels", "ranks", "bank_groups", "banks_per_group", "rows_per_bank",
                 "row_size"},
                "capacity " + format_bytes(d.capacity_bytes) +
                    " exceeds what the organisation addresses: " + count(d.channels, "channel") +
                    " x " + count(d.ranks, "rank") + " x " + count(d.banks_per_rank(), "bank") +
                    " x " + count(d.rows_per_bank, "row") + " x " + format_bytes(d.row_size_bytes) +
                    " = " + format_bytes(d.addressable_bytes()));
  }
}

// Reads the config's dram mapping, through its preset if it names one.
DramOrigin read_dram_section(ParamReader dram, const std::string& preset_dir) {
  const std::optional<std::string> preset = dram.optional<std::string>("preset");
  if (!preset) return DramOrigin{read_dram(dram, nullptr), std::nullopt};
  ParamReader preset_file = ParamReader::load(preset_path(dram, *preset, preset_dir));
  DramSource from_preset = read_dram(preset_file, nullptr);
  preset_file.finish();
  DramSource merged = read_dram(dram, &from_preset.desc);
  merged.desc.preset = *preset;
  return DramOrigin{merged, from_preset};
}

// `dram.backend`, or the default it stands for (target_desc.h), checked against the models the
// simulator has.
std::string dram_backend(const ParamReader& dram, const std::optional<std::string>& given,
                         const std::string& preset) {
  std::string family = "jedec";
  if (!preset.empty()) {
    family = preset.substr(0, preset.find('-'));
    std::transform(family.begin(), family.end(), family.begin(), [](char c) {
      return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    });
  }
  const std::string backend = given.value_or(family);
  if (std::find(kDramBackendNames.begin(), kDramBackendNames.end(), backend) ==
      kDramBackendNames.end()) {
    std::string known;
    for (std::string_view name : kDramBackendNames)
      known += (known.empty() ? "" : ", ") + std::string(name);
    dram.fail(given ? "backend" : "preset",
              "unknown DRAM backend '" + backend + "'; known: " + known +
                  (given ? std::string()
                         : " (the preset '" + preset +
                               "' selects the backend named by its family, the part before "
                               "'-'; set dram.backend to choose another)"));
  }
  return backend;
}

// `dram.controller`: every key optional, the defaults being the controller of target_desc.h.
DramControllerDesc read_controller(ParamReader dram) {
  DramControllerDesc c;
  std::optional<ParamReader> reader = dram.optional_child("controller");
  if (!reader) return c;
  c.scheduler = reader->get_enum("scheduler", c.scheduler, kDramSchedulerNames);
  c.row_policy = reader->get_enum("row_policy", c.row_policy, kRowPolicyNames);
  c.address_mapping =
      reader->get_enum_permutation("address_mapping", c.address_mapping, kAddressFieldNames);
  return c;
}

}  // namespace

TargetDesc parse_target(const std::string& yaml_text, const std::string& file_name,
                        const std::string& preset_dir) {
  ParamReader root = ParamReader::parse(yaml_text, file_name);
  TargetDesc target;
  target.name = root.required<std::string>("name");
  if (target.name.empty()) root.fail("name", "must not be empty");
  target.clock_mhz = positive_field(root, "clock_mhz", nullptr, 100000.0);
  target.pe_array = read_pe_array(root.child("pe_array"));
  target.sram = read_sram(root.child("sram"));
  target.ppu = read_ppu(root.child("ppu"));
  target.dma = read_dma(root.child("dma"));
  ParamReader dram_section = root.child("dram");
  const DramOrigin dram = read_dram_section(dram_section, preset_dir);
  const std::optional<std::string> backend = dram_section.optional<std::string>("backend");
  const DramControllerDesc controller = read_controller(dram_section);
  // Unknown keys first: a misspelt override would otherwise surface as a broken relation.
  root.finish();
  if (dram.preset) dram.preset->reader.record_locations(target.locations, "dram");
  root.record_locations(target.locations);  // the config's own keys win over the preset's
  target.dram = dram.config.desc;
  if (target.dram.capacity_bytes == 0) target.dram.capacity_bytes = target.dram.addressable_bytes();
  check_dram(target.dram, dram);
  target.dram.backend = dram_backend(dram_section, backend, target.dram.preset);
  target.dram.controller = controller;
  target.source_file = file_name;
  return target;
}

TargetDesc load_target(const std::string& path) {
  fs::path preset_dir = fs::path(path).parent_path() / "dram";
  return parse_target(read_text_file(path), path, preset_dir.string());
}

// ---- summary -----------------------------------------------------------------------------

namespace {

void line(std::ostringstream& out, const std::string& label, const std::string& text) {
  constexpr std::size_t kLabelWidth = 14;
  out << "  " << label << std::string(kLabelWidth - std::min(kLabelWidth - 1, label.size()), ' ')
      << text << "\n";
}

std::string buffer_text(const SramBufferDesc& b) {
  return format_bytes(b.size_bytes) + " in " + count(b.banks, "bank") + " x " +
         format_bytes(b.bank_width_bytes) + " wide x " + str(b.bank_depth()) + " deep";
}

std::string gb_per_s(double bytes_per_s) {
  return num(bytes_per_s / 1e9) + " GB/s";
}

}  // namespace

std::string describe_target(const TargetDesc& t) {
  std::ostringstream out;
  out << "target " << t.name;
  if (!t.source_file.empty()) out << " (" << t.source_file << ")";
  out << "\n";
  const PeArrayDesc& pe = t.pe_array;
  line(out, "clock", num(t.clock_mhz) + " MHz");
  // Two floating-point operations (multiply and add) per MAC per cycle.
  const double peak_flops = 2.0 * static_cast<double>(pe.macs()) * t.clock_mhz * 1e6;
  line(out, "PE array",
       str(pe.rows) + " x " + str(pe.cols) + " " + std::string(name(pe.dataflow)) + ", " +
           str(pe.macs()) + " MACs, peak " + num(peak_flops / 1e9) + " GFLOP/s");
  std::string epilogue;
  for (EpilogueFeature feature : pe.epilogue) {
    epilogue += (epilogue.empty() ? "" : ", ") + std::string(name(feature));
  }
  line(out, "epilogue", epilogue.empty() ? "none (no fusion into PE instructions)" : epilogue);
  line(out, "SRAM input", buffer_text(t.sram.input));
  line(out, "SRAM weight", buffer_text(t.sram.weight));
  line(out, "SRAM accum", buffer_text(t.sram.accumulator));
  line(out, "SRAM output", buffer_text(t.sram.output));
  line(out, "PPU", str(t.ppu.lanes) + " lanes; per op: elements/lane/cycle, latency in cycles");
  for (std::size_t i = 0; i < kPpuOpCount; i += 4) {
    std::string costs;
    for (std::size_t j = i; j < std::min(i + 4, kPpuOpCount); ++j) {
      const PpuOpCost& cost = t.ppu.ops[j];
      costs += (costs.empty() ? "" : "  ") + std::string(kPpuOpNames[j]) + " " +
               num(cost.throughput) + "/" + str(cost.latency);
    }
    line(out, "", costs);
  }
  const DmaDesc& dma = t.dma;
  const double dma_bytes_per_s =
      static_cast<double>(dma.engines) * dma.width_bytes * t.clock_mhz * 1e6;
  line(out, "DMA",
       count(dma.engines, "engine") + " x " + str(dma.width_bytes) + " B/cycle (" +
           gb_per_s(dma_bytes_per_s) + "), " + str(dma.max_outstanding) +
           " bursts outstanding per engine");
  const DramDesc& d = t.dram;
  line(out, "DRAM",
       (d.preset.empty() ? std::string("explicit parameters") : "preset " + d.preset) + ", " +
           count(d.channels, "channel") + " x " + count(d.ranks, "rank") + ", " +
           format_bytes(d.capacity_bytes) + " (addressable " + format_bytes(d.addressable_bytes()) +
           ")");
  line(out, "",
       num(d.clock_mhz) + " MHz x " + str(d.data_rate) + " = " + num(d.clock_mhz * d.data_rate) +
           " MT/s, " + str(d.bus_width_bits) + "-bit channels, BL" + str(d.burst_length) + " = " +
           str(d.burst_bytes()) + " B bursts");
  line(out, "",
       count(d.bank_groups, "bank group") + " x " + count(d.banks_per_group, "bank") + " x " +
           str(d.rows_per_bank) + " rows of " + format_bytes(d.row_size_bytes));
  line(out, "", "peak " + gb_per_s(d.peak_bandwidth_bytes_per_s()));
  std::string order;
  for (AddressField field : d.controller.address_mapping)
    order += (order.empty() ? "" : ":") + std::string(name(field));
  line(out, "",
       "backend " + d.backend + ", scheduler " + std::string(name(d.controller.scheduler)) + ", " +
           std::string(name(d.controller.row_policy)) + " page, address " + order);
  // The 17 timings on two lines: row and column timings, then the rest.
  constexpr std::size_t kFirstLine = 9;
  std::string timings[2];
  for (std::size_t i = 0; i < kTimingFields.size(); ++i) {
    std::string& text = timings[i < kFirstLine ? 0 : 1];
    text += (text.empty() ? "" : " ") + std::string(kTimingFields[i].key) + "=" +
            str(d.timing.*kTimingFields[i].member);
  }
  line(out, "", "timing (nCK) " + timings[0]);
  line(out, "", "             " + timings[1]);
  return out.str();
}

}  // namespace s2::target
