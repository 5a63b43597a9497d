// gemm: y[M,N] = op(a) . op(b) + bias, the fully-connected layer of the PE array (a PyTorch
// Linear is gemm(x, w, bias, trans_b=1)). Its backward gradients are gemms again, with the
// transpose flags chosen so no operand is ever copied into a transposed layout.
//
// The epilogue of the ISA's gemm (ops/epilogue.h) is optional inputs after bias — residual
// and gate — and an `act` attribute defaulting to "none": y = act(a.b + bias + residual),
// then kept where gate > 0. The fusion pass (passes/fusion.h) fills them in; a gemm built
// without them means what it always meant.

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/epilogue.h"
#include "compiler/ops/registry.h"

namespace s2::ir {
namespace {

bool flag(const InferContext& ctx, const std::string& name) {
  const int64_t v = ctx.attrs().i(name);
  if (v != 0 && v != 1)
    ctx.fail("attribute '" + name + "' must be 0 or 1, not " + std::to_string(v));
  return v == 1;
}

std::vector<OutputSpec> infer_gemm(const InferContext& ctx) {
  const bool ta = flag(ctx, "trans_a");
  const bool tb = flag(ctx, "trans_b");
  for (size_t i = 0; i < 2; ++i) {
    ctx.expect_dtype(i, DType::F32);
    ctx.expect_rank(i, 2);
  }
  const Shape& a = ctx.shape(0);
  const Shape& b = ctx.shape(1);
  const int64_t m = ta ? a[1] : a[0];
  const int64_t ka = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0];
  const int64_t n = tb ? b[0] : b[1];
  if (ka != kb)
    ctx.fail("inner dimensions differ: " + ctx.describe(0) + " (trans_a=" + (ta ? "1" : "0") +
             ") has K=" + std::to_string(ka) + ", " + ctx.describe(1) +
             " (trans_b=" + (tb ? "1" : "0") + ") has K=" + std::to_string(kb));
  if (ctx.has_input(2)) {
    ctx.expect_dtype(2, DType::F32);
    ctx.expect_shape(2, {n});
  }
  OutputSpec y;
  y.shape = {m, n};
  epilogue::expect_operand(ctx, 3, y.shape);
  epilogue::expect_operand(ctx, 4, y.shape);
  epilogue::act_of(ctx);
  return {y};
}

// Copies op(src) into `dst` as a dense rows x cols matrix; src is rows x cols, or cols x rows
// when `transposed`.
void pack(const float* src, bool transposed, size_t rows, size_t cols, std::vector<float>* dst) {
  dst->resize(rows * cols);
  if (!transposed) {
    std::copy(src, src + rows * cols, dst->begin());
    return;
  }
  for (size_t c = 0; c < cols; ++c)
    for (size_t r = 0; r < rows; ++r)
      (*dst)[r * cols + c] = src[c * rows + r];
}

// Accumulation order (the contract the PE array's functional model reproduces): every output
// element y[m][n] starts at 0.0f and adds the products op(a)[m][k] * op(b)[k][n] for
// k = 0, 1, ..., K-1 in turn, each product and each sum rounded to f32 (no fused
// multiply-add); the bias is added last, then the epilogue (residual, act, gate) element by
// element. The loops run m, k, n with n innermost so that the
// inner loop streams rows of op(b) and y contiguously; per element the order is the same.
void gemm_kernel(KernelContext& k) {
  const bool ta = k.op.attrs.i("trans_a") != 0;
  const bool tb = k.op.attrs.i("trans_b") != 0;
  const size_t m_size = static_cast<size_t>(k.out[0].shape[0]);
  const size_t n_size = static_cast<size_t>(k.out[0].shape[1]);
  const size_t k_size = static_cast<size_t>(ta ? k.in[0].shape[0] : k.in[0].shape[1]);
  std::vector<float> a_pack, b_pack;
  const float* a = k.in[0].f32;
  const float* b = k.in[1].f32;
  if (ta) {
    pack(a, true, m_size, k_size, &a_pack);
    a = a_pack.data();
  }
  if (tb) {
    pack(b, true, k_size, n_size, &b_pack);
    b = b_pack.data();
  }
  float* y = k.out[0].f32;  // zero-filled by the interpreter
  // The PE array's order: each K-tile of kKTile steps is summed from zero in ascending k,
  // then added to the row's running sum, tile by tile (as conv_kernels::gemm_packed does).
  constexpr size_t kKTile = 32;
  std::vector<float> tile(n_size);
  for (size_t m = 0; m < m_size; ++m) {
    float* y_row = y + m * n_size;
    std::fill(y_row, y_row + n_size, 0.0f);
    for (size_t k0 = 0; k0 < k_size; k0 += kKTile) {
      std::fill(tile.begin(), tile.end(), 0.0f);
      for (size_t kk = k0; kk < std::min(k_size, k0 + kKTile); ++kk) {
        const float a_mk = a[m * k_size + kk];
        const float* b_row = b + kk * n_size;
        for (size_t n = 0; n < n_size; ++n)
          tile[n] += a_mk * b_row[n];
      }
      for (size_t n = 0; n < n_size; ++n)
        y_row[n] += tile[n];
    }
    if (k.in[2].present()) {
      const float* bias = k.in[2].f32;
      for (size_t n = 0; n < n_size; ++n)
        y_row[n] += bias[n];
    }
  }
  epilogue::apply(y, m_size * n_size, epilogue::optional_f32(k.in[3]), epilogue::act_of(k.op),
                  epilogue::optional_f32(k.in[4]));
}

Attrs trans(int64_t ta, int64_t tb) {
  return Attrs{{"trans_a", ta}, {"trans_b", tb}};
}

// With A = op(a) and B = op(b): dA = dy . B^T and dB = A^T . dy. The gradient of a itself is
// dA, or dA^T = B . dy^T when trans_a; likewise for b. Each is one gemm over the original
// operands with the flags below. The residual is added after the product: its gradient is
// dy itself.
void gemm_backward(BackwardContext& g) {
  const TensorId dy = g.grad_output(0);
  if (!dy.valid()) return;
  const std::string& act = g.attrs().s("act");
  epilogue::expect_differentiable(g, act != "none", "act=" + act);
  epilogue::expect_differentiable(g, g.input(4).valid(), "gate");
  const int64_t ta = g.attrs().i("trans_a");
  const int64_t tb = g.attrs().i("trans_b");
  const TensorId a = g.input(0);
  const TensorId b = g.input(1);
  if (g.needs_grad(0)) {
    const TensorId da =
        ta == 0 ? g.emit1(OpType::Gemm, "grad_a", g.grad_category(0), {dy, b}, trans(0, 1 - tb))
                : g.emit1(OpType::Gemm, "grad_a", g.grad_category(0), {b, dy}, trans(tb, 1));
    g.add_grad(0, da);
  }
  if (g.needs_grad(1)) {
    const TensorId db =
        tb == 0 ? g.emit1(OpType::Gemm, "grad_b", g.grad_category(1), {a, dy}, trans(1 - ta, 0))
                : g.emit1(OpType::Gemm, "grad_b", g.grad_category(1), {dy, a}, trans(1, ta));
    g.add_grad(1, db);
  }
  if (g.input(2).valid() && g.needs_grad(2))
    g.add_grad(2, g.emit1(OpType::ReduceSum, "grad_bias", g.grad_category(2), {dy},
                          Attrs{{"axes", std::vector<int64_t>{0}}}));
  if (g.input(3).valid() && g.needs_grad(3)) g.add_grad(3, dy);
}

}  // namespace

void register_gemm_ops(OpRegistry& r) {
  r.add(OpSchema{OpType::Gemm,
                 FusionClass::Pe,
                 {{"a"}, {"b"}, {"bias", true}, {"residual", true}, {"gate", true}},
                 {"y"},
                 {{"trans_a", AttrKind::Int, AttrValue(int64_t{0})},
                  {"trans_b", AttrKind::Int, AttrValue(int64_t{0})},
                  epilogue::act_attr()},
                 infer_gemm,
                 gemm_backward,
                 gemm_kernel,
                 "y[M,N] = op(a) . op(b) + bias[N], where op(a) = a^T when trans_a (a is [M,K], "
                 "or [K,M] when transposed) and op(b) = b^T when trans_b (b is [K,N] or [N,K]). "
                 "A PyTorch Linear is gemm(x, w, bias, trans_b=1). Sums over k in increasing "
                 "order from 0, bias added last. Epilogue: y = act(y + residual) with act "
                 "\"none\" or \"relu\", then kept where gate > 0 (residual and gate optional, "
                 "[M,N]); not differentiable with act=relu or a gate."});
}

}  // namespace s2::ir
