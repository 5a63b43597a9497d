#include "compiler/passes/attention_fusion.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/dce.h"
#include "simulator/timing/attention_tiling.h"

namespace s2::ir {
namespace {

// One attention found in the old graph, and what the rewrite has emitted for it so far.
struct Match {
  OpId softmax, context;         // forward: the softmax and the bmm reading it
  OpId dv, softmax_bwd, dq, dk;  // backward (invalid when absent)
  TensorId q, k, v, mask, dy;    // old-graph tensors
  int64_t block_q = 0, block_k = 0;
  std::string name;                // of the fused op
  std::vector<TensorId> fwd, bwd;  // new-graph outputs once emitted
  uint64_t scores_bytes = 0;       // one [.., Tq, Tk] tensor
};

bool is_bmm(const Op& op, int64_t ta, int64_t tb) {
  return op.type == OpType::Bmm && op.attrs.i("trans_a") == ta && op.attrs.i("trans_b") == tb;
}

struct Stats {
  int fused = 0, forward_only = 0, other_uses = 0, no_fit = 0;
  int dropped = 0;  // probabilities multiplied by a dropout mask, which attn_fwd cannot draw
  uint64_t bytes_not_saved = 0;       // p no longer kept for the backward
  std::map<std::string, int> blocks;  // "Bq x Bk" -> count
};

class Finder {
 public:
  Finder(const Graph& g, const target::TargetDesc& target)
      : g_(g), target_(target), consumers_(g.consumers()) {}

  std::vector<Match> run(Stats& stats) {
    std::vector<Match> out;
    for (size_t i = 0; i < g_.num_ops(); ++i)
      if (g_.op(OpId(i)).type == OpType::Softmax) {
        std::optional<Match> m = match(OpId(i), stats);
        if (m) out.push_back(std::move(*m));
      }
    return out;
  }

 private:
  const std::vector<OpId>& users(TensorId t) const { return consumers_.at(t.index()); }

  std::optional<OpId> producer_if(TensorId t, int64_t ta, int64_t tb) const {
    const OpId p = g_.tensor(t).producer;
    if (!p.valid() || !is_bmm(g_.op(p), ta, tb)) return std::nullopt;
    return p;
  }

  bool is_output(TensorId t) const {
    for (TensorId o : g_.outputs())
      if (g_.tensor(o).data == g_.tensor(t).data) return true;
    return false;
  }

  std::optional<Match> match(OpId softmax_id, Stats& stats) {
    const Op& sm = g_.op(softmax_id);
    const TensorId scores = sm.inputs.at(0), p = sm.outputs.at(0);
    const std::optional<OpId> s_op = producer_if(scores, 0, 1);
    if (!s_op || users(scores).size() != 1 || is_output(scores) || is_output(p))
      return reject(stats);
    Match m;
    m.softmax = softmax_id;
    m.q = g_.op(*s_op).inputs[0];
    m.k = g_.op(*s_op).inputs[1];
    m.mask = sm.inputs.size() > 1 ? sm.inputs[1] : TensorId();
    for (OpId u : users(p)) {
      const Op& op = g_.op(u);
      if (is_bmm(op, 0, 0) && op.inputs[0] == p && op.category == OpCategory::Forward &&
          !m.context.valid()) {
        m.context = u;
      } else if (is_bmm(op, 1, 0) && op.inputs[0] == p && !m.dv.valid()) {
        m.dv = u;
      } else if (op.type == OpType::SoftmaxBwd && op.inputs[1] == p && !m.softmax_bwd.valid() &&
                 op.attrs.f("scale") == sm.attrs.f("scale")) {
        m.softmax_bwd = u;
      } else if (is_dropout(op)) {
        ++stats.dropped;
        return std::nullopt;
      } else {
        return reject(stats);
      }
    }
    if (!m.context.valid()) return reject(stats);
    m.v = g_.op(m.context).inputs[1];
    if (m.softmax_bwd.valid()) {
      const TensorId dp = g_.op(m.softmax_bwd).inputs[0], ds = g_.op(m.softmax_bwd).outputs[0];
      const std::optional<OpId> dp_op = producer_if(dp, 0, 1);
      if (!dp_op || users(dp).size() != 1 || g_.op(*dp_op).inputs[1] != m.v) return reject(stats);
      m.dy = g_.op(*dp_op).inputs[0];
      if (m.dv.valid() && g_.op(m.dv).inputs[1] != m.dy) return reject(stats);
      for (OpId u : users(ds)) {
        const Op& op = g_.op(u);
        if (is_bmm(op, 0, 0) && op.inputs[0] == ds && op.inputs[1] == m.k && !m.dq.valid())
          m.dq = u;
        else if (is_bmm(op, 1, 0) && op.inputs[0] == ds && op.inputs[1] == m.q && !m.dk.valid())
          m.dk = u;
        else
          return reject(stats);
      }
      if (is_output(ds) || is_output(dp)) return reject(stats);
    } else if (m.dv.valid()) {
      return reject(stats);  // a backward autodiff did not build
    }
    const Shape& qs = g_.tensor(m.q).shape;
    const Shape& ks = g_.tensor(m.k).shape;
    const Shape& vs = g_.tensor(m.v).shape;
    const size_t r = qs.size();
    sim::timing::AttentionShape shape;
    shape.tq = static_cast<uint64_t>(qs[r - 2]);
    shape.d = static_cast<uint64_t>(qs[r - 1]);
    shape.tk = static_cast<uint64_t>(ks[r - 2]);
    shape.dv = static_cast<uint64_t>(vs[r - 1]);
    shape.batches = static_cast<uint64_t>(shape_numel(qs)) / (shape.tq * shape.d);
    shape.causal = sm.attrs.i("causal") != 0;
    shape.mask = m.mask.valid();
    shape.elem = isa::dtype_bytes(g_.tensor(m.q).dtype);
    shape.dq_acc = g_.tensor(m.q).dtype != DType::F32;  // attention_bwd's dq_acc
    const auto blocks = sim::timing::choose_attention_blocks(target_, shape);
    if (!blocks) {
      ++stats.no_fit;
      return std::nullopt;
    }
    m.block_q = static_cast<int64_t>(blocks->q);
    m.block_k = static_cast<int64_t>(blocks->k);
    std::string base = sm.name;
    const std::string suffix = ".softmax";
    if (base.size() > suffix.size() &&
        base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0)
      base.resize(base.size() - suffix.size());
    m.name = base + ".attention";
    m.scores_bytes =
        shape.batches * shape.tq * shape.tk * isa::dtype_bytes(g_.tensor(scores).dtype);
    ++(m.softmax_bwd.valid() ? stats.fused : stats.forward_only);
    if (m.softmax_bwd.valid()) stats.bytes_not_saved += m.scores_bytes;
    ++stats.blocks[std::to_string(m.block_q) + " x " + std::to_string(m.block_k)];
    return m;
  }

