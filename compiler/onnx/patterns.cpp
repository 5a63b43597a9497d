#include "compiler/onnx/patterns.h"

#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "compiler/onnx/tensor_data.h"

namespace s2::onnx_import {
namespace {

class Matcher {
 public:
  explicit Matcher(const onnx::GraphProto& g) : g_(g) {
    for (const onnx::TensorProto& t : g.initializer())
      constants_[t.name()] = &t;
    for (int k = 0; k < g.node_size(); ++k) {
      const onnx::NodeProto& n = g.node(k);
      for (const std::string& out : n.output())
        producer_[out] = k;
      for (const std::string& in : n.input())
        ++readers_[in];
      if (n.op_type() == "Constant" && n.output_size() == 1)
        for (const onnx::AttributeProto& a : n.attribute())
          if (a.name() == "value" && a.has_t()) constants_[n.output(0)] = &a.t();
    }
    for (const onnx::ValueInfoProto& out : g.output())
      readers_[out.name()] += 2;  // never an intermediate
  }

  // The node producing `value` if it has type `type`, is standard, and `value` is its only
  // output with exactly one reader.
  const onnx::NodeProto* inner(const std::string& value, const char* type, int* index) {
    const auto it = producer_.find(value);
    if (it == producer_.end()) return nullptr;
    const onnx::NodeProto& n = g_.node(it->second);
    const bool standard = n.domain().empty() || n.domain() == "ai.onnx";
    if (!standard || n.op_type() != type || n.output_size() != 1 || readers_[value] != 1)
      return nullptr;
    *index = it->second;
    return &n;
  }

  // A scalar float constant within 1e-6 (relative) of `want`.
  bool is_scalar(const std::string& value, double want) const {
    const auto it = constants_.find(value);
    if (it == constants_.end() || it->second->data_type() != onnx::TensorProto::FLOAT) return false;
    try {
      const std::vector<float> v = float_values(*it->second, value);
      return v.size() == 1 && std::fabs(static_cast<double>(v[0]) - want) <= 1e-6 * std::fabs(want);
    } catch (const std::exception&) {
      return false;
    }
  }

  // A 1-D float constant (an initializer or a Constant's value) of more than one value.
  bool is_vector(const std::string& value) const {
    const auto it = constants_.find(value);
    return it != constants_.end() && it->second->data_type() == onnx::TensorProto::FLOAT &&
           it->second->dims_size() == 1 && it->second->dims(0) > 1;
  }

  // For a two-input node: the input that is not the scalar `want`, when the other is.
  std::optional<std::string> other_than_scalar(const onnx::NodeProto& n, double want) const {
    if (n.input_size() != 2) return std::nullopt;
    if (is_scalar(n.input(1), want)) return n.input(0);
    if (is_scalar(n.input(0), want)) return n.input(1);
    return std::nullopt;
  }

  // For a two-input node: the input other than `x`, when one is `x`.
  static std::optional<std::string> other_than(const onnx::NodeProto& n, const std::string& x) {
    if (n.input_size() != 2) return std::nullopt;
    if (n.input(0) == x) return n.input(1);
    if (n.input(1) == x) return n.input(0);
    return std::nullopt;
  }

