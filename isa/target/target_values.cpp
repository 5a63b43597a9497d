#include "isa/target/target_values.h"

#include <fmt/format.h>

#include "isa/encoding/isa_table.h"

namespace s2::target {
namespace {

double num(uint64_t value) {
  return static_cast<double>(value);
}

}  // namespace

std::vector<NamedTargetValue> target_values(const TargetDesc& t) {
  std::vector<NamedTargetValue> v;
  auto add = [&v](std::string path, TargetValue value) {
    v.push_back({std::move(path), std::move(value)});
  };
  add("name", t.name);
  add("clock_mhz", t.clock_mhz);
  add("pe_array.rows", num(t.pe_array.rows));
  add("pe_array.cols", num(t.pe_array.cols));
  add("pe_array.dataflow", std::string(name(t.pe_array.dataflow)));
  for (const auto& [dtype, macs] : t.pe_array.datatypes)
    add("pe_array.datatypes." + std::string(isa::dtype_name(dtype)), num(macs));
  const std::pair<const char*, const SramBufferDesc*> buffers[] = {
      {"input", &t.sram.input},
      {"weight", &t.sram.weight},
      {"accumulator", &t.sram.accumulator},
      {"output", &t.sram.output}};
  for (const auto& [buffer, desc] : buffers) {
    const std::string base = std::string("sram.") + buffer;
    add(base + ".size", num(desc->size_bytes));
    add(base + ".banks", num(desc->banks));
    add(base + ".bank_width", num(desc->bank_width_bytes));
  }
  add("ppu.lanes", num(t.ppu.lanes));
  add("dma.engines", num(t.dma.engines));
  add("dma.width", num(t.dma.width_bytes));
  add("dma.max_outstanding", num(t.dma.max_outstanding));
  if (t.host_link) {
    add("host_link.preset", t.host_link->preset);
    add("host_link.bandwidth_gb_s", t.host_link->bandwidth_gb_s);
    add("host_link.latency_ns", t.host_link->latency_ns);
    add("host_link.memory", num(t.host_link->memory_bytes));
    add("host_link.energy_pj_per_bit", t.host_link->energy_pj_per_bit);
  }
  const DramDesc& d = t.dram;
  add("dram.preset", d.preset);
  add("dram.backend", d.backend);
  add("dram.channels", num(d.channels));
  add("dram.ranks", num(d.ranks));
  add("dram.capacity", num(d.capacity_bytes));
  add("dram.clock_mhz", d.clock_mhz);
  add("dram.data_rate", num(d.data_rate));
  add("dram.bus_width_bits", num(d.bus_width_bits));
  add("dram.burst_length", num(d.burst_length));
  add("dram.bank_groups", num(d.bank_groups));
  add("dram.banks_per_group", num(d.banks_per_group));
  add("dram.row_size", num(d.row_size_bytes));
  add("dram.rows_per_bank", num(d.rows_per_bank));
  add("dram.command_buses", num(d.command_buses));
  for (const DramTimingField& f : kDramTimingFields)
    add(std::string("dram.timing.") + f.key, num(d.timing.*f.member));
  add("dram.controller.scheduler", std::string(name(d.controller.scheduler)));
  add("dram.controller.row_policy", std::string(name(d.controller.row_policy)));
  add("dram.controller.read_queue", num(d.controller.read_queue));
  add("dram.controller.write_queue", num(d.controller.write_queue));
  add("dram.controller.write_high_watermark", num(d.controller.write_high_watermark));
  add("dram.controller.write_low_watermark", num(d.controller.write_low_watermark));
  add("dram.controller.frontend_latency", num(d.controller.frontend_latency));
  // Derived figures.
  add("pe_array.macs", num(t.pe_array.macs()));
  add("sram.size", num(t.sram.input.size_bytes + t.sram.weight.size_bytes +
                       t.sram.accumulator.size_bytes + t.sram.output.size_bytes));
  add("dram.peak_bandwidth", d.peak_bandwidth_bytes_per_s());
  add("dram.burst_bytes", num(d.burst_bytes()));
  return v;
}

std::string compiler_properties(const TargetDesc& t, bool fuse_attention) {
  std::string text = "epilogue:";
  for (EpilogueFeature f : t.pe_array.epilogue)
    text += fmt::format(" {}", name(f));
  text += "; activations:";
  for (isa::Activation a : t.pe_array.activations)
    text += fmt::format(" {}", static_cast<int>(a));
  if (fuse_attention)
    text += fmt::format("; array {}x{}; sram {} {} {} {}", t.pe_array.rows, t.pe_array.cols,
                        t.sram.input.size_bytes, t.sram.weight.size_bytes,
                        t.sram.accumulator.size_bytes, t.sram.output.size_bytes);
  return text;
}

}  // namespace s2::target
