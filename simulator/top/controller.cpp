#include "simulator/top/controller.h"

#include "isa/common/errors.h"

namespace s2::sim::top {

Controller::Controller(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_THREAD(run);
}

void Controller::begin(RunContext& ctx) {
  ctx_ = &ctx;
  pending_ = true;
  for (auto& q : queues_)
    q.clear();
  // Before the first sc_start the thread has not run yet and finds pending_ set itself.
  if (sc_core::sc_start_of_simulation_invoked()) start_.notify(sc_core::SC_ZERO_TIME);
}

uint64_t Controller::now_cycle(const RunContext& ctx) const {
  const auto now = static_cast<uint64_t>(sc_core::sc_time_stamp().value());
  return ctx.clock.cycle_at_or_after(now - ctx.base_ps);
}

void Controller::run() {
  for (;;) {
    while (!pending_)
      sc_core::wait(start_);
    pending_ = false;
    run_program(*ctx_);
  }
}

void Controller::run_program(RunContext& ctx) {
  std::vector<TrackedInstruction> program;
  program.reserve(ctx.exe.instructions.size());
  for (const isa::Instruction& inst : ctx.exe.instructions)
    program.push_back({inst.deps, !isa::unit_info(inst.info().unit).queued});
  tracker_ = std::make_unique<DependencyTracker>(std::move(program), ctx.options.window);
  while (!tracker_->finished() && !ctx.failed()) {
    bool issued_control = false;
    for (uint32_t index : tracker_->take_ready()) {
      const isa::Instruction& inst = ctx.exe.instructions[index];
      const isa::Unit unit = inst.info().unit;
      if (!isa::unit_info(unit).queued) {
        // The controller's own (barrier and end): the tracker issued it only once everything
        // before it completed.
        const uint64_t now = now_cycle(ctx);
        ctx.started(index, now);
        report::InstructionRecord r;
        r.index = index;
        r.unit = unit;
        r.start_cycle = r.end_cycle = now;
        ctx.finished(r);
        tracker_->complete(index);
        issued_control = true;
        continue;
      }
      queues_[static_cast<size_t>(unit)].push_back(index);
      queue_events_[static_cast<size_t>(unit)].notify(sc_core::SC_ZERO_TIME);
    }
    if (issued_control) continue;  // a completed fence may release more at once
    if (tracker_->finished()) break;
    if (tracker_->deadlocked()) {
      ctx.result.deadlock = tracker_->stuck();
      break;
    }
    sc_core::wait(progress_);
  }
}

uint32_t Controller::next(isa::Unit unit) {
  auto& queue = queues_[static_cast<size_t>(unit)];
  while (queue.empty())
    sc_core::wait(queue_events_[static_cast<size_t>(unit)]);
  const uint32_t index = queue.front();
  queue.pop_front();
  return index;
}

void Controller::complete(const report::InstructionRecord& record) {
  ctx_->finished(record);
  tracker_->complete(record.index);
  progress_.notify(sc_core::SC_ZERO_TIME);
}

void Controller::abort(uint32_t index) {
  S2_CHECK(ctx_->failed(),
           "controller: abort of instruction " + std::to_string(index) + " without an error");
  progress_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace s2::sim::top