  // A dropout of the probabilities: mul(p, mask) with the mask drawn by dropout_mask.
  bool is_dropout(const Op& op) const {
    if (op.type != OpType::Mul) return false;
    for (TensorId t : op.inputs) {
      const OpId producer = g_.tensor(t).producer;
      if (producer.valid() && g_.op(producer).type == OpType::DropoutMask) return true;
    }
    return false;
  }

  std::optional<Match> reject(Stats& stats) {
    ++stats.other_uses;
    return std::nullopt;
  }

  const Graph& g_;
  const target::TargetDesc& target_;
  std::vector<std::vector<OpId>> consumers_;
};

class Fuser final : public GraphRewriter {
 public:
  Fuser(const Graph& g, std::vector<Match> matches) : matches_(std::move(matches)) {
    for (size_t i = 0; i < matches_.size(); ++i) {
      const Match& m = matches_[i];
      const std::array<OpId, 4> roles{m.dq, m.dk, m.dv, m.context};
      for (size_t k = 0; k < roles.size(); ++k)
        if (roles[k].valid()) by_name_[g.op(roles[k]).name] = {i, k};
    }
  }

 protected:
  std::optional<std::vector<TensorId>> rewrite(const Op& op, Context& ctx) override {
    const auto it = by_name_.find(op.name);
    if (it == by_name_.end()) return std::nullopt;
    const auto [index, role] = it->second;  // role: 0 dq, 1 dk, 2 dv, 3 the forward
    Match& m = matches_[index];
    const Op& sm = ctx.old_graph().op(m.softmax);
    const Attrs attrs{{"scale", sm.attrs.f("scale")},
                      {"causal", sm.attrs.i("causal")},
                      {"block_q", m.block_q},
                      {"block_k", m.block_k}};
    if (role == 3) {
      m.fwd = ctx.emit(OpType::Attention, m.name, OpCategory::Forward,
                       {ctx.map(m.q), ctx.map(m.k), ctx.map(m.v), ctx.map(m.mask)}, attrs);
      return std::vector<TensorId>{m.fwd[0]};
    }
    if (m.bwd.empty())
      m.bwd = ctx.emit(OpType::AttentionBwd, m.name + ".bwd", OpCategory::ActivationGrad,
                       {ctx.map(m.q), ctx.map(m.k), ctx.map(m.v), ctx.map(m.mask), m.fwd.at(0),
                        ctx.map(m.dy), m.fwd.at(1)},
                       attrs);
    return std::vector<TensorId>{m.bwd[role]};
  }

 private:
  std::vector<Match> matches_;
  std::map<std::string, std::pair<size_t, size_t>> by_name_;  // old op -> (match, role)
};

}  // namespace

PassResult fuse_attention(const Graph& graph, const target::TargetDesc& target) {
  Stats stats;
  std::vector<Match> matches = Finder(graph, target).run(stats);
  std::string blocks;
  for (const auto& [b, n] : stats.blocks)
    blocks += std::string(blocks.empty() ? "" : ", ") + std::to_string(n) + " of " + b;
  const std::string summary = fmt::format(
      "{} attentions fused with their backward, {} forward only{}; {} left unfused (other uses "
      "of the scores or probabilities), {} left unfused (no block fits target '{}'){}; "
      "{:.2f} MiB of probabilities no longer saved for the backward",
      stats.fused, stats.forward_only, blocks.empty() ? "" : " (blocks " + blocks + ")",
      stats.other_uses, stats.no_fit, target.name,
      (stats.dropped == 0 ? std::string()
                          : fmt::format(", {} left unfused (attention dropout: the fused "
                                        "instructions draw no mask)",
                                        stats.dropped)),
      static_cast<double>(stats.bytes_not_saved) / 1048576.0);
  if (matches.empty()) return PassResult{graph, false, summary};
  PassResult fused = Fuser(graph, std::move(matches)).run(graph);
  PassResult dead = dead_code_elimination(fused.graph);
  return PassResult{dead.changed ? std::move(dead.graph) : std::move(fused.graph), true, summary};
}

}  // namespace s2::ir
