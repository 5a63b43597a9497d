#include "compiler/ir/subgraph.h"

#include <string>

#include "isa/common/errors.h"

namespace s2::ir {
namespace {

template <typename IdT>
std::vector<IdT> renumber(const std::vector<bool>& keep) {
  std::vector<IdT> map(keep.size());
  uint32_t next = 0;
  for (size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) map[i] = IdT(next++);
  return map;
}

}  // namespace

Graph copy_selected(const Graph& in, const Selection& keep, const char* who) {
  const std::vector<DataId> data_map = renumber<DataId>(keep.data);
  const std::vector<TensorId> tensor_map = renumber<TensorId>(keep.tensor);
  const std::vector<OpId> op_map = renumber<OpId>(keep.op);
  auto map_tensor = [&](TensorId t) {
    if (!t.valid()) return TensorId();
    S2_CHECK(keep.tensor[t.index()],
             std::string(who) + ": a kept node refers to the removed '%" + in.tensor(t).name + "'");
    return tensor_map[t.index()];
  };
  Graph out(in.name());
  for (size_t d = 0; d < in.num_datas(); ++d)
    if (keep.data[d]) out.add_data(in.data(DataId(d)));
  // Tensors before ops: add_op_node needs its outputs to exist, so producers are renumbered
  // ahead.
  for (size_t t = 0; t < in.num_tensors(); ++t) {
    if (!keep.tensor[t]) continue;
    Tensor copy = in.tensor(TensorId(t));
    S2_CHECK(keep.data[copy.data.index()],
             std::string(who) + ": kept tensor '%" + copy.name + "' lost its data node");
    copy.data = data_map[copy.data.index()];
    if (copy.producer.valid()) {
      const size_t p = keep.producer.empty() ? copy.producer.index()
                                             : keep.producer[copy.producer.index()].index();
      S2_CHECK(keep.op[p],
               std::string(who) + ": kept tensor '%" + copy.name + "' has a removed producer");
      copy.producer = op_map[p];
    }
    out.add_tensor(std::move(copy));
  }
  for (size_t i = 0; i < in.num_ops(); ++i) {
    if (!keep.op[i]) continue;
    Op copy =
        !keep.replacement.empty() && keep.replacement[i] ? *keep.replacement[i] : in.op(OpId(i));
    for (TensorId& t : copy.inputs)
      t = map_tensor(t);
    for (TensorId& t : copy.outputs)
      t = map_tensor(t);
    out.add_op_node(std::move(copy));
  }
  for (TensorId t : in.outputs())
    out.mark_output(map_tensor(t));
  out.set_loss(map_tensor(in.loss()));
  return out;
}

}  // namespace s2::ir
