#include "compiler/passes/algebraic_simplify.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace s2::ir {
namespace {

using Replacement = std::optional<std::vector<TensorId>>;

bool aliases_input(const Graph& g, const Op& op) {
  for (TensorId out : op.outputs)
    for (TensorId in : op.inputs)
      if (out.valid() && in.valid() && g.tensor(out).data == g.tensor(in).data) return true;
  return false;
}

// Data nodes an op of `g` updates in place.
std::vector<bool> written_in_place(const Graph& g) {
  std::vector<bool> written(g.num_datas(), false);
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const Op& op = g.op(OpId(i));
    if (!g.writes_in_place(op)) continue;
    for (TensorId out : op.outputs)
      if (out.valid()) written[g.tensor(out).data.index()] = true;
  }
  return written;
}

// True when every element of the tensor is known at compile time and equals `value`
// (+0 and -0 both count as zero). A constant without contents is zeros.
bool constant_fill(const Graph& g, TensorId id, float value) {
  const Tensor& t = g.tensor(id);
  const Data& d = g.data(t.data);
  if (!d.constant || t.dtype != DType::F32) return false;
  if (!d.init || d.init->lazy_zeros()) return value == 0.0f;
  const std::vector<float>& v = d.init->f32();
  std::vector<int64_t> index(t.shape.size(), 0);
  for (int64_t k = 0; k < t.numel(); ++k) {
    int64_t at = t.offset;
    for (size_t a = 0; a < index.size(); ++a)
      at += index[a] * t.strides[a];
    if (!(v[static_cast<size_t>(at)] == value)) return false;
    for (size_t a = index.size(); a-- > 0;) {
      if (++index[a] < t.shape[a]) break;
      index[a] = 0;
    }
  }
  return true;
}

