#include "compiler/passes/copy_elision.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ops/registry.h"
#include "compiler/passes/buffer_queries.h"
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

  int relayout_all() {
    int moved = 0;
    for (size_t i = 0; i < g_.num_ops(); ++i)
      if (try_relayout(OpId(i))) ++moved;
    return moved;
  }

  Graph take() { return std::move(g_); }

 private:
  // A copy: `copy`, or the `scale` by 1 plus 0 that densifies a gradient for a reshape.
  bool is_copy(const Op& op) const {
    if (op.type == OpType::Copy) return true;
    return op.type == OpType::Scale && op.attrs.f("alpha") == 1.0 && op.attrs.f("beta") == 0.0;
  }

  bool is_step_output(TensorId t) const { return holds_step_output(g_, g_.tensor(t).data); }

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

  // Whether `view` reads t, and every other reader of t is a computing op reading t itself
  // (through t's descriptor, which follows t's new layout), not a view over it and not an
  // in-place writer: fused attention's backward reads the forward output y beside the head
  // merge's transpose.
  bool only_direct_readers_besides(TensorId t, OpId view) const {
    bool seen = false;
    for (OpId u : consumers_[t.index()]) {
      if (u == view) {
        seen = true;
        continue;
      }
      const Op& op = g_.op(u);
      if (op_schema(op.type).fusion == FusionClass::View || g_.writes_in_place(op)) return false;
    }
    return seen;
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
    if (!yt.producer.valid() || !only_direct_readers_besides(y, xt.producer) || is_step_output(y))
      return false;
    const Op& producer = g_.op(yt.producer);
    const FusionClass fusion = op_schema(producer.type).fusion;
    if (fusion == FusionClass::View || producer.type == OpType::Concat) return false;
    if (g_.overwrites_input(producer, y)) return false;
    // y must own its buffer whole: dense, from offset 0, the only tensor on it besides x.
    if (!owns_buffer(g_, yt) || tensors_on(yt.data) != 2) return false;
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

  // The strides and offset of tensor t over a buffer whose element order changes from x's
  // old layout (x a permutation of the dense layout: old_strides) to x dense (new_strides):
  // each dimension of t must step inside one dimension of x, and t's extent along it stay
  // inside that dimension.
  static std::optional<std::pair<Shape, int64_t>> remap(const Tensor& t, const Shape& x_shape,
                                                        const Shape& old_strides,
                                                        const Shape& new_strides) {
    const size_t r = x_shape.size();
    // x's dimensions from the outermost in the old layout.
    std::vector<size_t> order(r);
    for (size_t k = 0; k < r; ++k)
      order[k] = k;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return old_strides[a] > old_strides[b]; });
    std::vector<int64_t> reach(r, 0);  // the highest index t reaches along each x dimension
    int64_t rem = t.offset, offset = 0;
    for (size_t k : order) {
      reach[k] = rem / old_strides[k];
      rem %= old_strides[k];
      offset += reach[k] * new_strides[k];
    }
    // A size-1 dimension's stride never matters; the whole span keeps it clearly apart.
    Shape strides(t.shape.size(), shape_numel(x_shape));
    for (size_t m = 0; m < t.shape.size(); ++m) {
      if (t.shape[m] == 1) continue;
      if (t.strides[m] == 0) {
        strides[m] = 0;
        continue;
      }
      std::optional<size_t> dim;
      for (size_t k : order)
        if (x_shape[k] > 1 && t.strides[m] >= old_strides[k] &&
            t.strides[m] % old_strides[k] == 0 && t.strides[m] / old_strides[k] < x_shape[k]) {
          dim = k;
          break;
        }
      if (!dim) return std::nullopt;
      const int64_t c = t.strides[m] / old_strides[*dim];
      strides[m] = c * new_strides[*dim];
      reach[*dim] += c * (t.shape[m] - 1);
    }
    for (size_t k = 0; k < r; ++k)
      if (reach[k] >= x_shape[k]) return std::nullopt;
    return std::make_pair(strides, offset);
  }

  // A buffer written by a PE op and read by computing ops only through one transposed view
  // (ViT's patch embedding: conv2d's [N,C,H,W] read as [N,H*W,C] tokens): the PE op writes the
  // tokens' order, so every reader streams dense rows where it read one element per burst.
  bool try_relayout(OpId producer_id) {
    const Op& producer = g_.op(producer_id);
    // One result: with pre (keep_pre) the activation's input would keep the old layout.
    if (op_schema(producer.type).fusion != FusionClass::Pe || !single_result(producer.outputs))
      return false;
    const TensorId y = producer.outputs[0];
    const Tensor& yt = g_.tensor(y);
    const Data& yd = g_.data(yt.data);
    if (!owns_buffer(g_, yt) || is_step_output(y) || g_.overwrites_input(producer, y)) return false;
    if (yd.role != TensorRole::Activation && yd.role != TensorRole::Gradient) return false;
    // The tensors over the buffer, and the computing ops that read them.
    std::vector<TensorId> over;
    for (size_t t = 0; t < g_.num_tensors(); ++t)
      if (g_.tensor(TensorId(t)).data == yt.data) over.push_back(TensorId(t));
    std::optional<TensorId> target;
    for (TensorId t : over) {
      if (is_step_output(t)) return false;
      for (OpId reader : consumers_[t.index()]) {
        if (op_schema(g_.op(reader).type).fusion == FusionClass::View) continue;
        const Tensor& rt = g_.tensor(t);
        if (rt.contiguous()) return false;  // someone reads the present order densely
        if (rt.numel() != yd.numel || rt.offset != 0 || !rt.producer.valid() ||
            g_.op(rt.producer).type != OpType::Transpose)
          return false;
        if (target && *target != t &&
            (g_.tensor(*target).shape != rt.shape || g_.tensor(*target).strides != rt.strides))
          return false;
        target = t;
      }
    }
    if (!target) return false;
    const Tensor x = g_.tensor(*target);
    // x must be a permutation of the dense layout.
    std::vector<size_t> order(x.shape.size());
    for (size_t k = 0; k < order.size(); ++k)
      order[k] = k;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return x.strides[a] > x.strides[b]; });
    int64_t expect = 1;
    for (size_t i = order.size(); i-- > 0;) {
      const size_t k = order[i];
      if (x.shape[k] != 1 && x.strides[k] != expect) return false;
      expect *= x.shape[k];
    }
    const Shape dense = contiguous_strides(x.shape);
    for (TensorId t : over)
      if (!remap(g_.tensor(t), x.shape, x.strides, dense)) return false;
    // The producer's output takes the new order; every view over the buffer is then derived
    // again, in program order, by its own shape inference (as the verifier derives it).
    const auto [strides, offset] = *remap(yt, x.shape, x.strides, dense);
    Tensor& ny = g_.mutable_tensor(y);
    ny.strides = strides;
    ny.offset = offset;
    for (size_t i = 0; i < g_.num_ops(); ++i) {
      const Op& op = g_.op(OpId(i));
      if (op_schema(op.type).fusion != FusionClass::View || op.type == OpType::Concat) continue;
      if (op.inputs.empty() || !op.inputs[0].valid() || g_.tensor(op.inputs[0]).data != yt.data)
        continue;
      const std::vector<OutputSpec> specs = op_schema(op.type).infer(InferContext(g_, op));
      Tensor& v = g_.mutable_tensor(op.outputs.at(0));
      v.strides = specs.at(0).strides;
      v.offset = specs.at(0).offset;
    }
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
  const int relaid = elider.relayout_all();
  if (elided == 0 && relaid == 0) return PassResult{graph, false, kNoCopyElided};
  if (elided == 0)
    return PassResult{elider.take(), true,
                      std::to_string(relaid) + " PE outputs written in the order they are read"};
  // The copies, and the buffers their sources had, are dead now.
  PassResult dead = dead_code_elimination(elider.take());
  return PassResult{std::move(dead.graph), true,
                    std::to_string(elided) + " copies of transposed outputs written in place (" +
                        std::to_string(elider.bytes()) + " bytes of DRAM traffic less); " +
                        std::to_string(relaid) + " PE outputs written in the order they are read"};
}

}  // namespace s2::ir
