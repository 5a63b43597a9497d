#include "compiler/driver/backend.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <sstream>

#include "compiler/driver/pass_registry.h"
#include "compiler/passes/copy_elision.h"
#include "isa/common/errors.h"

namespace s2::compiler {

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
    if (pass.name == "place-concat") result.concat_summary = record.summary;
    if (pass.name == "elide-copies") result.copies_summary = record.summary;
    if (pass.name == "fuse") {
      result.fusion_summary = record.summary;
      result.ops_after_fusion = record.ops;
    }
  }
  result.plan = program.plan;
  result.executable = std::move(program.executable);
  const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
  result.milliseconds = ms.count();
  return result;
}

std::string backend_summary(const BackendResult& r) {
  auto mib = [](uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); };
  std::string s = fmt::format("fusion: {} ops -> {} ops; {}\n", r.ops_before_fusion,
                              r.ops_after_fusion, r.fusion_summary);
  if (r.concat_summary != "no concat") s += "concat: " + r.concat_summary + "\n";
  if (!r.copies_summary.empty() && r.copies_summary != ir::kNoCopyElided)
    s += "copies: " + r.copies_summary + "\n";
  s += fmt::format(
      "memory plan ({}): arena {:.3f} MiB, lower bound {:.3f} MiB, ratio {:.4f}; persistent "
      "{:.3f} MiB; DRAM {:.3f} MiB\n",
      r.plan.planner, mib(r.plan.arena_size), mib(r.plan.lower_bound), r.plan.ratio(),
      mib(r.plan.persistent_bytes), mib(r.plan.dram_size));
  s += fmt::format("instructions: {}, tensors: {}, data {:.3f} MiB; back end {:.1f} ms\n",
                   r.executable.instructions.size(), r.executable.tensors.size(),
                   mib(r.executable.data.size()), r.milliseconds);
  return s;
}

}  // namespace s2::compiler
