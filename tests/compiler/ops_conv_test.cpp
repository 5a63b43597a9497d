// The convolution family (compiler/ops/conv.cpp): forward values of conv2d, conv2d_bwd_data
// and conv2d_bwd_weight against naive formulas in double, their documented fp32 accumulation
// order bit for bit, the PPU epilogue (residual, act, gate) bit for bit against the separate
// ops, shape-inference errors, the backward rule, and gradient checks.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ops/conv_kernels.h"
#include "compiler/ops/registry.h"
#include "gradcheck.h"
#include "isa/common/errors.h"
#include "op_test_util.h"

namespace s2::ir {
namespace {

using Ints = std::vector<int64_t>;

std::vector<float> random_values(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v)
    x = dist(rng);
  return v;
}

size_t at(int64_t i) {
  return static_cast<size_t>(i);
}

struct ConvCase {
  std::string name;
  int64_t n, c, h, w, k, r, s;
  Ints stride, pads, dilation;
  int64_t groups;
  bool bias;

  int64_t cg() const { return c / groups; }
  int64_t kg() const { return k / groups; }
  // Output size by the textbook formula (floor mode), written independently of the op.
  int64_t p() const { return (h + pads[0] + pads[2] - dilation[0] * (r - 1) - 1) / stride[0] + 1; }
  int64_t q() const { return (w + pads[1] + pads[3] - dilation[1] * (s - 1) - 1) / stride[1] + 1; }
  Attrs attrs() const {
    return {{"stride", stride}, {"pads", pads}, {"dilation", dilation}, {"groups", groups}};
  }
  // Calls fn(n, k, p, q, c, r, s, ih, iw) for every multiply of the convolution that reads
  // the input (taps in the padding are skipped).
  void for_each_tap(const std::function<void(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                                             int64_t, int64_t, int64_t)>& fn) const {
    for (int64_t in = 0; in < n; ++in)
      for (int64_t ik = 0; ik < k; ++ik)
        for (int64_t ip = 0; ip < p(); ++ip)
          for (int64_t iq = 0; iq < q(); ++iq)
            for (int64_t ic = 0; ic < cg(); ++ic)
              for (int64_t ir = 0; ir < r; ++ir)
                for (int64_t is = 0; is < s; ++is) {
                  const int64_t ih = ip * stride[0] - pads[0] + ir * dilation[0];
                  const int64_t iw = iq * stride[1] - pads[1] + is * dilation[1];
                  if (ih >= 0 && ih < h && iw >= 0 && iw < w)
                    fn(in, ik, ip, iq, ic, ir, is, ih, iw);
                }
  }
  int64_t x_index(int64_t in, int64_t ik, int64_t ic, int64_t ih, int64_t iw) const {
    return ((in * c + (ik / kg()) * cg() + ic) * h + ih) * w + iw;
  }
  int64_t w_index(int64_t ik, int64_t ic, int64_t ir, int64_t is) const {
    return ((ik * cg() + ic) * r + ir) * s + is;
  }
  int64_t y_index(int64_t in, int64_t ik, int64_t ip, int64_t iq) const {
    return ((in * k + ik) * p() + ip) * q() + iq;
  }
};

std::ostream& operator<<(std::ostream& os, const ConvCase& c) {
  return os << c.name;
}

// Runs one op on parameter inputs and returns its outputs' values.
struct OneOp {
  Graph graph{"test"};
  std::vector<TensorId> outputs;

