#include "compiler/passes/fusion_patterns.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/ops/registry.h"
#include "isa/common/errors.h"
#include "isa/encoding/isa_table.h"
#include "isa/numerics/activation.h"

namespace s2::ir::fusion {
namespace {

using target::EpilogueFeature;

// The input slot of `type` named `name`, if its schema has one (residual, gate).
std::optional<size_t> slot_of(OpType type, const std::string& name) {
  const std::vector<InputSpec>& inputs = op_schema(type).inputs;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].name == name) return i;
  return std::nullopt;
}

bool has_act(OpType type) {
  for (const AttrSpec& spec : op_schema(type).attrs)
    if (spec.name == "act") return true;
  return false;
}

// True unless the op's input `name` exists and is set.
bool slot_empty(const Op& op, const std::string& name) {
  const std::optional<size_t> slot = slot_of(op.type, name);
  return !slot || *slot >= op.inputs.size() || !op.inputs[*slot].valid();
}

bool act_none(const Op& op) {
  return has_act(op.type) && op.attrs.has("act") && op.attrs.s("act") == "none";
}

// An op of the PE array; which epilogue stages it has, its schema says (slot_of, has_act).
bool is_pe(const Op& op) {
  return op_schema(op.type).fusion == FusionClass::Pe;
}

// relu, or an activation op: what an `act` attribute can absorb.
bool is_activation(const Op& op) {
  return op.type == OpType::Relu || op.type == OpType::Activation;
}

// The ISA activation an activation op computes, or whose backward an activation_bwd computes.
isa::Activation activation_of(const Op& op) {
  if (op.type == OpType::Relu || op.type == OpType::ReluBwd) return isa::Activation::Relu;
  for (const isa::EnumValue& v : isa::enum_values(isa::EnumSet::Activation))
    if (v.name == op.attrs.s("act")) return static_cast<isa::Activation>(v.value);
  throw InternalError("fusion: op '" + op.name + "' has unknown act \"" + op.attrs.s("act") + "\"");
}

struct Use {
  OpId op;
  size_t slot = 0;
};

// What the matcher asks of the graph, computed once.
class Matcher {
 public:
  Matcher(const Graph& g, const FusionOptions& options)
      : g_(g),
        options_(options),
        consumers_(g.consumers()),
        tensors_on_(g.num_datas(), 0),
        is_output_(g.num_tensors(), false) {
    for (size_t t = 0; t < g.num_tensors(); ++t)
      ++tensors_on_[g.tensor(TensorId(t)).data.index()];
    for (TensorId t : g.outputs())
      is_output_[t.index()] = true;
    if (g.loss().valid()) is_output_[g.loss().index()] = true;
  }

  bool supports(EpilogueFeature f) const { return options_.features.count(f) != 0; }
  bool pe_computes(const Op& act) const {
    return supports(EpilogueFeature::Activation) &&
           options_.activations.count(activation_of(act)) != 0;
  }

  // Whether the gate stage computes `op`'s backward: relu_bwd's mask on any target with a gate;
  // another activation's backward (activation_bwd) when the activation stage also computes
  // that function (the derivative uses the same special-function unit).
  bool gate_computes(const Op& op) const {
    if (!supports(EpilogueFeature::Gate)) return false;
    if (op.type == OpType::ReluBwd) return true;
    return op.type == OpType::ActivationBwd && supports(EpilogueFeature::Activation) &&
           options_.activations.count(activation_of(op)) != 0;
  }

  // The only use of t, when t may disappear into a fused op.
  std::optional<Use> sole_use(TensorId t) const {
    if (!t.valid() || is_output_[t.index()]) return std::nullopt;
    const Tensor& tensor = g_.tensor(t);
    const Data& data = g_.data(tensor.data);
    if (tensors_on_[tensor.data.index()] != 1 || !tensor.contiguous() || tensor.offset != 0 ||
        tensor.numel() != data.numel)
      return std::nullopt;
    const std::vector<OpId>& users = consumers_[t.index()];
    if (users.size() != 1) return std::nullopt;
    const Op& user = g_.op(users[0]);
    for (size_t i = 0; i < user.inputs.size(); ++i)
      if (user.inputs[i] == t) return Use{users[0], i};
    throw InternalError("fusion: op '" + user.name + "' is listed as a consumer of '%" +
                        tensor.name + "' but does not read it");
  }

