// The pooling family (compiler/ops/pool.cpp): max_pool2d and avg_pool2d forward values and
// indices, and their gradients' values, against naive formulas; values computed by PyTorch;
// shape-inference errors; the backward rules; gradient checks.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ops/registry.h"
#include "gradcheck.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

using Ints = std::vector<int64_t>;

size_t at(int64_t i) {
  return static_cast<size_t>(i);
}

std::vector<float> random_values(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(at(n));
  for (float& x : v)
    x = dist(rng);
  return v;
}

// n distinct values 0.05 apart in random order: no two within a finite-difference step, so
// the argmax of every window is stable under perturbation.
std::vector<float> distinct_values(int64_t n, uint32_t seed) {
  std::vector<float> v(at(n));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = 0.05f * static_cast<float>(i) - 1.0f;
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  return v;
}

struct PoolCase {
  std::string name;
  int64_t n, c, h, w;
  Ints kernel, stride, pads;
  bool ceil_mode;

  // Output extent along one axis by PyTorch's formula, written out here independently.
  static int64_t extent(int64_t in, int64_t before, int64_t after, int64_t k, int64_t s,
                        bool ceil) {
    const int64_t span = in + before + after - k;
    int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
    if (ceil && (out - 1) * s >= in + before) --out;
    return out;
  }
  int64_t p() const { return extent(h, pads[0], pads[2], kernel[0], stride[0], ceil_mode); }
  int64_t q() const { return extent(w, pads[1], pads[3], kernel[1], stride[1], ceil_mode); }
  Attrs attrs() const {
    return {
        {"kernel", kernel}, {"stride", stride}, {"pads", pads}, {"ceil_mode", int64_t{ceil_mode}}};
  }
  Shape x_shape() const { return {n, c, h, w}; }
  Shape y_shape() const { return {n, c, p(), q()}; }
  // Calls fn(plane, o, ih, iw) for every position (ih, iw) of the window of output o
  // (row-major in its plane) that lies in the input extended by its padding, in row-major
  // window order.
  template <typename Fn>
  void for_each_window_position(Fn fn) const {
    for (int64_t plane = 0; plane < n * c; ++plane)
      for (int64_t ip = 0; ip < p(); ++ip)
        for (int64_t iq = 0; iq < q(); ++iq)
          for (int64_t i = 0; i < kernel[0]; ++i)
            for (int64_t j = 0; j < kernel[1]; ++j) {
              const int64_t ih = ip * stride[0] - pads[0] + i, iw = iq * stride[1] - pads[1] + j;
              if (ih >= -pads[0] && ih < h + pads[2] && iw >= -pads[1] && iw < w + pads[3])
                fn(plane, ip * q() + iq, ih, iw);
            }
  }
  bool inside(int64_t ih, int64_t iw) const { return ih >= 0 && ih < h && iw >= 0 && iw < w; }
};

std::ostream& operator<<(std::ostream& os, const PoolCase& c) {
  return os << c.name;
}

const std::vector<PoolCase> kCases = {
    {"ResNetStem3x3S2P1", 2, 3, 16, 16, {3, 3}, {2, 2}, {1, 1, 1, 1}, false},
    {"ResNetStemOddInput", 1, 2, 7, 9, {3, 3}, {2, 2}, {1, 1, 1, 1}, false},
    {"Stride2OddInputLastRowUncovered", 2, 2, 7, 5, {2, 2}, {2, 2}, {0, 0, 0, 0}, false},
    {"CeilModePartialWindow", 2, 2, 7, 5, {2, 2}, {2, 2}, {0, 0, 0, 0}, true},
    {"CeilModeWithPadding", 1, 2, 6, 6, {3, 3}, {2, 2}, {1, 1, 1, 1}, true},
    {"CeilModeDropsWindowInPadding", 1, 1, 5, 5, {2, 2}, {2, 2}, {1, 1, 1, 1}, true},
    {"PaddingOnOneSideOnly", 2, 2, 6, 5, {3, 3}, {2, 2}, {1, 0, 0, 1}, false},
    {"AsymmetricPadsCeil", 1, 3, 7, 6, {3, 2}, {2, 2}, {0, 1, 1, 0}, true},
    {"OverlappingStride1", 1, 2, 5, 6, {3, 3}, {1, 1}, {1, 1, 1, 1}, false},
    {"RectangularKernel", 2, 1, 6, 9, {2, 3}, {1, 2}, {1, 1, 0, 1}, false},
    {"Global", 2, 3, 7, 5, {7, 5}, {7, 5}, {0, 0, 0, 0}, false},
    {"Global1x1", 2, 3, 1, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, false},
};

