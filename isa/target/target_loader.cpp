#include "isa/target/target_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "isa/common/errors.h"
#include "isa/container/executable.h"
#include "isa/target/dram_section.h"
#include "isa/target/param_fields.h"
#include "isa/target/param_reader.h"

namespace s2::target {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kKiB = uint64_t{1} << 10;
constexpr uint64_t kGiB = uint64_t{1} << 30;

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
  std::vector<std::string_view> act_names;
  std::vector<isa::Activation> acts;
  for (isa::Activation act : all_activations()) {
    act_names.push_back(isa::activation_name(act));
    acts.push_back(act);
  }
  if (const auto listed = reader.get_name_list("activations", act_names)) {
    if (!pe.supports(EpilogueFeature::Activation))
      reader.relation_problem("activations",
                              "lists activation functions, but the epilogue has no "
                              "'activation' stage");
    pe.activations.clear();
    for (size_t index : *listed)
      pe.activations.insert(acts[index]);
  }
  if (reader.has("datatypes")) {
    // A mapping from the ISA's float element types to MACs per PE per cycle.
    ParamReader types = reader.child("datatypes");
    pe.datatypes.clear();
    for (isa::DType dtype : {isa::DType::F32, isa::DType::BF16, isa::DType::F16})
      if (const auto macs = types.optional<uint32_t>(std::string(isa::dtype_name(dtype)), 1, 64))
        pe.datatypes[dtype] = *macs;
    // An unknown key is the problem to report, not the emptiness it causes.
    const std::size_t problems_before = types.problem_count();
    types.record_unknown_keys();
    if (pe.datatypes.empty() && types.problem_count() == problems_before)
      reader.problem("datatypes",
                     "lists no element type; the array must multiply at least one of "
                     "f32, bf16, f16");
  }
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
    reader.relation_problem("size", "must be a multiple of banks x bank_width = " + str(row) +
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
  std::vector<std::string> unpriced;
  for (std::size_t i = 0; i < kPpuOpCount; ++i) {
    if (given[i]) {
      ppu.ops[i] = read_cost(*given[i], fallback ? &*fallback : nullptr);
    } else if (fallback) {
      ppu.ops[i] = *fallback;
    } else {
      unpriced.push_back("\"" + std::string(kPpuOpNames[i]) + "\"");
    }
  }
  if (unpriced.size() == 1) {
    ops.problem(unpriced[0].substr(1, unpriced[0].size() - 2),
                "missing the cost of PPU op " + unpriced[0] +
                    "; give it, or a `default:` entry for the ops not listed");
  } else if (!unpriced.empty()) {
    ops.problem(unpriced[0].substr(1, unpriced[0].size() - 2),
                fmt::format("missing the costs of PPU ops {}; give them, or a `default:` entry "
                            "for the ops not listed",
                            fmt::join(unpriced, ", ")));
  }
  return ppu;
}

DmaDesc read_dma(ParamReader reader) {
  DmaDesc dma;
  dma.engines = reader.required<uint32_t>("engines", 1, 16);
  dma.width_bytes = static_cast<uint32_t>(
      reader.required<ByteSize>("width", ByteSize{1}, ByteSize{4 * kKiB}).bytes);
  if (!is_power_of_two(dma.width_bytes))
    reader.problem("width", "must be a power of two, got " + str(dma.width_bytes));
  dma.max_outstanding = reader.required<uint32_t>("max_outstanding", 1, 1024);
  return dma;
}

// ---- DRAM --------------------------------------------------------------------------------

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

// `dram.backend`, or the default it stands for (target_desc.h), and its section parser.
const DramSectionParser& dram_parser(const ParamReader& dram, const DramBackendSchemas& backends,
                                     const std::optional<std::string>& given,
                                     const std::string& preset, std::string& backend) {
  std::string family = "jedec";
  if (!preset.empty()) {
    family = preset.substr(0, preset.find('-'));
    std::transform(family.begin(), family.end(), family.begin(), [](char c) {
      return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    });
  }
  backend = given.value_or(family);
  const DramSectionParser* parser = backends.find(backend);
  if (parser == nullptr) {
    dram.fail(given ? "backend" : "preset",
              backends.unknown_message(backend) +
                  (given ? std::string()
                         : " (the preset '" + preset +
                               "' selects the backend named by its family, the part before "
                               "'-'; set dram.backend to choose another)"));
  }
  return *parser;
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
  c.address_hash = reader->get_enum("address_hash", c.address_hash, kAddressHashNames);
  c.read_queue =
      reader->get<uint32_t>("read_queue", c.read_queue, 1, DramControllerDesc::kMaxQueue);
  c.write_queue =
      reader->get<uint32_t>("write_queue", c.write_queue, 1, DramControllerDesc::kMaxQueue);
  c.write_high_watermark = reader->get<uint32_t>(
      "write_high_watermark", c.write_queue - c.write_queue / 4, 1, c.write_queue);
  c.write_low_watermark = reader->get<uint32_t>(
      "write_low_watermark", std::min(c.write_queue / 4, c.write_high_watermark - 1), 0,
      c.write_queue);
  if (c.write_low_watermark >= c.write_high_watermark) {
    reader->fail("write_low_watermark",
                 "must be below write_high_watermark (" + std::to_string(c.write_high_watermark) +
                     "): the controller drains writes from the high mark down to the low one");
  }
  c.frontend_latency = reader->get<uint32_t>("frontend_latency", c.frontend_latency, 0, 100000);
  return c;
}

// The keys of a host link, each overriding `base` (a preset's) when given.
HostLinkDesc read_link_keys(ParamReader& reader, const HostLinkDesc* base) {
  HostLinkDesc link;
  link.bandwidth_gb_s =
      positive_field(reader, "bandwidth_gb_s", base ? &base->bandwidth_gb_s : nullptr, 10000.0);
  link.latency_ns =
      field<double>(reader, "latency_ns", base ? &base->latency_ns : nullptr, 0.0, 1e6);
  const ByteSize memory_base{base ? base->memory_bytes : 0};
  link.memory_bytes = field<ByteSize>(reader, "memory", base ? &memory_base : nullptr, ByteSize{1},
                                      ByteSize{uint64_t{1} << 50})
                          .bytes;
  link.energy_pj_per_bit = field<double>(reader, "energy_pj_per_bit",
                                         base ? &base->energy_pj_per_bit : nullptr, 0.0, 1000.0);
  return link;
}

// `host_link`: the keys, over a preset's from configs/host_link/NAME.yaml when `preset` names
// one (its reader left in `preset_file`, for the keys' locations).
HostLinkDesc read_host_link(ParamReader reader, const std::string& preset_dir,
                            std::optional<ParamReader>& preset_file) {
  std::optional<HostLinkDesc> preset;
  const std::size_t problems_before = reader.problem_count();
  if (const auto name = reader.optional<std::string>("preset");
      name && reader.problem_count() == problems_before) {
    const fs::path dir = fs::path(preset_dir).parent_path() / "host_link";
    const fs::path path = dir / (*name + ".yaml");
    std::error_code ec;
    if (!valid_preset_name(*name) || !fs::is_regular_file(path, ec)) {
      const std::vector<std::string> known = presets_in(dir.string());
      std::string problem = "unknown host link preset \"" + *name + "\"; ";
      problem += known.empty() ? "no presets found in " + dir.string()
                               : "presets in " + dir.string() + ": ";
      for (std::size_t i = 0; i < known.size(); ++i)
        problem += (i ? ", " : "") + known[i];
      reader.fail("preset", problem);
    }
    preset_file = reader.load_beside(path.string());
    preset = read_link_keys(*preset_file, nullptr);
    preset->preset = *name;
    preset_file->record_unknown_keys();
  }
  HostLinkDesc link = read_link_keys(reader, preset ? &*preset : nullptr);
  link.preset = preset ? preset->preset : "";
  return link;
}

// `technology: NAME`: configs/tech/NAME.yaml beside the presets' directory. Every key is
// required: a technology file states each number with its source (docs/energy.md). nullopt
// when the name is bad (a problem recorded).
std::optional<TechDesc> read_tech(ParamReader& root, const std::string& preset_dir) {
  const std::size_t problems_before = root.problem_count();
  const std::string name = root.required<std::string>("technology");
  if (root.problem_count() != problems_before) return std::nullopt;
  const fs::path dir = fs::path(preset_dir).parent_path() / "tech";
  const fs::path path = dir / (name + ".yaml");
  std::error_code ec;
  if (!valid_preset_name(name) || !fs::is_regular_file(path, ec)) {
    const std::vector<std::string> known = presets_in(dir.string());
    std::string problem = "unknown technology \"" + name + "\"; ";
    if (known.empty())
      problem += "no technology files in " + dir.string();
    else
      problem += "technologies in " + dir.string() + ": ";
    for (std::size_t i = 0; i < known.size(); ++i)
      problem += (i ? ", " : "") + known[i];
    root.problem("technology", problem);
    return std::nullopt;
  }
  ParamReader file = root.load_beside(path.string());
  TechDesc t;
  t.name = name;
  t.file = path.string();
  constexpr double kBig = 1e12;
  t.node_nm = positive_field(file, "node_nm", nullptr, 1000.0);
  ParamReader pe = file.child("pe");
  ParamReader mac = pe.child("mac");
  t.mac_energy_pj = positive_field(mac, "energy_pj", nullptr, kBig);
  t.mac_area_um2 = positive_field(mac, "area_um2", nullptr, kBig);
  ParamReader mac16 = pe.child("mac_16bit");
  t.mac_16bit_energy_pj = positive_field(mac16, "energy_pj", nullptr, kBig);
  ParamReader add = pe.child("add");
  t.add_area_um2 = positive_field(add, "area_um2", nullptr, kBig);
  ParamReader reg = file.child("register");
  t.register_bit_energy_pj = positive_field(reg, "bit_energy_pj", nullptr, kBig);
  t.register_bit_area_um2 = positive_field(reg, "bit_area_um2", nullptr, kBig);
  ParamReader sram = file.child("sram");
  t.sram_access_energy_pj = positive_field(sram, "access_energy_pj", nullptr, kBig);
  t.sram_reference_width_bytes = static_cast<uint32_t>(
      sram.required<ByteSize>("reference_width", ByteSize{1}, ByteSize{4096}).bytes);
  t.sram_reference_bytes =
      sram.required<ByteSize>("reference_size", ByteSize{1}, ByteSize{uint64_t{1} << 40}).bytes;
  t.sram_cell_area_um2 = positive_field(sram, "cell_area_um2", nullptr, kBig);
  t.sram_row_area_um2 = positive_field(sram, "row_area_um2", nullptr, kBig);
  t.sram_column_area_um2 = positive_field(sram, "column_area_um2", nullptr, kBig);
  t.sram_bank_area_um2 = sram.required<double>("bank_area_um2", 0.0, kBig);
  t.sram_mat_rows = power_of_two_field(sram, "mat_rows", nullptr, 1, 65536);
  t.sram_mat_columns = power_of_two_field(sram, "mat_columns", nullptr, 1, 65536);
  ParamReader ppu = file.child("ppu");
  t.ppu_op_energy_pj = positive_field(ppu, "op_energy_pj", nullptr, kBig);
  t.ppu_lane_area_um2 = positive_field(ppu, "lane_area_um2", nullptr, kBig);
  ParamReader dma = file.child("dma");
  t.dma_byte_energy_pj = positive_field(dma, "byte_energy_pj", nullptr, kBig);
  t.dma_engine_area_um2 = positive_field(dma, "engine_area_um2", nullptr, kBig);
  t.leakage_mw_per_mm2 = file.required<double>("leakage_mw_per_mm2", 0.0, kBig);
  file.record_unknown_keys();
  return t;
}

// Reads a section of the config into `out` with `read`; a fail() inside abandons the section,
// and the loader reads on (its problems stay recorded).
template <typename Desc>
void read_section(ParamReader section, Desc& out, Desc (*read)(ParamReader)) {
  section.section([&](ParamReader& reader) { out = read(reader); });
}

}  // namespace

