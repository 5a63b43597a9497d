#include "compiler/passes/in_place.h"

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/passes/buffer_queries.h"
#include "compiler/passes/dce.h"
#include "isa/encoding/isa_table.h"

namespace s2::ir {
namespace {

class InPlace {
 public:
  explicit InPlace(const Graph& g) : g_(g), consumers_(g.consumers()) {}

  int run() {
    int made = 0;
    for (size_t i = 0; i < g_.num_ops(); ++i)
      if (try_in_place(OpId(i))) ++made;
    return made;
  }

  uint64_t bytes() const { return bytes_; }
  Graph take() { return std::move(g_); }

 private:
  // The ops that depend on `root`, through data edges (views included).
  std::vector<bool> descendants(OpId root) const {
    std::vector<bool> seen(g_.num_ops(), false);
    std::vector<OpId> work{root};
    while (!work.empty()) {
      const OpId op = work.back();
      work.pop_back();
      for (TensorId out : g_.op(op).outputs) {
        if (!out.valid()) continue;
        for (OpId user : consumers_[out.index()])
          if (!seen[user.index()]) {
            seen[user.index()] = true;
            work.push_back(user);
          }
      }
    }
    return seen;
  }

  // Whether an op that depends on `w` reads or writes a tensor on data `d`.
  bool touched_after(OpId w, DataId d) const {
    const std::vector<bool> after = descendants(w);
    for (size_t i = 0; i < g_.num_ops(); ++i) {
      if (!after[i]) continue;
      const Op& op = g_.op(OpId(i));
      for (const std::vector<TensorId>* list : {&op.inputs, &op.outputs})
        for (TensorId t : *list)
          if (t.valid() && g_.tensor(t).data == d) return true;
    }
    return false;
  }

  bool try_in_place(OpId id) {
    const Op& op = g_.op(id);
    if (op.type != OpType::SoftmaxCeBwd || op.attrs.i("in_place") != 0) return false;
    const Tensor x = g_.tensor(op.inputs.at(0));
    const TensorId y = op.outputs.at(0);
    const Tensor& yt = g_.tensor(y);
    const Data& xd = g_.data(x.data);
    if (xd.role != TensorRole::Activation || xd.constant || xd.init) return false;
    if (!owns_buffer(g_, x) || !owns_buffer(g_, yt) || x.dtype != yt.dtype || x.shape != yt.shape)
      return false;
    if (holds_step_output(g_, x.data) || holds_step_output(g_, yt.data)) return false;
    if (touched_after(id, x.data)) return false;
    const DataId old = yt.data;
    bytes_ += static_cast<uint64_t>(x.numel()) * isa::dtype_bytes(x.dtype);
    // dlogits and its views keep their strides and offsets: both buffers are dense and of the
    // same shape.
    for (size_t t = 0; t < g_.num_tensors(); ++t) {
      Tensor& nt = g_.mutable_tensor(TensorId(t));
      if (nt.data == old) nt.data = x.data;
    }
    g_.mutable_op(id).attrs.set("in_place", int64_t{1});
    return true;
  }

  Graph g_;
  std::vector<std::vector<OpId>> consumers_;
  uint64_t bytes_ = 0;
};

}  // namespace

PassResult write_in_place(const Graph& graph) {
  InPlace pass(graph);
  const int made = pass.run();
  if (made == 0) return PassResult{graph, false, kNothingInPlace};
  // The outputs' own buffers are unused now.
  PassResult dead = dead_code_elimination(pass.take());
  return PassResult{std::move(dead.graph), true,
                    std::to_string(made) + (made == 1 ? " loss gradient" : " loss gradients") +
                        " written over the logits (" + std::to_string(pass.bytes()) +
                        " bytes fewer to place)"};
}

}  // namespace s2::ir