  // The activation op among t's several users, when fusing it may keep t as the output `pre`:
  // t is its producer's whole dense output, and the activation, reading it once, is one
  // whose backward reads the input (so a training step's backward is one of the other users).
  std::optional<Use> activation_keeping_input(TensorId t) const {
    if (!t.valid()) return std::nullopt;
    const Tensor& tensor = g_.tensor(t);
    const Data& data = g_.data(tensor.data);
    if (!tensor.contiguous() || tensor.offset != 0 || tensor.numel() != data.numel)
      return std::nullopt;
    const std::vector<OpId>& users = consumers_[t.index()];
    if (users.size() < 2) return std::nullopt;
    std::optional<Use> found;
    for (OpId id : users) {
      const Op& user = g_.op(id);
      if (!is_activation(user)) continue;
      if (found || user.inputs.at(0) != t || numerics::reads_output(activation_of(user)))
        return std::nullopt;
      found = Use{id, 0};
    }
    return found;
  }

  uint64_t bytes(TensorId t) const {
    const Tensor& tensor = g_.tensor(t);
    return 2 * static_cast<uint64_t>(tensor.numel()) * isa::dtype_bytes(tensor.dtype);
  }

  void add_step(Candidate* c, TensorId via, OpId op, FusionPattern pattern) const {
    c->ops.push_back(op);
    c->absorbed.push_back(pattern);
    c->intermediates.push_back(via);
    c->bytes_saved += bytes(via);
  }

  // The last step of a chain: the activation reading `via`, which stays as the output pre.
  void add_pre_step(Candidate* c, TensorId via, OpId op, FusionPattern pattern) const {
    c->ops.push_back(op);
    c->absorbed.push_back(pattern);
    c->intermediates.push_back(via);
    c->pre = via;
    c->bytes_saved += bytes(via) / 2;
  }

  // PE op [-> add] [-> relu] [-> relu_bwd or activation_bwd]: each prefix of length >= 2,
  // longest first.
  void pe_chains(OpId head, std::vector<Candidate>* out) const {
    const Op& pe = g_.op(head);
    if (!is_pe(pe) || !slot_empty(pe, "residual") || !slot_empty(pe, "gate") ||
        (has_act(pe.type) && !act_none(pe)))
      return;
    const bool forward = pe.category == OpCategory::Forward;
    Candidate chain;
    chain.ops.push_back(head);
    std::vector<Candidate> prefixes;
    int stage = 0;  // 1 after the residual, 2 after the activation, 3 after the gate
    TensorId cur = pe.outputs.at(0);
    while (const std::optional<Use> use = sole_use(cur)) {
      const Op& next = g_.op(use->op);
      if (next.type == OpType::Add && stage < 1 && slot_of(pe.type, "residual") &&
          supports(EpilogueFeature::Residual)) {
        add_step(&chain, cur, use->op, forward ? FusionPattern::Residual : FusionPattern::GradSum);
        stage = 1;
      } else if (is_activation(next) && stage < 2 && has_act(pe.type) && pe_computes(next)) {
        add_step(&chain, cur, use->op, FusionPattern::Activation);
        stage = 2;
      } else if (use->slot == 0 && stage < 3 && slot_of(pe.type, "gate") && gate_computes(next)) {
        add_step(&chain, cur, use->op, FusionPattern::Gate);
        stage = 3;
      } else {
        break;
      }
      prefixes.push_back(chain);
      cur = next.outputs.at(0);
    }
    // A forward activation whose input the backward also reads: fused, keeping its input.
    if (stage < 2 && forward && has_act(pe.type))
      if (const std::optional<Use> use = activation_keeping_input(cur);
          use && pe_computes(g_.op(use->op))) {
        add_pre_step(&chain, cur, use->op, FusionPattern::Activation);
        prefixes.push_back(chain);
      }
    out->insert(out->end(), prefixes.rbegin(), prefixes.rend());
  }

  // batch_norm -> an activation: bn_fwd's activation (the PPU computes every one).
  void bn_relu(OpId head, std::vector<Candidate>* out) const {
    const Op& bn = g_.op(head);
    if (bn.type != OpType::BatchNorm || !act_none(bn)) return;
    Candidate c;
    c.ops.push_back(head);
    if (const std::optional<Use> use = sole_use(bn.outputs.at(0));
        use && is_activation(g_.op(use->op))) {
      add_step(&c, bn.outputs.at(0), use->op, FusionPattern::BnRelu);
    } else if (const std::optional<Use> keeping = activation_keeping_input(bn.outputs.at(0))) {
      add_pre_step(&c, bn.outputs.at(0), keeping->op, FusionPattern::BnRelu);
    } else {
      return;
    }
    out->push_back(c);
  }

