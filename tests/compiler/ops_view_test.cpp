// Views (reshape, transpose, slice, expand) share their input's data node and change only shape,
// strides and offset; their values, read through the interpreter, follow NumPy. Also the
// shape-inference errors, the backward rules and gradient checks of reshape and transpose.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ops/registry.h"
#include "gradcheck.h"
#include "isa/common/errors.h"
#include "op_test_util.h"

namespace s2::ir {
namespace {

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(i);
  return v;
}

TensorId param(Graph& g, const std::string& name, const Shape& shape) {
  return g.add_parameter(
      name, TensorRole::Input, DType::F32, shape,
      std::make_shared<HostArray>(iota(static_cast<size_t>(shape_numel(shape)))));
}

using Ints = std::vector<int64_t>;

Attrs slice_attrs(int64_t axis, int64_t start, int64_t end, int64_t step = 1) {
  return Attrs{{"axis", axis}, {"start", start}, {"end", end}, {"step", step}};
}

TEST(OpsView, ReshapeSharesDataAndIsDense) {
  Graph g;
  const TensorId x = param(g, "x", {2, 3, 4});
  const size_t datas = g.num_datas();
  const TensorId y =
      g.add(OpType::Reshape, "r", OpCategory::Forward, {x}, Attrs{{"shape", Ints{4, -1}}});
  EXPECT_EQ(g.num_datas(), datas);  // no new buffer
  const Tensor& t = g.tensor(y);
  EXPECT_EQ(t.data, g.tensor(x).data);
  EXPECT_EQ(t.shape, (Shape{4, 6}));
  EXPECT_EQ(t.strides, (Shape{6, 1}));
  EXPECT_EQ(t.offset, 0);
  EXPECT_EQ(t.producer, g.find_op("r"));
  EXPECT_EQ(op_schema(OpType::Reshape).fusion, FusionClass::View);
  EXPECT_EQ(op_schema(OpType::Reshape).kernel, nullptr);
  EXPECT_FALSE(g.writes_in_place(g.op(g.find_op("r"))));
  Interpreter it(g);
  it.run();
  EXPECT_EQ(it.value(y).f32(), iota(24));
}

TEST(OpsView, TransposePermutesShapeAndStrides) {
  Graph g;
  const TensorId x = param(g, "x", {2, 3, 4});
  const TensorId y =
      g.add(OpType::Transpose, "t", OpCategory::Forward, {x}, Attrs{{"perm", Ints{2, 0, 1}}});
  const Tensor& t = g.tensor(y);
  EXPECT_EQ(t.data, g.tensor(x).data);
  EXPECT_EQ(t.shape, (Shape{4, 2, 3}));
  EXPECT_EQ(t.strides, (Shape{1, 12, 4}));
  EXPECT_EQ(t.offset, 0);
  EXPECT_FALSE(t.contiguous());
  Interpreter it(g);
  it.run();
  std::vector<float> want;  // y[i][j][k] = x[j][k][i]
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k)
        want.push_back(static_cast<float>(j * 12 + k * 4 + i));
  EXPECT_EQ(it.value(y).f32(), want);
}

