#include "compiler/passes/concat_placement.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ops/concat.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

class Placer {
 public:
  explicit Placer(Graph g) : g_(std::move(g)) {}

  Graph run(ConcatPlacement* stats) {
    const std::vector<OpId> order = g_.topo_order();
    for (size_t s = order.size(); s-- > 0;) {
      if (g_.op(order[s]).type != OpType::Concat) continue;
      ++stats->concats;
      place(order[s], stats);
    }
    return std::move(g_);
  }

 private:
  std::vector<TensorId> tensors_over(DataId d) const {
    std::vector<TensorId> found;
    for (size_t t = 0; t < g_.num_tensors(); ++t)
      if (g_.tensor(TensorId(t)).data == d) found.push_back(TensorId(t));
    return found;
  }

  bool is_step_output(DataId d) const {
    std::vector<TensorId> held = g_.outputs();
    if (g_.loss().valid()) held.push_back(g_.loss());
    for (TensorId t : held)
      if (g_.tensor(t).data == d) return true;
    return false;
  }

  // Whether the data node under `t` may move: a buffer of the step (not a parameter, constant
  // or output) whose every tensor is a full dense layout of it, written by a computing op or a
  // concat, or a reshape view of such a layout that the destination `to` (when given) can view
  // too (the attention head merge [N,T,H,dh] -> [N,T,D] moving into a slice of [N,T,3D]).
  bool movable(TensorId id, const std::optional<Tensor>& to = std::nullopt) const {
    const Tensor& t = g_.tensor(id);
    const Data& d = g_.data(t.data);
    if (d.constant || d.init != nullptr || d.numel != t.numel() || is_step_output(t.data))
      return false;
    switch (d.role) {
      case TensorRole::Activation:
      case TensorRole::Gradient:
      case TensorRole::WeightGradient:
      case TensorRole::Scratch:
        break;
      default:
        return false;
    }
    for (TensorId other : tensors_over(t.data)) {
      const Tensor& o = g_.tensor(other);
      if (o.numel() != d.numel || o.offset != 0 || !o.contiguous()) return false;
      if (!o.producer.valid()) return false;
      const OpType writer = g_.op(o.producer).type;
      if (op_schema(writer).fusion == FusionClass::View && writer != OpType::Concat &&
          writer != OpType::Reshape)
        return false;
      if (o.shape != t.shape && (!to || !view_strides(to->shape, to->strides, o.shape)))
        return false;
    }
    return true;
  }

  // Every tensor over `from` becomes a view of to's data node: `to` itself for those of its
  // shape, the view of `to` with their shape for the reshapes movable() admitted.
  void move(DataId from, const Tensor& to) {
    for (TensorId id : tensors_over(from)) {
      Tensor& t = g_.mutable_tensor(id);
      t.data = to.data;
      t.strides = t.shape == to.shape ? to.strides : *view_strides(to.shape, to.strides, t.shape);
      t.offset = to.offset;
    }
  }

  // The inputs, if they already sit side by side in order in one data node: their union.
  std::optional<Tensor> adjacent_union(const Op& op) const {
    const Tensor& first = g_.tensor(op.inputs[0]);
    const size_t rank = first.shape.size();
    const int64_t axis_attr = op.attrs.i("axis");
    const size_t a =
        static_cast<size_t>(axis_attr < 0 ? axis_attr + static_cast<int64_t>(rank) : axis_attr);
    Tensor u = first;
    int64_t at = first.offset;
    for (TensorId id : op.inputs) {
      const Tensor& t = g_.tensor(id);
      if (t.data != first.data || t.strides != first.strides || t.offset != at) return std::nullopt;
      at += t.shape[a] * t.strides[a];
      if (id != op.inputs[0]) u.shape[a] += t.shape[a];
    }
    if (first.data == g_.tensor(op.outputs[0]).data) return std::nullopt;  // placed already
    return u;
  }

  void place(OpId id, ConcatPlacement* stats) {
    const Op op = g_.op(id);  // a copy: adding copies may move the op storage
    const TensorId y = op.outputs[0];
    if (movable(y)) {
      if (const std::optional<Tensor> u = adjacent_union(op)) {
        move(g_.tensor(y).data, *u);
        ++stats->views;
        return;
      }
    }
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const TensorId x = g_.op(id).inputs[i];
      const Tensor slot = concat_slot(g_, g_.op(id), i);
      if (same_layout(g_.tensor(x), slot)) continue;
      if (movable(x, slot)) {
        move(g_.tensor(x).data, slot);
        ++stats->placed;
        continue;
      }
      const std::string name = g_.unique_name(op.name + ".copy" + std::to_string(i));
      const TensorId c = g_.add(OpType::Copy, name, op.category, {x});
      move(g_.tensor(c).data, slot);
      g_.mutable_op(id).inputs[i] = c;
      ++stats->copies;
      stats->copied_bytes +=
          g_.tensor(c).numel() * static_cast<int64_t>(isa::dtype_bytes(g_.tensor(c).dtype));
    }
    S2_CHECK(concat_is_placed(g_, g_.op(id)),
             "place-concat: concat '" + op.name + "' is not placed after placing it");
  }

  Graph g_;
};

}  // namespace

PassResult place_concats(const Graph& graph, ConcatPlacement* stats) {
  ConcatPlacement local;
  ConcatPlacement* s = stats != nullptr ? stats : &local;
  *s = ConcatPlacement{};
  bool any = false;
  for (size_t i = 0; i < graph.num_ops() && !any; ++i)
    any = graph.op(OpId(i)).type == OpType::Concat;
  if (!any) return PassResult{graph, false, "no concat"};
  Graph placed = Placer(graph).run(s);
  const bool changed = s->placed + s->views + s->copies > 0;
  std::string summary = std::to_string(s->concats) + " concats: " + std::to_string(s->placed) +
                        " inputs written in place, " + std::to_string(s->views) +
                        " views of a larger concat, " + std::to_string(s->copies) + " copies (" +
                        std::to_string(s->copied_bytes) + " bytes)";
  if (!changed) return PassResult{graph, false, summary};
  return PassResult{std::move(placed), true, summary};
}

}  // namespace s2::ir
