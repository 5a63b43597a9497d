#include "compiler/interp/interpreter.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "compiler/interp/kernel.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"
#include "isa/numerics/fp32.h"
#include "isa/numerics/low_precision.h"

namespace s2::ir {
namespace {

// Calls fn(flat element index of the view, row-major position) for every element.
template <typename Fn>
void for_each_element(const Tensor& t, Fn fn) {
  const size_t rank = t.shape.size();
  const int64_t n = t.numel();
  std::vector<int64_t> index(rank, 0);
  int64_t at = t.offset;
  for (int64_t k = 0; k < n; ++k) {
    fn(at, k);
    for (size_t d = rank; d-- > 0;) {
      at += t.strides[d];
      if (++index[d] < t.shape[d]) break;
      at -= t.strides[d] * t.shape[d];
      index[d] = 0;
    }
  }
}

template <typename T>
std::vector<T> gather(const Tensor& t, const std::vector<T>& storage) {
  std::vector<T> out(static_cast<size_t>(t.numel()));
  for_each_element(t, [&](int64_t at, int64_t k) {
    out[static_cast<size_t>(k)] = storage[static_cast<size_t>(at)];
  });
  return out;
}

template <typename T>
void scatter(const Tensor& t, const std::vector<T>& values, std::vector<T>* storage) {
  for_each_element(t, [&](int64_t at, int64_t k) {
    (*storage)[static_cast<size_t>(at)] = values[static_cast<size_t>(k)];
  });
}

// Initial contents enter the datapath: subnormals read as zero.
void flush(HostArray& a) {
  if (!numerics::is_float_dtype(a.dtype())) return;
  for (float& v : a.f32())
    v = numerics::load(v);
}

}  // namespace

Interpreter::Interpreter(const Graph& graph, size_t k_tile)
    : graph_(graph), order_(graph.topo_order()), pe_(k_tile) {
  buffers_.reserve(graph.num_datas());
  for (size_t i = 0; i < graph.num_datas(); ++i) {
    const Data& d = graph.data(DataId(i));
    if (d.init) {
      S2_CHECK(static_cast<int64_t>(d.init->size()) == d.numel && d.init->dtype() == d.dtype,
               "interpreter: initial data of '" + d.name + "' does not match its node");
      buffers_.push_back(*d.init);
      flush(buffers_.back());
    } else {
      buffers_.emplace_back(d.dtype, static_cast<size_t>(d.numel));
    }
  }
}

void Interpreter::run() {
  for (OpId id : order_)
    run_op(graph_.op(id));
}

HostArray Interpreter::value(TensorId id) const {
  const Tensor& t = graph_.tensor(id);
  const HostArray& b = buffer(t.data);
  switch (t.dtype) {
    case DType::F32:
    case DType::BF16:
    case DType::F16:
      return HostArray(gather(t, b.f32()), t.dtype);
    case DType::I32:
      return HostArray(gather(t, b.i32()));
    case DType::U8:
      break;
  }
  throw InternalError("interpreter: " + std::string(isa::dtype_name(t.dtype)) +
                      " tensors are not supported ('" + t.name + "')");
}

void Interpreter::set_value(TensorId id, const HostArray& values) {
  const Tensor& t = graph_.tensor(id);
  S2_CHECK(static_cast<int64_t>(values.size()) == t.numel() && values.dtype() == t.dtype,
           "interpreter: set_value of '" + t.name + "' with the wrong size or type");
  HostArray& b = buffer(t.data);
  if (numerics::is_float_dtype(t.dtype)) {
    std::vector<float> flushed = values.f32();
    for (float& v : flushed)
      v = numerics::load(v);
    scatter(t, flushed, &b.f32());
  } else {
    scatter(t, values.i32(), &b.i32());
  }
}

void Interpreter::run_op(const Op& op) {
  const OpSchema& schema = op_schema(op.type);
  if (schema.kernel == nullptr) return;  // a view: metadata only

  KernelContext ctx{op, {}, {}, pe_};
  // Inputs that are not dense views are gathered into temporaries that live until the
  // kernel returns.
  std::vector<HostArray> temps;
  temps.reserve(op.inputs.size());
  for (TensorId in : op.inputs) {
    KernelInput k;
    if (in.valid()) {
      const Tensor& t = graph_.tensor(in);
      k.dtype = t.dtype;
      k.shape = t.shape;
      const HostArray* source = &buffer(t.data);
      size_t offset = static_cast<size_t>(t.offset);
      if (!t.contiguous()) {
        temps.push_back(value(in));
        source = &temps.back();
        offset = 0;
      }
      if (numerics::is_float_dtype(t.dtype))
        k.f32 = source->f32().data() + offset;
      else
        k.i32 = source->i32().data() + offset;
    }
    ctx.in.push_back(k);
  }
  // An output that updates an input in place (the same view of the same data) is written
  // where it is. Others start from zeros; a strided one (a slice that pass place-concat gave
  // it), or one sharing its data with an input it does not update, is computed in a
  // temporary and scattered afterwards.
  std::vector<HostArray> staged;
  staged.reserve(op.outputs.size());
  std::vector<std::pair<TensorId, size_t>> scatters;
  for (TensorId out : op.outputs) {
    if (!out.valid()) {
      ctx.out.push_back(KernelOutput{});
      continue;
    }
    const Tensor& t = graph_.tensor(out);
    bool in_place = false, shares_data = false;
    for (TensorId in : op.inputs) {
      if (!in.valid() || graph_.tensor(in).data != t.data) continue;
      const Tensor& x = graph_.tensor(in);
      shares_data = true;
      in_place = in_place || (x.shape == t.shape && x.strides == t.strides && x.offset == t.offset);
    }
    KernelOutput k{t.dtype, t.shape, nullptr, nullptr};
    const size_t n = static_cast<size_t>(t.numel());
    HostArray* target = &buffer(t.data);
    size_t offset = static_cast<size_t>(t.offset);
    if (!in_place && (shares_data || !t.contiguous())) {
      staged.emplace_back(t.dtype, n);
      scatters.emplace_back(out, staged.size() - 1);
      target = &staged.back();
      offset = 0;
    }
    S2_CHECK(numerics::is_float_dtype(t.dtype) || t.dtype == DType::I32,
             "interpreter: output '" + t.name + "' of '" + op.name +
                 "' is neither a float type nor i32");
    if (numerics::is_float_dtype(t.dtype)) {
      k.f32 = target->f32().data() + offset;
      if (!in_place) std::fill(k.f32, k.f32 + n, 0.0f);
    } else {
      k.i32 = target->i32().data() + offset;
      if (!in_place) std::fill(k.i32, k.i32 + n, 0);
    }
    ctx.out.push_back(k);
  }
  run_kernel(schema.kernel, ctx);
  for (const auto& [out, index] : scatters) {
    const Tensor& t = graph_.tensor(out);
    HostArray& b = buffer(t.data);
    if (numerics::is_float_dtype(t.dtype))
      scatter(t, staged[index].f32(), &b.f32());
    else
      scatter(t, staged[index].i32(), &b.i32());
  }
}

}  // namespace s2::ir