struct OneOp {
  Graph graph{"test"};
  std::vector<TensorId> outputs;
  TensorId f32(const std::string& name, const Shape& shape, std::vector<float> v) {
    return graph.add_parameter(name, TensorRole::Activation, DType::F32, shape,
                               std::make_shared<HostArray>(std::move(v)));
  }
  TensorId i32(const std::string& name, const Shape& shape, std::vector<int32_t> v) {
    return graph.add_parameter(name, TensorRole::Activation, DType::I32, shape,
                               std::make_shared<HostArray>(std::move(v)));
  }
};

struct MaxResult {
  std::vector<float> y;
  std::vector<int32_t> indices;
};

MaxResult run_max(const PoolCase& pc, const std::vector<float>& x) {
  OneOp t;
  t.outputs = t.graph.add_op(OpType::MaxPool2d, "pool", OpCategory::Forward,
                             {t.f32("x", pc.x_shape(), x)}, pc.attrs());
  EXPECT_EQ(t.graph.tensor(t.outputs[0]).shape, pc.y_shape());
  EXPECT_EQ(t.graph.tensor(t.outputs[1]).shape, pc.y_shape());
  EXPECT_EQ(t.graph.tensor(t.outputs[1]).dtype, DType::I32);
  Interpreter it(t.graph);
  it.run();
  return {it.value(t.outputs[0]).f32(), it.value(t.outputs[1]).i32()};
}

std::vector<float> run_max_bwd(const PoolCase& pc, const std::vector<float>& dy,
                               const std::vector<int32_t>& indices) {
  OneOp t;
  Attrs attrs = pc.attrs();
  attrs.set("input_hw", Ints{pc.h, pc.w});
  t.outputs =
      t.graph.add_op(OpType::MaxPool2dBwd, "dx", OpCategory::ActivationGrad,
                     {t.f32("dy", pc.y_shape(), dy), t.i32("i", pc.y_shape(), indices)}, attrs);
  EXPECT_EQ(t.graph.tensor(t.outputs[0]).shape, pc.x_shape());
  Interpreter it(t.graph);
  it.run();
  return it.value(t.outputs[0]).f32();
}

std::vector<float> run_avg(const PoolCase& pc, bool include_pad, const std::vector<float>& x,
                           bool backward) {
  OneOp t;
  Attrs attrs = pc.attrs();
  attrs.set("count_include_pad", int64_t{include_pad});
  if (backward) {
    attrs.set("input_hw", Ints{pc.h, pc.w});
    t.outputs = t.graph.add_op(OpType::AvgPool2dBwd, "dx", OpCategory::ActivationGrad,
                               {t.f32("dy", pc.y_shape(), x)}, attrs);
    EXPECT_EQ(t.graph.tensor(t.outputs[0]).shape, pc.x_shape());
  } else {
    t.outputs = t.graph.add_op(OpType::AvgPool2d, "pool", OpCategory::Forward,
                               {t.f32("x", pc.x_shape(), x)}, attrs);
    EXPECT_EQ(t.graph.tensor(t.outputs[0]).shape, pc.y_shape());
  }
  Interpreter it(t.graph);
  it.run();
  return it.value(t.outputs[0]).f32();
}

void expect_near_all(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(static_cast<double>(got[i]), want[i], 1e-5 * (1.0 + std::abs(want[i])))
        << "element " << i;
}

