#include "simulator/report/summary.h"

#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

namespace s2::sim::report {
namespace {

// v with `decimals` digits after the point, then `suffix`.
std::string fixed(double v, int decimals, const char* suffix = "") {
  return fmt::format("{:.{}f}{}", v, decimals, suffix);
}

std::string mib(uint64_t bytes) {
  return fixed(static_cast<double>(bytes) / (1024.0 * 1024.0), 2, " MiB");
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

}  // namespace

double mac_utilization(const RunResult& r, uint64_t macs, uint64_t pe_cycles) {
  if (pe_cycles == 0 || r.pe_count == 0) return 0;
  return 100.0 * static_cast<double>(macs) /
         (static_cast<double>(r.pe_count) * static_cast<double>(pe_cycles));
}

std::string summary_text(const RunResult& r) {
  std::ostringstream os;
  os << "Simulated " << r.program << " on " << r.config << " (" << r.clock_mhz
     << " MHz, decode window " << r.window << ")\n";
  if (!r.compiled_for.empty())
    os << "  compiled for       " << r.compiled_for
       << " (its memory plan and the compiler's choices are that target's)\n";
  os << "  total cycles       " << r.total_cycles << "\n";
  os << "  time               " << fixed(r.milliseconds(), 4, " ms") << "\n";
  os << "  instructions       " << r.instructions.size() << "\n";
  uint64_t busy_sum = 0;
  for (isa::Unit u : kTimedUnits) {
    const UnitSummary& s = r.unit(u);
    busy_sum += s.busy_cycles;
    const double util = 100.0 * r.busy_fraction(u);
    const double active = r.total_cycles == 0 ? 0
                                              : 100.0 * static_cast<double>(s.compute_cycles) /
                                                    static_cast<double>(r.total_cycles);
    os << fmt::format(
        "  {:<9} busy {:>14} cycles ({:>5.1f}%), computing {:>14} ({:>5.1f}%), {} "
        "instructions\n",
        isa::unit_info(u).block, s.busy_cycles, util, s.compute_cycles, active, s.instructions);
  }
  os << "  overlap            unit busy cycles sum to " << busy_sum << " ("
     << fixed(r.total_cycles == 0
                  ? 0
                  : static_cast<double>(busy_sum) / static_cast<double>(r.total_cycles),
              2)
     << "x the total)\n";
  const double pe_util = 100.0 * r.mac_utilization();
  os << "  MACs               " << r.total_macs << " (PE array MAC utilization "
     << fixed(pe_util, 1, "%") << ")\n";
  if (r.mixed_precision()) {
    // Per element type: the PE work in that mode against the array's peak in it, and the
    // operand bytes of that type.
    std::string line;
    for (const auto& [dtype, s] : r.datatypes) {
      line += (line.empty() ? "" : "; ") + std::string(isa::dtype_name(dtype)) + " ";
      if (s.pe_instructions > 0)
        line += std::to_string(s.macs) + " MACs at " + std::to_string(s.macs_per_pe) +
                "/PE/cycle, " + fixed(100.0 * s.utilization(r.pe_count), 1, "%") +
                " of that peak, ";
      line += mib(s.bytes) + " of operands";
    }
    os << "  datatypes          " << line << "\n";
  }
  os << "  DRAM               read " << mib(r.dram.bytes_read) << ", written "
     << mib(r.dram.bytes_written) << ", achieved "
     << fixed(r.dram_bandwidth_bytes_per_s() / 1e9, 2, " GB/s") << " of "
     << fixed(r.dram_peak_bytes_per_s / 1e9, 2, " GB/s") << " peak ("
     << fixed(r.dram_peak_bytes_per_s <= 0
                  ? 0
                  : 100.0 * r.dram_bandwidth_bytes_per_s() / r.dram_peak_bytes_per_s,
              1, "%")
     << "), row hits " << r.dram.row_hits << ", misses " << r.dram.row_misses << ", conflicts "
     << r.dram.row_conflicts << "\n";
  // Attention's share, fused (attn_fwd, attn_bwd) or not (bmm, softmax, softmax_bwd): the
  // figure to compare between a step compiled with --fuse-attention and one without.
  uint64_t fused = 0, unfused = 0;
  size_t fused_count = 0, unfused_count = 0;
  for (const InstructionRecord& rec : r.instructions) {
    if (rec.mnemonic == "attn_fwd" || rec.mnemonic == "attn_bwd") {
      fused += rec.dram_bytes;
      ++fused_count;
    } else if (rec.mnemonic == "bmm" || rec.mnemonic == "softmax" ||
               rec.mnemonic == "softmax_bwd") {
      unfused += rec.dram_bytes;
      ++unfused_count;
    }
  }
  if (fused_count + unfused_count > 0)
    os << "  attention          " << mib(fused + unfused) << " of DRAM traffic: "
       << (fused_count > 0 ? std::to_string(fused_count) + " fused attn_fwd/attn_bwd " + mib(fused)
                           : std::string())
       << (fused_count > 0 && unfused_count > 0 ? ", " : "")
       << (unfused_count > 0
               ? std::to_string(unfused_count) + " bmm/softmax/softmax_bwd " + mib(unfused)
               : std::string())
       << (fused_count == 0 ? " (unfused; s2c compile --fuse-attention keeps the scores on chip)"
                            : "")
       << "\n";
  os << "  DMA                " << r.dram_events.size() << " transfers on " << r.dma_engines
     << " engines, " << r.dma_wait_cycles << " cycles waiting for a free engine\n";
  if (r.host_link && (r.host_link->used_bytes > 0 || r.host_link->to_host_bytes > 0 ||
                      r.host_link->from_host_bytes > 0)) {
    const HostLinkSummary& h = *r.host_link;
    os << "  host link          " << mib(h.to_host_bytes) << " to the host, "
       << mib(h.from_host_bytes) << " back; busy " << h.to_host_busy_cycles << " / "
       << h.from_host_busy_cycles << " cycles (" << fixed(h.bandwidth_gb_s, 1)
       << " GB/s each way); host memory " << mib(h.used_bytes) << " of " << mib(h.memory_bytes)
       << "; the PE array and the PPU waited " << h.compute_wait_cycles
       << " cycles for these copies\n";
  }
  if (r.recompute.instructions > 0)
    os << "  recomputation      " << r.recompute.instructions
       << " instructions recompute activations (s2c --memory-budget), " << r.recompute.cycles
       << " cycles on their units ("
       << fixed(100.0 * static_cast<double>(r.recompute.cycles) /
                    static_cast<double>(std::max<uint64_t>(r.total_cycles, 1)),
                2)
       << "% of the step)\n";
  // The planned peak is the program-order maximum (the arena's lower bound plus the persistent
  // bytes); an overlapping run can pass it. The allocation is what the plan reserves; live
  // tensors never overlap in address (the checker proves it), so the live peak stays within it.
  os << "  memory peak        " << mib(r.memory_peak) << " live (" << r.memory_peak << " B); "
     << r.planned_peak << " B live in program order; allocated "
     << (r.planned_persistent + r.planned_arena) << " B (persistent " << r.planned_persistent
     << " B + arena " << r.planned_arena << " B) of " << mib(r.dram_capacity_bytes) << " DRAM\n";
  os << "  roofline           " << r.roofline_cycles << " cycles for the whole step; simulated / "
     << "roofline = " << fixed(r.roofline_ratio(), 3) << "\n";
  if (r.area) {
    const energy::AreaBreakdown& a = *r.area;
    os << fmt::format(
        "  area               {:.3f} mm^2: PE array {:.3f}, SRAM {:.3f} (input {:.3f}, weight "
        "{:.3f}, accumulator {:.3f}, output {:.3f}), PPU {:.3f}, DMA {:.3f}\n",
        a.total_mm2(), a.pe_array_mm2,
        a.sram_mm2[0] + a.sram_mm2[1] + a.sram_mm2[2] + a.sram_mm2[3], a.sram_mm2[0], a.sram_mm2[1],
        a.sram_mm2[2], a.sram_mm2[3], a.ppu_mm2, a.dma_mm2);
  }
  if (r.energy) {
    const energy::EnergyBreakdown& e = *r.energy;
    const double total = e.total_pj();
    os << fmt::format("  energy             {:.4f} mJ per step, {:.3f} W average{}\n", total * 1e-9,
                      r.average_power_w(),
                      e.dram_modelled ? "" : " (DRAM not included: its preset has no power data)");
    // The parts, grouped by unit; they sum to the total.
    const double sram = e.sram_pj[0] + e.sram_pj[1] + e.sram_pj[2] + e.sram_pj[3];
    const double dram = e.dram_total_pj();
    const auto share = [total](double pj) {
      return fmt::format("{:.4f} mJ ({:.1f}%)", pj * 1e-9, total > 0 ? 100.0 * pj / total : 0.0);
    };
    os << "    PE " << share(e.pe_mac_pj + e.pe_register_pj) << ", SRAM " << share(sram) << ", PPU "
       << share(e.ppu_pj) << ", DMA " << share(e.dma_pj) << ", DRAM " << share(dram)
       << (e.host_link_pj > 0 ? ", host link " + share(e.host_link_pj) : std::string())
       << ", leakage " << share(e.leakage_pj) << "\n";
  }
  return os.str();
}

std::string layer_of(const std::string& op) {
  if (op.size() > 1 && op[0] == '/') {
    // An ONNX node's scopes: "/features/features.3/conv/..." -> "features.3" (a container's
    // child), "/layer1/layer1.0/relu/Relu" -> "layer1.0", "/fc/Gemm" -> "fc".
    const size_t first = op.find('/', 1);
    const std::string top = op.substr(1, first == std::string::npos ? first : first - 1);
    if (first == std::string::npos) return top;
    const size_t second = op.find('/', first + 1);
    if (second == std::string::npos) return top;
    const std::string child = op.substr(first + 1, second - first - 1);
    return child.rfind(top + ".", 0) == 0 ? child : top;
  }
  const size_t cut = op.find_first_of("/.");
  return cut == std::string::npos ? op : op.substr(0, cut);
}

std::string layer_table(const RunResult& r) {
  struct Row {
    uint64_t count = 0, macs = 0, bytes = 0, sum = 0;
    std::array<uint64_t, isa::kUnitCount> unit_cycles{};
  };
  std::vector<std::string> order;
  std::map<std::string, Row> rows;
  uint64_t total = 0;
  for (const InstructionRecord& rec : r.instructions) {
    if (rec.unit == isa::Unit::Control) continue;
    const std::string key = layer_of(rec.op);
    auto [it, fresh] = rows.try_emplace(key);
    if (fresh) order.push_back(key);
    Row& row = it->second;
    ++row.count;
    row.macs += rec.macs;
    row.bytes += rec.bytes;
    row.sum += rec.cycles();
    row.unit_cycles[static_cast<size_t>(rec.unit)] += rec.cycles();
    total += rec.cycles();
  }
  size_t width = 5;
  for (const std::string& k : order)
    width = std::max(width, k.size());
  std::ostringstream os;
  os << "Per layer (cycles are summed instruction durations; units overlap):\n";
  os << "  " << std::string(width - 5, ' ') << "layer" << pad("instrs", 8);
  for (isa::Unit u : kTimedUnits)
    os << pad(std::string(isa::unit_name(u)), 13);
  os << pad("MACs", 16) << pad("bytes", 14) << pad("MAC/B", 8) << pad("bound", 9) << pad("share", 8)
     << pad("PE util", 9) << "\n";
  std::vector<std::string> compute_bound, memory_bound;
  for (const std::string& k : order) {
    const Row& row = rows[k];
    os << "  " << pad(k, width) << pad(std::to_string(row.count), 8);
    for (isa::Unit u : kTimedUnits)
      os << pad(std::to_string(row.unit_cycles[static_cast<size_t>(u)]), 13);
    os << pad(std::to_string(row.macs), 16) << pad(std::to_string(row.bytes), 14)
       << pad(fixed(row.bytes == 0 ? 0
                                   : static_cast<double>(row.macs) / static_cast<double>(row.bytes),
                    1),
              8)
       << pad(r.bound(row.macs, row.bytes), 9)
       << pad(fixed(total == 0 ? 0
                               : 100.0 * static_cast<double>(row.sum) / static_cast<double>(total),
                    1, "%"),
              8)
       << pad(fixed(
                  mac_utilization(r, row.macs, row.unit_cycles[static_cast<size_t>(isa::Unit::Pe)]),
                  1, "%"),
              9)
       << "\n";
    (std::string(r.bound(row.macs, row.bytes)) == "compute" ? compute_bound : memory_bound)
        .push_back(k);
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& k : v)
      s += (s.empty() ? "" : ", ") + k;
    return s.empty() ? std::string("none") : s;
  };
  os << "  machine balance "
     << fixed(r.dram_bytes_per_cycle() > 0 ? r.pe_count / r.dram_bytes_per_cycle() : 0, 1)
     << " MAC/B: layers above it are compute-bound (" << list(compute_bound)
     << "), below it memory-bound (" << list(memory_bound)
     << "); a larger PE array speeds the first, more DRAM bandwidth the second.\n";
  return os.str();
}

}  // namespace s2::sim::report
