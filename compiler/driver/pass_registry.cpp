#include "compiler/driver/pass_registry.h"

#include <chrono>
#include <iostream>

#include "compiler/driver/cost_table.h"
#include "compiler/driver/model_import.h"
#include "compiler/driver/program_text.h"
#include "compiler/lower/lower.h"
#include "compiler/memory/memory_report.h"
#include "compiler/memory/planner.h"
#include "compiler/passes/algebraic_simplify.h"
#include "compiler/passes/attention_fusion.h"
#include "compiler/passes/autocast.h"
#include "compiler/passes/concat_placement.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/copy_elision.h"
#include "compiler/passes/cse.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/fusion.h"
#include "compiler/passes/in_place.h"
#include "compiler/passes/shape_inference.h"
#include "compiler/schedule/fit_budget.h"
#include "compiler/schedule/schedule.h"
#include "isa/common/config_dir.h"
#include "isa/common/errors.h"
#include "simulator/dram/load_target.h"

namespace s2::compiler {
namespace {

using Stage = ProgramStage;

std::string run_import(Program& p, PassContext& c) {
  p.graph = import_model(c.front);
  return "";
}

std::string run_autodiff(Program& p, PassContext& c) {
  for (size_t i = 0; i < p.graph.num_ops(); ++i) {
    const ir::Op& op = p.graph.op(ir::OpId(i));
    if (op.category != ir::OpCategory::Forward)
      throw UserError("pass 'autodiff' needs a forward graph, but op '" + op.name + "' is " +
                      ir::op_category_name(op.category) + ": graph '" + p.graph.name() +
                      "' is a training step already");
  }
  const ir::AutodiffStats s = ir::build_training_step(p.graph, c.front.sgd);
  return std::to_string(s.backward_ops) + " backward ops, " + std::to_string(s.accumulations) +
         " gradient sums, " + std::to_string(s.updates) + " updates";
}

ir::PassResult run_place_concats(const ir::Graph& graph) {
  return ir::place_concats(graph);
}

template <ir::PassResult (*Pass)(const ir::Graph&)>
std::string run_graph_pass(Program& p, PassContext&) {
  ir::PassResult r = Pass(p.graph);
  if (r.changed) p.graph = std::move(r.graph);
  return r.summary;
}

// Simplification leaves what only a replaced op read (the concats of slice gradients that
// add(concat,concat) merged, the inner op of a merged pair); dead-code elimination removes it
// here, or it would be scheduled and lowered.
std::string run_simplify(Program& p, PassContext&) {
  ir::PassResult r = ir::algebraic_simplify(p.graph);
  if (!r.changed) return r.summary;
  ir::PassResult dead = ir::dead_code_elimination(r.graph);
  p.graph = std::move(dead.changed ? dead.graph : r.graph);
  return dead.changed ? r.summary + "; then " + dead.summary : r.summary;
}

std::string run_autocast(Program& p, PassContext& c) {
  ir::PassResult r = ir::autocast(p.graph, c.front.precision, c.front.loss_scaling);
  if (r.changed) p.graph = std::move(r.graph);
  return r.summary;
}

std::string run_fuse_attention(Program& p, PassContext& c) {
  if (!c.back.fuse_attention) return "off (give --fuse-attention)";
  ir::PassResult r = ir::fuse_attention(p.graph, c.target());
  if (r.changed) p.graph = std::move(r.graph);
  return r.summary;
}

std::string run_fuse(Program& p, PassContext& c) {
  if (!c.back.fuse) return "fusion off (--no-fuse)";
  ir::PassResult r = ir::fuse_epilogues(p.graph, ir::fusion_options(c.target()));
  if (r.changed) p.graph = std::move(r.graph);
  return r.summary;
}

std::string run_schedule(Program& p, PassContext& c) {
  p.order = schedule::schedule_ops(p.graph, c.back.schedule);
  p.scheduler = c.back.schedule;
  return c.back.schedule + ": " + std::to_string(p.order.size()) + " ops";
}

std::string run_fit_budget(Program& p, PassContext& c) {
  schedule::BudgetOptions options;
  options.budget = c.back.memory_budget;
  options.alignment = c.back.plan.alignment;
  if (options.budget == 0) return "no budget (--memory-budget)";
  const std::string& by = c.back.memory_budget_by;
  options.recompute = by != "swap";
  // `both` swaps where the target can; `swap` on a target without a link is an error (the
  // cost table says so when the first swap is priced).
  options.swap = by == "swap" || (by == "both" && c.target().host_link.has_value());
  options.cost = op_cost_table(c.target());
  options.dram_bytes_per_cycle =
      c.target().dram.peak_bandwidth_bytes_per_s() / (c.target().clock_mhz * 1e6);
  options.swap_cost = swap_cost_table(c.target());
  const memory::PlanOptions plan = c.back.plan;
  options.planned_dram = [plan](const ir::Graph& g, const std::vector<ir::OpId>& order) {
    return memory::plan_memory(schedule::compute_lifetimes(g, order).buffers, plan).dram_size;
  };
  const schedule::BudgetResult r = schedule::fit_memory_budget(p.graph, p.order, options);
  return r.summary;
}

std::string run_plan(Program& p, PassContext& c) {
  p.lifetimes = schedule::compute_lifetimes(p.graph, p.order);
  p.plan = memory::plan_memory(p.lifetimes.buffers, c.back.plan);
  if (!c.back.memory_report.empty())
    memory::write_memory_report(c.back.memory_report, p.lifetimes.buffers, p.plan);
  return p.plan.planner + ": " + std::to_string(p.lifetimes.buffers.size()) + " buffers, arena " +
         std::to_string(p.plan.arena_size) + " bytes, lower bound " +
         std::to_string(p.plan.lower_bound) + " bytes";
}

std::string run_lower(Program& p, PassContext& c) {
  lower::LowerOptions options;
  options.target = c.target().name;
  p.executable = lower::lower_to_executable(p.graph, p.order, p.lifetimes.buffers, p.lifetimes.data,
                                            p.plan, options);
  return std::to_string(p.executable.instructions.size()) + " instructions";
}

Registry<PassInfo> make_registry() {
  Registry<PassInfo> r("pass");
  const auto front = PassHalf::Front, back = PassHalf::Back;
  r.add("import", {front, Stage::Model, Stage::Graph, "the model (zoo or ONNX) as a forward graph",
                   run_import});
  r.add("autodiff", {front, Stage::Graph, Stage::Graph,
                     "the training step: backward ops and SGD updates", run_autodiff});
  r.add("shape-inference",
        {front, Stage::Graph, Stage::Graph, "check every op's output types and shapes",
         run_graph_pass<ir::shape_inference>});
  r.add("dce", {front, Stage::Graph, Stage::Graph, "dead-code elimination",
                run_graph_pass<ir::dead_code_elimination>});
  r.add("cse", {front, Stage::Graph, Stage::Graph, "common-subexpression elimination",
                run_graph_pass<ir::common_subexpression_elimination>});
  r.add("fold", {front, Stage::Graph, Stage::Graph, "constant folding",
                 run_graph_pass<ir::constant_folding>});
  r.add("simplify", {front, Stage::Graph, Stage::Graph,
                     "algebraic simplification, then dead-code elimination", run_simplify});
  r.add("autocast", {front, Stage::Graph, Stage::Graph,
                     "mixed precision (--precision): 16-bit tensors, f32 master weights with "
                     "16-bit copies",
                     run_autocast});
  r.add("fuse-attention",
        {back, Stage::Graph, Stage::Graph,
         "attention and its backward as FlashAttention-style PE ops (--fuse-attention)",
         run_fuse_attention});
  r.add("fuse", {back, Stage::Graph, Stage::Graph, "PPU epilogues into PE ops", run_fuse});
  r.add("place-concat",
        {back, Stage::Graph, Stage::Graph,
         "concat inputs written into their slices of the output (copies where they cannot)",
         run_graph_pass<run_place_concats>});
  r.add("elide-copies", {back, Stage::Graph, Stage::Graph,
                         "dense copies of transposed outputs written by their producers in place",
                         run_graph_pass<ir::elide_copies>});
  r.add("in-place", {back, Stage::Graph, Stage::Graph,
                     "loss gradients written over the logits nothing reads afterwards",
                     run_graph_pass<ir::write_in_place>});
  r.add("schedule", {back, Stage::Graph, Stage::Scheduled, "the execution order", run_schedule});
  r.add("fit-budget",
        {back, Stage::Scheduled, Stage::Scheduled,
         "activations swapped to host memory until the step fits --memory-budget", run_fit_budget});
  r.add("plan", {back, Stage::Scheduled, Stage::Planned, "an address per buffer", run_plan});
  r.add("lower", {back, Stage::Planned, Stage::Lowered, "S2Train instructions", run_lower});
  return r;
}

}  // namespace

const target::TargetDesc& PassContext::target() {
  if (!target_) {
    target_ = back.target != nullptr
                  ? *back.target
                  : target::load_target(back.config.empty() ? default_config() : back.config);
  }
  return *target_;
}

const Registry<PassInfo>& pass_registry() {
  static const Registry<PassInfo> registry = make_registry();
  return registry;
}

std::string pass_stage_problem(const std::string& pass, ProgramStage stage) {
  const PassInfo& info = pass_registry().get(pass);
  if (info.needs == stage) return "";
  std::string problem = "pass '" + pass + "' needs " + program_stage_text(info.needs) +
                        ", but the program is " + program_stage_text(stage);
  if (info.needs == ProgramStage::Model)
    return problem + " (it reads the model that `s2c compile` names)";
  for (const auto& entry : pass_registry()) {
    const PassInfo& e = entry.value;
    // The pass that brings the program up to the stage this one needs, or the one that
    // takes it past the stage this one must run at.
    if (info.needs > stage && e.makes == info.needs && e.needs < e.makes)
      return problem + " (run '" + entry.name + "' first)";
    if (info.needs < stage && e.needs == info.needs && e.makes > e.needs && entry.name != pass)
      return problem + " (it must run before '" + entry.name + "')";
  }
  return problem;
}

PassRecord run_pass(const std::string& name, Program& program, PassContext& context) {
  const PassInfo& info = pass_registry().get(name);
  const std::string problem = pass_stage_problem(name, program.stage);
  if (!problem.empty()) throw UserError(problem);
  const auto start = std::chrono::steady_clock::now();
  PassRecord record{name, 0, 0, info.run(program, context)};
  program.stage = info.makes;
  verify_program(program, "after pass '" + name + "'");
  const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
  record.milliseconds = ms.count();
  record.ops = program.graph.num_ops();
  if (context.dump_after == name)
    (context.dump ? *context.dump : std::cout) << print_program(program);
  return record;
}

}  // namespace s2::compiler
