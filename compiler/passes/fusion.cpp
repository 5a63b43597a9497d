#include "compiler/passes/fusion.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/subgraph.h"
#include "compiler/passes/fusion_patterns.h"
#include "isa/common/errors.h"

namespace s2::ir {

const char* fusion_pattern_name(FusionPattern pattern) {
  switch (pattern) {
    case FusionPattern::Residual:
      return "residual";
    case FusionPattern::GradSum:
      return "grad_sum";
    case FusionPattern::Activation:
      return "activation";
    case FusionPattern::Gate:
      return "gate";
    case FusionPattern::BnRelu:
      return "bn_relu";
    case FusionPattern::BnBwdGate:
      return "bn_bwd_gate";
  }
  return "?";
}

FusionOptions fusion_options(const target::TargetDesc& target) {
  return FusionOptions{target.pe_array.epilogue, target.pe_array.activations};
}

std::string fusion_stats_text(const FusionStats& s) {
  std::string patterns;
  for (size_t p = 0; p < kNumFusionPatterns; ++p)
    patterns += std::string(p ? ", " : "") + fusion_pattern_name(static_cast<FusionPattern>(p)) +
                " " + std::to_string(s.by_pattern[p]);
  const std::string mib = fmt::format("{:.2f}", static_cast<double>(s.bytes_saved) / 1048576.0);
  return std::to_string(s.groups.size()) + " fused ops absorbed " + std::to_string(s.ops_fused) +
         " ops (" + patterns + "): " + std::to_string(s.ops_before) + " -> " +
         std::to_string(s.ops_after) + " ops, " + mib + " MiB (" + std::to_string(s.bytes_saved) +
         " bytes) less DRAM traffic; " + std::to_string(s.candidates) + " candidates, " +
         std::to_string(s.rejected_cycle) + " rejected as cycles";
}

namespace {

using fusion::Candidate;

// Whether merging a candidate would close a cycle, with ops stamped by their position in a
// topological order: an op can depend on a member only if it is stamped after the first
// member, so the backward search from the group's outside predecessors stops there.
class CycleCheck {
 public:
  CycleCheck(const std::vector<std::vector<OpId>>& preds, const std::vector<size_t>& stamp)
      : preds_(preds), stamp_(stamp), member_(preds.size(), 0), seen_(preds.size(), 0) {}

  bool closes_cycle(const Candidate& c) {
    ++epoch_;
    size_t first = stamp_.size();
    for (OpId op : c.ops) {
      member_[op.index()] = epoch_;
      first = std::min(first, stamp_[op.index()]);
    }
    std::vector<size_t> work;
    for (OpId op : c.ops)
      for (OpId p : preds_[op.index()])
        if (member_[p.index()] != epoch_ && stamp_[p.index()] > first) work.push_back(p.index());
    while (!work.empty()) {
      const size_t p = work.back();
      work.pop_back();
      if (seen_[p] == epoch_) continue;
      seen_[p] = epoch_;
      for (OpId q : preds_[p]) {
        if (member_[q.index()] == epoch_) return true;  // a member precedes a predecessor
        if (stamp_[q.index()] > first && seen_[q.index()] != epoch_) work.push_back(q.index());
      }
    }
    return false;
  }

 private:
  const std::vector<std::vector<OpId>>& preds_;
  const std::vector<size_t>& stamp_;
  std::vector<uint32_t> member_, seen_;  // == epoch_: a member / visited in this check
  uint32_t epoch_ = 0;
};

// What a choice of candidates is worth: DRAM bytes saved, then ops removed.
struct Value {
  uint64_t bytes = 0;
  size_t ops = 0;
  bool better_than(const Value& o) const {
    return bytes != o.bytes ? bytes > o.bytes : ops > o.ops;
  }
};

// Depth-first branch and bound over one set of overlapping candidates: include or skip each
// in order, never two sharing an op. Including first makes the first complete choice the
// greedy one, so the node budget (a guard against pathological overlap, never reached by
// the zoo) can only cut the search short of improving on it.
class OverlapSearch {
 public:
  static constexpr size_t kNodeBudget = size_t{1} << 18;