TEST(OpsView, SliceOffsetsAndStrides) {
  Graph g;
  const TensorId x = param(g, "x", {4, 10});
  // Columns 1, 4, 7 of every row.
  const TensorId cols =
      g.add(OpType::Slice, "cols", OpCategory::Forward, {x}, slice_attrs(1, 1, 8, 3));
  EXPECT_EQ(g.tensor(cols).data, g.tensor(x).data);
  EXPECT_EQ(g.tensor(cols).shape, (Shape{4, 3}));
  EXPECT_EQ(g.tensor(cols).strides, (Shape{10, 3}));
  EXPECT_EQ(g.tensor(cols).offset, 1);
  // Rows -3..-1 of that: Python rules, negative from the end; end clamped.
  const TensorId rows =
      g.add(OpType::Slice, "rows", OpCategory::Forward, {cols}, slice_attrs(-2, -3, 100));
  EXPECT_EQ(g.tensor(rows).data, g.tensor(x).data);
  EXPECT_EQ(g.tensor(rows).shape, (Shape{3, 3}));
  EXPECT_EQ(g.tensor(rows).strides, (Shape{10, 3}));
  EXPECT_EQ(g.tensor(rows).offset, 11);
  // A slice of a transpose: offsets and strides compose.
  const TensorId xt =
      g.add(OpType::Transpose, "xt", OpCategory::Forward, {x}, Attrs{{"perm", Ints{1, 0}}});
  const TensorId tail =
      g.add(OpType::Slice, "tail", OpCategory::Forward, {xt}, slice_attrs(0, 8, 10));
  EXPECT_EQ(g.tensor(tail).shape, (Shape{2, 4}));
  EXPECT_EQ(g.tensor(tail).strides, (Shape{1, 10}));
  EXPECT_EQ(g.tensor(tail).offset, 8);
  // Start clamped at 0 and the default step.
  const TensorId head =
      g.add(OpType::Slice, "head", OpCategory::Forward, {x},
            Attrs{{"axis", int64_t{0}}, {"start", int64_t{-50}}, {"end", int64_t{2}}});
  EXPECT_EQ(g.tensor(head).shape, (Shape{2, 10}));
  EXPECT_EQ(g.tensor(head).offset, 0);
  EXPECT_EQ(g.op(g.find_op("head")).attrs.text(), "axis=0 end=2 start=-50 step=1");

  Interpreter it(g);
  it.run();
  EXPECT_EQ(it.value(cols).f32(),
            (std::vector<float>{1, 4, 7, 11, 14, 17, 21, 24, 27, 31, 34, 37}));
  EXPECT_EQ(it.value(rows).f32(), (std::vector<float>{11, 14, 17, 21, 24, 27, 31, 34, 37}));
  EXPECT_EQ(it.value(tail).f32(), (std::vector<float>{8, 18, 28, 38, 9, 19, 29, 39}));
  EXPECT_EQ(it.value(head).f32(), iota(20));
}

// A kernel reading a view sees its elements; writing through set_value lands in the data.
TEST(OpsView, ComputeOnViews) {
  Graph g;
  const TensorId x = param(g, "x", {2, 6});
  const TensorId s = g.add(OpType::Slice, "s", OpCategory::Forward, {x}, slice_attrs(1, 0, 6, 2));
  const TensorId y =
      g.add(OpType::Scale, "y", OpCategory::Forward, {s}, Attrs{{"alpha", 2.0}, {"beta", 0.0}});
  Interpreter it(g);
  it.run();
  EXPECT_EQ(it.value(y).f32(), (std::vector<float>{0, 4, 8, 12, 16, 20}));
  it.set_value(s, HostArray(std::vector<float>{-1, -2, -3, -4, -5, -6}));
  EXPECT_EQ(it.value(x).f32(), (std::vector<float>{-1, 1, -2, 3, -3, 5, -4, 7, -5, 9, -6, 11}));
}

