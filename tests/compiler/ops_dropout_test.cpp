// Dropout as the front ends build it (compiler/ops/dropout.h): mul(x, dropout_mask) with a
// [1] i32 step counter, the mask drawn by isa/numerics/philox.h under {seed, counter}, a new
// mask each step; and dropout_mask's shape-inference errors.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/interp/interpreter.h"
#include "compiler/ops/dropout.h"
#include "compiler/ops/registry.h"
#include "isa/numerics/philox.h"
#include "op_test_util.h"

namespace s2::ir {
namespace {

std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = 0.25f * static_cast<float>(i) - 3.0f;
  return v;
}

std::vector<float> expected_mask(float ratio, uint32_t seed, uint32_t step, size_t n) {
  std::vector<float> m(n);
  numerics::dropout_mask(ratio, {seed, step}, m.data(), n);
  return m;
}

TEST(OpsDropout, IsXTimesThePhiloxMaskAndStepsTheCounter) {
  Graph g;
  const std::vector<float> xv = ramp(24);
  const TensorId x = param(g, "x", {2, 3, 4}, xv);
  const TensorId y = add_dropout(g, "drop", x, 0.25, 7);
  const Op& mul = g.op(g.tensor(y).producer);
  ASSERT_EQ(mul.type, OpType::Mul);
  const TensorId mask = mul.inputs.at(1);
  const Op& draw = g.op(g.tensor(mask).producer);
  ASSERT_EQ(draw.type, OpType::DropoutMask);
  EXPECT_EQ(g.tensor(mask).shape, (Shape{2, 3, 4}));
  const TensorId counter = g.find_tensor("drop.counter");
  ASSERT_TRUE(counter.valid());
  EXPECT_EQ(g.data(g.tensor(counter).data).role, TensorRole::State);
  EXPECT_EQ(draw.inputs, std::vector<TensorId>{counter});
  EXPECT_EQ(draw.attrs.i("seed"), int64_t{dropout_seed(7, "drop")});

  Interpreter it(g);
  for (uint32_t step = 0; step < 2; ++step) {
    it.run();
    const std::vector<float> want = expected_mask(0.25f, dropout_seed(7, "drop"), step, 24);
    EXPECT_EQ(it.value(mask).f32(), want) << "step " << step;
    const std::vector<float> got = it.value(y).f32();
    for (size_t i = 0; i < xv.size(); ++i)
      EXPECT_EQ(got[i], xv[i] * want[i]) << i;
    EXPECT_EQ(it.value(counter).i32(), std::vector<int32_t>{static_cast<int32_t>(step + 1)});
  }
}

TEST(OpsDropout, EachLayerAndSeedDrawsItsOwnStream) {
  EXPECT_NE(dropout_seed(0, "a"), dropout_seed(0, "b"));
  EXPECT_NE(dropout_seed(0, "a"), dropout_seed(1, "a"));
  EXPECT_EQ(dropout_seed(5, "classifier.0"), dropout_seed(5, "classifier.0"));
}

TEST(OpsDropout, RatioZeroIsTheIdentity) {
  Graph g;
  const TensorId x = param(g, "x", {4}, ramp(4));
  EXPECT_EQ(add_dropout(g, "drop", x, 0.0, 1), x);
  EXPECT_FALSE(g.find_tensor("drop.counter").valid());
}

TEST(OpsDropout, ShapeErrors) {
  Graph g;
  const TensorId counter =
      g.add_parameter("c", TensorRole::State, DType::I32, {1},
                      std::make_shared<const HostArray>(std::vector<int32_t>{0}));
  const TensorId two =
      g.add_parameter("c2", TensorRole::State, DType::I32, {2},
                      std::make_shared<const HostArray>(std::vector<int32_t>{0, 0}));
  const std::string head = "shape inference: op 'm' (dropout_mask): ";
  auto draw = [&](TensorId c, double ratio, int64_t seed, Shape shape) {
    return user_error([&] {
      g.add_op(OpType::DropoutMask, "m", OpCategory::Forward, {c},
               Attrs{{"shape", shape}, {"ratio", ratio}, {"seed", seed}});
    });
  };
  EXPECT_EQ(draw(counter, 1.0, 0, {4}), head + "attribute 'ratio' must be in [0, 1), not 1.000000");
  EXPECT_EQ(draw(counter, 0.5, -1, {4}), head + "attribute 'seed' must be in [0, 2^32), not -1");
  EXPECT_EQ(draw(counter, 0.5, 0, {4, 0}), head + "attribute 'shape' [4,0] has a dimension < 1");
  EXPECT_NE(draw(two, 0.5, 0, {4}), "(no error)");
}

}  // namespace
}  // namespace s2::ir
