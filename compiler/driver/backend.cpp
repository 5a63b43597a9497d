#include "compiler/driver/backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

#include "compiler/autodiff/autodiff.h"
#include "compiler/driver/pass_registry.h"
#include "compiler/passes/autocast.h"
#include "compiler/passes/copy_elision.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/in_place.h"
#include "compiler/schedule/lifetimes.h"
#include "compiler/schedule/schedule.h"
#include "isa/common/errors.h"
#include "simulator/timing/plan.h"

namespace s2::compiler {
namespace {

double mib(uint64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// The live peak of `step` (after dead-code elimination) under the scheduler of `options`: what
// a variant of the compiled step would have needed, for the summary's prices.
uint64_t variant_live_peak(ir::Graph step, const BackendOptions& options) {
  ir::PassResult dead = ir::dead_code_elimination(step);
  if (dead.changed) step = std::move(dead.graph);
  const std::vector<ir::OpId> order = schedule::schedule_ops(step, options.schedule);
  const schedule::Lifetimes lifetimes = schedule::compute_lifetimes(step, order);
  return memory::live_peak(lifetimes.buffers, options.plan.alignment);
}

// Gradient clipping holds every weight gradient until the global norm exists, where the
// update-immediate and memory-aware schedules would otherwise update each weight (and free its
// gradient) soon after the gradient is complete. The cost: the live peak of the planned step
// against that of the same step without clipping, scheduled by the same scheduler. Empty when
// the step does not clip.
std::string clipping_summary(const Program& program, const BackendOptions& options) {
  const ir::Graph& g = program.graph;
  double max_norm = 0.0;
  for (size_t i = 0; i < g.num_ops(); ++i)
    if (g.op(ir::OpId(i)).type == ir::OpType::ClipScale)
      max_norm = g.op(ir::OpId(i)).attrs.f("max_norm");
  if (max_norm == 0.0) return "";
  const uint64_t without = variant_live_peak(ir::without_grad_clipping(g), options);
  const uint64_t with = program.plan.lower_bound;
  return fmt::format(
      "gradient clipping (max norm {}): live peak {:.3f} MiB, {:.3f} MiB without clipping "
      "under the same schedule ({:+.3f} MiB: no weight is updated before the global norm)",
      max_norm, mib(with), mib(without), mib(with) - mib(without));
}

// Dynamic loss scaling holds every weight gradient until all are checked for overflow (no
// update may run before found_inf exists), as clipping does. The cost, measured the same way.
std::string loss_scaling_summary(const Program& program, const BackendOptions& options) {
  const ir::Graph& g = program.graph;
  const ir::OpId update = g.find_op("amp.update");
  if (!update.valid()) return "";
  const uint64_t without = variant_live_peak(ir::without_loss_scaling(g), options);
  const uint64_t with = program.plan.lower_bound;
  return fmt::format(
      "loss scaling: live peak {:.3f} MiB, {:.3f} MiB without it under the same schedule "
      "({:+.3f} MiB: no weight is updated before every gradient is checked)",
      mib(with), mib(without), mib(with) - mib(without));
}

// Bytes the timing model's tiles of the attention instructions load from and store to DRAM:
// attn_fwd and attn_bwd, or unfused bmm, softmax and softmax_bwd (what `s2sim run` reports on
// its `attention` line). Only those are planned: planning every instruction of a large step
// costs a minute. The tiles of attn_fwd, attn_bwd, softmax and softmax_bwd do not depend on
// where the operands are (their blocks are fields of the instruction or follow from the SRAM),
// so an instruction that differs from one already planned only in its addresses and
// dependencies (the same attention in another layer) costs what that one did: gpt2-small's 24
// fused attention instructions are planned twice, not 24 times (a second of a 7 s compile). A
// bmm's block is chosen on the DRAM model, which sees the addresses: each is planned.
uint64_t attention_traffic(const isa::Executable& exe, const target::TargetDesc& target) {
  const sim::timing::PeArrayModels models(target);
  std::vector<std::pair<isa::Instruction, uint64_t>> planned;  // without addresses and deps
  uint64_t bytes = 0;
  for (const isa::Instruction& inst : exe.instructions) {
    switch (inst.opcode()) {
      case isa::Opcode::AttnFwd:
      case isa::Opcode::AttnBwd:
      case isa::Opcode::Softmax:
      case isa::Opcode::SoftmaxBwd: {
        isa::Instruction key = inst;
        key.deps.clear();
        for (size_t s = 0; s < isa::kNumSlots; ++s) {
          const auto slot = static_cast<isa::Slot>(s);
          if (!key.has_slot(slot) || !key.operand(slot)) continue;
          isa::TensorDesc d = *key.operand(slot);
          d.addr = 0;
          key.set_operand(slot, d);
        }
        const auto same = std::find_if(planned.begin(), planned.end(),
                                       [&](const auto& p) { return p.first == key; });
        if (same != planned.end()) {
          bytes += same->second;
          break;
        }
        const sim::timing::InstructionPlan plan =
            sim::timing::plan_instruction(inst, target, models);
        planned.emplace_back(std::move(key), plan.load_bytes() + plan.store_bytes());
        bytes += planned.back().second;
        break;
      }
      case isa::Opcode::Bmm: {
        const sim::timing::InstructionPlan plan =
            sim::timing::plan_instruction(inst, target, models);
        bytes += plan.load_bytes() + plan.store_bytes();
        break;
      }
      default:
        break;
    }
  }
  return bytes;
}

// s2sim refuses an executable whose plan exceeds its configuration's DRAM: say so now, with
// the plan's parts, instead of writing one.
void check_dram_capacity(const memory::MemoryPlan& plan, const target::TargetDesc& target) {
  if (plan.dram_size <= target.dram.capacity_bytes) return;
  throw UserError(fmt::format(
      "memory plan: the step needs {} bytes of DRAM ({:.1f} MiB: arena {:.1f} MiB, persistent "
      "{:.1f} MiB), more than the {} bytes of configuration '{}'; use a smaller batch (or "
      "sequence), --memory-budget {} to swap or recompute activations until it fits, another "
      "--schedule or --planner, or a configuration with more DRAM",
      plan.dram_size, mib(plan.dram_size), mib(plan.arena_size), mib(plan.persistent_bytes),
      target.dram.capacity_bytes, target.name, target.dram.capacity_bytes));
}

}  // namespace

BackendResult run_backend(const ir::Graph& training_step, const BackendOptions& options) {
  if (!options.dump_after.empty() && !pass_registry().contains(options.dump_after))
    throw UserError("--dump-after: " + pass_registry().unknown_message(options.dump_after));
  const auto start = std::chrono::steady_clock::now();
  PassContext context;
  context.back = options;
  context.dump_after = options.dump_after;
  context.dump = options.dump;
  Program program;
  program.stage = ProgramStage::Graph;
  program.graph = training_step;

  BackendResult result;
  result.ops_before_fusion = training_step.num_ops();
  for (const auto& pass : pass_registry()) {
    if (pass.value.half != PassHalf::Back) continue;
    const PassRecord record = run_pass(pass.name, program, context);
    if (pass.name == "fuse-attention") result.attention_summary = record.summary;
    if (pass.name == "place-concat") result.concat_summary = record.summary;
    if (pass.name == "elide-copies") result.copies_summary = record.summary;
    if (pass.name == "in-place") result.in_place_summary = record.summary;
    if (pass.name == "fit-budget" && options.memory_budget != 0)
      result.budget_summary = record.summary;
    if (pass.name == "fuse") {
      result.fusion_summary = record.summary;
      result.ops_after_fusion = record.ops;
    }
    if (pass.name == "plan") check_dram_capacity(program.plan, context.target());
  }
  result.plan = program.plan;
  result.clipping_summary = clipping_summary(program, options);
  result.loss_scaling_summary = loss_scaling_summary(program, options);
  if (options.fuse_attention) {
    // The same step without fused attention, compiled the same way, for comparison.
    BackendOptions plain = options;
    plain.fuse_attention = false;
    plain.target = &context.target();
    plain.dump_after.clear();
    plain.memory_report.clear();
    const target::TargetDesc& target = context.target();
    const uint64_t fused = attention_traffic(program.executable, target);
    std::string without;
    try {
      const BackendResult unfused = run_backend(training_step, plain);
      const uint64_t bytes = attention_traffic(unfused.executable, target);
      without = fmt::format("{:.1f} MiB unfused ({:.2f}x), DRAM {:.1f} MiB without it", mib(bytes),
                            static_cast<double>(bytes) / static_cast<double>(fused),
                            mib(unfused.plan.dram_size));
    } catch (const UserError& e) {
      without = std::string("without it the step does not compile: ") + e.what();
    }
    result.attention_traffic = fmt::format(
        "attention's DRAM traffic planned by the timing model of '{}': {:.1f} MiB fused, {}; "
        "DRAM {:.1f} MiB with it",
        target.name, mib(fused), without, mib(program.plan.dram_size));
  }
  result.executable = std::move(program.executable);
  const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
  result.milliseconds = ms.count();
  return result;
}

std::string backend_summary(const BackendResult& r) {
  std::string s = fmt::format("fusion: {} ops -> {} ops; {}\n", r.ops_before_fusion,
                              r.ops_after_fusion, r.fusion_summary);
  if (!r.attention_summary.empty()) s += "attention: " + r.attention_summary + "\n";
  if (!r.attention_traffic.empty()) s += "attention: " + r.attention_traffic + "\n";
  if (r.concat_summary != "no concat") s += "concat: " + r.concat_summary + "\n";
  if (!r.copies_summary.empty() && r.copies_summary != ir::kNoCopyElided)
    s += "copies: " + r.copies_summary + "\n";
  if (!r.in_place_summary.empty() && r.in_place_summary != ir::kNothingInPlace)
    s += "in place: " + r.in_place_summary + "\n";
  s += fmt::format(
      "memory plan ({}): arena {:.3f} MiB, lower bound {:.3f} MiB, ratio {:.4f}; persistent "
      "{:.3f} MiB; DRAM {:.3f} MiB\n",
      r.plan.planner, mib(r.plan.arena_size), mib(r.plan.lower_bound), r.plan.ratio(),
      mib(r.plan.persistent_bytes), mib(r.plan.dram_size));
  if (!r.budget_summary.empty()) s += "memory budget: " + r.budget_summary + "\n";
  if (!r.clipping_summary.empty()) s += r.clipping_summary + "\n";
  if (!r.loss_scaling_summary.empty()) s += r.loss_scaling_summary + "\n";
  s += fmt::format("instructions: {}, tensors: {}, data {:.3f} MiB; back end {:.1f} ms\n",
                   r.executable.instructions.size(), r.executable.tensors.size(),
                   mib(r.executable.data.size()), r.milliseconds);
  return s;
}

}  // namespace s2::compiler
