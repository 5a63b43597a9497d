#include "compiler/driver/frontend.h"

#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <sstream>

#include "compiler/driver/pass_registry.h"
#include "isa/common/errors.h"

namespace s2::compiler {

namespace {

// The front passes on `program` (at stage Model: all of them; at stage Graph: those after the
// import).
FrontendResult run_front_passes(const FrontendOptions& options, Program program) {
  if (!options.dump_after.empty() && !pass_registry().contains(options.dump_after))
    throw UserError("--dump-after: " + pass_registry().unknown_message(options.dump_after));
  PassContext context;
  context.front = options;
  context.dump_after = options.dump_after;
  context.dump = options.dump;
  FrontendResult result{ir::Graph(), {}, {}};
  for (const auto& pass : pass_registry())
    if (pass.value.half == PassHalf::Front &&
        !(program.stage != ProgramStage::Model && pass.value.needs == ProgramStage::Model))
      result.passes.push_back(run_pass(pass.name, program, context));
  result.graph = std::move(program.graph);
  const std::string seed = std::to_string(options.model_options.seed);
  result.batch_source =
      (options.input_npy.empty()
           ? "input synthetic (drawn from --seed " + seed + "; give --input X.npy)"
           : "input from " + options.input_npy) +
      ", " +
      (options.labels_npy.empty()
           ? "labels synthetic (drawn from --seed " + seed + "; give --labels Y.npy)"
           : "labels from " + options.labels_npy);
  return result;
}

}  // namespace

FrontendResult run_frontend(const FrontendOptions& options) {
  return run_front_passes(options, Program());
}

FrontendResult run_frontend(const FrontendOptions& options, ir::Graph forward) {
  Program program;
  program.stage = ProgramStage::Graph;
  program.graph = std::move(forward);
  return run_front_passes(options, std::move(program));
}

std::string frontend_summary(const FrontendResult& result) {
  const ir::Graph& g = result.graph;
  std::map<std::string, size_t> by_category;
  std::map<std::string, size_t> by_type;
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const ir::Op& op = g.op(ir::OpId(i));
    ++by_category[ir::op_category_name(op.category)];
    ++by_type[std::string(ir::op_type_name(op.type))];
  }
  std::map<std::string, std::pair<size_t, int64_t>> by_role;   // tensors, bytes
  std::map<std::string, std::pair<size_t, int64_t>> by_dtype;  // the same by element type
  for (size_t i = 0; i < g.num_datas(); ++i) {
    const ir::Data& d = g.data(ir::DataId(i));
    const int64_t size = d.numel * isa::dtype_bytes(d.dtype);
    auto& [count, bytes] = by_role[isa::role_name(d.role)];
    ++count;
    bytes += size;
    auto& [type_count, type_bytes] = by_dtype[std::string(isa::dtype_name(d.dtype))];
    ++type_count;
    type_bytes += size;
  }
  std::ostringstream os;
  os << "training graph '" << g.name() << "': " << g.num_ops() << " ops, " << g.num_tensors()
     << " tensors, " << g.num_datas() << " data nodes\n";
  os << "ops by kind:";
  for (const char* c : {"forward", "activation_grad", "weight_grad", "weight_update"})
    os << " " << c << "=" << by_category[c];
  os << "\nops by type:";
  for (const auto& [type, n] : by_type)
    os << " " << type << "=" << n;
  os << "\ndata by role:\n";
  for (const auto& [role, v] : by_role) {
    os << fmt::format("  {:<16} {:>6} tensors {:>12.3f} MiB\n", role, v.first,
                      static_cast<double>(v.second) / (1024.0 * 1024.0));
  }
  if (by_dtype.count("bf16") != 0 || by_dtype.count("f16") != 0) {
    os << "data by element type (mixed precision):";
    for (const auto& [type, v] : by_dtype)
      os << fmt::format(" {} {} tensors {:.3f} MiB;", type, v.first,
                        static_cast<double>(v.second) / (1024.0 * 1024.0));
    os << "\n";
  }
  if (!result.batch_source.empty()) os << "batch: " << result.batch_source << "\n";
  os << "passes:\n";
  for (const PassRecord& p : result.passes) {
    os << fmt::format("  {:<16} {:>9.2f} ms  {:>6} ops  {}\n", p.name, p.milliseconds, p.ops,
                      p.summary);
  }
  return os.str();
}

}  // namespace s2::compiler