  TensorId param(const std::string& name, TensorRole role, const Shape& shape,
                 std::vector<float> values) {
    return graph.add_parameter(name, role, DType::F32, shape,
                               std::make_shared<HostArray>(std::move(values)));
  }
  std::vector<float> run(size_t output = 0) {
    Interpreter it(graph);
    it.run();
    return it.value(outputs.at(output)).f32();
  }
};

struct ConvData {
  std::vector<float> x, w, bias, dy;
};

ConvData data_for(const ConvCase& cc) {
  return {random_values(cc.n * cc.c * cc.h * cc.w, 1),
          random_values(cc.k * cc.cg() * cc.r * cc.s, 2), random_values(cc.k, 3),
          random_values(cc.n * cc.k * cc.p() * cc.q(), 4)};
}

std::vector<float> run_forward(const ConvCase& cc, const ConvData& d) {
  OneOp t;
  std::vector<TensorId> in = {t.param("x", TensorRole::Input, {cc.n, cc.c, cc.h, cc.w}, d.x),
                              t.param("w", TensorRole::Weight, {cc.k, cc.cg(), cc.r, cc.s}, d.w)};
  if (cc.bias) in.push_back(t.param("b", TensorRole::Weight, {cc.k}, d.bias));
  t.outputs = t.graph.add_op(OpType::Conv2d, "conv", OpCategory::Forward, in, cc.attrs());
  EXPECT_EQ(t.graph.tensor(t.outputs[0]).shape, (Shape{cc.n, cc.k, cc.p(), cc.q()}));
  return t.run();
}

std::vector<float> run_bwd_data(const ConvCase& cc, const ConvData& d) {
  OneOp t;
  Attrs attrs = cc.attrs();
  attrs.set("input_hw", Ints{cc.h, cc.w});
  t.outputs =
      t.graph.add_op(OpType::Conv2dBwdData, "dx", OpCategory::ActivationGrad,
                     {t.param("dy", TensorRole::Gradient, {cc.n, cc.k, cc.p(), cc.q()}, d.dy),
                      t.param("w", TensorRole::Weight, {cc.k, cc.cg(), cc.r, cc.s}, d.w)},
                     attrs);
  EXPECT_EQ(t.graph.tensor(t.outputs[0]).shape, (Shape{cc.n, cc.c, cc.h, cc.w}));
  return t.run();
}

std::vector<float> run_bwd_weight(const ConvCase& cc, const ConvData& d) {
  OneOp t;
  Attrs attrs = cc.attrs();
  attrs.set("kernel_hw", Ints{cc.r, cc.s});
  t.outputs =
      t.graph.add_op(OpType::Conv2dBwdWeight, "dw", OpCategory::WeightGrad,
                     {t.param("x", TensorRole::Input, {cc.n, cc.c, cc.h, cc.w}, d.x),
                      t.param("dy", TensorRole::Gradient, {cc.n, cc.k, cc.p(), cc.q()}, d.dy)},
                     attrs);
  EXPECT_EQ(t.graph.tensor(t.outputs[0]).shape, (Shape{cc.k, cc.cg(), cc.r, cc.s}));
  return t.run();
}

void expect_near_all(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(static_cast<double>(got[i]), want[i], 1e-4 * (1.0 + std::abs(want[i])))
        << "element " << i;
}

class ConvValues : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvValues, ForwardMatchesNaiveFormula) {
  const ConvCase& cc = GetParam();
  const ConvData d = data_for(cc);
  std::vector<double> want(at(cc.n * cc.k * cc.p() * cc.q()), 0.0);
  cc.for_each_tap([&](int64_t in, int64_t ik, int64_t ip, int64_t iq, int64_t ic, int64_t ir,
                      int64_t is, int64_t ih, int64_t iw) {
    want[at(cc.y_index(in, ik, ip, iq))] +=
        static_cast<double>(d.x[at(cc.x_index(in, ik, ic, ih, iw))]) *
        static_cast<double>(d.w[at(cc.w_index(ik, ic, ir, is))]);
  });
  if (cc.bias)
    for (size_t i = 0; i < want.size(); ++i)
      want[i] += static_cast<double>(d.bias[(i / at(cc.p() * cc.q())) % at(cc.k)]);
  expect_near_all(run_forward(cc, d), want);
}

TEST_P(ConvValues, BwdDataMatchesNaiveFormula) {
  const ConvCase& cc = GetParam();
  const ConvData d = data_for(cc);
  std::vector<double> want(at(cc.n * cc.c * cc.h * cc.w), 0.0);
  cc.for_each_tap([&](int64_t in, int64_t ik, int64_t ip, int64_t iq, int64_t ic, int64_t ir,
                      int64_t is, int64_t ih, int64_t iw) {
    want[at(cc.x_index(in, ik, ic, ih, iw))] +=
        static_cast<double>(d.dy[at(cc.y_index(in, ik, ip, iq))]) *
        static_cast<double>(d.w[at(cc.w_index(ik, ic, ir, is))]);
  });
  expect_near_all(run_bwd_data(cc, d), want);
}

TEST_P(ConvValues, BwdWeightMatchesNaiveFormula) {
  const ConvCase& cc = GetParam();
  const ConvData d = data_for(cc);
  std::vector<double> want(at(cc.k * cc.cg() * cc.r * cc.s), 0.0);
  cc.for_each_tap([&](int64_t in, int64_t ik, int64_t ip, int64_t iq, int64_t ic, int64_t ir,
                      int64_t is, int64_t ih, int64_t iw) {
    want[at(cc.w_index(ik, ic, ir, is))] +=
        static_cast<double>(d.dy[at(cc.y_index(in, ik, ip, iq))]) *
        static_cast<double>(d.x[at(cc.x_index(in, ik, ic, ih, iw))]);
  });
  expect_near_all(run_bwd_weight(cc, d), want);
}

// The PE array's K-tiled fp32 accumulation (isa/numerics/pe_gemm.h, the default K-tile): products
// join a tile sum in order; every kKTile products the tile joins the running sum; a new GEMM call
// (image chunk) starts a new tile.
class TiledSum {
 public:
  void add(float product) {
    tile_ = tile_ + product;
    if (++count_ == static_cast<int64_t>(numerics::kDefaultKTile)) flush();
  }
  void start_chunk() { flush(); }
  float total() {
    flush();
    return acc_;
  }

 private:
  void flush() {
    if (count_ == 0) return;
    acc_ = acc_ + tile_;
    tile_ = 0.0f;
    count_ = 0;
  }
  float acc_ = 0.0f;
  float tile_ = 0.0f;
  int64_t count_ = 0;
};

