#include "compiler/onnx/initializers.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include "compiler/onnx/tensor_data.h"
#include "compiler/onnx/translators.h"

namespace s2::onnx_import {
namespace {

using isa::TensorRole;

bool contains(const std::vector<size_t>& v, size_t i) {
  return std::find(v.begin(), v.end(), i) != v.end();
}

const char* role_use(TensorRole role) {
  return role == TensorRole::State ? "persistent state (batch-norm running statistics)"
                                   : "a weight";
}

struct Initializer {
  std::string name;
  const onnx::TensorProto* proto = nullptr;
  std::optional<TensorRole> role;  // unset: no node reads it as a tensor
};

class InitializerTable {
 public:
  explicit InitializerTable(ImportContext& ctx) : ctx_(ctx) {}

  void add(const std::string& name, const onnx::TensorProto* proto) {
    if (index_.count(name)) ctx_.fail("initializer '" + name + "' is defined twice");
    index_[name] = entries_.size();
    entries_.push_back({name, proto, std::nullopt});
    ctx_.add_constant(name, proto);
  }

  Initializer* find(const std::string& name) {
    const auto it = index_.find(name);
    return it == index_.end() ? nullptr : &entries_[it->second];
  }

  // A node reads the initializer as a tensor with `role`.
  void use(Initializer* init, TensorRole role, const onnx::NodeProto& node, int index) {
    if (init->role && *init->role != role)
      ctx_.fail("initializer '" + init->name + "' is used both as " + role_use(*init->role) +
                " and as " + role_use(role) + " (node '" + node_display_name(node, index) + "' (" +
                node.op_type() + "))");
    init->role = role;
  }

  void create_parameters() {
    // Identity aliases share their source's proto: decoded once, their contents shared (a
    // file of M aliases of an S-byte weight must not cost M x S).
    std::map<const onnx::TensorProto*, std::shared_ptr<const ir::HostArray>> decoded;
    for (const Initializer& init : entries_) {
      if (!init.role) continue;
      const std::string where = ctx_.path() + ": initializer '" + init.name + "'";
      const std::vector<int64_t> dims = tensor_dims(*init.proto, where);
      // A weight with a zero dimension has no elements, whatever its other dimensions claim
      // (found by tests/fuzz/fuzz_onnx: huge dims beside a 0 overflowed the strides).
      if (std::find(dims.begin(), dims.end(), 0) != dims.end())
        throw UserError(where + ": has a zero dimension in " + ir::ints_text(dims) +
                        "; empty tensors are not supported");
      std::shared_ptr<const ir::HostArray>& data = decoded[init.proto];
      if (!data) data = std::make_shared<const ir::HostArray>(float_values(*init.proto, where));
      const ir::TensorId t =
          ctx_.graph().add_parameter(init.name, *init.role, isa::DType::F32, dims, data);
      ctx_.bind(init.name, t);
    }
  }

 private:
  ImportContext& ctx_;
  std::vector<Initializer> entries_;  // file order, then Identity aliases in node order
  std::map<std::string, size_t> index_;
};

}  // namespace

void import_initializers(ImportContext& ctx) {
  InitializerTable table(ctx);
  for (const onnx::TensorProto& t : ctx.onnx_graph().initializer()) {
    if (t.name().empty()) ctx.fail("an initializer has no name");
    table.add(t.name(), &t);
  }
  const auto& nodes = ctx.onnx_graph().node();
  for (int k = 0; k < nodes.size(); ++k) {
    const onnx::NodeProto& node = nodes[k];
    if (node.op_type() == "Identity" && node.input_size() >= 1 && node.output_size() >= 1 &&
        !node.output(0).empty()) {
      if (const Initializer* source = table.find(node.input(0))) {
        table.add(node.output(0), source->proto);
        continue;
      }
    }
    // Unsupported ops are reported when the nodes are translated, in order.
    const OnnxOp* op = node.domain().empty() || node.domain() == "ai.onnx"
                           ? onnx_op_registry().find(node.op_type())
                           : nullptr;
    if (!op) continue;
    for (size_t i = 0; i < static_cast<size_t>(node.input_size()); ++i) {
      Initializer* init = table.find(node.input(static_cast<int>(i)));
      // Integer initializers are shapes and indices: constants for the translators, which
      // fold the static shape computations that read them (translate_shape.cpp).
      if (!init || contains(op->constant_inputs, i) ||
          init->proto->data_type() == onnx::TensorProto::INT64 ||
          init->proto->data_type() == onnx::TensorProto::INT32)
        continue;
      table.use(init, contains(op->state_inputs, i) ? TensorRole::State : TensorRole::Weight, node,
                k);
    }
  }
  table.create_parameters();
}

}  // namespace s2::onnx_import
