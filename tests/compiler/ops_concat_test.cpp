// concat and copy: shape inference and its errors, values (NumPy's concatenate), gradient
// checks of the concat's backward (slices of dy) along channels, the batch and the last axis,
// and pass place-concat: the placed graph computes the same bits as the unplaced one in the
// reference interpreter, the lowering refuses an unplaced concat, and a placed one lowers to
// producers writing strided slices (no instruction for the concat itself).

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/interp/interpreter.h"
#include "compiler/ops/concat.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/concat_placement.h"
#include "gradcheck.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

std::vector<float> iota(size_t n, float from = 0.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = from + static_cast<float>(i);
  return v;
}

TensorId param(Graph& g, const std::string& name, const Shape& shape, float from = 0.0f) {
  return g.add_parameter(
      name, TensorRole::Input, DType::F32, shape,
      std::make_shared<HostArray>(iota(static_cast<size_t>(shape_numel(shape)), from)));
}

TEST(OpsConcat, JoinsAlongAnAxisAsNumPy) {
  Graph g;
  const TensorId a = param(g, "a", {2, 1, 2}, 0.0f);   // [[0,1]], [[2,3]]
  const TensorId b = param(g, "b", {2, 2, 2}, 10.0f);  // [[10,11],[12,13]], [[14,15],[16,17]]
  const TensorId y =
      g.add(OpType::Concat, "y", OpCategory::Forward, {a, b}, Attrs{{"axis", int64_t{1}}});
  const TensorId z =
      g.add(OpType::Concat, "z", OpCategory::Forward, {a, a}, Attrs{{"axis", int64_t{-1}}});
  EXPECT_EQ(g.tensor(y).shape, (Shape{2, 3, 2}));
  EXPECT_EQ(g.tensor(z).shape, (Shape{2, 1, 4}));
  Interpreter interp(g);
  interp.run();
  EXPECT_EQ(interp.value(y).f32(),
            (std::vector<float>{0, 1, 10, 11, 12, 13, 2, 3, 14, 15, 16, 17}));
  EXPECT_EQ(interp.value(z).f32(), (std::vector<float>{0, 1, 0, 1, 2, 3, 2, 3}));
}