// The accumulation orders documented in isa/numerics/conv.h, replayed in fp32: the
// simulator's functional model will rely on them.
TEST_P(ConvValues, ForwardFollowsDocumentedOrderBitExactly) {
  const ConvCase& cc = GetParam();
  const ConvData d = data_for(cc);
  const std::vector<float> got = run_forward(cc, d);
  for (int64_t in = 0; in < cc.n; ++in)
    for (int64_t ik = 0; ik < cc.k; ++ik)
      for (int64_t ip = 0; ip < cc.p(); ++ip)
        for (int64_t iq = 0; iq < cc.q(); ++iq) {
          TiledSum sum;
          for (int64_t ic = 0; ic < cc.cg(); ++ic)
            for (int64_t ir = 0; ir < cc.r; ++ir)
              for (int64_t is = 0; is < cc.s; ++is) {
                const int64_t ih = ip * cc.stride[0] - cc.pads[0] + ir * cc.dilation[0];
                const int64_t iw = iq * cc.stride[1] - cc.pads[1] + is * cc.dilation[1];
                const bool inside = ih >= 0 && ih < cc.h && iw >= 0 && iw < cc.w;
                const float xv = inside ? d.x[at(cc.x_index(in, ik, ic, ih, iw))] : 0.0f;
                sum.add(d.w[at(cc.w_index(ik, ic, ir, is))] * xv);
              }
          float acc = sum.total();
          if (cc.bias) acc = acc + d.bias[at(ik)];
          ASSERT_EQ(got[at(cc.y_index(in, ik, ip, iq))], acc);
        }
}

TEST_P(ConvValues, BwdWeightFollowsDocumentedOrderBitExactly) {
  const ConvCase& cc = GetParam();
  const ConvData d = data_for(cc);
  conv_kernels::ConvGeometry geometry;
  geometry.n = cc.n;
  geometry.c = cc.c;
  geometry.k = cc.k;
  geometry.r = cc.r;
  geometry.s = cc.s;
  geometry.p = cc.p();
  geometry.q = cc.q();
  geometry.groups = cc.groups;
  const auto chunk =
      static_cast<int64_t>(numerics::images_per_chunk(conv_kernels::to_numerics(geometry)));
  const std::vector<float> got = run_bwd_weight(cc, d);
  for (int64_t ik = 0; ik < cc.k; ++ik)
    for (int64_t ic = 0; ic < cc.cg(); ++ic)
      for (int64_t ir = 0; ir < cc.r; ++ir)
        for (int64_t is = 0; is < cc.s; ++is) {
          TiledSum sum;
          for (int64_t in = 0; in < cc.n; ++in) {
            if (in % chunk == 0) sum.start_chunk();  // each chunk is one GEMM call
            for (int64_t ip = 0; ip < cc.p(); ++ip)
              for (int64_t iq = 0; iq < cc.q(); ++iq) {
                const int64_t ih = ip * cc.stride[0] - cc.pads[0] + ir * cc.dilation[0];
                const int64_t iw = iq * cc.stride[1] - cc.pads[1] + is * cc.dilation[1];
                const bool inside = ih >= 0 && ih < cc.h && iw >= 0 && iw < cc.w;
                const float xv = inside ? d.x[at(cc.x_index(in, ik, ic, ih, iw))] : 0.0f;
                sum.add(d.dy[at(cc.y_index(in, ik, ip, iq))] * xv);
              }
          }
          ASSERT_EQ(got[at(cc.w_index(ik, ic, ir, is))], sum.total());
        }
}

TEST_P(ConvValues, BwdDataFollowsDocumentedOrderBitExactly) {
  const ConvCase& cc = GetParam();
  const ConvData d = data_for(cc);
  const std::vector<float> got = run_bwd_data(cc, d);
  std::vector<float> want(got.size(), 0.0f);
  for (int64_t in = 0; in < cc.n; ++in)
    for (int64_t g = 0; g < cc.groups; ++g)
      for (int64_t ic = 0; ic < cc.cg(); ++ic)
        for (int64_t ir = 0; ir < cc.r; ++ir)
          for (int64_t is = 0; is < cc.s; ++is)
            for (int64_t ip = 0; ip < cc.p(); ++ip)
              for (int64_t iq = 0; iq < cc.q(); ++iq) {
                const int64_t ih = ip * cc.stride[0] - cc.pads[0] + ir * cc.dilation[0];
                const int64_t iw = iq * cc.stride[1] - cc.pads[1] + is * cc.dilation[1];
                if (ih < 0 || ih >= cc.h || iw < 0 || iw >= cc.w) continue;
                float partial = 0.0f;  // over the group's output channels, ascending
                for (int64_t kk = 0; kk < cc.kg(); ++kk) {
                  const int64_t ik = g * cc.kg() + kk;
                  const float prod =
                      d.dy[at(cc.y_index(in, ik, ip, iq))] * d.w[at(cc.w_index(ik, ic, ir, is))];
                  partial = partial + prod;
                }
                float& dst = want[at(cc.x_index(in, g * cc.kg(), ic, ih, iw))];
                dst = dst + partial;
              }
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << "element " << i;
}