// A strided view reshapes when the new shape can view it (Tensor.view's rule): splitting the
// columns of a slice of whole-row chunks is a view; flattening a transpose or a column slice is
// not, and says to copy first.
TEST(OpsView, ReshapeOfStridedViewIsAViewWhereItCanBe) {
  Graph g;
  const TensorId x = param(g, "x", {2, 3});
  const TensorId xt =
      g.add(OpType::Transpose, "xt", OpCategory::Forward, {x}, Attrs{{"perm", Ints{1, 0}}});
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Reshape, "flat", OpCategory::Forward, {xt}, Attrs{{"shape", Ints{6}}});
            }),
            "shape inference: op 'flat' (reshape): input 'x' f32[3,2] with strides [1,3] cannot "
            "be viewed as shape=[6] (its elements are not evenly spaced there); copy it first");
  const TensorId cols =
      g.add(OpType::Slice, "cols", OpCategory::Forward, {x}, slice_attrs(1, 0, 2));
  EXPECT_EQ(
      user_error([&] {
        g.add(OpType::Reshape, "flat", OpCategory::Forward, {cols}, Attrs{{"shape", Ints{-1}}});
      }),
      "shape inference: op 'flat' (reshape): input 'x' f32[2,2] with strides [3,1] cannot be "
      "viewed as shape=[4] (its elements are not evenly spaced there); copy it first");
  // GPT-2's head split: q = x[:, :, 0:4] of [2, 3, 12], viewed as [2, 3, 2, 2].
  const TensorId qkv = param(g, "qkv", {2, 3, 12});
  const TensorId q = g.add(OpType::Slice, "q", OpCategory::Forward, {qkv}, slice_attrs(2, 4, 8));
  const TensorId heads =
      g.add(OpType::Reshape, "heads", OpCategory::Forward, {q}, Attrs{{"shape", Ints{2, 3, 2, 2}}});
  EXPECT_EQ(g.tensor(heads).strides, (Shape{36, 12, 2, 1}));
  EXPECT_EQ(g.tensor(heads).offset, 4);
  EXPECT_EQ(g.tensor(heads).data, g.tensor(qkv).data);
  Interpreter it(g);
  it.run();
  EXPECT_EQ(it.value(heads).f32(),
            (std::vector<float>{4,  5,  6,  7,  16, 17, 18, 19, 28, 29, 30, 31,
                                40, 41, 42, 43, 52, 53, 54, 55, 64, 65, 66, 67}));
}

// Strides address the same elements when they agree on every dimension of extent above 1: a
// batch of 1 placed in a wider buffer keeps the buffer's stride on its batch axis.
TEST(OpsView, SameStridesIgnoreExtentOneDimensions) {
  EXPECT_TRUE(same_strides({1, 1, 768}, {151296, 768, 1}, {768, 768, 1}));
  EXPECT_FALSE(same_strides({2, 1, 768}, {151296, 768, 1}, {768, 768, 1}));
  EXPECT_FALSE(same_strides({1, 2, 768}, {151296, 768, 1}, {151296, 1536, 1}));
  EXPECT_FALSE(same_strides({1, 768}, {768, 1}, {1}));
}

TEST(OpsView, ViewStridesFollowTorchView) {
  // Dense: contiguous strides, whatever the shape.
  EXPECT_EQ(view_strides({2, 3, 4}, {12, 4, 1}, {6, 4}), (Shape{4, 1}));
  // Merging dimensions across a gap is impossible; splitting inside a dense run is not.
  EXPECT_EQ(view_strides({4, 8}, {24, 1}, {32}), std::nullopt);
  EXPECT_EQ(view_strides({4, 8}, {24, 1}, {4, 2, 4}), (Shape{24, 4, 1}));
  // A transpose merges nothing, but its size-1 dimensions come and go.
  EXPECT_EQ(view_strides({3, 2}, {1, 3}, {3, 1, 2}), (Shape{1, 6, 3}));
  EXPECT_EQ(view_strides({3, 2}, {1, 3}, {6}), std::nullopt);
  // Attention's head merge of a [N,H,T,dh] output read as [N,T,H,dh]: needs a copy.
  EXPECT_EQ(view_strides({2, 4, 3, 5}, {60, 5, 20, 1}, {2, 4, 15}), std::nullopt);
  // Element counts must agree.
  EXPECT_EQ(view_strides({2, 3}, {3, 1}, {7}), std::nullopt);
}

