#include "compiler/passes/copy_elision.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ops/registry.h"
#include "compiler/passes/dce.h"
#include "isa/encoding/isa_table.h"

namespace s2::ir {
namespace {

class Elider {
 public:
  explicit Elider(const Graph& g) : g_(g), consumers_(g.consumers()) {}

  int run() {
    int elided = 0;
    for (size_t i = 0; i < g_.num_ops(); ++i)
      if (try_elide(OpId(i))) ++elided;
    return elided;
  }

  // Bytes the elided copies would have read and written.
  uint64_t bytes() const { return bytes_; }

  Graph take() { return std::move(g_); }

 private:
  // A copy: `copy`, or the `scale` by 1 plus 0 that densifies a gradient for a reshape.
  bool is_copy(const Op& op) const {
    if (op.type == OpType::Copy) return true;
    return op.type == OpType::Scale && op.attrs.f("alpha") == 1.0 && op.attrs.f("beta") == 0.0;
  }

  bool is_step_output(TensorId t) const {
    for (TensorId o : g_.outputs())
      if (g_.tensor(o).data == g_.tensor(t).data) return true;
    return g_.loss().valid() && g_.tensor(g_.loss()).data == g_.tensor(t).data;
  }

  size_t tensors_on(DataId d) const {
    size_t n = 0;
    for (size_t t = 0; t < g_.num_tensors(); ++t)
      n += g_.tensor(TensorId(t)).data == d ? 1u : 0u;
    return n;
  }

  std::optional<OpId> sole_consumer(TensorId t) const {
    const std::vector<OpId>& users = consumers_[t.index()];
    if (users.size() != 1) return std::nullopt;
    return users[0];
  }

  bool try_elide(OpId copy_id) {
    const Op& copy = g_.op(copy_id);
    if (!is_copy(copy) || !copy.inputs.at(0).valid()) return false;
    const TensorId x = copy.inputs[0], o = copy.outputs.at(0);
    const Tensor& xt = g_.tensor(x);
    if (!xt.producer.valid() || g_.op(xt.producer).type != OpType::Transpose) return false;
    if (sole_consumer(x) != copy_id || is_step_output(o) || is_step_output(x)) return false;
    const Op& transpose = g_.op(xt.producer);
    const TensorId y = transpose.inputs.at(0);
    const Tensor& yt = g_.tensor(y);
    if (!yt.producer.valid() || sole_consumer(y) != xt.producer || is_step_output(y)) return false;
    const Op& producer = g_.op(yt.producer);
    const FusionClass fusion = op_schema(producer.type).fusion;
    if (fusion == FusionClass::View || producer.type == OpType::Concat) return false;
    if (g_.overwrites_input(producer, y)) return false;
    // y must own its buffer whole: dense, from offset 0, the only tensor on it besides x.
    const Data& yd = g_.data(yt.data);
    if (!yt.contiguous() || yt.offset != 0 || yt.numel() != yd.numel || tensors_on(yt.data) != 2)
      return false;
    // The producer must not read the buffer it is about to write.
    const DataId target = g_.tensor(o).data;
    for (TensorId in : producer.inputs)
      if (in.valid() && g_.tensor(in).data == target) return false;
    const Tensor ot = g_.tensor(o);  // a copy: the tensors move below
    bytes_ += 2 * static_cast<uint64_t>(ot.numel()) * isa::dtype_bytes(ot.dtype);
    const std::vector<int64_t>& perm = transpose.attrs.ints("perm");
    Tensor& ny = g_.mutable_tensor(y);
    Shape strides(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      strides[static_cast<size_t>(perm[i])] = ot.strides[i];
    ny.data = ot.data;
    ny.strides = strides;
    ny.offset = ot.offset;
    Tensor& nx = g_.mutable_tensor(x);
    nx.data = ot.data;
    nx.strides = ot.strides;
    nx.offset = ot.offset;
    for (size_t i = 0; i < g_.num_ops(); ++i) {
      Op& reader = g_.mutable_op(OpId(i));
      for (TensorId& in : reader.inputs)
        if (in == o) in = x;
    }
    consumers_ = g_.consumers();
    return true;
  }

  Graph g_;
  std::vector<std::vector<OpId>> consumers_;
  uint64_t bytes_ = 0;
};

}  // namespace

PassResult elide_copies(const Graph& graph) {
  Elider elider(graph);
  const int elided = elider.run();
  if (elided == 0) return PassResult{graph, false, kNoCopyElided};
  // The copies, and the buffers their sources had, are dead now.
  PassResult dead = dead_code_elimination(elider.take());
  return PassResult{std::move(dead.graph), true,
                    std::to_string(elided) + " copies of transposed outputs written in place (" +
                        std::to_string(elider.bytes()) + " bytes of DRAM traffic less)"};
}

}  // namespace s2::ir