INSTANTIATE_TEST_SUITE_P(
    Conv, ConvValues,
    ::testing::Values(
        ConvCase{"Basic3x3Pad1", 2, 3, 7, 6, 4, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, true},
        ConvCase{"Stride2OddInput", 2, 3, 9, 7, 5, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1, true},
        ConvCase{"Stride2LastRowUncovered",
                 1,
                 2,
                 8,
                 10,
                 3,
                 3,
                 3,
                 {2, 2},
                 {0, 0, 0, 0},
                 {1, 1},
                 1,
                 false},
        ConvCase{"AsymmetricPads", 2, 3, 6, 7, 4, 3, 3, {1, 2}, {2, 0, 1, 3}, {1, 1}, 1, true},
        ConvCase{"Dilation2", 1, 3, 10, 9, 4, 3, 3, {1, 1}, {2, 2, 2, 2}, {2, 2}, 1, true},
        ConvCase{
            "DilationRectangular", 2, 2, 9, 8, 3, 3, 2, {2, 1}, {1, 0, 2, 1}, {2, 3}, 1, false},
        ConvCase{"Groups2", 2, 4, 6, 6, 6, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2, true},
        ConvCase{"Depthwise", 2, 5, 7, 7, 5, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, 5, true},
        ConvCase{
            "DepthwiseMultiplier2", 1, 3, 6, 5, 6, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 3, false},
        ConvCase{"OneByOne", 2, 6, 5, 5, 9, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, true},
        ConvCase{"OneByOneStride2", 2, 4, 7, 7, 8, 1, 1, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1, false},
        ConvCase{"Stem7x7Stride2", 2, 3, 15, 13, 4, 7, 7, {2, 2}, {3, 3, 3, 3}, {1, 1}, 1, false},
        ConvCase{
            "WindowAsLargeAsInput", 3, 2, 5, 4, 3, 5, 4, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, true},
        ConvCase{"PaddingOnlyWindows", 1, 2, 2, 2, 3, 1, 1, {1, 1}, {2, 1, 1, 2}, {1, 1}, 1, true},
        // Large enough that the kernels split the batch into several im2col chunks.
        ConvCase{
            "SeveralImageChunks", 4, 64, 48, 48, 3, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, true}),
    [](const ::testing::TestParamInfo<ConvCase>& param) { return param.param.name; });

// --- shape inference errors -----------------------------------------------------------------

struct ErrorGraph {
  Graph graph{"errors"};
  TensorId f32(const std::string& name, const Shape& shape) {
    return graph.add_parameter(name, TensorRole::Input, DType::F32, shape);
  }
  TensorId i32(const std::string& name, const Shape& shape) {
    return graph.add_parameter(name, TensorRole::Input, DType::I32, shape);
  }
  std::string error(OpType type, const std::vector<TensorId>& inputs, const Attrs& attrs) {
    try {
      graph.add_op(type, "op", OpCategory::Forward, inputs, attrs);
    } catch (const UserError& e) {
      return e.what();
    }
    return "(no error)";
  }
};

const std::string kConv = "shape inference: op 'op' (conv2d): ";
const std::string kData = "shape inference: op 'op' (conv2d_bwd_data): ";
const std::string kWeight = "shape inference: op 'op' (conv2d_bwd_weight): ";

TEST(ConvShapeErrors, WrongRank) {
  ErrorGraph g;
  EXPECT_EQ(g.error(OpType::Conv2d, {g.f32("x", {1, 3, 5}), g.f32("w", {4, 3, 3, 3})}, {}),
            kConv + "input 'x' f32[1,3,5] must have rank 4");
  EXPECT_EQ(g.error(OpType::Conv2d, {g.f32("x2", {1, 3, 5, 5}), g.f32("w2", {4, 27})}, {}),
            kConv + "input 'w' f32[4,27] must have rank 4");
}

TEST(ConvShapeErrors, NotF32) {
  ErrorGraph g;
  EXPECT_EQ(g.error(OpType::Conv2d, {g.i32("x", {1, 3, 5, 5}), g.f32("w", {4, 3, 3, 3})}, {}),
            kConv + "input 'x' i32[1,3,5,5] must have a float element type (f32, bf16 or f16)");
  EXPECT_EQ(g.error(OpType::Conv2d,
                    {g.f32("x2", {1, 3, 5, 5}), g.f32("w2", {4, 3, 3, 3}), g.i32("b", {4})}, {}),
            kConv + "input 'bias' i32[4] must have a float element type (f32, bf16 or f16)");
}

TEST(ConvShapeErrors, ChannelMismatch) {
  ErrorGraph g;
  EXPECT_EQ(g.error(OpType::Conv2d, {g.f32("x", {1, 4, 5, 5}), g.f32("w", {6, 3, 3, 3})}, {}),
            kConv +
                "input 'w' f32[6,3,3,3] has 3 input channels per group, but input 'x' "
                "f32[1,4,5,5] with groups=1 has 4");
  EXPECT_EQ(g.error(OpType::Conv2d, {g.f32("x2", {1, 4, 5, 5}), g.f32("w2", {6, 4, 3, 3})},
                    {{"groups", int64_t{2}}}),
            kConv +
                "input 'w' f32[6,4,3,3] has 4 input channels per group, but input 'x' "
                "f32[1,4,5,5] with groups=2 has 2");
}

TEST(ConvShapeErrors, GroupsMustDivideChannels) {
  ErrorGraph g;
  EXPECT_EQ(g.error(OpType::Conv2d, {g.f32("x", {1, 3, 5, 5}), g.f32("w", {4, 1, 3, 3})},
                    {{"groups", int64_t{2}}}),
            kConv + "groups=2 does not divide the 3 channels of input 'x' f32[1,3,5,5]");
  EXPECT_EQ(g.error(OpType::Conv2d, {g.f32("x2", {1, 4, 5, 5}), g.f32("w2", {3, 2, 3, 3})},
                    {{"groups", int64_t{2}}}),
            kConv + "groups=2 does not divide the 3 output channels of input 'w' f32[3,2,3,3]");
}

TEST(ConvShapeErrors, BiasShape) {
  ErrorGraph g;
  EXPECT_EQ(g.error(OpType::Conv2d,
                    {g.f32("x", {1, 3, 5, 5}), g.f32("w", {4, 3, 3, 3}), g.f32("b", {5})}, {}),
            kConv + "input 'bias' is f32[5], expected f32[4]");
}