// A transpose that moves only a size-1 axis leaves the layout dense: reshape accepts it.
// So does a slice of whole rows, at its offset.
TEST(OpsView, TransposeThenReshape) {
  Graph g;
  const TensorId x = param(g, "x", {1, 4, 3});
  const TensorId xt =
      g.add(OpType::Transpose, "xt", OpCategory::Forward, {x}, Attrs{{"perm", Ints{1, 0, 2}}});
  EXPECT_EQ(g.tensor(xt).strides, (Shape{3, 12, 1}));
  const TensorId flat =
      g.add(OpType::Reshape, "flat", OpCategory::Forward, {xt}, Attrs{{"shape", Ints{2, 6}}});
  EXPECT_EQ(g.tensor(flat).data, g.tensor(x).data);
  EXPECT_EQ(g.tensor(flat).strides, (Shape{6, 1}));
  const TensorId rows =
      g.add(OpType::Slice, "rows", OpCategory::Forward, {flat}, slice_attrs(0, 1, 2));
  const TensorId v =
      g.add(OpType::Reshape, "v", OpCategory::Forward, {rows}, Attrs{{"shape", Ints{3, 2}}});
  EXPECT_EQ(g.tensor(v).offset, 6);
  EXPECT_EQ(g.tensor(v).strides, (Shape{2, 1}));
  Interpreter it(g);
  it.run();
  EXPECT_EQ(it.value(flat).f32(), iota(12));
  EXPECT_EQ(it.value(v).f32(), (std::vector<float>{6, 7, 8, 9, 10, 11}));
}

TEST(OpsView, ShapeErrors) {
  Graph g;
  const TensorId x = param(g, "x", {2, 3, 4});
  auto reshape = [&](Ints shape) {
    return user_error([&] {
      g.add(OpType::Reshape, "r", OpCategory::Forward, {x}, Attrs{{"shape", shape}});
    });
  };
  EXPECT_EQ(reshape({5, -1}),
            "shape inference: op 'r' (reshape): cannot reshape input 'x' f32[2,3,4] (24 "
            "elements) to shape=[5,-1]");
  EXPECT_EQ(reshape({4, 5}),
            "shape inference: op 'r' (reshape): cannot reshape input 'x' f32[2,3,4] (24 "
            "elements) to shape=[4,5] (20 elements)");
  EXPECT_EQ(reshape({-1, -1}),
            "shape inference: op 'r' (reshape): shape=[-1,-1] has more than one -1");
  EXPECT_EQ(reshape({0, 24}),
            "shape inference: op 'r' (reshape): shape=[0,24]: every entry must be positive or "
            "-1");
  EXPECT_EQ(reshape({}), "shape inference: op 'r' (reshape): attribute 'shape' is empty");
  auto transpose = [&](Ints perm) {
    return user_error([&] {
      g.add(OpType::Transpose, "t", OpCategory::Forward, {x}, Attrs{{"perm", perm}});
    });
  };
  const std::string not_perm = " is not a permutation of the 3 axes of input 'x' f32[2,3,4]";
  EXPECT_EQ(transpose({0, 1}), "shape inference: op 't' (transpose): perm=[0,1]" + not_perm);
  EXPECT_EQ(transpose({0, 1, 1}), "shape inference: op 't' (transpose): perm=[0,1,1]" + not_perm);
  EXPECT_EQ(transpose({0, 3, 1}), "shape inference: op 't' (transpose): perm=[0,3,1]" + not_perm);
  auto slice = [&](const Attrs& attrs) {
    return user_error([&] { g.add(OpType::Slice, "s", OpCategory::Forward, {x}, attrs); });
  };
  EXPECT_EQ(slice(slice_attrs(3, 0, 1)),
            "shape inference: op 's' (slice): axis 3 is out of range for input 'x' f32[2,3,4]");
  EXPECT_EQ(slice(slice_attrs(-4, 0, 1)),
            "shape inference: op 's' (slice): axis -4 is out of range for input 'x' f32[2,3,4]");
  EXPECT_EQ(slice(slice_attrs(1, 0, 3, 0)),
            "shape inference: op 's' (slice): step 0 must be positive");
  EXPECT_EQ(slice(slice_attrs(1, 2, 1)),
            "shape inference: op 's' (slice): slice [2:1:1] of axis 1 of input 'x' f32[2,3,4] "
            "is empty");
  EXPECT_EQ(slice(slice_attrs(-1, 7, 9)),
            "shape inference: op 's' (slice): slice [7:9:1] of axis 2 of input 'x' f32[2,3,4] "
            "is empty");
}