// --- max pooling ----------------------------------------------------------------------------

class MaxPoolValues : public ::testing::TestWithParam<PoolCase> {};

TEST_P(MaxPoolValues, ForwardAndIndicesMatchNaiveFormula) {
  const PoolCase& pc = GetParam();
  const std::vector<float> x = random_values(shape_numel(pc.x_shape()), 7);
  const int64_t outputs = shape_numel(pc.y_shape()), plane_out = pc.p() * pc.q();
  std::vector<float> want(at(outputs), 0.0f);
  std::vector<int32_t> want_index(at(outputs), -1);
  pc.for_each_window_position([&](int64_t plane, int64_t o, int64_t ih, int64_t iw) {
    if (!pc.inside(ih, iw)) return;  // padding never wins
    const size_t k = at(plane * plane_out + o);
    const float v = x[at((plane * pc.h + ih) * pc.w + iw)];
    if (want_index[k] < 0 || v > want[k]) {
      want[k] = v;
      want_index[k] = static_cast<int32_t>(ih * pc.w + iw);
    }
  });
  const MaxResult got = run_max(pc, x);
  EXPECT_EQ(got.y, want);
  EXPECT_EQ(got.indices, want_index);
}

TEST_P(MaxPoolValues, BackwardScattersIntoTheArgmax) {
  const PoolCase& pc = GetParam();
  const std::vector<float> x = random_values(shape_numel(pc.x_shape()), 8);
  const std::vector<float> dy = random_values(shape_numel(pc.y_shape()), 9);
  const MaxResult fwd = run_max(pc, x);
  std::vector<double> want(x.size(), 0.0);
  const int64_t plane_out = pc.p() * pc.q();
  for (size_t k = 0; k < dy.size(); ++k)
    want[at(static_cast<int64_t>(k) / plane_out * pc.h * pc.w + fwd.indices[k])] +=
        static_cast<double>(dy[k]);
  expect_near_all(run_max_bwd(pc, dy, fwd.indices), want);
}

INSTANTIATE_TEST_SUITE_P(Pool, MaxPoolValues, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<PoolCase>& param) {
                           return param.param.name;
                         });

TEST(MaxPool, TiesPickTheFirstInRowMajorWindowOrder) {
  // All zeros: every window's first element inside the input wins (PyTorch gives the same).
  const PoolCase pc{"zeros", 1, 1, 4, 4, {3, 3}, {2, 2}, {1, 1, 1, 1}, false};
  const MaxResult r = run_max(pc, std::vector<float>(16, 0.0f));
  EXPECT_EQ(r.indices, (std::vector<int32_t>{0, 1, 4, 5}));
}

TEST(MaxPool, MatchesPyTorchValues) {
  // torch.nn.functional.max_pool2d(-arange(49).reshape(1,1,7,7), 3, 2, padding=1,
  // ceil_mode=True, return_indices=True)
  std::vector<float> x(49);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = -static_cast<float>(i);
  const PoolCase pc{"torch", 1, 1, 7, 7, {3, 3}, {2, 2}, {1, 1, 1, 1}, true};
  const MaxResult r = run_max(pc, x);
  EXPECT_EQ(r.indices,
            (std::vector<int32_t>{0, 1, 3, 5, 7, 8, 10, 12, 21, 22, 24, 26, 35, 36, 38, 40}));
  for (size_t k = 0; k < r.y.size(); ++k)
    EXPECT_EQ(r.y[k], -static_cast<float>(r.indices[k]));
}

TEST(MaxPool, NaNWins) {
  const PoolCase pc{"nan", 1, 1, 2, 2, {2, 2}, {2, 2}, {0, 0, 0, 0}, false};
  const MaxResult r = run_max(pc, {1.0f, std::nanf(""), 3.0f, 2.0f});
  EXPECT_TRUE(std::isnan(r.y[0]));
  EXPECT_EQ(r.indices[0], 1);
}

// --- average pooling ------------------------------------------------------------------------

class AvgPoolValues : public ::testing::TestWithParam<std::tuple<PoolCase, bool>> {};