TEST(ConvShapeErrors, WindowLargerThanPaddedInput) {
  ErrorGraph g;
  EXPECT_EQ(g.error(OpType::Conv2d, {g.f32("x", {1, 3, 4, 4}), g.f32("w", {4, 3, 7, 7})},
                    {{"pads", Ints{1, 1, 1, 1}}}),
            kConv +
                "the 7x7 window (dilation 1x1, extent 7x7) is larger than input 'x' "
                "f32[1,3,4,4] padded to 6x6 (pads [1,1,1,1])");
  EXPECT_EQ(g.error(OpType::Conv2d, {g.f32("x2", {1, 3, 6, 9}), g.f32("w2", {4, 3, 3, 3})},
                    {{"dilation", Ints{3, 1}}, {"pads", Ints{0, 0, 0, 0}}}),
            kConv +
                "the 3x3 window (dilation 3x1, extent 7x3) is larger than input 'x' "
                "f32[1,3,6,9] padded to 6x9 (pads [0,0,0,0])");
}

TEST(ConvShapeErrors, BadAttributes) {
  ErrorGraph g;
  const TensorId x = g.f32("x", {1, 3, 5, 5}), w = g.f32("w", {4, 3, 3, 3});
  EXPECT_EQ(g.error(OpType::Conv2d, {x, w}, {{"stride", Ints{0, 1}}}),
            kConv + "attribute 'stride' must be 2 integers >= 1 [sh,sw], got [0,1]");
  EXPECT_EQ(
      g.error(OpType::Conv2d, {x, w}, {{"pads", Ints{1, 1, 1}}}),
      kConv + "attribute 'pads' must be 4 integers >= 0 [top,left,bottom,right], got [1,1,1]");
  EXPECT_EQ(g.error(OpType::Conv2d, {x, w}, {{"dilation", Ints{1, 0}}}),
            kConv + "attribute 'dilation' must be 2 integers >= 1 [dh,dw], got [1,0]");
  EXPECT_EQ(g.error(OpType::Conv2d, {x, w}, {{"groups", int64_t{0}}}),
            kConv + "attribute 'groups' must be at least 1, got 0");
}

TEST(ConvShapeErrors, BwdData) {
  ErrorGraph g;
  const TensorId w = g.f32("w", {4, 3, 3, 3});
  EXPECT_EQ(g.error(OpType::Conv2dBwdData, {g.f32("dy", {1, 4, 3, 3}), w},
                    {{"input_hw", Ints{5, 5}}, {"pads", Ints{1, 1, 1, 1}}}),
            kData +
                "input 'dy' f32[1,4,3,3] does not match the 5x5 output plane of the "
                "convolution of the input_hw [5,5] input");
  EXPECT_EQ(
      g.error(OpType::Conv2dBwdData, {g.f32("dy2", {1, 5, 3, 3}), w}, {{"input_hw", Ints{5, 5}}}),
      kData +
          "input 'dy' f32[1,5,3,3] has 5 channels, but input 'w' f32[4,3,3,3] has 4 "
          "output channels");
  EXPECT_EQ(
      g.error(OpType::Conv2dBwdData, {g.f32("dy3", {1, 4, 3, 3}), w}, {{"input_hw", Ints{5}}}),
      kData + "attribute 'input_hw' must be 2 integers >= 1 [H,W], got [5]");
  EXPECT_EQ(
      g.error(OpType::Conv2dBwdData, {g.f32("dy4", {1, 4, 1, 1}), w}, {{"input_hw", Ints{2, 2}}}),
      kData +
          "the 3x3 window (dilation 1x1, extent 3x3) is larger than the input_hw [2,2] "
          "input padded to 2x2 (pads [0,0,0,0])");
  // Without input_hw the op cannot know H: a bug in whoever built it, not a user error.
  EXPECT_THROW(g.graph.add_op(OpType::Conv2dBwdData, "no_hw", OpCategory::ActivationGrad,
                              {g.f32("dy5", {1, 4, 3, 3}), w}),
               InternalError);
}

TEST(ConvShapeErrors, BwdWeight) {
  ErrorGraph g;
  const TensorId x = g.f32("x", {2, 3, 5, 5});
  EXPECT_EQ(
      g.error(OpType::Conv2dBwdWeight, {x, g.f32("dy", {1, 4, 3, 3})}, {{"kernel_hw", Ints{3, 3}}}),
      kWeight + "input 'dy' f32[1,4,3,3] has batch 1, but input 'x' f32[2,3,5,5] has batch 2");
  EXPECT_EQ(g.error(OpType::Conv2dBwdWeight, {x, g.f32("dy2", {2, 4, 5, 5})},
                    {{"kernel_hw", Ints{3, 3}}}),
            kWeight +
                "input 'dy' f32[2,4,5,5] does not match the 3x3 output plane of the "
                "convolution of input 'x' f32[2,3,5,5]");
  EXPECT_EQ(g.error(OpType::Conv2dBwdWeight, {x, g.f32("dy3", {2, 3, 3, 3})},
                    {{"kernel_hw", Ints{3, 3}}, {"groups", int64_t{3}}, {"stride", Ints{1, 1}}}),
            "(no error)");
  EXPECT_EQ(g.error(OpType::Conv2dBwdWeight, {x, g.f32("dy4", {2, 4, 3, 3})},
                    {{"kernel_hw", Ints{3, 3}}, {"groups", int64_t{3}}}),
            kWeight + "groups=3 does not divide the 4 channels of input 'dy' f32[2,4,3,3]");
}

