#pragma once
// The compiler's back half: the back-half passes of pass_registry.h in order, fuse ->
// schedule -> plan (lifetimes and static memory planning) -> lower (S2Train instructions, a
// validated executable), each verified after it runs.

#include <ostream>
#include <string>

#include "compiler/driver/frontend.h"
#include "compiler/memory/buffer.h"
#include "isa/container/executable.h"
#include "isa/target/target_desc.h"

namespace s2::compiler {

struct BackendOptions {
  std::string config;  // target description; empty: configs/s2train_base.yaml
  // The target `config` describes, when the caller has loaded it already (s2c compile loads it
  // before any other work, so that a configuration s2sim refuses fails first); loaded on first
  // use otherwise.
  const target::TargetDesc* target = nullptr;
  bool fuse = true;
  bool fuse_attention = false;  // pass fuse-attention (passes/attention_fusion.h)
  std::string schedule = "memory-aware";
  memory::PlanOptions plan;
  std::string memory_report;   // write the plan as JSON here when not empty
  uint64_t memory_budget = 0;  // --memory-budget: DRAM bytes the step may use (0: no limit)
  // --memory-budget-by: how fit-budget may lower the need: "swap", "recompute" or "both" (both
  // swaps only on a target with a host link).
  std::string memory_budget_by = "both";
  std::string dump_after;        // print the program text after this pass (pass_registry.h)
  std::ostream* dump = nullptr;  // where (stdout when null)
};

struct BackendResult {
  isa::Executable executable;
  size_t ops_before_fusion = 0;
  size_t ops_after_fusion = 0;
  std::string fusion_summary;
  std::string attention_summary;  // pass fuse-attention
  // With --fuse-attention: the DRAM traffic and memory the timing model plans for the step,
  // against the same step compiled without it (empty otherwise).
  std::string attention_traffic;
  std::string concat_summary;    // pass place-concat
  std::string copies_summary;    // pass elide-copies
  std::string in_place_summary;  // pass in-place
  std::string budget_summary;    // pass fit-budget (empty without --memory-budget)
  memory::MemoryPlan plan;
  // With gradient clipping: what it costs in peak memory, against the same step without it
  // under the same schedule (empty without clipping).
  std::string clipping_summary;
  // With dynamic loss scaling: the same for its overflow check (empty without).
  std::string loss_scaling_summary;
  double milliseconds = 0;
};

// Throws UserError for bad options (an unknown --dump-after pass among them) or a bad target
// description.
BackendResult run_backend(const ir::Graph& training_step, const BackendOptions& options);

std::string backend_summary(const BackendResult& result);

}  // namespace s2::compiler
