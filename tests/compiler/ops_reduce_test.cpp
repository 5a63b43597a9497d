// reduce_sum: output shapes, values (bit-exact against the documented order: each output's
// inputs in row-major input order, summed by a pairwise tree; isa/numerics/reduce.h), strided
// inputs, and shape-inference errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "compiler/interp/interpreter.h"
#include "compiler/ops/registry.h"
#include "gradcheck.h"
#include "isa/common/errors.h"
#include "op_test_util.h"

namespace s2::ir {
namespace {

using Ints = std::vector<int64_t>;

std::vector<float> values(size_t n) {
  std::vector<float> v;
  for (size_t i = 0; i < n; ++i)
    v.push_back(std::sin(1.3f * static_cast<float>(i)) * 10.0f);
  return v;
}

// The reference: gather each output element's inputs in row-major order (the output index drops
// or zeroes the reduced axes), then add them by a pairwise tree, level by level.
std::vector<float> reference(const Shape& shape, const std::vector<float>& x, const Ints& axes) {
  Shape out_shape = shape;
  for (int64_t a : axes)
    out_shape[static_cast<size_t>(a)] = 1;
  std::vector<std::vector<float>> groups(static_cast<size_t>(shape_numel(out_shape)));
  const Shape in_strides = contiguous_strides(shape);
  const Shape out_strides = contiguous_strides(out_shape);
  for (size_t flat = 0; flat < x.size(); ++flat) {
    int64_t at = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      const int64_t index = (static_cast<int64_t>(flat) / in_strides[d]) % shape[d];
      if (out_shape[d] != 1) at += index * out_strides[d];
    }
    groups[static_cast<size_t>(at)].push_back(x[flat]);
  }
  std::vector<float> y;
  for (std::vector<float> level : groups) {
    while (level.size() > 1) {
      std::vector<float> up;
      for (size_t i = 0; i < level.size(); i += 2)
        up.push_back(i + 1 < level.size() ? level[i] + level[i + 1] : level[i]);
      level = up;
    }
    y.push_back(level.empty() ? 0.0f : level[0]);
  }
  return y;
}

struct Case {
  Ints axes;
  int64_t keepdims;
  Shape want_shape;
};

TEST(OpsReduce, ShapesAndValues) {
  const Shape shape{3, 4, 5, 6};
  const std::vector<float> xv = values(360);
  const std::vector<Case> cases = {
      {{0, 2, 3}, 0, {4}},        // conv bias gradient
      {{0}, 0, {4, 5, 6}},        // gemm bias gradient
      {{3}, 0, {3, 4, 5}},        // innermost axis
      {{1, 3}, 1, {3, 1, 5, 1}},  // keepdims
      {{1, 2}, 0, {3, 6}},
      {{0, 1, 2, 3}, 0, {1}},  // everything: one element
      {{0, 1, 2, 3}, 1, {1, 1, 1, 1}},
  };
  for (const Case& c : cases) {
    Graph g;
    const TensorId x =
        g.add_parameter("x", TensorRole::Input, DType::F32, shape, std::make_shared<HostArray>(xv));
    const TensorId y = g.add(OpType::ReduceSum, "sum", OpCategory::Forward, {x},
                             Attrs{{"axes", c.axes}, {"keepdims", c.keepdims}});
    const std::string label = attr_value_text(AttrValue(c.axes));
    EXPECT_EQ(g.tensor(y).shape, c.want_shape) << label;
    Interpreter it(g);
    it.run();
    EXPECT_EQ(it.value(y).f32(), reference(shape, xv, c.axes)) << label;
  }
}

TEST(OpsReduce, AgainstDoubleSums) {
  const std::vector<float> xv = values(24);
  Graph g;
  const TensorId x = g.add_parameter("x", TensorRole::Input, DType::F32, {2, 3, 4},
                                     std::make_shared<HostArray>(xv));
  const TensorId y =
      g.add(OpType::ReduceSum, "sum", OpCategory::Forward, {x}, Attrs{{"axes", Ints{0, 2}}});
  EXPECT_EQ(g.op(g.find_op("sum")).attrs.text(), "axes=[0,2] keepdims=0");
  Interpreter it(g);
  it.run();
  const std::vector<float> got = it.value(y).f32();
  ASSERT_EQ(got.size(), 3u);
  for (size_t j = 0; j < 3; ++j) {
    double want = 0;
    for (size_t i = 0; i < 2; ++i)
      for (size_t k = 0; k < 4; ++k)
        want += double{xv[(i * 3 + j) * 4 + k]};
    EXPECT_NEAR(got[j], want, 1e-5) << j;
  }
}

TEST(OpsReduce, StridedInput) {
  Graph g;
  const TensorId x =
      g.add_parameter("x", TensorRole::Input, DType::F32, {2, 3},
                      std::make_shared<HostArray>(std::vector<float>{1, 2, 3, 4, 5, 6}));
  const TensorId xt =
      g.add(OpType::Transpose, "xt", OpCategory::Forward, {x}, Attrs{{"perm", Ints{1, 0}}});
  const TensorId rows =
      g.add(OpType::ReduceSum, "rows", OpCategory::Forward, {xt}, Attrs{{"axes", Ints{1}}});
  const TensorId cols = g.add(OpType::ReduceSum, "cols", OpCategory::Forward, {xt},
                              Attrs{{"axes", Ints{0}}, {"keepdims", int64_t{1}}});
  Interpreter it(g);
  it.run();
  EXPECT_EQ(it.value(rows).f32(), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(g.tensor(cols).shape, (Shape{1, 2}));
  EXPECT_EQ(it.value(cols).f32(), (std::vector<float>{6, 15}));
  EXPECT_EQ(op_schema(OpType::ReduceSum).fusion, FusionClass::Ppu);
}

// dx is dy broadcast back over the summed axes (an expand view; no copy).
TEST(OpsReduce, Gradients) {
  for (int64_t keepdims : {0, 1})
    for (const Ints& axes : {Ints{1}, Ints{0, 2}, Ints{0, 1, 2}}) {
      testing::GradCheckSpec spec;
      spec.type = OpType::ReduceSum;
      spec.attrs = Attrs{{"axes", axes}, {"keepdims", keepdims}};
      testing::GradInput x;
      x.shape = {2, 3, 4};
      spec.inputs = {x};
      spec.seed = static_cast<uint32_t>(5 + keepdims) + 2 * static_cast<uint32_t>(axes.size());
      const testing::GradCheckResult r = testing::grad_check(spec);
      EXPECT_TRUE(r.ok) << "axes " << ints_text(axes) << " keepdims " << keepdims << ": "
                        << r.report;
    }
}

TEST(OpsReduce, ShapeErrors) {
  Graph g;
  const TensorId x = g.add_parameter("x", TensorRole::Input, DType::F32, {2, 3, 4});
  const TensorId ix = g.add_parameter("ix", TensorRole::Label, DType::I32, {2});
  auto reduce = [&](TensorId in, const Attrs& attrs) {
    return user_error([&] { g.add(OpType::ReduceSum, "rs", OpCategory::Forward, {in}, attrs); });
  };
  EXPECT_EQ(reduce(x, Attrs{{"axes", Ints{0, 3}}}),
            "shape inference: op 'rs' (reduce_sum): axis 3 of axes=[0,3] is out of range for "
            "input 'x' f32[2,3,4]");
  EXPECT_EQ(reduce(x, Attrs{{"axes", Ints{-1}}}),
            "shape inference: op 'rs' (reduce_sum): axis -1 of axes=[-1] is out of range for "
            "input 'x' f32[2,3,4]");
  EXPECT_EQ(reduce(x, Attrs{{"axes", Ints{2, 0}}}),
            "shape inference: op 'rs' (reduce_sum): attribute 'axes' [2,0] must be sorted and "
            "without repeats");
  EXPECT_EQ(reduce(x, Attrs{{"axes", Ints{1, 1}}}),
            "shape inference: op 'rs' (reduce_sum): attribute 'axes' [1,1] must be sorted and "
            "without repeats");
  EXPECT_EQ(reduce(x, Attrs{{"axes", Ints{}}}),
            "shape inference: op 'rs' (reduce_sum): attribute 'axes' is empty; name the axes "
            "to sum over");
  EXPECT_EQ(reduce(x, Attrs{{"axes", Ints{0}}, {"keepdims", int64_t{2}}}),
            "shape inference: op 'rs' (reduce_sum): attribute 'keepdims' must be 0 or 1, not 2");
  EXPECT_EQ(reduce(ix, Attrs{{"axes", Ints{0}}}),
            "shape inference: op 'rs' (reduce_sum): input 'x' i32[2] must have a float "
            "element type (f32, bf16 or f16)");
}

}  // namespace
}  // namespace s2::ir