TEST(ConvShapeErrors, EpilogueOperandsAndAct) {
  ErrorGraph g;
  const TensorId x = g.f32("x", {1, 3, 5, 5}), w = g.f32("w", {4, 3, 3, 3});
  EXPECT_EQ(g.error(OpType::Conv2d, {x, w, TensorId(), g.f32("r", {1, 4, 5, 5})}, {}),
            kConv + "input 'residual' is f32[1,4,5,5], expected f32[1,4,3,3]");
  EXPECT_EQ(g.error(OpType::Conv2d, {x, w}, {{"act", std::string("tanh")}}),
            kConv +
                "attribute 'act' must be \"none\", \"relu\", \"relu6\", \"sigmoid\", \"silu\", "
                "\"hardswish\", \"hardsigmoid\", \"gelu\" or \"gelu_tanh\", not \"tanh\"");
  const TensorId dy = g.f32("dy", {1, 4, 3, 3});
  const Attrs hw{{"input_hw", Ints{5, 5}}};
  EXPECT_EQ(
      g.error(OpType::Conv2dBwdData, {dy, w, g.i32("r2", {1, 3, 5, 5})}, hw),
      kData + "input 'residual' i32[1,3,5,5] must have a float element type (f32, bf16 or f16)");
  EXPECT_EQ(g.error(OpType::Conv2dBwdData, {dy, w, TensorId(), g.f32("gate", {1, 3, 5, 4})}, hw),
            kData + "input 'gate' is f32[1,3,5,4], expected f32[1,3,5,5]");
  EXPECT_EQ(
      g.error(OpType::Conv2dBwdWeight, {g.f32("x2", {1, 3, 5, 5}), dy, g.f32("r3", {4, 3, 3})},
              {{"kernel_hw", Ints{3, 3}}}),
      kWeight + "input 'residual' is f32[4,3,3], expected f32[4,3,3,3]");
}

// --- the epilogue ---------------------------------------------------------------------------

// Each op with its epilogue inputs against the same op without them followed by the
// epilogue written out in the ISA's order, each step rounded to f32: bit for bit.
TEST(ConvEpilogue, IsTheIsaOrderRoundedLikeSeparateOps) {
  Graph g("epilogue");
  auto input = [&](const std::string& name, const Shape& shape, uint32_t seed) {
    return g.add_parameter(name, TensorRole::Input, DType::F32, shape,
                           std::make_shared<HostArray>(random_values(shape_numel(shape), seed)));
  };
  const TensorId x = input("x", {2, 3, 6, 6}, 1), w = input("w", {4, 3, 3, 3}, 2);
  const TensorId b = input("b", {4}, 3), r = input("r", {2, 4, 3, 3}, 4);
  const Attrs fwd{{"stride", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}};
  const TensorId plain = g.add(OpType::Conv2d, "plain", OpCategory::Forward, {x, w, b}, fwd);
  Attrs relu = fwd;
  relu.set("act", std::string("relu"));
  const TensorId fused = g.add(OpType::Conv2d, "fused", OpCategory::Forward, {x, w, b, r}, relu);
  Attrs data_attrs = fwd, weight_attrs = fwd;
  data_attrs.set("input_hw", Ints{6, 6});
  weight_attrs.set("kernel_hw", Ints{3, 3});
  const TensorId rx = input("rx", {2, 3, 6, 6}, 5), gate = input("gate", {2, 3, 6, 6}, 6);
  const TensorId dx0 =
      g.add(OpType::Conv2dBwdData, "dx0", OpCategory::ActivationGrad, {r, w}, data_attrs);
  const TensorId dx =
      g.add(OpType::Conv2dBwdData, "dx", OpCategory::ActivationGrad, {r, w, rx, gate}, data_attrs);
  const TensorId rw = input("rw", {4, 3, 3, 3}, 7);
  const TensorId dw0 =
      g.add(OpType::Conv2dBwdWeight, "dw0", OpCategory::WeightGrad, {x, r}, weight_attrs);
  const TensorId dw =
      g.add(OpType::Conv2dBwdWeight, "dw", OpCategory::WeightGrad, {x, r, rw}, weight_attrs);
  Interpreter it(g);
  it.run();
  auto values = [&](TensorId t) { return it.value(t).f32(); };
  auto expect_bits = [](const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
  };
  std::vector<float> want = values(plain);
  const std::vector<float> res = values(r);
  for (size_t i = 0; i < want.size(); ++i) {
    const float sum = want[i] + res[i];
    want[i] = sum > 0.0f ? sum : 0.0f;
  }
  expect_bits(values(fused), want);
  want = values(dx0);
  const std::vector<float> rxv = values(rx), gv = values(gate);
  size_t masked = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    want[i] = gv[i] > 0.0f ? want[i] + rxv[i] : 0.0f;
    masked += gv[i] > 0.0f ? 0u : 1u;
  }
  EXPECT_GT(masked, 0u);
  expect_bits(values(dx), want);
  want = values(dw0);
  const std::vector<float> rwv = values(rw);
  for (size_t i = 0; i < want.size(); ++i)
    want[i] = want[i] + rwv[i];
  expect_bits(values(dw), want);
}

// --- the backward rule ----------------------------------------------------------------------