TargetDesc parse_target(const std::string& yaml_text, const std::string& file_name,
                        const std::string& preset_dir, const DramBackendSchemas& backends) {
  // Every problem of the config and of the files it names is reported at once, each at its
  // line (param_reader.h, "Every problem at once"); root.finish() at the end throws them.
  ParamReader root = ParamReader::collecting(yaml_text, file_name);
  TargetDesc target;
  target.name = root.required<std::string>("name");
  if (target.name.empty()) root.relation_problem("name", "must not be empty");
  // Executables carry the name in their header (isa/container/executable.h).
  if (const std::string problem = isa::target_name_problem(target.name); !problem.empty())
    root.relation_problem("name", problem);
  target.clock_mhz = positive_field(root, "clock_mhz", nullptr, 100000.0);
  read_section(root.child("pe_array"), target.pe_array, read_pe_array);
  read_section(root.child("sram"), target.sram, read_sram);
  read_section(root.child("ppu"), target.ppu, read_ppu);
  read_section(root.child("dma"), target.dma, read_dma);
  std::optional<ParamReader> host_link_preset;
  if (root.has("host_link"))
    root.child("host_link").section([&](ParamReader& reader) {
      target.host_link = read_host_link(reader, preset_dir, host_link_preset);
    });
  if (root.has("technology")) target.tech = read_tech(root, preset_dir);

  // The keys of the dram mapping every backend shares; the backend reads the rest.
  ParamReader dram = root.child("dram");
  DramSection section{dram, std::nullopt, {}};
  std::optional<std::string> preset;
  std::string backend;
  DramControllerDesc controller;
  const bool dram_read = dram.section([&](ParamReader& reader) {
    const std::size_t problems_before = reader.problem_count();
    preset = reader.optional<std::string>("preset");
    const std::optional<std::string> given_backend = reader.optional<std::string>("backend");
    // Without a readable preset or backend, the rest of the mapping cannot be told apart from
    // mistakes.
    if (reader.problem_count() != problems_before) {
      reader.abandon();
      return;
    }
    controller = read_controller(reader);
    if (preset) section.preset = reader.load_beside(preset_path(reader, *preset, preset_dir));
    // Unknown keys of the dram mapping and the preset, before the backend checks relations.
    section.finish_reading = [&section, reader] {
      if (section.preset) section.preset->record_unknown_keys();
      reader.record_unknown_keys();
    };
    const DramSectionParser& parser =
        dram_parser(reader, backends, given_backend, preset.value_or(""), backend);
    parser(section, target.dram);
  });
  if (!dram_read && section.preset) section.preset->abandon();
  target.dram.preset = preset.value_or("");
  target.dram.backend = backend;
  target.dram.controller = controller;

  if (section.preset) section.preset->record_unknown_keys();
  root.finish();
  if (section.preset) section.preset->record_locations(target.locations, "dram");
  if (host_link_preset) host_link_preset->record_locations(target.locations, "host_link");
  root.record_locations(target.locations);  // the config's own keys win over the preset's
  target.source_file = file_name;
  return target;
}