  OverlapSearch(const std::vector<Candidate>& all, std::vector<size_t> members, size_t num_ops)
      : all_(all),
        members_(std::move(members)),
        used_(num_ops, false),
        bound_(members_.size() + 1) {
    for (size_t i = members_.size(); i-- > 0;) {
      const Candidate& c = all_[members_[i]];
      bound_[i] = {bound_[i + 1].bytes + c.bytes_saved, bound_[i + 1].ops + c.ops_removed()};
    }
  }

  std::vector<size_t> run() {
    search(0, Value{});
    return best_pick_;
  }

 private:
  void search(size_t i, Value value) {
    if (++nodes_ > kNodeBudget && found_) return;
    if (i == members_.size()) {
      if (!found_ || value.better_than(best_)) {
        best_ = value;
        best_pick_ = pick_;
        found_ = true;
      }
      return;
    }
    const Value reachable{value.bytes + bound_[i].bytes, value.ops + bound_[i].ops};
    if (found_ && !reachable.better_than(best_)) return;
    const Candidate& c = all_[members_[i]];
    const bool free =
        std::none_of(c.ops.begin(), c.ops.end(), [&](OpId op) { return used_[op.index()]; });
    if (free) {
      for (OpId op : c.ops)
        used_[op.index()] = true;
      pick_.push_back(members_[i]);
      search(i + 1, Value{value.bytes + c.bytes_saved, value.ops + c.ops_removed()});
      pick_.pop_back();
      for (OpId op : c.ops)
        used_[op.index()] = false;
    }
    search(i + 1, value);
  }