struct BackwardSetup {
  Graph graph{"bwd"};
  TensorId x, w, b, y, dy;
  BackwardSetup(bool with_bias, TensorRole x_role) {
    x = graph.add_parameter("x", x_role, DType::F32, {2, 4, 9, 7});
    w = graph.add_parameter("w", TensorRole::Weight, DType::F32, {6, 2, 3, 3});
    std::vector<TensorId> in = {x, w};
    if (with_bias) in.push_back(b = graph.add_parameter("b", TensorRole::Weight, DType::F32, {6}));
    y = graph.add(OpType::Conv2d, "conv", OpCategory::Forward, in,
                  {{"stride", Ints{2, 2}}, {"pads", Ints{1, 0, 0, 1}}, {"groups", int64_t{2}}});
    dy = graph.add_parameter("dy", TensorRole::Gradient, DType::F32, graph.tensor(y).shape);
  }
  const Op& op(const std::string& name) { return graph.op(graph.find_op(name)); }
};

TEST(ConvBackwardRule, EmitsAllThreeGradients) {
  BackwardSetup s(true, TensorRole::Activation);
  BackwardContext ctx(s.graph, s.op("conv"), {s.dy}, {true, true, true});
  op_schema(OpType::Conv2d).backward(ctx);
  ASSERT_EQ(ctx.input_grads()[0].size(), 1u);
  ASSERT_EQ(ctx.input_grads()[1].size(), 1u);
  ASSERT_EQ(ctx.input_grads()[2].size(), 1u);

  const Op& data = s.op("conv.bwd_data");
  EXPECT_EQ(data.type, OpType::Conv2dBwdData);
  EXPECT_EQ(data.category, OpCategory::ActivationGrad);
  EXPECT_EQ(data.inputs, (std::vector<TensorId>{s.dy, s.w, TensorId(), TensorId()}));
  EXPECT_EQ(data.attrs.text(),
            "dilation=[1,1] gate_act=\"relu\" groups=2 input_hw=[9,7] pads=[1,0,0,1] stride=[2,2]");
  EXPECT_EQ(s.graph.tensor(ctx.input_grads()[0][0]).shape, (Shape{2, 4, 9, 7}));

  const Op& weight = s.op("conv.bwd_weight");
  EXPECT_EQ(weight.type, OpType::Conv2dBwdWeight);
  EXPECT_EQ(weight.category, OpCategory::WeightGrad);
  EXPECT_EQ(weight.inputs, (std::vector<TensorId>{s.x, s.dy, TensorId()}));
  EXPECT_EQ(weight.attrs.text(),
            "dilation=[1,1] groups=2 kernel_hw=[3,3] pads=[1,0,0,1] stride=[2,2]");
  EXPECT_EQ(s.graph.tensor(ctx.input_grads()[1][0]).shape, (Shape{6, 2, 3, 3}));

  const Op& bias = s.op("conv.bwd_bias");
  EXPECT_EQ(bias.type, OpType::ReduceSum);
  EXPECT_EQ(bias.category, OpCategory::WeightGrad);
  EXPECT_EQ(bias.inputs, (std::vector<TensorId>{s.dy}));
  EXPECT_EQ(bias.attrs.ints("axes"), (Ints{0, 2, 3}));
  EXPECT_EQ(s.graph.tensor(ctx.input_grads()[2][0]).shape, (Shape{6}));
}

TEST(ConvBackwardRule, EmitsOnlyWhatIsNeeded) {
  BackwardSetup s(true, TensorRole::Input);
  BackwardContext ctx(s.graph, s.op("conv"), {s.dy}, {false, true, false});
  op_schema(OpType::Conv2d).backward(ctx);
  EXPECT_TRUE(ctx.input_grads()[0].empty());
  EXPECT_EQ(ctx.input_grads()[1].size(), 1u);
  EXPECT_TRUE(ctx.input_grads()[2].empty());
  EXPECT_FALSE(s.graph.find_op("conv.bwd_data").valid());
  EXPECT_FALSE(s.graph.find_op("conv.bwd_bias").valid());
}

TEST(ConvBackwardRule, NoBiasNoUpstreamGradient) {
  BackwardSetup s(false, TensorRole::Activation);
  const size_t ops = s.graph.num_ops();
  BackwardContext none(s.graph, s.op("conv"), {TensorId()}, {true, true, false});
  op_schema(OpType::Conv2d).backward(none);
  EXPECT_EQ(s.graph.num_ops(), ops);
  BackwardContext ctx(s.graph, s.op("conv"), {s.dy}, {true, true, false});
  op_schema(OpType::Conv2d).backward(ctx);
  EXPECT_EQ(s.graph.num_ops(), ops + 2);
  EXPECT_TRUE(ctx.input_grads()[2].empty());
}