TEST(OpsView, BackwardOps) {
  Graph g;
  const TensorId x = param(g, "x", {2, 6});
  const TensorId r =
      g.add(OpType::Reshape, "r", OpCategory::Forward, {x}, Attrs{{"shape", Ints{3, 4}}});
  g.add(OpType::Transpose, "t", OpCategory::Forward, {r}, Attrs{{"perm", Ints{1, 0}}});
  // dy for t's output [4,3], dense.
  const TensorId dy = g.add_parameter("dy", TensorRole::Gradient, DType::F32, {4, 3},
                                      std::make_shared<HostArray>(iota(12)));
  BackwardContext tb(g, g.op(g.find_op("t")), {dy}, {true});
  op_schema(OpType::Transpose).backward(tb);
  const TensorId dr = tb.input_grads()[0].at(0);
  const Op& t_grad = g.op(g.tensor(dr).producer);
  EXPECT_EQ(t_grad.name, "t.grad");
  EXPECT_EQ(t_grad.type, OpType::Transpose);
  EXPECT_EQ(t_grad.category, OpCategory::ActivationGrad);
  EXPECT_EQ(t_grad.attrs.text(), "perm=[1,0]");
  EXPECT_EQ(g.tensor(dr).shape, (Shape{3, 4}));
  EXPECT_FALSE(g.tensor(dr).contiguous());
  // The reshape's gradient arrives strided: it is copied dense (scale by 1) before the
  // reshape back to x's shape.
  BackwardContext rb(g, g.op(g.find_op("r")), {dr}, {true});
  op_schema(OpType::Reshape).backward(rb);
  const TensorId dx = rb.input_grads()[0].at(0);
  const Op& r_grad = g.op(g.tensor(dx).producer);
  EXPECT_EQ(r_grad.name, "r.grad");
  EXPECT_EQ(r_grad.type, OpType::Reshape);
  EXPECT_EQ(r_grad.category, OpCategory::ActivationGrad);
  EXPECT_EQ(r_grad.attrs.text(), "shape=[2,6]");
  const Op& copy = g.op(g.tensor(r_grad.inputs[0]).producer);
  EXPECT_EQ(copy.name, "r.grad_dense");
  EXPECT_EQ(copy.type, OpType::Scale);
  EXPECT_EQ(copy.attrs.text(), "alpha=1.0 beta=0.0");
  EXPECT_EQ(g.tensor(dx).shape, (Shape{2, 6}));
  Interpreter it(g);
  it.run();
  // dx = reshape(transpose(dy)): dx flat k = (i, j) of [3,4] = dy[j][i].
  std::vector<float> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      want.push_back(static_cast<float>(j * 3 + i));
  EXPECT_EQ(it.value(dx).f32(), want);
}

TEST(OpsView, GradReshape) {
  testing::GradCheckSpec spec;
  spec.type = OpType::Reshape;
  spec.attrs = Attrs{{"shape", Ints{3, -1, 2}}};
  testing::GradInput x;
  x.shape = {2, 3, 4};
  spec.inputs = {x};
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
}

TEST(OpsView, GradTranspose) {
  testing::GradCheckSpec spec;
  spec.type = OpType::Transpose;
  spec.attrs = Attrs{{"perm", Ints{1, 2, 0}}};
  testing::GradInput x;
  x.shape = {2, 3, 4};
  spec.inputs = {x};
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
}

