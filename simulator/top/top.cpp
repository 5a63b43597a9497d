#include "simulator/top/top.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <optional>

#include "isa/common/errors.h"
#include "isa/encoding/semantics.h"
#include "simulator/timing/roofline.h"
#include "simulator/top/rtl_tile_clock.h"

namespace s2::sim::top {
namespace {

uint64_t ceil_div(double a, double b) {
  return b <= 0 ? 0 : static_cast<uint64_t>(std::ceil(a / b - 1e-9));
}

// Cycles the PE array and the PPU waited for copies over the host link: an instruction whose
// dependencies include such a copy, and which started when the last of those ended, after its
// unit was free and its other dependencies were done, waited the difference. (What a swap
// costs the step, measured: a swap-in that arrives late, or a swap-out the arena waits for.)
uint64_t host_copy_waits(const isa::Executable& exe, const report::RunResult& r) {
  auto host_copy = [&](uint32_t i) { return exe.instructions[i].names_host_memory(); };
  std::array<uint64_t, isa::kUnitCount> unit_free{};
  uint64_t waited = 0;
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    const report::InstructionRecord& rec = r.instructions[i];
    const auto unit = static_cast<size_t>(rec.unit);
    const uint64_t free = unit_free[unit];
    unit_free[unit] = std::max(unit_free[unit], rec.end_cycle);
    if (rec.unit != isa::Unit::Pe && rec.unit != isa::Unit::Ppu) continue;
    uint64_t host_done = 0, other_done = free;
    for (uint32_t d : exe.instructions[i].deps)
      (host_copy(d) ? host_done : other_done) =
          std::max(host_copy(d) ? host_done : other_done, r.instructions[d].end_cycle);
    if (host_done > other_done && rec.start_cycle >= host_done) waited += host_done - other_done;
  }
  return waited;
}

// Totals that need the whole program: names, the planned memory and the roofline of the step.
void finish_result(const RunContext& ctx, report::RunResult& r) {
  const isa::Executable& exe = ctx.exe;
  const target::TargetDesc& target = ctx.target;
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    report::InstructionRecord& rec = r.instructions[i];
    rec.index = i;
    rec.op = instruction_name(exe, i);
    rec.mnemonic = std::string(exe.instructions[i].info().mnemonic);
    rec.unit = exe.instructions[i].info().unit;
    if (rec.op.find(".recompute") != std::string::npos) {
      ++r.recompute.instructions;
      r.recompute.cycles += rec.end_cycle - rec.start_cycle;
    }
    r.total_macs += rec.macs;
    r.total_bytes += rec.bytes;
    r.activity += rec.activity;
    const isa::Instruction& inst = exe.instructions[i];
    for (const auto& [dtype, bytes] : timing::operand_bytes_by_dtype(inst))
      r.datatypes[dtype].bytes += bytes;
    if (const auto mode = isa::multiplicand_dtype(inst)) {
      report::DatatypeSummary& s = r.datatypes[*mode];
      s.macs_per_pe = target.pe_array.macs_per_pe(*mode);
      ++s.pe_instructions;
      s.macs += rec.macs;
      s.pe_cycles += rec.pe_cycles;
    }
  }
  r.config = target.name;
  if (exe.target != target.name) r.compiled_for = exe.target;
  r.clock_mhz = target.clock_mhz;
  r.pe_count = static_cast<uint32_t>(target.pe_array.macs());
  r.window = ctx.options.window;
  r.dram = ctx.dram->stats();
  r.dram_peak_bytes_per_s = ctx.dram->peak_bandwidth_bytes_per_s();
  r.dram_capacity_bytes = target.dram.capacity_bytes;
  r.dram_addressable_bytes = target.dram.addressable_bytes();
  r.dram_backend = target.dram.backend;
  r.dram_controller = target.dram.controller;
  r.dma_engines = target.dma.engines;
  if (ctx.host_link) {
    report::HostLinkSummary h;
    h.bandwidth_gb_s = target.host_link->bandwidth_gb_s;
    h.latency_ns = target.host_link->latency_ns;
    h.memory_bytes = target.host_link->memory_bytes;
    h.used_bytes = exe.plan.host_size;
    h.to_host_bytes = ctx.host_link->bytes(true);
    h.from_host_bytes = ctx.host_link->bytes(false);
    h.to_host_busy_cycles = ctx.clock.cycle_at_or_after(ctx.host_link->busy_ps(true));
    h.from_host_busy_cycles = ctx.clock.cycle_at_or_after(ctx.host_link->busy_ps(false));
    h.compute_wait_cycles = host_copy_waits(exe, r);
    r.host_link = h;
  }
  r.dma_wait_cycles = ctx.clock.cycle_at_or_after(ctx.dma.wait_ps());
  r.memory = ctx.memory.samples();
  r.memory_peak = ctx.memory.peak_bytes();
  r.planned_peak = planned_peak(exe);
  r.planned_arena = exe.plan.arena_size;
  r.planned_persistent = exe.plan.arena_base;
  r.roofline_cycles =
      std::max(ceil_div(r.peak_macs(), static_cast<double>(r.pe_count)),
               ceil_div(static_cast<double>(r.total_bytes), timing::dram_bytes_per_cycle(target)));
  if (target.tech) {
    r.area = energy::area(target);
    r.energy = energy::step_energy(
        target, r.activity, r.dram, r.seconds(),
        r.host_link ? r.host_link->to_host_bytes + r.host_link->from_host_bytes : 0);
  }
}

}  // namespace

