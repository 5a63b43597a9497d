#pragma once
// Kahn's algorithm with the choice left to the caller: the machinery every list scheduler
// shares. It tracks which ops are ready (every predecessor of Graph::predecessors() — data
// and anti-dependency edges — already taken) and appends the taken ops to the order; a
// scheduler only decides which ready op goes next.

#include <cstddef>
#include <utility>
#include <vector>

#include "compiler/ir/graph.h"

namespace s2::schedule {

class ReadyList {
 public:
  explicit ReadyList(const ir::Graph& graph);

  const ir::Graph& graph() const { return graph_; }
  const std::vector<std::vector<ir::OpId>>& predecessors() const { return pred_; }
  const std::vector<std::vector<ir::OpId>>& successors() const { return succ_; }
  // Position of each op in Graph::topo_order(): the deterministic tie-break of every
  // scheduler, which follows construction order where the dependencies allow.
  size_t topo_index(ir::OpId op) const { return topo_index_.at(op.index()); }

  bool done() const { return order_.size() == graph_.num_ops(); }
  // The ready ops, in the order they became ready.
  const std::vector<ir::OpId>& ready() const { return ready_; }
  bool taken(ir::OpId op) const { return taken_.at(op.index()); }
  // Appends ready()[k] to the order and releases its successors.
  void take(size_t k);
  // Moves the finished order out. InternalError unless every op was taken.
  std::vector<ir::OpId> finish();

 private:
  const ir::Graph& graph_;
  std::vector<std::vector<ir::OpId>> pred_;
  std::vector<std::vector<ir::OpId>> succ_;
  std::vector<size_t> topo_index_;
  std::vector<size_t> waiting_;  // per op: predecessors not taken yet
  std::vector<bool> taken_;
  std::vector<ir::OpId> ready_;
  std::vector<ir::OpId> order_;
};

// Index in `ready` of the op with the smallest key(op); the first such on ties.
// Precondition: `ready` is not empty.
template <typename KeyFn>
size_t argmin_ready(const std::vector<ir::OpId>& ready, KeyFn key) {
  size_t best = 0;
  auto best_key = key(ready[0]);
  for (size_t k = 1; k < ready.size(); ++k) {
    auto candidate = key(ready[k]);
    if (candidate < best_key) {
      best = k;
      best_key = std::move(candidate);
    }
  }
  return best;
}

}  // namespace s2::schedule