// divisor: window positions inside input + padding (count_include_pad) or inside the input.
std::vector<double> naive_divisors(const PoolCase& pc, bool include_pad) {
  std::vector<double> d(at(shape_numel(pc.y_shape())), 0.0);
  const int64_t plane_out = pc.p() * pc.q();
  pc.for_each_window_position([&](int64_t plane, int64_t o, int64_t ih, int64_t iw) {
    if (include_pad || pc.inside(ih, iw)) d[at(plane * plane_out + o)] += 1.0;
  });
  return d;
}

TEST_P(AvgPoolValues, ForwardMatchesNaiveFormula) {
  const auto& [pc, include_pad] = GetParam();
  const std::vector<float> x = random_values(shape_numel(pc.x_shape()), 10);
  const std::vector<double> divisor = naive_divisors(pc, include_pad);
  std::vector<double> want(divisor.size(), 0.0);
  const int64_t plane_out = pc.p() * pc.q();
  pc.for_each_window_position([&](int64_t plane, int64_t o, int64_t ih, int64_t iw) {
    if (pc.inside(ih, iw))
      want[at(plane * plane_out + o)] +=
          static_cast<double>(x[at((plane * pc.h + ih) * pc.w + iw)]);
  });
  for (size_t k = 0; k < want.size(); ++k)
    want[k] /= divisor[k];
  expect_near_all(run_avg(pc, include_pad, x, false), want);
}

TEST_P(AvgPoolValues, BackwardMatchesNaiveFormula) {
  const auto& [pc, include_pad] = GetParam();
  const std::vector<float> dy = random_values(shape_numel(pc.y_shape()), 11);
  const std::vector<double> divisor = naive_divisors(pc, include_pad);
  std::vector<double> want(at(shape_numel(pc.x_shape())), 0.0);
  const int64_t plane_out = pc.p() * pc.q();
  pc.for_each_window_position([&](int64_t plane, int64_t o, int64_t ih, int64_t iw) {
    const size_t k = at(plane * plane_out + o);
    if (pc.inside(ih, iw))
      want[at((plane * pc.h + ih) * pc.w + iw)] += static_cast<double>(dy[k]) / divisor[k];
  });
  expect_near_all(run_avg(pc, include_pad, dy, true), want);
}

INSTANTIATE_TEST_SUITE_P(Pool, AvgPoolValues,
                         ::testing::Combine(::testing::ValuesIn(kCases), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<PoolCase, bool>>& param) {
                           return std::get<0>(param.param).name +
                                  (std::get<1>(param.param) ? "_IncludePad" : "_ExcludePad");
                         });

TEST(AvgPool, MatchesPyTorchValues) {
  // torch.nn.functional.avg_pool2d(arange(25).reshape(1,1,5,5), 2, 2, padding=1,
  // ceil_mode=True, count_include_pad=...)
  std::vector<float> x(25);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i);
  const PoolCase pc{"torch", 1, 1, 5, 5, {2, 2}, {2, 2}, {1, 1, 1, 1}, true};
  EXPECT_EQ(run_avg(pc, true, x, false),
            (std::vector<float>{0.0f, 0.75f, 1.75f, 3.75f, 9.0f, 11.0f, 8.75f, 19.0f, 21.0f}));
  EXPECT_EQ(run_avg(pc, false, x, false),
            (std::vector<float>{0.0f, 1.5f, 3.5f, 7.5f, 9.0f, 11.0f, 17.5f, 19.0f, 21.0f}));
  // avg_pool2d(ones(1,1,6,6), 3, 2, padding=1, ceil_mode=True): the last window is clipped to
  // input + padding, so its divisor is 6, not 9.
  const PoolCase ones{"torch_ones", 1, 1, 6, 6, {3, 3}, {2, 2}, {1, 1, 1, 1}, true};
  const std::vector<float> y = run_avg(ones, true, std::vector<float>(36, 1.0f), false);
  const std::vector<float> row0 = {4.0f / 9.0f, 6.0f / 9.0f, 6.0f / 9.0f, 2.0f / 6.0f};
  const std::vector<float> row3 = {2.0f / 6.0f, 3.0f / 6.0f, 3.0f / 6.0f, 1.0f / 4.0f};
  EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + 4), row0);
  EXPECT_EQ(std::vector<float>(y.begin() + 12, y.end()), row3);
}

