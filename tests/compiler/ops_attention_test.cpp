// attention and attention_bwd (the fused, FlashAttention-style ops): forward and backward
// against the unfused bmm -> softmax -> bmm chain and its backward on the reference
// interpreter, for block sizes that divide the sequence and ones that do not, causal, an
// additive mask, rank 3 and 4; lse against the log-sum-exp in double; rows independent of the
// query block; fully masked rows; gradient checks of q, k and v; shape-inference errors; the
// 16-bit multiply modes (what reaches the PE array, and how far the results move).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ops/registry.h"
#include "gradcheck.h"
#include "isa/common/errors.h"
#include "isa/numerics/attention.h"
#include "isa/numerics/low_precision.h"
#include "op_test_util.h"

namespace s2::ir {
namespace {

std::vector<float> wave(size_t n, float scale, float phase) {
  std::vector<float> v;
  for (size_t i = 0; i < n; ++i)
    v.push_back(scale * std::sin(0.77f * static_cast<float>(i) + phase));
  return v;
}

struct Case {
  Shape q, k, v;  // [B..., T, d]
  bool causal = false;
  bool masked = false;
  bool padded = false;  // masked as a left-padded batch: keys 0 and 1 at the lowest float
  int64_t block_q = 4, block_k = 4;
  double scale = 0.35;
};

Shape scores_shape(const Case& c) {
  Shape s(c.q.begin(), c.q.end() - 1);
  s.push_back(c.k[c.k.size() - 2]);
  return s;
}

Attrs attention_attrs(const Case& c) {
  return Attrs{{"scale", c.scale},
               {"causal", int64_t{c.causal ? 1 : 0}},
               {"block_q", c.block_q},
               {"block_k", c.block_k}};
}

// max |a - b| / max |b|.
double relative(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double diff = 0, ref = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    diff = std::max(diff, std::abs(double{a[i]} - double{b[i]}));
    ref = std::max(ref, std::abs(double{b[i]}));
  }
  return ref == 0 ? diff : diff / ref;
}

// Fused and unfused forward and backward of one case, in one graph.
struct Both {
  Graph g;
  TensorId y, lse, dq, dk, dv;    // fused
  TensorId uy, udq, udk, udv, p;  // unfused
  TensorId scores;
};

void build(Both& b, const Case& c) {
  Graph& g = b.g;
  const TensorId q = param(g, "q", c.q, wave(size_t(shape_numel(c.q)), 1.5f, 0.1f));
  const TensorId k = param(g, "k", c.k, wave(size_t(shape_numel(c.k)), 1.5f, 0.7f));
  const TensorId v = param(g, "v", c.v, wave(size_t(shape_numel(c.v)), 1.0f, 1.3f));
  TensorId mask;
  const Shape s = scores_shape(c);
  if (c.masked) {
    std::vector<float> m = wave(size_t(shape_numel(s)), 2.0f, 0.4f);
    for (size_t i = 0; i < m.size(); i += 5)
      m[i] = -std::numeric_limits<float>::infinity();
    m[0] = 0.0f;  // every row keeps its first key unless causal excludes it (it never does)
    if (c.padded)
      for (size_t i = 0; i < m.size(); ++i)
        m[i] = i % size_t(s.back()) < 2 ? std::numeric_limits<float>::lowest() : 0.0f;
    mask = param(g, "mask", s, m);
  }
  Shape yshape(c.q.begin(), c.q.end() - 1);
  yshape.push_back(c.v.back());
  const TensorId dy =
      param(g, "dy", yshape, wave(size_t(shape_numel(yshape)), 0.8f, 2.1f), TensorRole::Gradient);
  const std::vector<TensorId> fwd =
      g.add_op(OpType::Attention, "attn", OpCategory::Forward, {q, k, v, mask}, attention_attrs(c));
  b.y = fwd[0];
  b.lse = fwd[1];
  const std::vector<TensorId> bwd =
      g.add_op(OpType::AttentionBwd, "attn.bwd", OpCategory::ActivationGrad,
               {q, k, v, mask, b.y, dy, b.lse}, attention_attrs(c));
  b.dq = bwd[0];
  b.dk = bwd[1];
  b.dv = bwd[2];
  b.scores =
      g.add(OpType::Bmm, "scores", OpCategory::Forward, {q, k}, Attrs{{"trans_b", int64_t{1}}});
  std::vector<TensorId> sm_in{b.scores};
  if (c.masked) sm_in.push_back(mask);
  b.p = g.add(OpType::Softmax, "p", OpCategory::Forward, sm_in,
              Attrs{{"scale", c.scale}, {"causal", int64_t{c.causal ? 1 : 0}}});
  b.uy = g.add(OpType::Bmm, "uy", OpCategory::Forward, {b.p, v});
  const TensorId dp =
      g.add(OpType::Bmm, "dp", OpCategory::ActivationGrad, {dy, v}, Attrs{{"trans_b", int64_t{1}}});
  b.udv = g.add(OpType::Bmm, "udv", OpCategory::ActivationGrad, {b.p, dy},
                Attrs{{"trans_a", int64_t{1}}});
  const TensorId ds = g.add(OpType::SoftmaxBwd, "ds", OpCategory::ActivationGrad, {dp, b.p},
                            Attrs{{"scale", c.scale}});
  b.udq = g.add(OpType::Bmm, "udq", OpCategory::ActivationGrad, {ds, k});
  b.udk = g.add(OpType::Bmm, "udk", OpCategory::ActivationGrad, {ds, q},
                Attrs{{"trans_a", int64_t{1}}});
}

// The fused results agree with the unfused ones to rounding (the summation order changes):
// the bound is what docs/attention.md documents per tensor.
void check_against_unfused(const Case& c) {
  Both b;
  build(b, c);
  Interpreter it(b.g);
  it.run();
  EXPECT_LT(relative(it.value(b.y).f32(), it.value(b.uy).f32()), 1e-6);
  EXPECT_LT(relative(it.value(b.dv).f32(), it.value(b.udv).f32()), 1e-5);
  EXPECT_LT(relative(it.value(b.dq).f32(), it.value(b.udq).f32()), 1e-5);
  EXPECT_LT(relative(it.value(b.dk).f32(), it.value(b.udk).f32()), 1e-5);
  // lse = log sum exp of the kept scaled (and masked) scores, in double.
  const std::vector<float> s = it.value(b.scores).f32();
  const std::vector<float> lse = it.value(b.lse).f32();
  const size_t tk = size_t(c.k[c.k.size() - 2]), tq = size_t(c.q[c.q.size() - 2]);
  std::vector<float> mask;
  if (c.masked) mask = it.value(b.g.find_tensor("mask")).f32();
  ASSERT_EQ(lse.size() * tk, s.size());
  for (size_t r = 0; r < lse.size(); ++r) {
    const size_t kept = c.causal ? std::min(tk, r % tq + 1) : tk;
    double m = -INFINITY, sum = 0;
    std::vector<double> z;
    // A row whose every kept key saturates is taken relative to its largest mask value.
    const double inf = std::numeric_limits<double>::infinity();
    double offset = -inf;
    for (size_t j = 0; j < kept && c.masked; ++j) {
      const float v = mask[r * tk + j];
      offset =
          std::isfinite(v) && v <= numerics::kSaturatedMask ? std::max(offset, double{v}) : inf;
    }
    if (!c.masked || offset == inf) offset = 0;
    for (size_t j = 0; j < kept; ++j) {
      z.push_back(
          double(float(float(c.scale) * s[r * tk + j]) + (c.masked ? mask[r * tk + j] : 0.0f)) -
          offset);
      m = std::max(m, z.back());
    }
    for (double x : z)
      sum += std::exp(x - m);
    EXPECT_NEAR(lse[r], m + std::log(sum), 2e-6 * std::max(1.0, std::abs(m))) << "row " << r;
  }
}

TEST(OpsAttention, MatchesUnfusedEvenBlocks) {
  check_against_unfused({{2, 8, 4}, {2, 8, 4}, {2, 8, 4}});
}
TEST(OpsAttention, MatchesUnfusedUnevenBlocksCausal) {
  Case c{{2, 13, 5}, {2, 13, 5}, {2, 13, 3}};
  c.causal = true;
  c.block_q = 4;
  c.block_k = 5;
  check_against_unfused(c);
}
TEST(OpsAttention, MatchesUnfusedRank4MaskedCrossAttention) {
  Case c{{2, 3, 6, 4}, {2, 3, 9, 4}, {2, 3, 9, 7}};
  c.masked = true;
  c.block_q = 3;
  c.block_k = 2;
  check_against_unfused(c);
}
TEST(OpsAttention, MatchesUnfusedOneBlockCausalMasked) {
  Case c{{1, 2, 7, 8}, {1, 2, 7, 8}, {1, 2, 7, 8}};
  c.causal = c.masked = true;
  c.block_q = c.block_k = 64;
  check_against_unfused(c);
}

// A left-padded causal batch: the first two queries see padding only (the lowest float on
// every key they keep), so softmax gives them a uniform distribution over those keys. The
// fused attention takes such rows relative to their mask (attention.h); taken as they are, their
// lse would lose log n and the backward would recompute P = 1, not 1/2, failing the bounds.
TEST(OpsAttention, MatchesUnfusedOnRowsThatSeeOnlyPadding) {
  Case c{{2, 2, 9, 4}, {2, 2, 9, 4}, {2, 2, 9, 4}};
  c.causal = c.masked = c.padded = true;
  c.block_q = 4;
  c.block_k = 3;
  check_against_unfused(c);
  c.causal = false;  // every row keeps unpadded keys: no row is shifted
  check_against_unfused(c);
}

// Query rows are independent in the forward: the query block never changes a bit of y or lse.
TEST(OpsAttention, ForwardRowsIndependentOfQueryBlock) {
  std::vector<float> first_y, first_lse;
  for (int64_t bq : {1, 3, 16}) {
    Case c{{2, 11, 6}, {2, 11, 6}, {2, 11, 6}};
    c.causal = true;
    c.block_q = bq;
    c.block_k = 4;
    Both b;
    build(b, c);
    Interpreter it(b.g);
    it.run();
    if (first_y.empty()) {
      first_y = it.value(b.y).f32();
      first_lse = it.value(b.lse).f32();
      continue;
    }
    EXPECT_EQ(it.value(b.y).f32(), first_y) << "block_q " << bq;
    EXPECT_EQ(it.value(b.lse).f32(), first_lse) << "block_q " << bq;
  }
}

// A row whose every key is masked with -inf has no distribution: NaN, as softmax gives.
TEST(OpsAttention, FullyMaskedRowIsNaN) {
  Graph g;
  const float inf = std::numeric_limits<float>::infinity();
  const TensorId q = param(g, "q", {1, 2, 2}, {1, 2, 3, 4});
  const TensorId k = param(g, "k", {1, 3, 2}, {1, 0, 0, 1, 1, 1});
  const TensorId v = param(g, "v", {1, 3, 2}, {1, 2, 3, 4, 5, 6});
  const TensorId mask = param(g, "mask", {1, 2, 3}, {0, 0, 0, -inf, -inf, -inf});
  const std::vector<TensorId> y =
      g.add_op(OpType::Attention, "attn", OpCategory::Forward, {q, k, v, mask},
               Attrs{{"block_q", int64_t{1}}, {"block_k", int64_t{2}}});
  Interpreter it(g);
  it.run();
  const std::vector<float> out = it.value(y[0]).f32();
  EXPECT_FALSE(std::isnan(out[0]));
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_TRUE(std::isnan(out[3]));
}

testing::GradCheckSpec attention_spec(const Case& c, uint32_t seed) {
  testing::GradCheckSpec spec;
  spec.type = OpType::Attention;
  spec.seed = seed;
  spec.attrs = attention_attrs(c);
  testing::GradInput q, k, v, mask;
  q.shape = c.q;
  k.shape = c.k;
  v.shape = c.v;
  mask.shape = scores_shape(c);
  mask.absent = !c.masked;
  mask.differentiable = false;
  mask.lo = -2.0f;
  mask.hi = 0.0f;
  spec.inputs = {q, k, v, mask};
  return spec;
}

void expect_grad(const testing::GradCheckSpec& spec) {
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
  for (size_t i = 0; i < 3; ++i)
    EXPECT_GE(r.error[i], 0.0) << "input " << i << " not checked";
}

TEST(OpsAttention, GradPlain) {
  expect_grad(attention_spec({{2, 5, 3}, {2, 5, 3}, {2, 5, 4}}, 3));
}
TEST(OpsAttention, GradCausalUnevenBlocks) {
  Case c{{1, 2, 7, 4}, {1, 2, 7, 4}, {1, 2, 7, 4}};
  c.causal = true;
  c.block_q = 3;
  c.block_k = 2;
  expect_grad(attention_spec(c, 5));
}
TEST(OpsAttention, GradMaskedCrossAttention) {
  Case c{{2, 4, 3}, {2, 6, 3}, {2, 6, 2}};
  c.masked = true;
  c.block_q = 2;
  c.block_k = 4;
  expect_grad(attention_spec(c, 7));
}

// One attention_bwd computes all three gradients; a mask that needs a gradient is refused.
TEST(OpsAttention, BackwardOpAndTrainableMaskRefused) {
  Graph g;
  const TensorId q = param(g, "q", {1, 4, 2}, wave(8, 1, 0));
  const TensorId k = param(g, "k", {1, 4, 2}, wave(8, 1, 1));
  const TensorId v = param(g, "v", {1, 4, 2}, wave(8, 1, 2));
  const TensorId mask = param(g, "mask", {1, 4, 4}, wave(16, 1, 3));
  const std::vector<TensorId> out =
      g.add_op(OpType::Attention, "attn", OpCategory::Forward, {q, k, v, mask},
               Attrs{{"block_q", int64_t{2}}, {"block_k", int64_t{2}}});
  const TensorId dy = param(g, "dy", {1, 4, 2}, wave(8, 1, 4), TensorRole::Gradient);
  {
    BackwardContext ctx(g, g.op(g.find_op("attn")), {dy, TensorId()}, {true, true, true, false});
    op_schema(OpType::Attention).backward(ctx);
    const Op& bwd = g.op(g.tensor(ctx.input_grads()[0][0]).producer);
    EXPECT_EQ(bwd.name, "attn.bwd");
    EXPECT_EQ(bwd.type, OpType::AttentionBwd);
    EXPECT_EQ(bwd.inputs, (std::vector<TensorId>{q, k, v, mask, out[0], dy, out[1]}));
    EXPECT_EQ(bwd.attrs.i("block_q"), 2);
  }
  BackwardContext ctx(g, g.op(g.find_op("attn")), {dy, TensorId()}, {true, true, true, true});
  EXPECT_EQ(user_error([&] { op_schema(OpType::Attention).backward(ctx); }),
            "op 'attn' (attention): the mask needs a gradient, which the fused attention does not "
            "compute; compile without --fuse-attention");
}

TEST(OpsAttention, SchemaAndErrors) {
  Graph g;
  const TensorId q = param(g, "q", {2, 4, 3}, wave(24, 1, 0));
  const TensorId k5 = param(g, "k5", {2, 5, 2}, wave(20, 1, 0));
  const TensorId v = param(g, "v", {2, 4, 6}, wave(48, 1, 0));
  const TensorId m = param(g, "m", {2, 4, 5}, wave(40, 1, 0));
  EXPECT_EQ(op_schema(OpType::Attention).fusion, FusionClass::Pe);
  EXPECT_EQ(op_schema(OpType::AttentionBwd).fusion, FusionClass::Pe);
  auto attn = [&](std::vector<TensorId> in, Attrs attrs = {}) {
    return user_error([&] { g.add_op(OpType::Attention, "a", OpCategory::Forward, in, attrs); });
  };
  EXPECT_EQ(attn({q, k5, v}),
            "shape inference: op 'a' (attention): input 'k' f32[2,5,2] must have the head "
            "dimension of input 'q' f32[2,4,3]");
  EXPECT_EQ(attn({q, q, k5}),
            "shape inference: op 'a' (attention): input 'v' f32[2,5,2] must have the rows of "
            "input 'k' f32[2,4,3]");
  EXPECT_EQ(attn({q, q, v, m}),
            "shape inference: op 'a' (attention): input 'mask' is f32[2,4,5], expected f32[2,4,4]");
  EXPECT_EQ(attn({q, q, v}, Attrs{{"block_k", int64_t{0}}}),
            "shape inference: op 'a' (attention): attribute 'block_k' must be at least 1, not 0");
  const std::vector<TensorId> ok =
      g.add_op(OpType::Attention, "ok", OpCategory::Forward, {q, q, v});
  EXPECT_EQ(g.tensor(ok[0]).shape, (Shape{2, 4, 6}));
  EXPECT_EQ(g.tensor(ok[1]).shape, (Shape{2, 4}));
}

// A PE model that checks what the array is given: counts multiplicands that are not values of
// `mode`, then computes as the C++ model does.
class ModeCheckingGemm final : public numerics::PeGemm {
 public:
  explicit ModeCheckingGemm(isa::DType mode) : mode_(mode), inner_(numerics::kDefaultKTile) {}
  void accumulate(size_t m, size_t n, size_t kd, const float* a, size_t lda, const float* b,
                  size_t ldb, float* c, size_t ldc) override {
    for (size_t i = 0; i < m; ++i)
      for (size_t e = 0; e < kd; ++e)
        check(a[i * lda + e]);
    for (size_t e = 0; e < kd; ++e)
      for (size_t j = 0; j < n; ++j)
        check(b[e * ldb + j]);
    inner_.accumulate(m, n, kd, a, lda, b, ldb, c, ldc);
  }
  size_t k_tile() const override { return inner_.k_tile(); }
  size_t checked = 0, off_type = 0;