 private:
  const onnx::GraphProto& g_;
  std::unordered_map<std::string, int> producer_;
  std::unordered_map<std::string, int> readers_;
  std::unordered_map<std::string, const onnx::TensorProto*> constants_;
};

struct Match {
  std::vector<std::string> inputs;
  std::string op_type;      // Silu, Gelu or Linear
  std::string approximate;  // Gelu: none or tanh
  std::vector<int> absorbed;
};

// Mul(x, Sigmoid(x)).
std::optional<Match> silu(Matcher& m, const onnx::NodeProto& root) {
  if (root.op_type() != "Mul" || root.input_size() != 2) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    int k = 0;
    const onnx::NodeProto* s = m.inner(root.input(side), "Sigmoid", &k);
    if (s && s->input_size() == 1 && s->input(0) == root.input(1 - side))
      return Match{{s->input(0)}, "Silu", "", {k}};
  }
  return std::nullopt;
}

// Mul(Mul(x, Add(Erf(Div(x, sqrt2)), 1)), 0.5).
std::optional<Match> gelu_erf(Matcher& m, const onnx::NodeProto& root) {
  if (root.op_type() != "Mul") return std::nullopt;
  Match match{{}, "Gelu", "none", {}};
  int k = 0;
  const auto half = m.other_than_scalar(root, 0.5);
  const onnx::NodeProto* p = half ? m.inner(*half, "Mul", &k) : nullptr;
  if (!p || p->input_size() != 2) return std::nullopt;
  match.absorbed.push_back(k);
  for (int side = 0; side < 2; ++side) {
    Match got = match;
    const onnx::NodeProto* add = m.inner(p->input(side), "Add", &k);
    if (!add) continue;
    got.absorbed.push_back(k);
    const auto erf_out = m.other_than_scalar(*add, 1.0);
    const onnx::NodeProto* erf = erf_out ? m.inner(*erf_out, "Erf", &k) : nullptr;
    if (!erf || erf->input_size() != 1) continue;
    got.absorbed.push_back(k);
    const onnx::NodeProto* div = m.inner(erf->input(0), "Div", &k);
    if (!div || div->input_size() != 2 || !m.is_scalar(div->input(1), std::sqrt(2.0)) ||
        div->input(0) != p->input(1 - side))
      continue;
    got.absorbed.push_back(k);
    got.inputs = {div->input(0)};
    return got;
  }
  return std::nullopt;
}

// Mul(0.5, Mul(x, Add(1, Tanh(Mul(sqrt(2/pi), Add(x, Mul(0.044715, Mul(x, Mul(x, x))))))))).
std::optional<Match> gelu_tanh(Matcher& m, const onnx::NodeProto& root) {
  if (root.op_type() != "Mul") return std::nullopt;
  Match match{{}, "Gelu", "tanh", {}};
  int k = 0;
  auto step = [&](const std::optional<std::string>& value, const char* type) {
    const onnx::NodeProto* n = value ? m.inner(*value, type, &k) : nullptr;
    if (n) match.absorbed.push_back(k);
    return n;
  };
  const onnx::NodeProto* p = step(m.other_than_scalar(root, 0.5), "Mul");
  if (!p || p->input_size() != 2) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const Match saved = match;
    const std::string x = p->input(1 - side);
    const onnx::NodeProto* one = step(p->input(side), "Add");
    const onnx::NodeProto* th = one ? step(m.other_than_scalar(*one, 1.0), "Tanh") : nullptr;
    const onnx::NodeProto* scaled =
        th && th->input_size() == 1 ? step(th->input(0), "Mul") : nullptr;
    const onnx::NodeProto* sum =
        scaled ? step(m.other_than_scalar(*scaled, std::sqrt(2.0 / M_PI)), "Add") : nullptr;
    const onnx::NodeProto* kappa = sum ? step(Matcher::other_than(*sum, x), "Mul") : nullptr;
    const onnx::NodeProto* cube =
        kappa ? step(m.other_than_scalar(*kappa, 0.044715), "Mul") : nullptr;
    const onnx::NodeProto* sq = cube ? step(Matcher::other_than(*cube, x), "Mul") : nullptr;
    if (sq && sq->input_size() == 2 && sq->input(0) == x && sq->input(1) == x) {
      match.inputs = {x};
      return match;
    }
    match = saved;
  }
  return std::nullopt;
}

// Add(MatMul(a, b), bias) with bias a 1-D constant of more than one value: a Linear on the
// last dimension, whose bias the gemm adds in its epilogue.
std::optional<Match> linear(Matcher& m, const onnx::NodeProto& root) {
  if (root.op_type() != "Add" || root.input_size() != 2) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    int k = 0;
    const onnx::NodeProto* mm = m.inner(root.input(side), "MatMul", &k);
    if (mm && mm->input_size() == 2 && m.is_vector(root.input(1 - side)))
      return Match{{mm->input(0), mm->input(1), root.input(1 - side)}, "Linear", "", {k}};
  }
  return std::nullopt;
}

}  // namespace

std::vector<PatternNode> recognise_patterns(const onnx::GraphProto& graph) {
  Matcher m(graph);
  std::unordered_set<int> absorbed;
  std::unordered_map<int, Match> roots;
  for (int k = 0; k < graph.node_size(); ++k) {
    const onnx::NodeProto& n = graph.node(k);
    if (!(n.domain().empty() || n.domain() == "ai.onnx") || n.output_size() != 1) continue;
    std::optional<Match> match = gelu_tanh(m, n);
    if (!match) match = gelu_erf(m, n);
    if (!match) match = silu(m, n);
    if (!match) match = linear(m, n);
    if (!match) continue;
    bool free = true;
    for (int a : match->absorbed)
      free = free && absorbed.count(a) == 0 && roots.count(a) == 0;
    if (!free) continue;
    absorbed.insert(match->absorbed.begin(), match->absorbed.end());
    roots.emplace(k, *match);
  }
  std::vector<PatternNode> out;
  for (int k = 0; k < graph.node_size(); ++k) {
    if (absorbed.count(k)) continue;
    const auto it = roots.find(k);
    if (it == roots.end()) {
      out.push_back({k, graph.node(k)});
      continue;
    }
    onnx::NodeProto node;
    // The root's scope with the new op type: "/act/Mul_1" -> "/act/Silu".
    const std::string& root_name = graph.node(k).name();
    const size_t slash = root_name.rfind('/');
    if (slash != std::string::npos)
      node.set_name(root_name.substr(0, slash + 1) + it->second.op_type);
    else
      node.set_name(root_name);
    node.set_domain(kPatternDomain);
    node.set_op_type(it->second.op_type);
    for (const std::string& in : it->second.inputs)
      node.add_input(in);
    node.add_output(graph.node(k).output(0));
    if (!it->second.approximate.empty()) {
      onnx::AttributeProto* a = node.add_attribute();
      a->set_name("approximate");
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(it->second.approximate);
    }
    out.push_back({k, std::move(node)});
  }
  return out;
}

}  // namespace s2::onnx_import
