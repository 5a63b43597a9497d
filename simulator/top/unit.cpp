#include "simulator/top/unit.h"

#include <algorithm>
#include <string>

#include "isa/common/errors.h"
#include "simulator/timing/plan.h"
#include "simulator/top/rtl_tile_clock.h"

namespace s2::sim::top {

Unit::Unit(sc_core::sc_module_name name, isa::Unit unit)
    : sc_core::sc_module(name), issue("issue"), dram("dram"), unit_(unit) {
  SC_THREAD(run);
}

void Unit::run() {
  for (;;) {
    const uint32_t index = issue->next(unit_);
    if (ctx_->failed()) continue;  // the run is stopping: drop what was still queued
    try {
      execute(index);
    } catch (...) {
      ctx_->fail(std::current_exception());
      issue->abort(index);
    }
  }
}

uint64_t Unit::now_ps() const {
  return static_cast<uint64_t>(sc_core::sc_time_stamp().value()) - ctx_->base_ps;
}

void Unit::wait_until(uint64_t cycle) {
  const uint64_t target = ctx_->clock.edge_ps(cycle);
  const uint64_t now = now_ps();
  if (target > now)
    sc_core::wait(sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(target - now)));
}

Unit::Handed Unit::hand_over(uint64_t cycle, const std::vector<timing::DramAccess>& group) {
  Handed h;
  h.cycle = cycle;
  h.empty = group.empty();
  if (!h.empty) h.ticket = dram->submit_now(group);
  return h;
}

uint64_t Unit::finish(const Handed& handed) {
  if (handed.empty) return handed.cycle;
  return ctx_->clock.cycle_at_or_after(dram->finish(handed.ticket));
}

void Unit::execute(uint32_t index) {
  RunContext& ctx = *ctx_;
  const isa::Instruction& inst = ctx.exe.instructions[index];
  timing::InstructionPlan plan;
  try {
    plan = timing::plan_instruction(inst, ctx.target, ctx.pe_models);
  } catch (const UserError& e) {
    throw UserError("instruction " + std::to_string(index) + " (" +
                    std::string(inst.info().mnemonic) + "): " + e.what());
  }
  report::InstructionRecord r;
  r.index = index;
  r.unit = unit_;
  r.macs = plan.macs;
  r.macs_per_pe = static_cast<uint32_t>(ctx.pe_models.for_instruction(inst).macs_per_pe());
  r.bytes = plan.bytes;
  r.dram_bytes = plan.load_bytes() + plan.store_bytes();
  r.host_bytes = plan.host_load_bytes() + plan.host_store_bytes();
  r.roofline_cycles = plan.roofline_cycles;
  r.activity = timing::instruction_activity(plan, ctx.target);
  r.tiles = plan.tiles.size();
  for (const timing::Tile& t : plan.tiles)
    r.pe_cycles += t.pe_cycles;
  if (!plan.tiles.empty() && plan.tiles.front().products.empty()) {
    const timing::Tile& first = plan.tiles.front();
    r.transposed = first.transposed;
    r.block_m = first.transposed ? first.shape.n : first.shape.m;
    r.block_n = first.transposed ? first.shape.m : first.shape.n;
    r.block_k = first.shape.k;
  }
  r.start_cycle = ctx.clock.cycle_at_or_after(now_ps());
  wait_until(r.start_cycle);
  ctx.started(index, r.start_cycle);

  const std::vector<timing::Tile>& tiles = plan.tiles;
  // With --rtl, the RTL runs this unit's tiles (and advances time by them).
  RtlTileClock* rtl = ctx.options.rtl_clock != nullptr && ctx.options.rtl_clock->clocks(unit_)
                          ? ctx.options.rtl_clock
                          : nullptr;
  uint64_t cycle = r.start_cycle;
  Handed loads = tiles.empty() ? Handed{} : hand_over(cycle, tiles.front().loads);
  uint64_t compute_end = cycle;
  std::vector<Handed> stores;
  for (size_t t = 0; t < tiles.size(); ++t) {
    // Tile t's loads are needed once tile t-1 has computed: finish them no earlier.
    wait_until(compute_end);
    cycle = std::max(finish(loads), compute_end);
    wait_until(cycle);
    if (t + 1 < tiles.size()) loads = hand_over(cycle, tiles[t + 1].loads);
    uint64_t compute = tiles[t].compute_cycles();
    if (rtl != nullptr) {
      compute = rtl->compute(unit_, index, instruction_name(ctx.exe, index), inst, t, tiles[t]);
      S2_CHECK(now_ps() == ctx.clock.edge_ps(cycle + compute),
               "RTL tile clock: instruction " + std::to_string(index) +
                   " ended off the accelerator clock's edges");
    }
    r.compute_cycles += compute;
    cycle += compute;
    compute_end = cycle;
    if (!tiles[t].stores.empty()) {
      wait_until(cycle);
      stores.push_back(hand_over(cycle, tiles[t].stores));
    }
  }
  wait_until(compute_end);
  r.end_cycle = compute_end;
  for (const Handed& h : stores)
    r.end_cycle = std::max(r.end_cycle, finish(h));
  wait_until(r.end_cycle);
  issue->complete(r);
}

}  // namespace s2::sim::top