TEST(OpsConcat, ShapeErrors) {
  Graph g;
  const TensorId a = param(g, "a", {2, 3, 4});
  const TensorId b = param(g, "b", {2, 3, 5});
  const TensorId c = param(g, "c", {2, 3});
  auto error = [&](const std::vector<TensorId>& in, int64_t axis) {
    try {
      g.add(OpType::Concat, g.unique_name("cat"), OpCategory::Forward, in, Attrs{{"axis", axis}});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error({a, b}, 1).find("input 1 f32[2,3,5] does not match input 0 f32[2,3,4] outside "
                                  "axis 1"),
            std::string::npos);
  EXPECT_NE(error({a, c}, 0).find("does not match input 0"), std::string::npos);
  EXPECT_NE(error({a, b}, 3).find("axis 3 is out of range for input 'x' f32[2,3,4]"),
            std::string::npos);
  EXPECT_EQ(error({a, b}, -1), "no error");  // the last axis: 4 + 5
}

TEST(OpsConcat, GradChecks) {
  struct Case {
    std::vector<Shape> parts;
    int64_t axis;
  };
  for (const Case& c : {Case{{{2, 3, 2, 2}, {2, 1, 2, 2}, {2, 2, 2, 2}}, 1},
                        Case{{{1, 2, 3}, {3, 2, 3}}, 0}, Case{{{2, 2}, {2, 5}}, -1}}) {
    testing::GradCheckSpec spec;
    spec.type = OpType::Concat;
    spec.attrs = Attrs{{"axis", c.axis}};
    for (const Shape& s : c.parts) {
      testing::GradInput in;
      in.shape = s;
      spec.inputs.push_back(in);
    }
    const testing::GradCheckResult r = testing::grad_check(spec);
    EXPECT_TRUE(r.ok) << "axis " << c.axis << ": " << r.report;
  }
}

TEST(OpsConcat, CopyOfAStridedView) {
  Graph g;
  const TensorId x = param(g, "x", {2, 3});
  const TensorId t = g.add(OpType::Transpose, "t", OpCategory::Forward, {x},
                           Attrs{{"perm", std::vector<int64_t>{1, 0}}});
  const TensorId y = g.add(OpType::Copy, "y", OpCategory::Forward, {t});
  EXPECT_TRUE(g.tensor(y).contiguous());
  EXPECT_NE(g.tensor(y).data, g.tensor(x).data);
  Interpreter interp(g);
  interp.run();
  EXPECT_EQ(interp.value(y).f32(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  testing::GradCheckSpec spec;
  spec.type = OpType::Copy;
  testing::GradInput in;
  in.shape = {3, 2};
  spec.inputs = {in};
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
}

// A DenseNet-like block with a copy fallback: conv -> concat chains, a parameter in a concat
// and a relu after it. Values after placement equal those before, bit for bit.
Graph dense_block() {
  Graph g("block");
  const TensorId x = param(g, "x", {2, 2, 3, 3}, -9.0f);
  auto weight = [&](const std::string& name, const Shape& shape, float from) {
    std::vector<float> v = iota(static_cast<size_t>(shape_numel(shape)), from);
    for (float& f : v)
      f *= 0.125f;
    return g.add_parameter(name, TensorRole::Weight, DType::F32, shape,
                           std::make_shared<HostArray>(v));
  };
  const TensorId w0 = weight("w0", {2, 2, 1, 1}, -2.0f);
  const TensorId w1 = weight("w1", {1, 2, 3, 3}, -9.0f);
  const TensorId w2 = weight("w2", {1, 3, 1, 1}, -1.0f);
  const Attrs pad1{{"pads", std::vector<int64_t>{1, 1, 1, 1}}};
  const TensorId x0 = g.add(OpType::Conv2d, "x0", OpCategory::Forward, {x, w0});
  const TensorId f1 = g.add(OpType::Conv2d, "f1", OpCategory::Forward, {x0, w1}, pad1);
  const TensorId c1 =
      g.add(OpType::Concat, "c1", OpCategory::Forward, {x0, f1}, Attrs{{"axis", int64_t{1}}});
  const TensorId r1 = g.add(OpType::Relu, "r1", OpCategory::Forward, {c1});
  const TensorId f2 = g.add(OpType::Conv2d, "f2", OpCategory::Forward, {r1, w2});
  const TensorId block = g.add(OpType::Concat, "block", OpCategory::Forward, {x0, f1, f2},
                               Attrs{{"axis", int64_t{1}}});
  const TensorId with_x =
      g.add(OpType::Concat, "with_x", OpCategory::Forward, {block, x}, Attrs{{"axis", int64_t{1}}});
  g.mark_output(g.add(OpType::Relu, "out", OpCategory::Forward, {with_x}));
  return g;
}

TEST(PlaceConcat, SameBitsAsTheUnplacedGraph) {
  const Graph g = dense_block();
  ConcatPlacement stats;
  const PassResult placed = place_concats(g, &stats);
  ASSERT_TRUE(placed.changed);
  EXPECT_EQ(stats.concats, 3);
  EXPECT_EQ(stats.views, 1);   // c1 = channels 0..2 of block's buffer
  EXPECT_EQ(stats.copies, 1);  // x, the step's input, into with_x
  for (size_t i = 0; i < placed.graph.num_ops(); ++i) {
    const Op& op = placed.graph.op(OpId(i));
    if (op.type == OpType::Concat) {
      EXPECT_TRUE(concat_is_placed(placed.graph, op)) << op.name;
    }
  }
  // One buffer holds x0, f1, f2 and the copy of x: with_x's.
  const Graph& p = placed.graph;
  const DataId buffer = p.tensor(p.find_tensor("with_x")).data;
  for (const char* name : {"x0", "f1", "f2", "c1", "block", "with_x.copy1"})
    EXPECT_EQ(p.tensor(p.find_tensor(name)).data, buffer) << name;
  Interpreter before(g), after(placed.graph);
  before.run();
  after.run();
  for (const char* name : {"x0", "f1", "c1", "r1", "f2", "block", "with_x", "out"}) {
    const std::vector<float> a = before.value(g.find_tensor(name)).f32();
    const std::vector<float> b = after.value(p.find_tensor(name)).f32();
    EXPECT_EQ(a, b) << name;
  }
  // Placing again changes nothing.
  EXPECT_FALSE(place_concats(p).changed);
}

}  // namespace
}  // namespace s2::ir
