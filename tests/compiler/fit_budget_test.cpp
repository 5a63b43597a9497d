// The memory-budget pass (compiler/schedule/fit_budget.h) on zoo models with the simulator's cost
// table: the step fits, the graph still verifies, the greedy against the exact formulation and
// the exhaustive search where the candidates are few, and the ways it may use.
#include "compiler/schedule/fit_budget.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "compiler/driver/cost_table.h"
#include "compiler/driver/pass_registry.h"
#include "compiler/ir/verifier.h"
#include "compiler/memory/planner.h"
#include "compiler/schedule/lifetimes.h"
#include "isa/common/errors.h"

namespace s2::compiler {
namespace {

// The model's training step, scheduled (the passes up to `schedule`).
Program scheduled(const std::string& model, int image = 0) {
  PassContext context;
  context.front.model = model;
  if (image != 0) {
    context.front.model_options.batch = 2;
    context.front.model_options.height = context.front.model_options.width = image;
  }
  Program program;
  for (const auto& pass : pass_registry()) {
    run_pass(pass.name, program, context);
    if (pass.name == "schedule") break;
  }
  return program;
}

schedule::BudgetOptions options_for(const target::TargetDesc& target, uint64_t budget) {
  schedule::BudgetOptions o;
  o.budget = budget;
  o.cost = op_cost_table(target);
  o.swap_cost = swap_cost_table(target);
  o.dram_bytes_per_cycle = target.dram.peak_bandwidth_bytes_per_s() / (target.clock_mhz * 1e6);
  o.planned_dram = [](const ir::Graph& g, const std::vector<ir::OpId>& order) {
    return memory::plan_memory(schedule::compute_lifetimes(g, order).buffers, {}).dram_size;
  };
  return o;
}

const target::TargetDesc& base() {
  static PassContext context;
  return context.target();
}

// The tiny transformers have few candidates (16 each): the exact formulation runs beside the
// greedy, the result is the better of the two, and the greedy is within 1% of the exact
// solution (at 5% under, measured: 0.49% on the GPT, 0.00% on the ViT).
TEST(FitBudget, TheChoiceIsTheBetterOfTheGreedyAndTheExactFormulation) {
  for (const std::string model : {"gpt", "vit"}) {
    Program p = scheduled(model);
    const uint64_t need = schedule::needed_dram(p.graph, p.order, 64);
    const schedule::BudgetResult r =
        schedule::fit_memory_budget(p.graph, p.order, options_for(base(), need * 95 / 100));
    ASSERT_TRUE(r.changed) << model;
    EXPECT_LE(r.needed_after, need * 95 / 100) << model;
    EXPECT_TRUE(ir::verify_graph(p.graph).empty()) << model;
    ASSERT_GT(r.ilp_cycles, 0u) << model << ": the exact formulation found nothing: " << r.summary;
    ASSERT_GT(r.greedy_cycles, 0u) << model << ": the greedy found nothing: " << r.summary;
    EXPECT_EQ(r.predicted_cycles, std::min(r.ilp_cycles, r.greedy_cycles)) << r.summary;
    EXPECT_LE(static_cast<double>(r.greedy_cycles), 1.01 * static_cast<double>(r.ilp_cycles))
        << model << ": " << r.summary;
    EXPECT_NE(r.summary.find("exact formulation (GLPK: 16 candidates"), std::string::npos)
        << r.summary;
  }
}

// LeNet-5 has 6 candidates: the exhaustive search of every just-in-time assignment runs too,
// and the choice is within 2% of its best (1.67% at 0.6% under, measured: the lifetimes' need of
// the exact formulation's solutions fits, the planner's layout of them does not).
TEST(FitBudget, TheChoiceAgainstTheExhaustiveSearch) {
  Program p = scheduled("lenet5");
  const uint64_t need = schedule::needed_dram(p.graph, p.order, 64);
  const schedule::BudgetResult r =
      schedule::fit_memory_budget(p.graph, p.order, options_for(base(), need * 994 / 1000));
  ASSERT_TRUE(r.changed);
  ASSERT_GT(r.exhaustive_cycles, 0u) << r.summary;
  EXPECT_GE(r.predicted_cycles, r.exhaustive_cycles) << "better than every assignment";
  EXPECT_LE(static_cast<double>(r.predicted_cycles),
            1.02 * static_cast<double>(r.exhaustive_cycles))
      << r.summary;
}

// The error's smallest budget is one that fits, and 64 bytes (the bisection's step, the
// planner's alignment) less does not (on the tiny
// transformers the exact formulation's bisection finds it below what treating every candidate
// reaches: recomputation chains, and candidates left out whose recomputation adds more than it
// frees).
TEST(FitBudget, TheErrorsSmallestBudgetFits) {
  for (const std::string model : {"gpt", "vit"})
    for (const bool swap : {true, false}) {
      const Program p = scheduled(model);
      schedule::BudgetOptions o = options_for(base(), 1024);
      o.swap = swap;
      o.recompute = !swap;
      uint64_t least = 0;
      try {
        Program q = p;
        schedule::fit_memory_budget(q.graph, q.order, o);
        FAIL() << model << ": 1 KiB fits";
      } catch (const UserError& e) {
        const std::string what = e.what();
        const size_t at = what.find("reaches ");
        ASSERT_NE(at, std::string::npos) << what;
        least = std::stoull(what.substr(at + 8));
      }
      o.budget = least;
      Program q = p;
      EXPECT_NO_THROW(schedule::fit_memory_budget(q.graph, q.order, o))
          << model << (swap ? " swap " : " recompute ") << least;
      o.budget = least - 64;
      q = p;
      EXPECT_THROW(schedule::fit_memory_budget(q.graph, q.order, o), UserError)
          << model << (swap ? " swap " : " recompute ") << least;
    }
}

// The GPT's saved activations are mostly read in the backward through views the forward made
// (head splits, reshapes for the GEMMs): they are candidates, made again of the swap-in.
TEST(FitBudget, ActivationsReadThroughForwardViewsAreSwapped) {
  Program p = scheduled("gpt");
  const uint64_t need = schedule::needed_dram(p.graph, p.order, 64);
  schedule::BudgetOptions o = options_for(base(), need * 70 / 100);
  o.recompute = false;
  const schedule::BudgetResult r = schedule::fit_memory_budget(p.graph, p.order, o);
  EXPECT_LE(r.needed_after, need * 70 / 100) << r.summary;
  EXPECT_TRUE(ir::verify_graph(p.graph).empty());
  size_t again = 0;
  for (const ir::OpId id : p.order)
    again += p.graph.op(id).name.find(".again") != std::string::npos;
  EXPECT_GT(again, 0u) << "no view made again of a swap-in: " << r.summary;
}

TEST(FitBudget, EachWayAloneAndNoBudget) {
  Program p = scheduled("resnet18", 128);
  const uint64_t need = schedule::needed_dram(p.graph, p.order, 64);
  schedule::BudgetOptions none = options_for(base(), 0);
  Program same = p;
  EXPECT_FALSE(schedule::fit_memory_budget(same.graph, same.order, none).changed);
  EXPECT_EQ(same.order, p.order);
  for (const bool swap : {true, false}) {
    Program q = p;
    schedule::BudgetOptions o = options_for(base(), need * 97 / 100);
    o.swap = swap;
    o.recompute = !swap;
    const schedule::BudgetResult r = schedule::fit_memory_budget(q.graph, q.order, o);
    EXPECT_TRUE(swap ? r.recomputed.empty() : r.swapped.empty()) << r.summary;
    EXPECT_FALSE((swap ? r.swapped : r.recomputed).empty()) << r.summary;
    EXPECT_LE(r.needed_after, need * 97 / 100);
  }
  // Far below anything reachable: the error names the smallest budget that works.
  Program q = p;
  try {
    schedule::fit_memory_budget(q.graph, q.order, options_for(base(), need / 10));
    FAIL() << "a tenth of the need was met";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("reaches "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("at the least; give at least that"), std::string::npos);
  }
}

}  // namespace
}  // namespace s2::compiler