 private:
  void check(float v) {
    ++checked;
    if (numerics::round_to(mode_, v) != v) ++off_type;
  }
  isa::DType mode_;
  numerics::KTiledGemm inner_;
};

struct AttentionRun {
  std::vector<float> y, lse, dq, dk, dv;
};

// The forward, then the backward from `y16` (the forward's y as its 16-bit tensor holds it;
// null: this run's own y rounded to `mode`).
AttentionRun run_numerics(numerics::AttentionGeometry g, isa::DType mode,
                          const std::vector<float>* in, numerics::PeGemm& pe,
                          const std::vector<float>* y16 = nullptr) {
  g.mode = mode;
  AttentionRun r;
  r.y.resize(g.batches * g.tq * g.dv);
  r.lse.resize(g.batches * g.tq);
  r.dq.resize(in[0].size());
  r.dk.resize(in[1].size());
  r.dv.resize(in[2].size());
  numerics::attention_forward(g, in[0].data(), in[1].data(), in[2].data(), nullptr, r.y.data(),
                              r.lse.data(), pe);
  std::vector<float> y = y16 != nullptr ? *y16 : r.y;
  if (y16 == nullptr)
    for (float& x : y)
      x = numerics::round_to(mode, x);
  numerics::attention_backward(g, in[0].data(), in[1].data(), in[2].data(), nullptr, y.data(),
                               in[3].data(), r.lse.data(), r.dq.data(), r.dk.data(), r.dv.data(),
                               pe);
  return r;
}

// In bf16 and f16 modes every multiplicand the array sees is of the mode (q, k, v, dy are;
// p and ds are rounded to it on chip); the scores are not rounded, so lse is the f32 mode's bit
// for bit. Given the same y, the results move only by the rounding of p (y, dv) and of ds (dq,
// dk): nonzero, and within a few units of the format's rounding (2^-8 bf16, 2^-11 f16) of the
// largest element.
TEST(OpsAttention, SixteenBitModesMultiplyOnlyValuesOfTheMode) {
  numerics::AttentionGeometry g;
  g.batches = 2;
  g.tq = g.tk = 11;
  g.d = g.dv = 8;
  g.block_q = 4;
  g.block_k = 4;
  g.scale = 0.35f;
  g.causal = true;
  for (const auto& [mode, unit] :
       {std::pair{isa::DType::BF16, 0x1p-8}, std::pair{isa::DType::F16, 0x1p-11}}) {
    SCOPED_TRACE(isa::dtype_name(mode));
    std::vector<float> in[4] = {
        wave(g.batches * g.tq * g.d, 1.5f, 0.1f), wave(g.batches * g.tk * g.d, 1.5f, 0.7f),
        wave(g.batches * g.tk * g.dv, 1.0f, 1.3f), wave(g.batches * g.tq * g.dv, 0.8f, 2.1f)};
    for (auto& t : in)
      for (float& x : t)
        x = numerics::round_to(mode, x);
    ModeCheckingGemm checking(mode);
    const AttentionRun low = run_numerics(g, mode, in, checking);
    EXPECT_GT(checking.checked, 0u);
    EXPECT_EQ(checking.off_type, 0u);
    std::vector<float> y16 = low.y;
    for (float& x : y16)
      x = numerics::round_to(mode, x);
    ModeCheckingGemm wide(isa::DType::F32);
    const AttentionRun f32 = run_numerics(g, isa::DType::F32, in, wide, &y16);
    EXPECT_EQ(low.lse, f32.lse);
    for (const auto& [name, a, b] :
         {std::tuple{"y", &low.y, &f32.y}, std::tuple{"dq", &low.dq, &f32.dq},
          std::tuple{"dk", &low.dk, &f32.dk}, std::tuple{"dv", &low.dv, &f32.dv}}) {
      const double error = relative(*a, *b);
      std::cout << isa::dtype_name(mode) << " " << name << ": " << error / unit
                << " units of the format's rounding\n";
      EXPECT_GT(error, 0.0) << name;
      EXPECT_LT(error, 4 * unit) << name;
    }
  }
}

}  // namespace
}  // namespace s2::ir
