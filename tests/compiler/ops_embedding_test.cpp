// embedding and embedding_bwd: the gather's values and shapes, the scatter-add's accumulation
// of repeated ids, the run-time error for an id outside the table, shape-inference errors, the
// backward op, and a gradient check with repeated ids.

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

// A [5, 3] table whose row v is {v, 10 v, 100 v} + 0.5.
std::vector<float> table_values() {
  std::vector<float> t;
  for (int v = 0; v < 5; ++v)
    for (float scale : {1.0f, 10.0f, 100.0f})
      t.push_back(static_cast<float>(v) * scale + 0.5f);
  return t;
}

struct EmbeddingGraph {
  Graph g;
  TensorId table, ids, y, dy, dw;
};

void build(EmbeddingGraph* b, const Shape& ids_shape, const std::vector<int32_t>& ids) {
  b->table = b->g.add_parameter("table", TensorRole::Weight, DType::F32, {5, 3},
                                std::make_shared<HostArray>(table_values()));
  b->ids = b->g.add_parameter("ids", TensorRole::Input, DType::I32, ids_shape,
                              std::make_shared<HostArray>(ids));
  b->y = b->g.add(OpType::Embedding, "wte", OpCategory::Forward, {b->table, b->ids});
  Shape dy_shape = ids_shape;
  dy_shape.push_back(3);
  std::vector<float> dy(ids.size() * 3);
  for (size_t k = 0; k < dy.size(); ++k)
    dy[k] = 0.25f * static_cast<float>(k + 1);
  b->dy = b->g.add_parameter("dy", TensorRole::Gradient, DType::F32, dy_shape,
                             std::make_shared<HostArray>(dy));
  b->dw = b->g.add(OpType::EmbeddingBwd, "wte.bwd", OpCategory::WeightGrad, {b->dy, b->ids},
                   Attrs{{"num_rows", int64_t{5}}});
}

TEST(OpsEmbedding, GathersRowsAndScatterAddsRepeatedIds) {
  EmbeddingGraph b;
  build(&b, {2, 2}, {3, 0, 3, 4});  // id 3 twice, 1 and 2 never
  EXPECT_EQ(b.g.tensor(b.y).shape, (Shape{2, 2, 3}));
  EXPECT_EQ(b.g.tensor(b.dw).shape, (Shape{5, 3}));
  EXPECT_EQ(op_schema(OpType::Embedding).fusion, FusionClass::Ppu);
  Interpreter it(b.g);
  it.run();
  const std::vector<float> t = table_values();
  const std::vector<float> y = it.value(b.y).f32();
  const int32_t ids[] = {3, 0, 3, 4};
  for (size_t i = 0; i < 4; ++i)
    for (size_t k = 0; k < 3; ++k)
      EXPECT_EQ(y[i * 3 + k], t[static_cast<size_t>(ids[i]) * 3 + k]);
  // dy row i is 0.25 * (3i+1 .. 3i+3): row 3 gets rows 0 and 2, row 0 row 1, row 4 row 3.
  const std::vector<float> dw = it.value(b.dw).f32();
  const std::vector<float> want = {1.0f,          1.25f,       1.5f,          0, 0, 0, 0, 0, 0,  //
                                   0.25f + 1.75f, 0.5f + 2.0f, 0.75f + 2.25f,                    //
                                   2.5f,          2.75f,       3.0f};
  EXPECT_EQ(dw, want);
}

TEST(OpsEmbedding, IdOutsideTheTableIsAUserErrorAtRunTime) {
  EmbeddingGraph b;
  build(&b, {3}, {0, 5, 1});
  Interpreter it(b.g);
  EXPECT_EQ(user_error([&] { it.run(); }),
            "op 'wte' (embedding): id 5 at position 1 of 'ids' is outside the table's rows [0,5)");
  it.set_value(b.ids, HostArray(std::vector<int32_t>{0, 1, -1}));
  EXPECT_EQ(user_error([&] { it.run(); }),
            "op 'wte' (embedding): id -1 at position 2 of 'ids' is outside the table's rows [0,5)");
}

TEST(OpsEmbedding, ShapeErrors) {
  Graph g;
  const TensorId table = g.add_parameter("table", TensorRole::Weight, DType::F32, {5, 3});
  const TensorId fids = g.add_parameter("fids", TensorRole::Input, DType::F32, {4});
  const TensorId ids4 = g.add_parameter("ids4", TensorRole::Input, DType::I32, {1, 2, 2, 2});
  const TensorId ids = g.add_parameter("ids", TensorRole::Input, DType::I32, {4});
  const TensorId dy = g.add_parameter("dy", TensorRole::Gradient, DType::F32, {4, 2});
  auto error = [&](OpType type, std::vector<TensorId> in, Attrs attrs = {}) {
    return user_error([&] { g.add(type, "e", OpCategory::Forward, in, attrs); });
  };
  EXPECT_NE(error(OpType::Embedding, {table, fids}).find("must have element type i32"),
            std::string::npos);
  EXPECT_NE(error(OpType::Embedding, {table, ids4}).find("must have rank 1 to 3"),
            std::string::npos);
  EXPECT_NE(error(OpType::Embedding, {ids, ids}).find("f32"), std::string::npos);
  EXPECT_NE(error(OpType::EmbeddingBwd, {dy, ids}, Attrs{{"num_rows", int64_t{0}}})
                .find("num_rows=0 must be at least 1"),
            std::string::npos);
  const TensorId dy3 = g.add_parameter("dy3", TensorRole::Gradient, DType::F32, {3, 2});
  EXPECT_NE(
      error(OpType::EmbeddingBwd, {dy3, ids}, Attrs{{"num_rows", int64_t{5}}}).find("f32[4,2]"),
      std::string::npos);
}

TEST(OpsEmbedding, BackwardIsAScatterAddIntoTheTable) {
  EmbeddingGraph b;
  build(&b, {4}, {1, 1, 2, 0});
  const Op& fwd = b.g.op(b.g.tensor(b.y).producer);
  BackwardContext ctx(b.g, fwd, {b.dy}, {true, false});
  op_schema(OpType::Embedding).backward(ctx);
  ASSERT_EQ(ctx.input_grads()[0].size(), 1u);
  EXPECT_TRUE(ctx.input_grads()[1].empty());
  const Op& bwd = b.g.op(b.g.tensor(ctx.input_grads()[0][0]).producer);
  EXPECT_EQ(bwd.type, OpType::EmbeddingBwd);
  EXPECT_EQ(bwd.name, "wte.bwd_2");
  EXPECT_EQ(bwd.inputs, (std::vector<TensorId>{b.dy, b.ids}));
  EXPECT_EQ(bwd.attrs.i("num_rows"), 5);
}

// The table's gradient with ids that repeat (row 2 three times) and a row never looked up.
TEST(OpsEmbedding, GradWithRepeatedIds) {
  testing::GradCheckSpec spec;
  spec.type = OpType::Embedding;
  testing::GradInput table, ids;
  table.shape = {4, 3};
  ids.shape = {2, 3};
  ids.dtype = DType::I32;
  ids.role = TensorRole::Input;
  ids.differentiable = false;
  ids.ints = {2, 0, 2, 3, 2, 0};
  spec.inputs = {table, ids};
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
}

}  // namespace
}  // namespace s2::ir
