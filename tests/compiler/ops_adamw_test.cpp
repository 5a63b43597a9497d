// adamw: PyTorch's torch.optim.AdamW over three consecutive steps of the interpreter (the step
// count carried in its state tensor, so the bias correction follows the steps), the in-place
// update of the weight's, the moments' and the count's data nodes, and shape-inference errors.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/autodiff/autodiff.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"
#include "op_test_util.h"

namespace s2::ir {
namespace {

const std::vector<float> kW = {0.5f, -1.25f, 2.0f, 0.75f, -0.3f, 1.1f};

struct AdamWGraph {
  Graph g;
  TensorId w, grad, m, v, step;
  std::vector<TensorId> out;
};

void build(AdamWGraph* b, const Attrs& attrs) {
  b->w = b->g.add_parameter("w", TensorRole::Weight, DType::F32, {2, 3},
                            std::make_shared<HostArray>(kW));
  b->grad = b->g.add_parameter("dw", TensorRole::WeightGradient, DType::F32, {2, 3});
  b->m = b->g.add_parameter("m", TensorRole::OptimizerState, DType::F32, {2, 3});
  b->v = b->g.add_parameter("v", TensorRole::OptimizerState, DType::F32, {2, 3});
  b->step = b->g.add_parameter("step", TensorRole::OptimizerState, DType::I32, {1});
  b->out = b->g.add_op(OpType::AdamW, "update", OpCategory::WeightUpdate,
                       {b->w, b->grad, b->m, b->v, b->step}, attrs);
}

TEST(OpsAdamW, InPlaceOutputsAndDefaults) {
  AdamWGraph b;
  build(&b, Attrs{{"lr", 0.01}});
  ASSERT_EQ(b.out.size(), 5u);
  EXPECT_FALSE(b.out[4].valid());  // no weight_copy: weight_copy_out absent
  const TensorId in[] = {b.w, b.m, b.v, b.step};
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(b.g.tensor(b.out[i]).data, b.g.tensor(in[i]).data) << i;
  EXPECT_EQ(b.g.tensor(b.out[3]).dtype, DType::I32);
  const Op& op = b.g.op(b.g.find_op("update"));
  EXPECT_TRUE(b.g.writes_in_place(op));
  EXPECT_EQ(op.attrs.text(), "beta1=0.9 beta2=0.999 eps=1e-08 lr=0.01 weight_decay=0.01");
  EXPECT_EQ(op_schema(OpType::AdamW).fusion, FusionClass::Ppu);
  EXPECT_EQ(op_schema(OpType::AdamW).backward, nullptr);
}

// Three steps, the gradient changing between them, against the values PyTorch 1.13 printed
// for torch.optim.AdamW([w], lr=0.01, weight_decay=0.1) (betas 0.9, 0.999, eps 1e-8).
TEST(OpsAdamW, ThreeStepsMatchPyTorch) {
  AdamWGraph b;
  build(&b, Attrs{{"lr", 0.01}, {"weight_decay", 0.1}});
  Interpreter it(b.g);
  const std::vector<std::vector<float>> grads = {{0.1f, 0.2f, -0.3f, 0.4f, -0.5f, 0.6f},
                                                 {-0.05f, 0.15f, 0.25f, -0.35f, 0.45f, -0.55f},
                                                 {0.1f, 0.2f, -0.3f, 0.4f, -0.5f, 0.0f}};
  const std::vector<std::vector<float>> torch_w = {
      {0.4895000159740448f, -1.2587499618530273f, 2.008000135421753f, 0.7392500042915344f,
       -0.2897000312805176f, 1.088900089263916f},
      {0.48634713888168335f, -1.2673169374465942f, 2.006373405456543f, 0.7383707165718079f,
       -0.2894103229045868f, 1.0879026651382446f},
      {0.4800660014152527f, -1.2759712934494019f, 2.0084943771362305f, 0.7337026596069336f,
       -0.2853081524372101f, 1.0868854522705078f}};
  const std::vector<std::vector<float>> torch_m = {
      {0.010000000707805157f, 0.020000001415610313f, -0.030000001192092896f, 0.04000000283122063f,
       -0.05000000074505806f, 0.06000000238418579f},
      {0.004000000189989805f, 0.033000003546476364f, -0.0020000003278255463f, 0.001000002259388566f,
       1.415610295651959e-09f, -0.0010000006295740604f},
      {0.01360000018030405f, 0.04970000311732292f, -0.03180000185966492f, 0.04090000316500664f,
       -0.05000000074505806f, -0.0009000005666166544f}};
  const std::vector<std::vector<float>> torch_v = {
      {1.0000000656873453e-05f, 4.0000002627493814e-05f, 9.000000864034519e-05f,
       0.00016000001050997525f, 0.0002500000118743628f, 0.00036000003456138074f},
      {1.2490000699472148e-05f, 6.246000702958554e-05f, 0.00015241000801324844f,
       0.0002823400136549026f, 0.0004522500094026327f, 0.0006621400825679302f},
      {2.2477510356111452e-05f, 0.0001023975491989404f, 0.00024225760716944933f,
       0.00044205767335370183f, 0.0007017977768555284f, 0.0006614779704250395f}};
  for (size_t step = 0; step < 3; ++step) {
    it.set_value(b.grad, HostArray(grads[step]));
    it.run();
    EXPECT_EQ(it.value(b.step).i32(), (std::vector<int32_t>{static_cast<int32_t>(step + 1)}));
    const std::vector<float> w = it.value(b.w).f32(), m = it.value(b.m).f32(),
                             v = it.value(b.v).f32();
    for (size_t i = 0; i < 6; ++i) {
      SCOPED_TRACE("step " + std::to_string(step + 1) + " element " + std::to_string(i));
      EXPECT_NEAR(w[i], torch_w[step][i], 2e-7);
      // m of element 4 at step 2 is 0.9 * -0.05 + 0.1 * 0.45: cancellation to rounding noise.
      EXPECT_NEAR(m[i], torch_m[step][i], 1e-8);
      EXPECT_NEAR(v[i], torch_v[step][i], 1e-6 * double{torch_v[step][i]});
    }
  }
}

TEST(OpsAdamW, ShapeErrors) {
  AdamWGraph b;
  build(&b, Attrs{{"lr", 0.01}});
  const TensorId small = b.g.add_parameter("small", TensorRole::OptimizerState, DType::F32, {3});
  const TensorId fstep = b.g.add_parameter("fstep", TensorRole::OptimizerState, DType::F32, {1});
  auto error = [&](std::vector<TensorId> in, Attrs attrs) {
    return user_error([&] { b.g.add(OpType::AdamW, "e", OpCategory::WeightUpdate, in, attrs); });
  };
  EXPECT_NE(error({b.w, b.grad, small, b.v, b.step}, Attrs{{"lr", 0.01}}).find("f32[3]"),
            std::string::npos);
  EXPECT_NE(error({b.w, b.grad, b.m, b.v, fstep}, Attrs{{"lr", 0.01}}).find("i32"),
            std::string::npos);
  EXPECT_NE(error({b.w, b.grad, b.m, b.v, b.step}, Attrs{{"lr", 0.01}, {"beta2", 1.0}})
                .find("beta2 1.0 must be in [0, 1)"),
            std::string::npos);
  EXPECT_NE(error({b.w, b.grad, b.m, b.v, b.step}, Attrs{{"lr", -1.0}}).find("must be >= 0"),
            std::string::npos);
}

// autodiff with AdamW: every weight gets an adamw with zeroed moments and a zeroed i32 count.
TEST(OpsAdamW, AutodiffAddsAnUpdateWithZeroStatePerWeight) {
  Graph g;
  const TensorId x =
      g.add_parameter("x", TensorRole::Input, DType::F32, {2, 3}, std::make_shared<HostArray>(kW));
  const TensorId w = g.add_parameter("fc.weight", TensorRole::Weight, DType::F32, {4, 3},
                                     std::make_shared<HostArray>(std::vector<float>(12, 0.5f)));
  const TensorId labels = g.add_parameter("labels", TensorRole::Label, DType::I32, {2},
                                          std::make_shared<HostArray>(std::vector<int32_t>{1, 3}));
  const TensorId y =
      g.add(OpType::Gemm, "fc", OpCategory::Forward, {x, w}, Attrs{{"trans_b", int64_t{1}}});
  g.set_loss(g.add(OpType::SoftmaxCe, "loss", OpCategory::Forward, {y, labels}));
  OptimizerOptions o;
  o.optimizer = "adamw";
  o.lr = 1e-3;
  o.weight_decay = 0.01;
  EXPECT_EQ(o.weight_copies(), 3u);
  EXPECT_EQ(build_training_step(g, o).updates, 1u);
  const Op& update = g.op(g.find_op("fc.weight.adamw"));
  EXPECT_EQ(update.type, OpType::AdamW);
  EXPECT_EQ(update.attrs.f("lr"), 1e-3);
  EXPECT_EQ(g.tensor(update.inputs[2]).name, "fc.weight.exp_avg");
  EXPECT_EQ(g.tensor(update.inputs[3]).name, "fc.weight.exp_avg_sq");
  const Tensor& step = g.tensor(update.inputs[4]);
  EXPECT_EQ(step.name, "fc.weight.step");
  EXPECT_EQ(step.dtype, DType::I32);
  EXPECT_EQ(g.data(step.data).role, TensorRole::OptimizerState);
  EXPECT_EQ(g.data(step.data).init->i32(), (std::vector<int32_t>{0}));
}

}  // namespace
}  // namespace s2::ir