  // relu_bwd or activation_bwd -> batch_norm_bwd's dy: bn_bwd's gate (the PPU computes every
  // activation's backward). The fused op is the batch_norm_bwd, whose gate rounds to dy's
  // type: an activation_bwd that stores another type stays separate.
  void bn_bwd_gate(OpId head, std::vector<Candidate>* out) const {
    const Op& mask = g_.op(head);
    if (mask.type != OpType::ReluBwd && mask.type != OpType::ActivationBwd) return;
    if (g_.tensor(mask.outputs.at(0)).dtype != g_.tensor(mask.inputs.at(0)).dtype) return;
    const std::optional<Use> use = sole_use(mask.outputs.at(0));
    if (!use || use->slot != 0) return;
    const Op& bwd = g_.op(use->op);
    if (bwd.type != OpType::BatchNormBwd || !slot_empty(bwd, "gate")) return;
    Candidate c;
    c.ops.push_back(head);
    c.main = 1;
    add_step(&c, mask.outputs.at(0), use->op, FusionPattern::BnBwdGate);
    out->push_back(c);
  }

 private:
  const Graph& g_;
  const FusionOptions& options_;
  std::vector<std::vector<OpId>> consumers_;
  std::vector<size_t> tensors_on_;  // per data node
  std::vector<bool> is_output_;     // per tensor: a graph output or the loss
};

// The other operand of a binary op whose input `via` is absorbed.
TensorId other_input(const Op& op, TensorId via) {
  S2_CHECK(op.inputs.size() == 2 && (op.inputs[0] == via) != (op.inputs[1] == via),
           "fusion: op '" + op.name + "' does not read the fused tensor exactly once");
  return op.inputs[0] == via ? op.inputs[1] : op.inputs[0];
}

void set_slot(Op* op, const std::string& name, TensorId t) {
  const std::optional<size_t> slot = slot_of(op->type, name);
  S2_CHECK(slot.has_value(), "fusion: op '" + op->name + "' has no " + name + " input");
  op->inputs.resize(op_schema(op->type).inputs.size());
  S2_CHECK(!op->inputs[*slot].valid(),
           "fusion: op '" + op->name + "' already has a " + name + " input");
  op->inputs[*slot] = t;
}

void set_output(Op* op, const std::string& name, TensorId t) {
  const std::vector<std::string>& outputs = op_schema(op->type).outputs;
  const auto at = std::find(outputs.begin(), outputs.end(), name);
  S2_CHECK(at != outputs.end(), "fusion: op '" + op->name + "' has no output " + name);
  op->outputs.resize(outputs.size());
  op->outputs[static_cast<size_t>(at - outputs.begin())] = t;
}

}  // namespace

std::vector<Candidate> find_candidates(const Graph& graph, const std::vector<OpId>& order,
                                       const FusionOptions& options) {
  const Matcher m(graph, options);
  std::vector<Candidate> out;
  for (OpId id : order) {
    m.pe_chains(id, &out);
    m.bn_relu(id, &out);
    m.bn_bwd_gate(id, &out);
  }
  return out;
}

Op fused_op(const Graph& graph, const Candidate& c) {
  Op fused = graph.op(c.ops.at(c.main));
  size_t absorbed = 0;
  for (size_t k = 0; k < c.ops.size(); ++k) {
    if (k == c.main) continue;
    const Op& op = graph.op(c.ops[k]);
    const FusionPattern pattern = c.absorbed.at(absorbed);
    const TensorId via = c.intermediates.at(absorbed);
    ++absorbed;
    switch (pattern) {
      case FusionPattern::Residual:
      case FusionPattern::GradSum:
        set_slot(&fused, "residual", other_input(op, via));
        break;
      case FusionPattern::Activation:
      case FusionPattern::BnRelu:
        fused.attrs.set("act", std::string(isa::activation_name(activation_of(op))));
        if (via == c.pre) {
          fused.attrs.set("keep_pre", int64_t{1});
          set_output(&fused, "pre", via);
        }
        break;
      case FusionPattern::Gate:
        set_slot(&fused, "gate", op.inputs.at(1));
        fused.attrs.set("gate_act", std::string(isa::activation_name(activation_of(op))));
        break;
      case FusionPattern::BnBwdGate:
        // The mask comes before the main op: its dy and relu output become bn_bwd's dy and gate.
        S2_CHECK(fused.inputs.at(0) == via, "fusion: op '" + fused.name + "' does not read '%" +
                                                graph.tensor(via).name + "' as dy");
        fused.inputs[0] = op.inputs.at(0);
        set_slot(&fused, "gate", op.inputs.at(1));
        fused.attrs.set("gate_act", std::string(isa::activation_name(activation_of(op))));
        break;
    }
  }
  // A chain ending in an absorbed op produces that op's result; one ending in the main op
  // keeps the main op's outputs.
  if (c.main + 1 != c.ops.size()) fused.outputs.at(0) = graph.op(c.ops.back()).outputs.at(0);
  return fused;
}

}  // namespace s2::ir::fusion