  const std::vector<Candidate>& all_;
  std::vector<size_t> members_;
  std::vector<bool> used_;
  std::vector<Value> bound_;  // bound_[i]: everything members_[i..] could add
  std::vector<size_t> pick_, best_pick_;
  Value best_;
  bool found_ = false;
  size_t nodes_ = 0;
};

size_t find_root(std::vector<size_t>& parent, size_t i) {
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

// The chosen candidates (indices into `all`, ascending): the best non-overlapping
// combination of each set of candidates connected by shared ops.
std::vector<size_t> choose(const std::vector<Candidate>& all, size_t num_ops) {
  std::vector<size_t> parent(all.size());
  std::iota(parent.begin(), parent.end(), size_t{0});
  std::vector<std::optional<size_t>> owner(num_ops);  // some candidate containing the op
  for (size_t i = 0; i < all.size(); ++i)
    for (OpId op : all[i].ops) {
      std::optional<size_t>& o = owner[op.index()];
      if (o)
        parent[find_root(parent, i)] = find_root(parent, *o);
      else
        o = i;
    }
  std::vector<std::vector<size_t>> components(all.size());
  for (size_t i = 0; i < all.size(); ++i)
    components[find_root(parent, i)].push_back(i);
  std::vector<size_t> chosen;
  for (std::vector<size_t>& members : components) {
    if (members.empty()) continue;
    const std::vector<size_t> picked = OverlapSearch(all, std::move(members), num_ops).run();
    chosen.insert(chosen.end(), picked.begin(), picked.end());
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

// Two groups that are each legal can still close a cycle together, through a member that is
// not the last of its group (only in-place writes give those outside successors). Merges
// the chosen groups into single nodes and peels off nodes with no predecessor left, then
// nodes with no successor left; what remains lies on cycles. While anything remains, drops
// the latest chosen group in it.
void drop_joint_cycles(const std::vector<std::vector<OpId>>& preds,
                       const std::vector<Candidate>& all, std::vector<size_t>* chosen) {
  const size_t n = preds.size();
  for (;;) {
    std::vector<size_t> node(n);  // the op standing for each op's merged node
    std::iota(node.begin(), node.end(), size_t{0});
    std::vector<std::optional<size_t>> group_of(n);  // position in *chosen
    for (size_t k = 0; k < chosen->size(); ++k)
      for (OpId op : all[(*chosen)[k]].ops) {
        node[op.index()] = all[(*chosen)[k]].ops.front().index();
        group_of[op.index()] = k;
      }
    std::vector<std::vector<size_t>> succ(n), pred(n);
    for (size_t i = 0; i < n; ++i)
      for (OpId p : preds[i])
        if (node[p.index()] != node[i]) {
          succ[node[p.index()]].push_back(node[i]);
          pred[node[i]].push_back(node[p.index()]);
        }
    std::vector<bool> left(n, false);
    for (size_t i = 0; i < n; ++i)
      left[i] = node[i] == i;
    // Peels nodes whose `edges` (predecessors, then successors) have all been peeled.
    auto peel = [&](const std::vector<std::vector<size_t>>& edges,
                    const std::vector<std::vector<size_t>>& reverse) {
      std::vector<size_t> count(n, 0), work;
      for (size_t i = 0; i < n; ++i)
        if (left[i]) {
          for (size_t e : edges[i])
            count[i] += left[e] ? 1u : 0u;
          if (count[i] == 0) work.push_back(i);
        }
      while (!work.empty()) {
        const size_t i = work.back();
        work.pop_back();
        left[i] = false;
        for (size_t r : reverse[i])
          if (left[r] && --count[r] == 0) work.push_back(r);
      }
    };
    peel(pred, succ);
    peel(succ, pred);
    std::optional<size_t> latest;
    for (size_t i = 0; i < n; ++i)
      if (left[i] && group_of[i]) latest = std::max(latest.value_or(0), *group_of[i]);
    if (!latest) return;
    chosen->erase(chosen->begin() + static_cast<std::ptrdiff_t>(*latest));
  }
}

Graph rebuild(const Graph& in, const std::vector<Candidate>& all,
              const std::vector<size_t>& chosen) {
  std::vector<bool> keep_op(in.num_ops(), true), keep_tensor(in.num_tensors(), true),
      keep_data(in.num_datas(), true);
  std::vector<std::optional<Op>> replacement(in.num_ops());
  std::vector<OpId> producer(in.num_ops());  // where each op's surviving outputs come from now
  for (size_t i = 0; i < in.num_ops(); ++i)
    producer[i] = OpId(i);
  for (size_t k : chosen) {
    const Candidate& c = all[k];
    for (size_t m = 0; m < c.ops.size(); ++m)
      if (m != c.main) {
        keep_op[c.ops[m].index()] = false;
        producer[c.ops[m].index()] = c.ops[c.main];
      }
    for (TensorId t : c.intermediates) {
      if (t == c.pre) continue;  // kept: the fused op's output pre
      keep_tensor[t.index()] = false;
      keep_data[in.tensor(t).data.index()] = false;
    }
    replacement[c.ops[c.main].index()] = fusion::fused_op(in, c);
  }
  return copy_selected(in, Selection{keep_op, keep_tensor, keep_data, replacement, producer},
                       "fusion");
}

}  // namespace

PassResult fuse_epilogues(const Graph& graph, const FusionOptions& options, FusionStats* stats) {
  const std::vector<OpId> order = graph.topo_order();
  std::vector<size_t> stamp(graph.num_ops());
  for (size_t k = 0; k < order.size(); ++k)
    stamp[order[k].index()] = k;
  const std::vector<std::vector<OpId>> preds = graph.predecessors();

  FusionStats s;
  s.ops_before = graph.num_ops();
  std::vector<Candidate> candidates = fusion::find_candidates(graph, order, options);
  s.candidates = candidates.size();
  CycleCheck cycles(preds, stamp);
  const auto cyclic = std::remove_if(candidates.begin(), candidates.end(),
                                     [&](const Candidate& c) { return cycles.closes_cycle(c); });
  s.rejected_cycle = static_cast<size_t>(candidates.end() - cyclic);
  candidates.erase(cyclic, candidates.end());

  std::vector<size_t> chosen = choose(candidates, graph.num_ops());
  drop_joint_cycles(preds, candidates, &chosen);
  for (size_t k : chosen) {
    const Candidate& c = candidates[k];
    s.ops_fused += c.ops_removed();
    s.bytes_saved += c.bytes_saved;
    for (FusionPattern p : c.absorbed)
      ++s.by_pattern[static_cast<size_t>(p)];
    FusedGroup group{graph.op(c.ops[c.main]).name, {}};
    for (size_t m = 0; m < c.ops.size(); ++m)
      if (m != c.main) group.absorbed.push_back(graph.op(c.ops[m]).name);
    s.groups.push_back(std::move(group));
  }
  PassResult result{chosen.empty() ? graph : rebuild(graph, candidates, chosen), !chosen.empty(),
                    ""};
  s.ops_after = result.graph.num_ops();
  result.summary = fusion_stats_text(s);
  if (stats != nullptr) *stats = std::move(s);
  return result;
}

}  // namespace s2::ir