// The residual is added after the convolution: its gradient is dy itself. An activation in
// the epilogue would need relu's backward first; autodiff runs before fusion, so asking is
// an error.
TEST(ConvBackwardRule, ResidualGetsDyAndActIsRefused) {
  BackwardSetup s(false, TensorRole::Activation);
  const TensorId r =
      s.graph.add_parameter("r", TensorRole::Activation, DType::F32, s.graph.tensor(s.y).shape);
  s.graph.add(OpType::Conv2d, "res", OpCategory::Forward, {s.x, s.w, TensorId(), r},
              s.op("conv").attrs);
  BackwardContext ctx(s.graph, s.op("res"), {s.dy}, {true, true, false, true});
  op_schema(OpType::Conv2d).backward(ctx);
  EXPECT_EQ(ctx.input_grads()[3], (std::vector<TensorId>{s.dy}));
  EXPECT_EQ(s.graph.tensor(ctx.input_grads()[0].at(0)).shape, s.graph.tensor(s.x).shape);
  EXPECT_FALSE(s.op("res.bwd_data").attrs.has("act"));

  Attrs relu = s.op("conv").attrs;
  relu.set("act", std::string("relu"));
  s.graph.add(OpType::Conv2d, "fused", OpCategory::Forward, {s.x, s.w, TensorId(), r}, relu);
  BackwardContext fused(s.graph, s.op("fused"), {s.dy}, {true, true, false, true});
  EXPECT_EQ(user_error([&] { op_schema(OpType::Conv2d).backward(fused); }),
            "autodiff: op 'fused' (conv2d) has a fused epilogue (act=relu) and cannot be "
            "differentiated; differentiate the graph before fusion");
}

TEST(ConvSchemas, FusionClassAndNoSecondOrderRules) {
  EXPECT_EQ(op_schema(OpType::Conv2d).fusion, FusionClass::Pe);
  EXPECT_EQ(op_schema(OpType::Conv2dBwdData).fusion, FusionClass::Pe);
  EXPECT_EQ(op_schema(OpType::Conv2dBwdWeight).fusion, FusionClass::Pe);
  EXPECT_EQ(op_schema(OpType::Conv2dBwdData).backward, nullptr);
  EXPECT_EQ(op_schema(OpType::Conv2dBwdWeight).backward, nullptr);
  for (OpType t : {OpType::Conv2d, OpType::Conv2dBwdData, OpType::Conv2dBwdWeight})
    EXPECT_FALSE(op_schema(t).doc.empty());
}

// --- gradient checks ------------------------------------------------------------------------

testing::GradCheckSpec conv_spec(const Shape& x, const Shape& w, bool bias, const Attrs& attrs) {
  testing::GradCheckSpec spec;
  spec.type = OpType::Conv2d;
  spec.attrs = attrs;
  testing::GradInput in_x, in_w, in_b;
  in_x.shape = x;
  in_w.shape = w;
  in_w.role = TensorRole::Weight;
  in_b.shape = {w[0]};
  in_b.role = TensorRole::Weight;
  in_b.absent = !bias;
  spec.inputs = {in_x, in_w, in_b};
  return spec;
}

void expect_grad_ok(const testing::GradCheckSpec& spec) {
  const testing::GradCheckResult r = grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    if (!spec.inputs[i].absent) {
      EXPECT_GE(r.error[i], 0.0) << "input " << i << " not checked";
    }
}

TEST(ConvGradCheck, Basic3x3WithBias) {
  expect_grad_ok(conv_spec({2, 3, 5, 5}, {4, 3, 3, 3}, true, {{"pads", Ints{1, 1, 1, 1}}}));
}

TEST(ConvGradCheck, Stride2OddInputLastRowAndColumnUncovered) {
  // 2x2 windows at stride 2 over 7x7: row 6 and column 6 get no gradient.
  expect_grad_ok(conv_spec({2, 2, 7, 7}, {3, 2, 2, 2}, true, {{"stride", Ints{2, 2}}}));
  expect_grad_ok(conv_spec({1, 2, 8, 6}, {3, 2, 3, 3}, false, {{"stride", Ints{2, 2}}}));
}

TEST(ConvGradCheck, PaddingOnOneSideOnly) {
  expect_grad_ok(conv_spec({1, 2, 6, 5}, {3, 2, 3, 3}, true,
                           {{"stride", Ints{2, 1}}, {"pads", Ints{0, 2, 1, 0}}}));
  expect_grad_ok(conv_spec({2, 2, 5, 6}, {2, 2, 3, 2}, false, {{"pads", Ints{1, 0, 0, 1}}}));
}

TEST(ConvGradCheck, DilationAndGroups) {
  expect_grad_ok(
      conv_spec({1, 4, 7, 7}, {4, 2, 3, 3}, true,
                {{"dilation", Ints{2, 2}}, {"pads", Ints{2, 1, 2, 1}}, {"groups", int64_t{2}}}));
}

TEST(ConvGradCheck, Depthwise) {
  expect_grad_ok(
      conv_spec({2, 3, 6, 6}, {3, 1, 3, 3}, true,
                {{"stride", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"groups", int64_t{3}}}));
}

TEST(ConvGradCheck, WithResidual) {
  testing::GradCheckSpec spec =
      conv_spec({2, 3, 5, 5}, {4, 3, 3, 3}, true, {{"pads", Ints{1, 1, 1, 1}}});
  testing::GradInput residual;
  residual.shape = {2, 4, 5, 5};
  spec.inputs.push_back(residual);
  expect_grad_ok(spec);
}

TEST(ConvGradCheck, Stem7x7AndOneByOne) {
  expect_grad_ok(conv_spec({1, 2, 9, 9}, {2, 2, 7, 7}, false,
                           {{"stride", Ints{2, 2}}, {"pads", Ints{3, 3, 3, 3}}}));
  expect_grad_ok(conv_spec({2, 4, 5, 5}, {3, 4, 1, 1}, true, {{"stride", Ints{2, 2}}}));
}

}  // namespace
}  // namespace s2::ir