// --- shape inference errors -----------------------------------------------------------------

struct ErrorGraph {
  Graph graph{"errors"};
  TensorId param(const std::string& name, DType dtype, const Shape& shape) {
    return graph.add_parameter(name, TensorRole::Activation, dtype, shape);
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

const Attrs k3s2{{"kernel", Ints{3, 3}}, {"stride", Ints{2, 2}}};

Attrs with(Attrs a, const std::string& name, AttrValue v) {
  a.set(name, std::move(v));
  return a;
}

TEST(PoolShapeErrors, RankAndType) {
  ErrorGraph g;
  EXPECT_EQ(g.error(OpType::MaxPool2d, {g.param("x", DType::F32, {1, 3, 5})}, k3s2),
            "shape inference: op 'op' (max_pool2d): input 'x' f32[1,3,5] must have rank 4");
  EXPECT_EQ(g.error(OpType::AvgPool2d, {g.param("x2", DType::I32, {1, 3, 5, 5})}, k3s2),
            "shape inference: op 'op' (avg_pool2d): input 'x' i32[1,3,5,5] must have a float "
            "element type (f32, bf16 or f16)");
}

TEST(PoolShapeErrors, BadAttributes) {
  ErrorGraph g;
  const TensorId x = g.param("x", DType::F32, {1, 3, 5, 5});
  const std::string max = "shape inference: op 'op' (max_pool2d): ";
  EXPECT_EQ(g.error(OpType::MaxPool2d, {x}, with(k3s2, "kernel", Ints{0, 2})),
            max + "attribute 'kernel' must be 2 integers >= 1 [kh,kw], got [0,2]");
  EXPECT_EQ(g.error(OpType::MaxPool2d, {x}, with(k3s2, "stride", Ints{2})),
            max + "attribute 'stride' must be 2 integers >= 1 [sh,sw], got [2]");
  EXPECT_EQ(
      g.error(OpType::MaxPool2d, {x}, with(k3s2, "pads", Ints{1, 1, -1, 1})),
      max + "attribute 'pads' must be 4 integers >= 0 [top,left,bottom,right], got [1,1,-1,1]");
  EXPECT_EQ(g.error(OpType::MaxPool2d, {x}, with(k3s2, "pads", Ints{0, 0, 2, 0})),
            max + "pads [0,0,2,0] must be at most half of the kernel [3,3] on every side");
  EXPECT_EQ(g.error(OpType::MaxPool2d, {x}, with(k3s2, "ceil_mode", int64_t{2})),
            max + "attribute 'ceil_mode' must be 0 or 1, got 2");
  EXPECT_EQ(g.error(OpType::AvgPool2d, {x}, with(k3s2, "count_include_pad", int64_t{-1})),
            "shape inference: op 'op' (avg_pool2d): attribute 'count_include_pad' must be 0 or 1, "
            "got -1");
  // kernel and stride have no default: leaving them out is a bug of the graph's builder.
  EXPECT_THROW(g.graph.add_op(OpType::MaxPool2d, "no_kernel", OpCategory::Forward, {x},
                              {{"stride", Ints{1, 1}}}),
               InternalError);
}

TEST(PoolShapeErrors, WindowLargerThanPaddedInput) {
  ErrorGraph g;
  EXPECT_EQ(g.error(OpType::AvgPool2d, {g.param("x", DType::F32, {1, 3, 4, 2})},
                    with(k3s2, "pads", Ints{1, 0, 1, 0})),
            "shape inference: op 'op' (avg_pool2d): the 3x3 window is larger than input 'x' "
            "f32[1,3,4,2] padded to 6x2 (pads [1,0,1,0])");
}

TEST(PoolShapeErrors, Backward) {
  ErrorGraph g;
  const Attrs a = with(k3s2, "input_hw", Ints{7, 7});
  const TensorId dy = g.param("dy", DType::F32, {1, 2, 3, 3});
  const std::string max = "shape inference: op 'op' (max_pool2d_bwd): ";
  EXPECT_EQ(g.error(OpType::MaxPool2dBwd, {dy, g.param("i", DType::F32, {1, 2, 3, 3})}, a),
            max + "input 'indices' f32[1,2,3,3] must have element type i32");
  EXPECT_EQ(g.error(OpType::MaxPool2dBwd, {dy, g.param("i2", DType::I32, {1, 2, 3, 2})}, a),
            max + "input 'indices' is i32[1,2,3,2], expected i32[1,2,3,3]");
  EXPECT_EQ(g.error(OpType::MaxPool2dBwd, {dy, g.param("i3", DType::I32, {1, 2, 3, 3})},
                    with(a, "input_hw", Ints{9, 9})),
            max +
                "input 'dy' f32[1,2,3,3] does not match the 4x4 output plane of pooling the "
                "input_hw [9,9] input");
  EXPECT_EQ(g.error(OpType::AvgPool2dBwd, {dy}, with(a, "input_hw", Ints{7, 0})),
            "shape inference: op 'op' (avg_pool2d_bwd): attribute 'input_hw' must be 2 integers "
            ">= 1 [H,W], got [7,0]");
  EXPECT_EQ(g.error(OpType::AvgPool2dBwd, {dy}, with(a, "input_hw", Ints{2, 7})),
            "shape inference: op 'op' (avg_pool2d_bwd): the 3x3 window is larger than the "
            "input_hw [2,7] input padded to 2x7 (pads [0,0,0,0])");
}

// --- backward rules -------------------------------------------------------------------------

TEST(PoolBackwardRule, MaxPoolUsesIndices) {
  Graph g("bwd");
  const TensorId x = g.add_parameter("x", TensorRole::Activation, DType::F32, {2, 3, 7, 7});
  const std::vector<TensorId> outs = g.add_op(OpType::MaxPool2d, "pool", OpCategory::Forward, {x},
                                              with(k3s2, "pads", Ints{1, 1, 1, 1}));
  const TensorId dy = g.add_parameter("dy", TensorRole::Gradient, DType::F32, {2, 3, 4, 4});
  const size_t ops = g.num_ops();
  BackwardContext none(g, g.op(g.find_op("pool")), {TensorId(), TensorId()}, {true});
  op_schema(OpType::MaxPool2d).backward(none);
  EXPECT_EQ(g.num_ops(), ops);

  BackwardContext ctx(g, g.op(g.find_op("pool")), {dy, TensorId()}, {true});
  op_schema(OpType::MaxPool2d).backward(ctx);
  ASSERT_EQ(ctx.input_grads()[0].size(), 1u);
  const Op& bwd = g.op(g.find_op("pool.bwd"));
  EXPECT_EQ(bwd.type, OpType::MaxPool2dBwd);
  EXPECT_EQ(bwd.category, OpCategory::ActivationGrad);
  EXPECT_EQ(bwd.inputs, (std::vector<TensorId>{dy, outs[1]}));
  EXPECT_EQ(bwd.attrs.text(),
            "ceil_mode=0 input_hw=[7,7] kernel=[3,3] pads=[1,1,1,1] stride=[2,2]");
  EXPECT_EQ(g.tensor(ctx.input_grads()[0][0]).shape, (Shape{2, 3, 7, 7}));
}

TEST(PoolBackwardRule, AvgPool) {
  Graph g("bwd");
  const TensorId x = g.add_parameter("x", TensorRole::Activation, DType::F32, {2, 3, 7, 5});
  g.add(OpType::AvgPool2d, "gap", OpCategory::Forward, {x},
        {{"kernel", Ints{7, 5}}, {"stride", Ints{7, 5}}, {"count_include_pad", int64_t{0}}});
  const TensorId dy = g.add_parameter("dy", TensorRole::Gradient, DType::F32, {2, 3, 1, 1});
  BackwardContext ctx(g, g.op(g.find_op("gap")), {dy}, {true});
  op_schema(OpType::AvgPool2d).backward(ctx);
  ASSERT_EQ(ctx.input_grads()[0].size(), 1u);
  const Op& bwd = g.op(g.find_op("gap.bwd"));
  EXPECT_EQ(bwd.type, OpType::AvgPool2dBwd);
  EXPECT_EQ(bwd.inputs, (std::vector<TensorId>{dy}));
  EXPECT_EQ(
      bwd.attrs.text(),
      "ceil_mode=0 count_include_pad=0 input_hw=[7,5] kernel=[7,5] pads=[0,0,0,0] stride=[7,5]");
  EXPECT_EQ(g.tensor(ctx.input_grads()[0][0]).shape, (Shape{2, 3, 7, 5}));
}

TEST(PoolSchemas, FusionClassAndDocs) {
  for (OpType t :
       {OpType::MaxPool2d, OpType::MaxPool2dBwd, OpType::AvgPool2d, OpType::AvgPool2dBwd}) {
    EXPECT_EQ(op_schema(t).fusion, FusionClass::Ppu);
    EXPECT_FALSE(op_schema(t).doc.empty());
  }
  EXPECT_EQ(op_schema(OpType::MaxPool2dBwd).backward, nullptr);
  EXPECT_EQ(op_schema(OpType::AvgPool2dBwd).backward, nullptr);
}

// --- gradient checks ------------------------------------------------------------------------

void expect_grad_ok(OpType type, const Shape& x, const Attrs& attrs) {
  testing::GradCheckSpec spec;
  spec.type = type;
  spec.attrs = attrs;
  testing::GradInput in;
  in.shape = x;
  if (type == OpType::MaxPool2d) in.values = distinct_values(shape_numel(x), 3);
  spec.inputs = {in};
  const testing::GradCheckResult r = grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
  EXPECT_GE(r.error.at(0), 0.0) << "not checked";
}

TEST(PoolGradCheck, MaxPool) {
  expect_grad_ok(OpType::MaxPool2d, {2, 2, 7, 7}, with(k3s2, "pads", Ints{1, 1, 1, 1}));
  // 2x2 at stride 2 over 7x7: the last row and column get no gradient...
  const Attrs k2s2{{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}};
  expect_grad_ok(OpType::MaxPool2d, {1, 2, 7, 7}, k2s2);
  // ...unless ceil_mode adds a partial window.
  expect_grad_ok(OpType::MaxPool2d, {1, 2, 7, 7}, with(k2s2, "ceil_mode", int64_t{1}));
  expect_grad_ok(OpType::MaxPool2d, {1, 2, 6, 5}, with(k3s2, "pads", Ints{1, 0, 0, 1}));
}

TEST(PoolGradCheck, AvgPool) {
  for (int64_t include_pad : {0, 1}) {
    const Attrs a = with(k3s2, "count_include_pad", include_pad);
    expect_grad_ok(OpType::AvgPool2d, {2, 2, 7, 7}, with(a, "pads", Ints{1, 1, 1, 1}));
    expect_grad_ok(OpType::AvgPool2d, {1, 2, 6, 5}, with(a, "pads", Ints{1, 0, 0, 1}));
    expect_grad_ok(OpType::AvgPool2d, {1, 2, 6, 6},
                   with(with(a, "pads", Ints{1, 1, 1, 1}), "ceil_mode", int64_t{1}));
  }
  const Attrs k2s2{{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}};
  expect_grad_ok(OpType::AvgPool2d, {1, 2, 7, 7}, k2s2);
  expect_grad_ok(OpType::AvgPool2d, {2, 3, 5, 4}, {{"kernel", Ints{5, 4}}, {"stride", Ints{5, 4}}});
}

}  // namespace
}  // namespace s2::ir