Top::Top(sc_core::sc_module_name name, const RtlSelection& rtl, const target::TargetDesc& target)
    : sc_core::sc_module(name), controller_("controller"), dram_("dram"), rtl_(rtl, target) {
  for (isa::Unit unit : isa::kQueuedUnits) {
    units_.push_back(std::make_unique<Unit>(std::string(isa::unit_info(unit).block).c_str(), unit));
    units_.back()->issue(controller_);
    units_.back()->dram(dram_);
  }
}

report::RunResult Top::run(const isa::Executable& exe, const target::TargetDesc& target,
                           const SimOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  S2_CHECK(rtl_.serves(options.rtl, target),
           "Top::run: the run asks for other RTL units than the top was built with");
  std::optional<RtlTileClock> rtl_clock;
  SimOptions run_options = options;
  if (rtl_.units().any()) {
    S2_CHECK(options.cosim != nullptr, "Top::run: RTL units need a co-simulation log");
    rtl_clock.emplace(rtl_.units(), target, *options.cosim, options.rtl_reuse);
    run_options.rtl_clock = &*rtl_clock;
  }
  RunContext ctx(exe, target, run_options);
  ctx.base_ps = static_cast<uint64_t>(sc_core::sc_time_stamp().value());
  for (const std::unique_ptr<Unit>& u : units_)
    u->begin(ctx);
  dram_.begin(ctx);
  controller_.begin(ctx);
  sc_core::sc_start();  // returns when every process waits on an event nobody will notify
  if (ctx.error) std::rethrow_exception(ctx.error);
  report::RunResult result = std::move(ctx.result);
  if (result.deadlock.empty())
    S2_CHECK(ctx.completed_count == exe.instructions.size(),
             "simulation stopped with " +
                 std::to_string(exe.instructions.size() - ctx.completed_count) +
                 " instructions incomplete and no deadlock found");
  finish_result(ctx, result);
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

Top& process_top(const RtlSelection& rtl, const target::TargetDesc& target) {
  S2_CHECK(sc_core::sc_get_time_resolution() == sc_core::sc_time(1, sc_core::SC_PS),
           "simulate: SystemC time resolution must be 1 ps");
  static Top* top = nullptr;  // elaborated once per process (SystemC owns it)
  if (top == nullptr) {
    top = new Top("s2train", rtl, target);
  } else if (!top->rtl().serves(rtl, target)) {
    throw UserError(
        "--rtl: the RTL units of this process are already elaborated with another selection, "
        "array size or clock");
  }
  return *top;
}

report::RunResult simulate(const isa::Executable& exe, const target::TargetDesc& target,
                           const SimOptions& options) {
  return process_top(options.rtl, target).run(exe, target, options);
}

}  // namespace s2::sim::top
