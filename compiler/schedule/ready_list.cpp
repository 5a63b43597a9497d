#include "compiler/schedule/ready_list.h"

#include <string>
#include <utility>

#include "isa/common/errors.h"

namespace s2::schedule {

ReadyList::ReadyList(const ir::Graph& graph)
    : graph_(graph),
      pred_(graph.predecessors()),
      succ_(graph.num_ops()),
      topo_index_(graph.num_ops()),
      waiting_(graph.num_ops()),
      taken_(graph.num_ops(), false) {
  const std::vector<ir::OpId> topo = graph.topo_order();  // InternalError on a cycle
  for (size_t i = 0; i < topo.size(); ++i)
    topo_index_[topo[i].index()] = i;
  for (size_t i = 0; i < graph.num_ops(); ++i) {
    waiting_[i] = pred_[i].size();
    for (ir::OpId p : pred_[i])
      succ_[p.index()].push_back(ir::OpId(i));
    if (waiting_[i] == 0) ready_.push_back(ir::OpId(i));
  }
  order_.reserve(graph.num_ops());
}

void ReadyList::take(size_t k) {
  S2_CHECK(k < ready_.size(), "ReadyList: graph '" + graph_.name() + "': ready index " +
                                  std::to_string(k) + " out of range");
  const ir::OpId op = ready_[k];
  ready_.erase(ready_.begin() + static_cast<std::ptrdiff_t>(k));
  taken_[op.index()] = true;
  order_.push_back(op);
  for (ir::OpId s : succ_[op.index()])
    if (--waiting_[s.index()] == 0) ready_.push_back(s);
}

std::vector<ir::OpId> ReadyList::finish() {
  S2_CHECK(done(), "ReadyList: graph '" + graph_.name() + "': only " +
                       std::to_string(order_.size()) + " of " + std::to_string(graph_.num_ops()) +
                       " ops were scheduled");
  return std::move(order_);
}

}  // namespace s2::schedule