// expand: size-1 axes grow with stride 0, every element read in place (squeeze-excitation's
// gate times its map), and the gradient sums over the grown axes.
TEST(OpsView, ExpandBroadcastsWithZeroStrides) {
  Graph g;
  const TensorId gate = param(g, "gate", {2, 3, 1, 1});
  const TensorId map = param(g, "map", {2, 3, 2, 2});
  const TensorId e =
      g.add(OpType::Expand, "e", OpCategory::Forward, {gate}, Attrs{{"shape", Ints{2, 3, 2, 2}}});
  EXPECT_EQ(g.tensor(e).strides, (Ints{3, 1, 0, 0}));
  EXPECT_EQ(g.tensor(e).data, g.tensor(gate).data);
  const TensorId y = g.add(OpType::Mul, "y", OpCategory::Forward, {e, map});
  Interpreter it(g);
  it.run();
  const std::vector<float> got = it.value(y).f32();
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], static_cast<float>(i / 4) * static_cast<float>(i)) << i;
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Expand, "bad", OpCategory::Forward, {map},
                    Attrs{{"shape", Ints{2, 3, 4, 2}}});
            }),
            "shape inference: op 'bad' (expand): cannot expand axis 2 of input 'x' f32[2,3,2,2] "
            "to 4 (only size-1 axes grow)");
  EXPECT_NE(
      user_error([&] {
        g.add(OpType::Expand, "bad2", OpCategory::Forward, {gate}, Attrs{{"shape", Ints{3, 2, 2}}});
      }).find("has rank 3"),
      std::string::npos);
}

TEST(OpsView, GradExpandTimesAMap) {
  // d/dgate sum(w * expand(gate) * map): the reduction over H and W of the expand's backward.
  testing::GradCheckSpec spec;
  spec.type = OpType::Expand;
  spec.attrs = Attrs{{"shape", Ints{2, 3, 4, 5}}};
  testing::GradInput x;
  x.shape = {2, 3, 1, 1};
  spec.inputs = {x};
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
}

// The other corners of broadcasting: the leading axis, the outer and inner axes at once, and
// every axis (a scalar gate).
TEST(OpsView, GradExpandCorners) {
  struct Case {
    Shape from;
    Ints to;
  };
  for (const Case& c :
       {Case{{1, 3}, {4, 3}}, Case{{1, 3, 1}, {2, 3, 4}}, Case{{1, 1, 1, 1}, {2, 2, 3, 2}}}) {
    testing::GradCheckSpec spec;
    spec.type = OpType::Expand;
    spec.attrs = Attrs{{"shape", c.to}};
    testing::GradInput x;
    x.shape = c.from;
    spec.inputs = {x};
    const testing::GradCheckResult r = testing::grad_check(spec);
    EXPECT_TRUE(r.ok) << ints_text(c.to) << ": " << r.report;
  }
}

}  // namespace
}  // namespace s2::ir

namespace s2::ir {
namespace {

// The slice's gradient is dy between zero constants (a concat): at the start, the middle and
// the end of an axis, and along the last axis.
TEST(OpsView, GradSlice) {
  struct Case {
    Shape x;
    int64_t axis, start, end;
  };
  for (const Case& c : {Case{{2, 6, 2, 2}, 1, 0, 3}, Case{{2, 6, 2, 2}, 1, 2, 4},
                        Case{{2, 6, 2, 2}, 1, 3, 6}, Case{{3, 5}, -1, 1, -1}}) {
    testing::GradCheckSpec spec;
    spec.type = OpType::Slice;
    spec.attrs = slice_attrs(c.axis, c.start, c.end);
    testing::GradInput x;
    x.shape = c.x;
    spec.inputs = {x};
    const testing::GradCheckResult r = testing::grad_check(spec);
    EXPECT_TRUE(r.ok) << "axis " << c.axis << " [" << c.start << ":" << c.end << "]: " << r.report;
  }
}

TEST(OpsView, SliceWithAStepHasNoGradient) {
  testing::GradCheckSpec spec;
  spec.type = OpType::Slice;
  spec.attrs = slice_attrs(1, 0, 6, 2);
  testing::GradInput x;
  x.shape = {2, 6};
  spec.inputs = {x};
  try {
    testing::grad_check(spec);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("has step 2; only slices with step 1 have a backward"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace s2::ir
