#include "compiler/lower/lower.h"

#include "compiler/lower/dependencies.h"
#include "compiler/lower/fields.h"
#include "compiler/lower/lower_op.h"
#include "compiler/lower/tensor_table.h"
#include "compiler/ops/concat.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"
#include "isa/container/validator.h"

namespace s2::lower {
namespace {

DataAddresses data_addresses(const ir::Graph& graph, const std::vector<memory::Buffer>& buffers,
                             const std::vector<ir::DataId>& buffer_data,
                             const memory::MemoryPlan& plan) {
  S2_CHECK(buffer_data.size() == buffers.size() && plan.address.size() == buffers.size(),
           "lowering: " + std::to_string(buffers.size()) + " buffers, " +
               std::to_string(buffer_data.size()) + " data nodes and " +
               std::to_string(plan.address.size()) + " planned addresses");
  DataAddresses addresses(graph.num_datas());
  for (size_t i = 0; i < buffers.size(); ++i) {
    const ir::DataId d = buffer_data[i];
    S2_CHECK(d.valid() && d.index() < graph.num_datas(),
             "lowering: buffer '" + buffers[i].name + "' names no data node");
    S2_CHECK(!addresses[d.index()].has_value(),
             "lowering: data '" + graph.data(d).name + "' has two buffers");
    addresses[d.index()] = plan.address[i];
  }
  return addresses;
}

// The op's name, then the name of each output written into a slice of another buffer (pass
// place-concat): the tensor table names only the buffer, so this is where the dumps and the
// PyTorch check find a fused epilogue's result (a ReLU's output inside a concat).
std::vector<std::string> debug_names(const ir::Graph& graph, const ir::Op& op) {
  std::vector<std::string> names{op.name};
  for (ir::TensorId out : op.outputs) {
    if (!out.valid()) continue;
    const ir::Tensor& t = graph.tensor(out);
    if (t.offset != 0 || !t.contiguous() || t.numel() != graph.data(t.data).numel)
      names.push_back(t.name);
  }
  return names;
}

void check_order(const ir::Graph& graph, const std::vector<ir::OpId>& order) {
  std::vector<bool> seen(graph.num_ops(), false);
  for (ir::OpId id : order) {
    S2_CHECK(id.valid() && id.index() < graph.num_ops() && !seen[id.index()],
             "lowering: the order names op " + std::to_string(id.value) + " twice or out of range");
    seen[id.index()] = true;
  }
  S2_CHECK(order.size() == graph.num_ops(), "lowering: the order has " +
                                                std::to_string(order.size()) + " of the " +
                                                std::to_string(graph.num_ops()) + " ops");
}

}  // namespace

isa::Executable lower_to_executable(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                                    const std::vector<memory::Buffer>& buffers,
                                    const std::vector<ir::DataId>& buffer_data,
                                    const memory::MemoryPlan& plan, const LowerOptions& options) {
  if (options.target.empty() || options.target.size() > isa::kMaxTargetName)
    throw UserError("target name '" + options.target + "' must have 1.." +
                    std::to_string(isa::kMaxTargetName) + " characters");
  check_order(graph, order);
  // An executable holds at least one tensor (its DRAM size is never zero), and a program uses
  // none when no op reads or writes one and no output is listed (every op of a graph without
  // outputs is dead code).
  if (plan.dram_size == 0)
    throw UserError("graph '" + graph.name() +
                    "' uses no tensor (no op reads or writes one and no output is listed), so "
                    "nothing would be in DRAM; an executable needs at least one");
  const DataAddresses addresses = data_addresses(graph, buffers, buffer_data, plan);

  // Reserved: an Instruction is several hundred bytes, and growing by doubling would copy and
  // fault in about twice the final size again.
  std::vector<isa::Instruction> body;
  body.reserve(order.size());
  std::vector<std::vector<std::string>> source;  // per body instruction, its debug names
  source.reserve(order.size());
  std::vector<int64_t> body_of_step(order.size(), -1);
  for (size_t s = 0; s < order.size(); ++s) {
    const ir::Op& op = graph.op(order[s]);
    if (op.type == ir::OpType::Concat && !ir::concat_is_placed(graph, op))
      throw UserError(op_label(op) +
                      ": its inputs are not written into their slices of the output, so no "
                      "instruction would join them; run pass 'place-concat' before 'lower'");
    if (ir::op_schema(op.type).fusion == ir::FusionClass::View) continue;
    body_of_step[s] = static_cast<int64_t>(body.size());
    body.push_back(lower_op(graph, op, addresses));
    source.push_back(debug_names(graph, op));
  }

  Program program = add_dependencies(std::move(body));
  isa::Executable exe;
  exe.target = options.target;
  exe.instructions = std::move(program.instructions);
  exe.debug.resize(exe.instructions.size());  // barriers and `end` have no source op
  std::vector<int64_t> instruction_of_step(order.size(), -1);
  for (size_t s = 0; s < order.size(); ++s) {
    if (body_of_step[s] < 0) continue;
    const uint32_t index = program.index_of[static_cast<size_t>(body_of_step[s])];
    instruction_of_step[s] = index;
    exe.debug[index] = source[static_cast<size_t>(body_of_step[s])];
  }
  emit_tensor_table(graph, buffers, buffer_data, plan, instruction_of_step, exe);
  try {
    isa::validate(exe, "lowering of '" + graph.name() + "'");
  } catch (const UserError& e) {
    // Every user-facing problem was reported against its op above; what is left is ours.
    throw InternalError(std::string("lowering produced an invalid executable: ") + e.what());
  }
  return exe;
}

}  // namespace s2::lower
