#include "compiler/driver/backend.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/lower/lower.h"
#include "compiler/memory/memory_report.h"
#include "compiler/memory/planner.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/fusion.h"
#include "compiler/schedule/lifetimes.h"
#include "compiler/schedule/schedule.h"
#include "isa/target/target_loader.h"
#include "s2/version.h"

namespace s2::compiler {

BackendResult run_backend(const ir::Graph& training_step, const BackendOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const std::string config =
      options.config.empty() ? std::string(kConfigDir) + "/s2train_base.yaml" : options.config;
  const target::TargetDesc target = target::load_target(config);

  BackendResult result;
  result.ops_before_fusion = training_step.num_ops();
  ir::Graph graph = training_step;
  if (options.fuse) {
    ir::FusionStats stats;
    ir::PassResult fused = ir::fuse_epilogues(graph, ir::fusion_options(target), &stats);
    if (fused.changed) graph = std::move(fused.graph);
    ir::verify_or_throw(graph, "after pass 'fuse'");
    result.fusion_summary = fused.summary;
  } else {
    result.fusion_summary = "fusion off (--no-fuse)";
  }
  result.ops_after_fusion = graph.num_ops();
  if (options.dump_after_fuse) (options.dump ? *options.dump : std::cout) << ir::print_graph(graph);

  const std::vector<ir::OpId> order = schedule::schedule_ops(graph, options.schedule);
  const schedule::Lifetimes lifetimes = schedule::compute_lifetimes(graph, order);
  result.plan = memory::plan_memory(lifetimes.buffers, options.plan);
  if (!options.memory_report.empty())
    memory::write_memory_report(options.memory_report, lifetimes.buffers, result.plan);

  lower::LowerOptions lower_options;
  lower_options.target = target.name;
  result.executable = lower::lower_to_executable(graph, order, lifetimes.buffers, lifetimes.data,
                                                 result.plan, lower_options);
  const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
  result.milliseconds = ms.count();
  return result;
}

std::string backend_summary(const BackendResult& r) {
  auto mib = [](uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); };
  char line[256];
  std::ostringstream os;
  std::snprintf(line, sizeof line, "fusion: %zu ops -> %zu ops; %s\n", r.ops_before_fusion,
                r.ops_after_fusion, r.fusion_summary.c_str());
  os << line;
  std::snprintf(line, sizeof line,
                "memory plan (%s): arena %.3f MiB, lower bound %.3f MiB, ratio %.4f; persistent "
                "%.3f MiB; DRAM %.3f MiB\n",
                r.plan.planner.c_str(), mib(r.plan.arena_size), mib(r.plan.lower_bound),
                r.plan.ratio(), mib(r.plan.persistent_bytes), mib(r.plan.dram_size));
  os << line;
  std::snprintf(line, sizeof line,
                "instructions: %zu, tensors: %zu, data %.3f MiB; back end %.1f ms\n",
                r.executable.instructions.size(), r.executable.tensors.size(),
                mib(r.executable.data.size()), r.milliseconds);
  os << line;
  return os.str();
}

}  // namespace s2::compiler