bool identity_perm(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

class Simplifier : public GraphRewriter {
 public:
  explicit Simplifier(const Graph& in)
      : written_(written_in_place(in)), replaced_(in.num_tensors(), false) {}
  const std::map<std::string, size_t>& applied() const { return applied_; }

 protected:
  Replacement rewrite(const Op& op, Context& ctx) override {
    const Graph& old = ctx.old_graph();
    bool input_replaced = false;
    for (TensorId t : op.inputs) {
      if (!t.valid()) continue;
      input_replaced = input_replaced || replaced_[t.index()];
      if (!replaced_[t.index()]) label(ctx, ctx.map(t), old.tensor(t).data);
    }
    Replacement r = simplify(op, ctx);
    // GraphRewriter copies a view (or in-place op) with the data of its OLD input; when that
    // input was replaced, the copy must be rebuilt on the replacement through shape inference.
    if (!r && input_replaced && aliases_input(old, op))
      r = emit(op, ctx, op.attrs, mapped(op, ctx));
    if (!r) return std::nullopt;
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      if (!op.outputs[k].valid()) continue;
      replaced_[op.outputs[k].index()] = true;
      label(ctx, (*r)[k], old.tensor(op.outputs[k]).data);
    }
    return r;
  }

 private:
  Replacement simplify(const Op& op, Context& ctx) {
    switch (op.type) {
      case OpType::Scale:
        return scale(op, ctx);
      case OpType::Reshape:
        return reshape(op, ctx);
      case OpType::Transpose:
        return transpose(op, ctx);
      case OpType::Add:
        return add(op, ctx);
      case OpType::Mul:
        return mul(op, ctx);
      case OpType::Relu:
        return relu(op, ctx);
      case OpType::Softmax:
        return softmax(op, ctx);
      case OpType::Activation:
        return activation_of_rows(op, ctx);
      case OpType::ReluBwd:
      case OpType::ActivationBwd:
        return backward_of_rows(op, ctx);
      default:
        return std::nullopt;
    }
  }

  // Attention's scores as exported, softmax(add(scale(q.k^T, 1/sqrt(d)), mask)), become one
  // softmax(q.k^T, mask) scale=1/sqrt(d): its z = scale * x + mask is what the scale and add
  // ops computed, in the same order and roundings. A constant mask that is 0 on and below the
  // diagonal and -inf above it is causal=1 with no mask; an all-zero one is no mask. Only a
  // softmax with scale 1 (and, to take an add, no mask) absorbs, so nothing rounds differently.
  Replacement softmax(const Op& op, Context& ctx) {
    TensorId x = ctx.map(op.inputs[0]);
    TensorId mask =
        op.inputs.size() > 1 && op.inputs[1].valid() ? ctx.map(op.inputs[1]) : TensorId();
    double scale = op.attrs.f("scale");
    int64_t causal = op.attrs.i("causal");
    bool changed = false;
    if (static_cast<float>(scale) == 1.0f && !mask.valid()) {
      if (const Op* add = producer(ctx, x, OpType::Add);
          add != nullptr && stable(add->inputs[0], ctx) && stable(add->inputs[1], ctx)) {
        const bool scaled_second = producer(ctx, add->inputs[1], OpType::Scale) != nullptr &&
                                   producer(ctx, add->inputs[0], OpType::Scale) == nullptr;
        x = add->inputs[scaled_second ? 1 : 0];
        mask = add->inputs[scaled_second ? 0 : 1];
        changed = true;
      }
    }
    if (static_cast<float>(scale) == 1.0f) {
      if (const Op* inner = producer(ctx, x, OpType::Scale);
          inner != nullptr && static_cast<float>(inner->attrs.f("beta")) == 0.0f &&
          stable(inner->inputs[0], ctx)) {
        scale = inner->attrs.f("alpha");
        x = inner->inputs[0];
        changed = true;
      }
    }
    if (mask.valid() && constant_fill(ctx.graph(), mask, 0.0f)) {
      mask = TensorId();
      changed = true;
    } else if (mask.valid() && is_causal_mask(ctx.graph(), mask)) {
      mask = TensorId();
      causal = 1;
      changed = true;
    }
    if (!changed) return std::nullopt;
    ++applied_["softmax(scale(x)+mask)"];
    return emit(op, ctx, Attrs{{"scale", scale}, {"causal", causal}}, {x, mask});
  }

  // A constant [..., L, L] mask that is 0 where column <= row and -inf where column > row.
  static bool is_causal_mask(const Graph& g, TensorId id) {
    const Tensor& t = g.tensor(id);
    const Data& d = g.data(t.data);
    const size_t rank = t.shape.size();
    if (!d.constant || !d.init || t.dtype != DType::F32 || rank < 2) return false;
    const std::vector<float>& v = d.init->f32();
    std::vector<int64_t> index(rank, 0);
    for (int64_t k = 0; k < t.numel(); ++k) {
      int64_t at = t.offset;
      for (size_t a = 0; a < rank; ++a)
        at += index[a] * t.strides[a];
      const float want = index[rank - 1] > index[rank - 2] ? -INFINITY : 0.0f;
      if (!(v[static_cast<size_t>(at)] == want)) return false;
      for (size_t a = rank; a-- > 0;) {
        if (++index[a] < t.shape[a]) break;
        index[a] = 0;
      }
    }
    return true;
  }

  // softmax_bwd(dy, y) scale=1 followed by scale(alpha, 0), the backward of the scores' scale:
  // one softmax_bwd with scale=alpha, which rounds once where the chain rounded twice.
  Replacement scale_of_softmax_bwd(const Op& op, Context& ctx, TensorId x, double alpha,
                                   double beta) {
    const Op* bwd = producer(ctx, x, OpType::SoftmaxBwd);
    if (bwd == nullptr || static_cast<float>(beta) != 0.0f ||
        static_cast<float>(bwd->attrs.f("scale")) != 1.0f || !stable(bwd->inputs[0], ctx) ||
        !stable(bwd->inputs[1], ctx))
      return std::nullopt;
    ++applied_["scale(softmax_bwd)"];
    return ctx.emit(OpType::SoftmaxBwd, op.name, op.category, {bwd->inputs[0], bwd->inputs[1]},
                    Attrs{{"scale", alpha}});
  }

  Replacement scale(const Op& op, Context& ctx) {
    TensorId x = ctx.map(op.inputs[0]);
    double alpha = op.attrs.f("alpha");
    double beta = op.attrs.f("beta");
    if (Replacement r = scale_of_softmax_bwd(op, ctx, x, alpha, beta)) return r;
    const Op* inner = producer(ctx, x, OpType::Scale);
    // The kernel rounds alpha and beta to f32; identity is judged the same way.
    auto identity = [&] {
      return static_cast<float>(alpha) == 1.0f && static_cast<float>(beta) == 0.0f;
    };
    if (identity() && forwardable(op, x, ctx)) return use(x, "scale(x,1,0)");
    if (inner == nullptr) return std::nullopt;
    beta = alpha * inner->attrs.f("beta") + beta;
    alpha = alpha * inner->attrs.f("alpha");
    x = inner->inputs[0];
    if (identity() && forwardable(op, x, ctx)) return use(x, "scale(scale(x))");
    ++applied_["scale(scale(x))"];
    return emit(op, ctx, Attrs{{"alpha", alpha}, {"beta", beta}}, {x});
  }

  Replacement reshape(const Op& op, Context& ctx) {
    TensorId x = ctx.map(op.inputs[0]);
    const Shape& shape = ctx.old_graph().tensor(op.outputs[0]).shape;
    auto same_view = [&](TensorId t) {
      const Tensor& v = ctx.graph().tensor(t);
      return v.shape == shape && v.contiguous();
    };
    if (same_view(x)) return use(x, "reshape(x) to its shape");
    const Op* inner = producer(ctx, x, OpType::Reshape);
    if (inner == nullptr) return std::nullopt;
    x = inner->inputs[0];
    if (same_view(x)) return use(x, "reshape(reshape(x))");
    ++applied_["reshape(reshape(x))"];
    return emit(op, ctx, op.attrs, {x});
  }

  // An activation's backward is element-wise, so it may run on the rows its dy was computed
  // as: a transformer's Linear is a gemm over the rows of [N, T, D], and its data gradient
  // reaches the activation's backward through a reshape back to [N, T, D]. Run on the gemm's
  // own [N*T, D] result, the backward becomes the gemm's gate stage (pass fuse); the result
  // is reshaped to the old output, which keeps its name. The saved operand is read through
  // the same rows (the producer's own dense tensor when it is itself a reshape of one).
  Replacement backward_of_rows(const Op& op, Context& ctx) {
    const TensorId dy = ctx.map(op.inputs[0]);
    const TensorId saved = ctx.map(op.inputs[1]);
    const TensorId rows = rows_of(dy, ctx);
    Graph& g = ctx.graph();
    if (!rows.valid() || !g.tensor(saved).contiguous() || !stable(saved, ctx)) return std::nullopt;
    const Shape rows_shape = g.tensor(rows).shape;
    TensorId saved_rows = saved;
    if (const Op* inner = producer(ctx, saved, OpType::Reshape);
        inner != nullptr && g.tensor(inner->inputs[0]).shape == rows_shape &&
        g.tensor(inner->inputs[0]).contiguous() && stable(inner->inputs[0], ctx)) {
      saved_rows = inner->inputs[0];
    } else {
      saved_rows = ctx.emit(OpType::Reshape, g.unique_name(g.tensor(saved).name + ".rows"),
                            op.category, {saved}, Attrs{{"shape", rows_shape}})[0];
    }
    return on_rows(op, ctx, {rows, saved_rows}, "activation_bwd(reshape(dy)) on the rows");
  }

  // The forward twin, for rows a gemm computed: activation(reshape(rows)) ->
  // reshape(activation(rows)), so the activation reads the gemm's own result and becomes its act
  // stage (pass fuse). The result is reshaped to the old output, which keeps its name.
  Replacement activation_of_rows(const Op& op, Context& ctx) {
    const TensorId rows = rows_of(ctx.map(op.inputs[0]), ctx);
    if (!rows.valid()) return std::nullopt;
    const OpId made_by = ctx.graph().tensor(rows).producer;
    if (!made_by.valid() || ctx.graph().op(made_by).type != OpType::Gemm) return std::nullopt;
    return on_rows(op, ctx, {rows}, "activation(reshape(x)) on the rows");
  }

  // The dense tensor t is a reshape of, when t is dense too, has another shape, and the rows
  // are never updated in place; invalid otherwise.
  TensorId rows_of(TensorId t, Context& ctx) const {
    const Op* view = producer(ctx, t, OpType::Reshape);
    if (view == nullptr) return TensorId();
    const TensorId rows = view->inputs[0];
    const Tensor& r = ctx.graph().tensor(rows);
    const Tensor& v = ctx.graph().tensor(t);
    if (!v.contiguous() || !r.contiguous() || r.shape == v.shape || !stable(rows, ctx))
      return TensorId();
    return rows;
  }

  // `op` over `inputs` (rows of its old operands), reshaped to its old output, which keeps
  // its name.
  Replacement on_rows(const Op& op, Context& ctx, const std::vector<TensorId>& inputs,
                      const char* rule) {
    Graph& g = ctx.graph();
    const Tensor& out = ctx.old_graph().tensor(op.outputs[0]);
    const std::string name = out.name;
    const Shape out_shape = out.shape;
    const TensorId result =
        ctx.emit(op.type, g.unique_name(name + ".rows"), op.category, inputs, op.attrs)[0];
    ++applied_[rule];
    return ctx.emit(OpType::Reshape, name, op.category, {result}, Attrs{{"shape", out_shape}});
  }

  Replacement transpose(const Op& op, Context& ctx) {
    const TensorId x = ctx.map(op.inputs[0]);
    const std::vector<int64_t>& perm = op.attrs.ints("perm");
    if (identity_perm(perm)) return use(x, "transpose(x) identity");
    const Op* inner = producer(ctx, x, OpType::Transpose);
    if (inner == nullptr) return std::nullopt;
    // Output axis i of the outer is axis perm[i] of the inner's output, which is axis
    // inner_perm[perm[i]] of x.
    const std::vector<int64_t>& inner_perm = inner->attrs.ints("perm");
    std::vector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner_perm.at(static_cast<size_t>(p)));
    if (identity_perm(composed)) return use(inner->inputs[0], "transpose(transpose(x))");
    ++applied_["transpose(transpose(x))"];
    return emit(op, ctx, Attrs{{"perm", composed}}, {inner->inputs[0]});
  }

  Replacement add(const Op& op, Context& ctx) {
    const TensorId a = ctx.map(op.inputs[0]);
    const TensorId b = ctx.map(op.inputs[1]);
    if (constant_fill(ctx.graph(), b, 0.0f) && forwardable(op, a, ctx)) return use(a, "add(x,0)");
    if (constant_fill(ctx.graph(), a, 0.0f) && forwardable(op, b, ctx)) return use(b, "add(x,0)");
    return add_of_concats(op, ctx, a, b);
  }

  // add(concat(a1..ak), concat(b1..bm)) along the same axis, where wherever one side has a
  // part the other side is zeros over all of it or has a part of the same extent: the concat of
  // the parts (added where both sides have one), with zero constants where both are zero. This
  // is how the gradients of slices that split a tensor (ShuffleNet's chunk, GPT-2's q/k/v split
  // of one projection: each slice's gradient is its dy between zeros) sum to one concat of the
  // dys, with no add and no zeros left; the two sides' zero runs need not line up.
  Replacement add_of_concats(const Op& op, Context& ctx, TensorId a, TensorId b) {
    const Op* ca = producer(ctx, a, OpType::Concat);
    const Op* cb = producer(ctx, b, OpType::Concat);
    if (ca == nullptr || cb == nullptr) return std::nullopt;
    Graph& g = ctx.graph();
    const size_t rank = g.tensor(a).shape.size();
    auto axis_of = [&](const Op& c) {
      const int64_t axis = c.attrs.i("axis");
      return axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
    };
    if (axis_of(*ca) != axis_of(*cb)) return std::nullopt;
    const auto axis = static_cast<size_t>(axis_of(*ca));
    // Each side as runs along the axis: [start, end) and whether the part is zeros.
    struct Run {
      TensorId part;
      int64_t start, end;
      bool zero;
    };
    auto runs_of = [&](const Op& c) {
      std::vector<Run> runs;
      int64_t at = 0;
      for (TensorId part : c.inputs) {
        const int64_t size = g.tensor(part).shape[axis];
        runs.push_back({part, at, at + size, constant_fill(g, part, 0.0f)});
        at += size;
      }
      return runs;
    };
    const std::vector<Run> ra = runs_of(*ca), rb = runs_of(*cb);  // emit() may move the ops
    bool zero_side = false;
    for (const std::vector<Run>* side : {&ra, &rb})
      for (const Run& r : *side)
        zero_side = zero_side || r.zero;
    if (!zero_side) return std::nullopt;  // nothing saved: keep the one add
    // Walk both sides; each step covers [at, next) with one output part.
    struct Piece {
      int64_t end;
      std::optional<TensorId> from_a, from_b;  // the part taken whole from a side, if any
    };
    std::vector<Piece> pieces;
    size_t i = 0, j = 0;
    int64_t at = 0;
    const int64_t total = ra.back().end;
    while (at < total) {
      while (ra[i].end <= at)
        ++i;
      while (rb[j].end <= at)
        ++j;
      const Run &x = ra[i], &y = rb[j];
      if (x.zero && y.zero) {
        pieces.push_back({std::min(x.end, y.end), std::nullopt, std::nullopt});
      } else if (!x.zero && !y.zero) {
        if (x.start != at || y.start != at || x.end != y.end) return std::nullopt;
        pieces.push_back({x.end, x.part, y.part});
      } else {
        const Run& part = x.zero ? y : x;
        const Run& zeros = x.zero ? x : y;
        if (part.start != at || zeros.end < part.end) return std::nullopt;
        pieces.push_back({part.end, x.zero ? std::nullopt : std::optional<TensorId>(x.part),
                          y.zero ? std::nullopt : std::optional<TensorId>(y.part)});
      }
      at = pieces.back().end;
    }
    std::vector<TensorId> parts;
    int64_t from = 0;
    for (size_t k = 0; k < pieces.size(); ++k) {
      const Piece& piece = pieces[k];
      if (piece.from_a && piece.from_b) {
        parts.push_back(ctx.emit(OpType::Add, g.unique_name(op.name + ".part" + std::to_string(k)),
                                 op.category, {*piece.from_a, *piece.from_b})[0]);
      } else if (piece.from_a || piece.from_b) {
        parts.push_back(piece.from_a ? *piece.from_a : *piece.from_b);
      } else {
        Shape shape = g.tensor(a).shape;
        shape[axis] = piece.end - from;
        auto zeros =
            std::make_shared<const HostArray>(DType::F32, static_cast<size_t>(shape_numel(shape)));
        parts.push_back(g.add_parameter(g.unique_name(op.name + ".zeros" + std::to_string(k)),
                                        TensorRole::Scratch, DType::F32, shape, zeros, true));
      }
      from = piece.end;
    }
    if (parts.size() == 1) return std::nullopt;  // one side all zeros: add(x,0)'s business
    ++applied_["add(concat,concat)"];
    return ctx.emit(OpType::Concat, op.name, op.category, parts,
                    Attrs{{"axis", static_cast<int64_t>(axis)}});
  }

  Replacement mul(const Op& op, Context& ctx) {
    const TensorId a = ctx.map(op.inputs[0]);
    const TensorId b = ctx.map(op.inputs[1]);
    Graph& g = ctx.graph();
    if (constant_fill(g, b, 1.0f) && forwardable(op, a, ctx)) return use(a, "mul(x,1)");
    if (constant_fill(g, a, 1.0f) && forwardable(op, b, ctx)) return use(b, "mul(x,1)");
    if (!constant_fill(g, a, 0.0f) && !constant_fill(g, b, 0.0f)) return std::nullopt;
    ++applied_["mul(x,0)"];
    const Tensor& y = ctx.old_graph().tensor(op.outputs[0]);
    auto zeros = std::make_shared<const HostArray>(DType::F32, static_cast<size_t>(y.numel()));
    return std::vector<TensorId>{g.add_parameter(g.unique_name(y.name), TensorRole::Scratch,
                                                 DType::F32, y.shape, zeros, true)};
  }

  Replacement relu(const Op& op, Context& ctx) {
    const TensorId x = ctx.map(op.inputs[0]);
    if (producer(ctx, x, OpType::Relu) == nullptr || !forwardable(op, x, ctx)) return std::nullopt;
    return use(x, "relu(relu(x))");
  }

  // The op of the new graph producing `t`, when it has type `type`.
  static const Op* producer(Context& ctx, TensorId t, OpType type) {
    const OpId p = ctx.graph().tensor(t).producer;
    if (!p.valid() || ctx.graph().op(p).type != type) return nullptr;
    return &ctx.graph().op(p);
  }

  // Whether the consumers of the op's (dense, fresh) output may read `x` instead.
  bool forwardable(const Op& op, TensorId x, Context& ctx) const {
    const Tensor& t = ctx.graph().tensor(x);
    if (!t.contiguous() || written_[ctx.old_graph().tensor(op.outputs[0]).data.index()])
      return false;
    const auto old = labels_.find(t.data.value);
    return old == labels_.end() || !written_[old->second.index()];
  }

  // Whether a new-graph tensor's data is never updated in place, so reading it later in the
  // program reads the same values.
  bool stable(TensorId t, Context& ctx) const {
    const auto old = labels_.find(ctx.graph().tensor(t).data.value);
    return old == labels_.end() || !written_[old->second.index()];
  }

  Replacement use(TensorId x, const char* rule) {
    ++applied_[rule];
    return std::vector<TensorId>{x};
  }

  static std::vector<TensorId> mapped(const Op& op, const Context& ctx) {
    std::vector<TensorId> inputs;
    for (TensorId t : op.inputs)
      inputs.push_back(ctx.map(t));
    return inputs;
  }

  static std::vector<TensorId> emit(const Op& op, Context& ctx, const Attrs& attrs,
                                    const std::vector<TensorId>& inputs) {
    return ctx.emit(op.type, op.name, op.category, inputs, attrs);
  }

  // Remembers which data node of the old graph a data node of the new graph stands for, so
  // in-place updates found in the old graph can be traced to the new one.
  void label(Context& ctx, TensorId new_tensor, DataId old_data) {
    if (new_tensor.valid()) labels_.emplace(ctx.graph().tensor(new_tensor).data.value, old_data);
  }

  std::vector<bool> written_;                    // old data nodes updated in place
  std::vector<bool> replaced_;                   // old tensors no longer copied as-is
  std::unordered_map<uint32_t, DataId> labels_;  // new data id -> old data node
  std::map<std::string, size_t> applied_;
};

}  // namespace

PassResult algebraic_simplify(const Graph& in) {
  Simplifier simplifier(in);
  PassResult result = simplifier.run(in);
  if (simplifier.applied().empty()) return PassResult{in, false, "no identity applies"};
  // Two outputs of the step may now be one tensor; list it once.
  std::vector<TensorId> outputs;
  for (TensorId t : result.graph.outputs())
    if (std::find(outputs.begin(), outputs.end(), t) == outputs.end()) outputs.push_back(t);
  result.graph.set_outputs(std::move(outputs));
  result.summary = "applied";
  for (const auto& [rule, n] : simplifier.applied())
    result.summary += " " + rule + " x" + std::to_string(n) + ",";
  result.summary.pop_back();
  return result;
}

}  // namespace s2::ir
