#include "simulator/report/json_report.h"

#include "isa/common/json.h"
#include "simulator/timing/tiling.h"

namespace s2::sim::report {
namespace {

double ratio(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : static_cast<double>(a) / static_cast<double>(b);
}

}  // namespace

namespace {

// The step's energy by part (pJ) with the counters it came from; null without a technology.
Json energy_json(const RunResult& r) {
  if (!r.energy) return nullptr;
  Json parts = Json::object();
  for (const auto& [name, pj] : r.energy->parts())
    parts[name] = pj;
  const timing::Activity& a = r.activity;
  Json sram = Json::object();
  for (size_t b = 0; b < 4; ++b)
    sram[timing::kBufferNames[b]] = {{"read_bytes", a.sram_read_bytes[b]},
                                     {"write_bytes", a.sram_write_bytes[b]}};
  return {{"total_pj", r.energy->total_pj()},
          {"average_power_w", r.average_power_w()},
          {"dram_modelled", r.energy->dram_modelled},
          {"parts_pj", parts},
          {"counters",
           {{"macs", a.macs},
            {"sram", sram},
            {"ppu_ops", a.ppu_ops},
            {"dma_bytes", a.dma_bytes},
            {"dram_activates", r.dram.activates},
            {"dram_read_bursts", r.dram.read_bursts},
            {"dram_write_bursts", r.dram.write_bursts},
            {"dram_refreshes", r.dram.refreshes}}}};
}

Json area_json(const RunResult& r) {
  if (!r.area) return nullptr;
  const energy::AreaBreakdown& a = *r.area;
  return {{"total_mm2", a.total_mm2()},
          {"pe_array_mm2", a.pe_array_mm2},
          {"sram_mm2",
           {{"input", a.sram_mm2[0]},
            {"weight", a.sram_mm2[1]},
            {"accumulator", a.sram_mm2[2]},
            {"output", a.sram_mm2[3]}}},
          {"ppu_mm2", a.ppu_mm2},
          {"dma_mm2", a.dma_mm2}};
}

// null without a host link; with one, what crossed it.
Json host_link_json(const RunResult& r) {
  if (!r.host_link) return nullptr;
  const HostLinkSummary& h = *r.host_link;
  return {{"bandwidth_gb_s", h.bandwidth_gb_s},
          {"latency_ns", h.latency_ns},
          {"memory_bytes", h.memory_bytes},
          {"used_bytes", h.used_bytes},
          {"to_host_bytes", h.to_host_bytes},
          {"from_host_bytes", h.from_host_bytes},
          {"to_host_busy_cycles", h.to_host_busy_cycles},
          {"from_host_busy_cycles", h.from_host_busy_cycles},
          {"compute_wait_cycles", h.compute_wait_cycles}};
}

}  // namespace

void write_json_report(const RunResult& r, std::ostream& os) {
  Json units = Json::object();
  for (isa::Unit u : kTimedUnits) {
    const UnitSummary& s = r.unit(u);
    units[std::string(isa::unit_name(u))] = {{"busy_cycles", s.busy_cycles},
                                             {"compute_cycles", s.compute_cycles},
                                             {"utilization", ratio(s.busy_cycles, r.total_cycles)},
                                             {"instructions", s.instructions}};
  }
  Json deadlock = Json::array();
  for (const top::StuckInstruction& s : r.deadlock)
    deadlock.push_back({{"index", s.index}, {"waiting_for", s.waiting_for}});
  Json instructions = Json::array();
  for (const InstructionRecord& i : r.instructions)
    instructions.push_back(
        {{"index", i.index},
         {"op", i.op},
         {"mnemonic", i.mnemonic},
         {"unit", isa::unit_name(i.unit)},
         {"start_cycle", i.start_cycle},
         {"end_cycle", i.end_cycle},
         {"cycles", i.cycles()},
         {"compute_cycles", i.compute_cycles},
         {"tiles", i.tiles},
         {"pe_cycles", i.pe_cycles},
         {"block", i.block_m == 0 ? Json(nullptr) : Json::array({i.block_m, i.block_n, i.block_k})},
         {"orientation",
          i.block_m == 0 ? Json(nullptr) : Json(i.transposed ? "transposed" : "normal")},
         {"pe_efficiency", ratio(i.macs, uint64_t{r.pe_count} * i.macs_per_pe * i.pe_cycles)},
         {"macs", i.macs},
         {"bytes", i.bytes},
         {"dram_bytes", i.dram_bytes},
         {"host_bytes", i.host_bytes},
         {"roofline_cycles", i.roofline_cycles},
         {"pe_utilization",
          i.unit == isa::Unit::Pe && i.cycles() > 0 && r.pe_count > 0
              ? static_cast<double>(i.macs) / (static_cast<double>(r.pe_count) * i.macs_per_pe *
                                               static_cast<double>(i.cycles()))
              : 0.0},
         {"bound", r.bound(i.macs, i.bytes)}});
  Json address_order = Json::array();
  for (target::AddressField field : r.dram_controller.address_mapping)
    address_order.push_back(target::name(field));
  Json report = {
      {"program", r.program},
      {"config", r.config},
      {"clock_mhz", r.clock_mhz},
      {"decode_window", r.window},
      {"total_cycles", r.total_cycles},
      {"milliseconds", r.milliseconds()},
      {"units", units},
      {"dram",
       {{"bytes_read", r.dram.bytes_read},
        {"bytes_written", r.dram.bytes_written},
        {"bandwidth_bytes_per_s", r.dram_bandwidth_bytes_per_s()},
        {"peak_bytes_per_s", r.dram_peak_bytes_per_s},
        {"row_hits", r.dram.row_hits},
        {"row_misses", r.dram.row_misses},
        {"row_conflicts", r.dram.row_conflicts},
        {"refreshes", r.dram.refreshes},
        {"capacity_bytes", r.dram_capacity_bytes},
        {"addressable_bytes", r.dram_addressable_bytes},
        {"backend", r.dram_backend},
        {"scheduler", target::name(r.dram_controller.scheduler)},
        {"row_policy", target::name(r.dram_controller.row_policy)},
        {"address_mapping", address_order}}},
      {"dma",
       {{"engines", r.dma_engines},
        {"transfers", r.dram_events.size()},
        {"wait_cycles", r.dma_wait_cycles}}},
      {"host_link", host_link_json(r)},
      {"recompute", {{"instructions", r.recompute.instructions}, {"cycles", r.recompute.cycles}}},
      {"memory",
       {{"peak_bytes", r.memory_peak},
        {"planned_peak_bytes", r.planned_peak},
        {"planned_persistent_bytes", r.planned_persistent},
        {"planned_arena_bytes", r.planned_arena}}},
      {"roofline",
       {{"cycles", r.roofline_cycles},
        {"ratio", r.roofline_ratio()},
        {"total_macs", r.total_macs},
        {"total_bytes", r.total_bytes}}},
      {"energy", energy_json(r)},
      {"area", area_json(r)},
      {"deadlock", deadlock},
      {"instructions", instructions}};
  if (r.mixed_precision()) {  // an f32 program's report keeps its form
    Json types = Json::object();
    for (const auto& [dtype, s] : r.datatypes)
      types[std::string(isa::dtype_name(dtype))] = {{"macs_per_pe", s.macs_per_pe},
                                                    {"pe_instructions", s.pe_instructions},
                                                    {"macs", s.macs},
                                                    {"pe_cycles", s.pe_cycles},
                                                    {"pe_utilization", s.utilization(r.pe_count)},
                                                    {"operand_bytes", s.bytes}};
    report["datatypes"] = types;
  }
  os << json_text(report);
}

}  // namespace s2::sim::report