TargetDesc load_target(const std::string& path, const DramBackendSchemas& backends) {
  fs::path preset_dir = fs::path(path).parent_path() / "dram";
  return parse_target(read_text_file(path), path, preset_dir.string(), backends);
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
  if (t.tech)
    line(out, "technology",
         t.tech->name + " (" + num(t.tech->node_nm) + " nm, " + t.tech->file +
             "): energy and area in s2sim run's summary and report");
  // Two floating-point operations (multiply and add) per MAC per cycle.
  const double peak_flops = 2.0 * static_cast<double>(pe.macs()) * t.clock_mhz * 1e6;
  line(out, "PE array",
       str(pe.rows) + " x " + str(pe.cols) + " " + std::string(name(pe.dataflow)) + ", " +
           str(pe.macs()) + " MACs, peak " + num(peak_flops / 1e9) + " GFLOP/s");
  std::string types;
  for (const auto& [dtype, macs] : pe.datatypes)
    types += (types.empty() ? "" : ", ") + std::string(isa::dtype_name(dtype)) + " " + str(macs) +
             " MAC" + (macs == 1 ? "" : "s") + "/PE/cycle (" + num(peak_flops * macs / 1e9) +
             " GFLOP/s)";
  line(out, "datatypes", types);
  std::string epilogue;
  for (EpilogueFeature feature : pe.epilogue) {
    epilogue += (epilogue.empty() ? "" : ", ") + std::string(name(feature));
  }
  line(out, "epilogue", epilogue.empty() ? "none (no fusion into PE instructions)" : epilogue);
  if (pe.supports(EpilogueFeature::Activation)) {
    std::string acts;
    for (isa::Activation act : pe.activations)
      acts += (acts.empty() ? "" : ", ") + std::string(isa::activation_name(act));
    line(out, "activations", acts.empty() ? "none" : acts);
  }
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
  if (const std::optional<HostLinkDesc>& h = t.host_link)
    line(out, "host link",
         (h->preset.empty() ? std::string("explicit parameters") : "preset " + h->preset) + ", " +
             num(h->bandwidth_gb_s) + " GB/s each way, " + num(h->latency_ns) + " ns latency, " +
             num(h->energy_pj_per_bit) + " pJ/bit; host memory " + format_bytes(h->memory_bytes));
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
           std::string(name(d.controller.row_policy)) + " page, address " + order +
           (d.controller.address_hash == AddressHash::None
                ? std::string()
                : ", " + std::string(name(d.controller.address_hash)) + " hash"));
  line(out, "",
       "queues " + str(d.controller.read_queue) + " reads + " + str(d.controller.write_queue) +
           " writes per channel, writes drained from " + str(d.controller.write_high_watermark) +
           " to " + str(d.controller.write_low_watermark) + ", front end " +
           str(d.controller.frontend_latency) + " cycles");
  // The 17 timings on two lines: row and column timings, then the rest.
  constexpr std::size_t kFirstLine = 9;
  std::string timings[2];
  for (std::size_t i = 0; i < kDramTimingFields.size(); ++i) {
    std::string& text = timings[i < kFirstLine ? 0 : 1];
    text += (text.empty() ? "" : " ") + std::string(kDramTimingFields[i].key) + "=" +
            str(d.timing.*kDramTimingFields[i].member);
  }
  line(out, "", "timing (nCK) " + timings[0]);
  line(out, "", "             " + timings[1]);
  if (d.power) {
    std::string power = "power " + count(d.power->rails.size(), "supply rail") + " of " +
                        str(d.power->device_width_bits) + "-bit devices";
    power += d.power->io ? ", interface " + num(d.power->io->read_pj_per_bit) + " pJ/bit read, " +
                               num(d.power->io->write_pj_per_bit) + " pJ/bit write"
                         : ", interface energy not modelled";
    line(out, "", power);
  } else {
    line(out, "", "power not given: the DRAM's energy is not modelled");
  }
  return out.str();
}

}  // namespace s2::target
