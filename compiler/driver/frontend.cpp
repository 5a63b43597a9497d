#include "compiler/driver/frontend.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include "compiler/io/npy.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/onnx/onnx_import.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/algebraic_simplify.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/cse.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/shape_inference.h"
#include "isa/common/errors.h"

namespace s2::compiler {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

using GraphPass = std::function<ir::PassResult(const ir::Graph&)>;

struct NamedPass {
  std::string name;
  GraphPass run;  // null for the two that build the graph (import, autodiff)
};

const std::vector<NamedPass>& simplification_passes() {
  static const std::vector<NamedPass> passes = {
      {"shape-inference", ir::shape_inference},      {"dce", ir::dead_code_elimination},
      {"cse", ir::common_subexpression_elimination}, {"fold", ir::constant_folding},
      {"simplify", ir::algebraic_simplify},
  };
  return passes;
}

ir::Graph import_model(const FrontendOptions& o) {
  if (ends_with(o.model, ".onnx")) {
    onnx_import::OnnxImportOptions io;
    io.batch = o.onnx_batch;
    io.num_classes = o.onnx_classes;
    io.seed = o.model_options.seed;
    return onnx_import::import_onnx(o.model, io);
  }
  return zoo::build_model(o.model, o.model_options);
}

// Replaces the initial contents of the one parameter with `role` by a .npy file's, which must
// have the parameter's element type and shape.
void load_npy_into(ir::Graph& g, ir::TensorRole role, const std::string& path, const char* flag) {
  for (size_t i = 0; i < g.num_tensors(); ++i) {
    const ir::Tensor& t = g.tensor(ir::TensorId(i));
    if (t.producer.valid() || g.data(t.data).role != role) continue;
    ir::HostArray values = io::read_npy_expect(path, t.dtype, t.shape);
    if (role == ir::TensorRole::Label && g.loss().valid()) {
      const ir::Op& loss = g.op(g.tensor(g.loss()).producer);
      const int64_t classes = g.tensor(loss.inputs.at(0)).shape.at(1);
      for (size_t k = 0; k < values.size(); ++k)
        if (values.i32()[k] < 0 || values.i32()[k] >= classes)
          throw UserError(path + ": label " + std::to_string(values.i32()[k]) + " at index " +
                          std::to_string(k) + " is outside [0, " + std::to_string(classes) + ")");
    }
    g.mutable_data(t.data).init = std::make_shared<const ir::HostArray>(std::move(values));
    return;
  }
  throw UserError(std::string(flag) + ": the model has no " + isa::role_name(role) + " tensor");
}

}  // namespace

const std::vector<std::string>& frontend_pass_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"import", "autodiff"};
    for (const NamedPass& p : simplification_passes())
      n.push_back(p.name);
    n.push_back("fuse");  // the back half's first pass (backend.cpp dumps after it)
    return n;
  }();
  return names;
}

FrontendResult run_frontend(const FrontendOptions& options) {
  const auto& names = frontend_pass_names();
  if (!options.dump_after.empty() &&
      std::find(names.begin(), names.end(), options.dump_after) == names.end()) {
    std::string known;
    for (const std::string& n : names)
      known += (known.empty() ? "" : ", ") + n;
    throw UserError("--dump-after: unknown pass '" + options.dump_after + "' (passes: " + known +
                    ")");
  }
  std::ostream& dump = options.dump ? *options.dump : std::cout;
  FrontendResult result{ir::Graph(), {}};
  auto finish = [&](const std::string& name, std::chrono::steady_clock::time_point start,
                    const std::string& summary) {
    ir::verify_or_throw(result.graph, "after pass '" + name + "'");
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
    result.passes.push_back({name, ms.count(), result.graph.num_ops(), summary});
    if (options.dump_after == name) dump << print_graph(result.graph);
  };

  auto start = std::chrono::steady_clock::now();
  result.graph = import_model(options);
  if (!options.input_npy.empty())
    load_npy_into(result.graph, ir::TensorRole::Input, options.input_npy, "--input");
  if (!options.labels_npy.empty())
    load_npy_into(result.graph, ir::TensorRole::Label, options.labels_npy, "--labels");
  finish("import", start, "");

  start = std::chrono::steady_clock::now();
  const ir::AutodiffStats stats = ir::build_training_step(result.graph, options.sgd);
  finish("autodiff", start,
         std::to_string(stats.backward_ops) + " backward ops, " +
             std::to_string(stats.accumulations) + " gradient sums, " +
             std::to_string(stats.updates) + " updates");

  for (const NamedPass& pass : simplification_passes()) {
    start = std::chrono::steady_clock::now();
    ir::PassResult r = pass.run(result.graph);
    if (r.changed) result.graph = std::move(r.graph);
    finish(pass.name, start, r.summary);
  }
  return result;
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
  std::map<std::string, std::pair<size_t, int64_t>> by_role;  // tensors, bytes
  for (size_t i = 0; i < g.num_datas(); ++i) {
    const ir::Data& d = g.data(ir::DataId(i));
    auto& [count, bytes] = by_role[isa::role_name(d.role)];
    ++count;
    bytes += d.numel * isa::dtype_bytes(d.dtype);
  }
  std::ostringstream os;
  char line[160];
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
    std::snprintf(line, sizeof line, "  %-16s %6zu tensors %12.3f MiB\n", role.c_str(), v.first,
                  static_cast<double>(v.second) / (1024.0 * 1024.0));
    os << line;
  }
  os << "passes:\n";
  for (const PassRecord& p : result.passes) {
    std::snprintf(line, sizeof line, "  %-16s %9.2f ms  %6zu ops  %s\n", p.name.c_str(),
                  p.milliseconds, p.ops, p.summary.c_str());
    os << line;
  }
  return os.str();
}

}  // namespace s2::compiler
