// sgd: PyTorch's torch.optim.SGD semantics (dampening 0, no Nesterov) over two consecutive
// steps of the interpreter, the in-place update of the weight's and the velocity's data nodes,
// and shape-inference errors.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/interp/interpreter.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"
#include "op_test_util.h"

namespace s2::ir {
namespace {

const std::vector<float> kW = {0.5f, -1.25f, 2.0f, 0.75f, -0.3f, 1.1f};
const std::vector<float> kG1 = {0.1f, 0.2f, -0.3f, 0.4f, -0.5f, 0.6f};
const std::vector<float> kG2 = {-0.05f, 0.15f, 0.25f, -0.35f, 0.45f, -0.55f};

struct SgdGraph {
  Graph g;
  TensorId w, grad, v;
  std::vector<TensorId> out;
};

void build(SgdGraph* b, bool velocity, const Attrs& attrs) {
  b->w = b->g.add_parameter("w", TensorRole::Weight, DType::F32, {2, 3},
                            std::make_shared<HostArray>(kW));
  b->grad = b->g.add_parameter("dw", TensorRole::WeightGradient, DType::F32, {2, 3},
                               std::make_shared<HostArray>(kG1));
  std::vector<TensorId> inputs{b->w, b->grad};
  if (velocity) {
    b->v = b->g.add_parameter("v", TensorRole::OptimizerState, DType::F32, {2, 3});
    inputs.push_back(b->v);
  }
  b->out = b->g.add_op(OpType::Sgd, "update", OpCategory::WeightUpdate, inputs, attrs);
}

TEST(OpsSgd, InPlaceOutputs) {
  SgdGraph b;
  build(&b, true, Attrs{{"lr", 0.1}, {"momentum", 0.9}});
  ASSERT_EQ(b.out.size(), 3u);
  EXPECT_FALSE(b.out[2].valid());  // no weight_copy: weight_copy_out absent
  const Tensor& w_out = b.g.tensor(b.out[0]);
  const Tensor& v_out = b.g.tensor(b.out[1]);
  EXPECT_EQ(w_out.data, b.g.tensor(b.w).data);
  EXPECT_EQ(v_out.data, b.g.tensor(b.v).data);
  EXPECT_EQ(w_out.shape, (Shape{2, 3}));
  EXPECT_EQ(w_out.strides, (Shape{3, 1}));
  EXPECT_EQ(w_out.offset, 0);
  EXPECT_EQ(b.g.num_datas(), 3u);  // no new buffers
  const Op& op = b.g.op(b.g.find_op("update"));
  EXPECT_TRUE(b.g.writes_in_place(op));
  EXPECT_TRUE(b.g.has_side_effect(op));
  EXPECT_EQ(op.attrs.text(), "lr=0.1 momentum=0.9 weight_decay=0.0");
  EXPECT_EQ(op_schema(OpType::Sgd).fusion, FusionClass::Ppu);
  EXPECT_EQ(op_schema(OpType::Sgd).backward, nullptr);

  SgdGraph plain;
  build(&plain, false, Attrs{{"lr", 0.1}});
  ASSERT_EQ(plain.out.size(), 3u);
  EXPECT_EQ(plain.g.tensor(plain.out[0]).data, plain.g.tensor(plain.w).data);
  EXPECT_FALSE(plain.out[1].valid());
}

// Two steps with momentum and weight decay, the gradient changing between them. Expected:
// PyTorch's algorithm written out in f32, and the values PyTorch 1.13 printed for the same
// step (torch.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.01)).
TEST(OpsSgd, TwoStepsMatchPyTorch) {
  SgdGraph b;
  build(&b, true, Attrs{{"lr", 0.1}, {"momentum", 0.9}, {"weight_decay", 0.01}});
  Interpreter it(b.g);
  std::vector<float> w = kW, buf(6, 0.0f);
  const float lr = 0.1f, momentum = 0.9f, wd = 0.01f;
  const std::vector<std::vector<float>> grads = {kG1, kG2};
  const std::vector<std::vector<float>> torch_w = {
      {0.4894999861717224f, -1.2687499523162842f, 2.0280001163482666f, 0.7092499732971191f,
       -0.24970000982284546f, 1.0389000177383423f},
      {0.484560489654541f, -1.29935622215271f, 2.026172161102295f, 0.7068657279014587f,
       -0.24918030202388763f, 1.0378711223602295f}};
  const std::vector<std::vector<float>> torch_buf = {
      {0.10500000417232513f, 0.1875f, -0.2800000011920929f, 0.4074999988079071f,
       -0.503000020980835f, 0.6110000014305115f},
      {0.04939499497413635f, 0.3060624897480011f, 0.018279999494552612f, 0.02384251356124878f,
       -0.005197018384933472f, 0.01028895378112793f}};
  for (size_t step = 0; step < 2; ++step) {
    it.set_value(b.grad, HostArray(grads[step]));
    it.run();
    for (size_t i = 0; i < 6; ++i) {
      const float d = grads[step][i] + wd * w[i];
      buf[i] = step == 0 ? d : momentum * buf[i] + d;
      w[i] = w[i] - lr * buf[i];
    }
    // Read through the input tensors: the same data nodes as the outputs.
    EXPECT_EQ(it.value(b.w).f32(), w) << "step " << step;
    EXPECT_EQ(it.value(b.v).f32(), buf) << "step " << step;
    EXPECT_EQ(it.value(b.out[0]).f32(), w);
    for (size_t i = 0; i < 6; ++i) {
      EXPECT_NEAR(w[i], torch_w[step][i], 1e-6) << "step " << step << " element " << i;
      EXPECT_NEAR(buf[i], torch_buf[step][i], 1e-6) << "step " << step << " element " << i;
    }
  }
}

TEST(OpsSgd, PlainStepWithoutVelocity) {
  SgdGraph b;
  build(&b, false, Attrs{{"lr", 0.5}});
  Interpreter it(b.g);
  it.run();
  it.run();
  std::vector<float> want;
  for (size_t i = 0; i < 6; ++i)
    want.push_back((kW[i] - 0.5f * kG1[i]) - 0.5f * kG1[i]);
  EXPECT_EQ(it.value(b.w).f32(), want);
}

// With momentum 0, PyTorch keeps no buffer: a given velocity is left as it is.
TEST(OpsSgd, ZeroMomentumLeavesVelocity) {
  SgdGraph b;
  build(&b, true, Attrs{{"lr", 0.25}, {"weight_decay", 0.5}});
  Interpreter it(b.g);
  it.set_value(b.v, HostArray(std::vector<float>{1, 2, 3, 4, 5, 6}));
  it.run();
  std::vector<float> want;
  for (size_t i = 0; i < 6; ++i)
    want.push_back(kW[i] - 0.25f * (kG1[i] + 0.5f * kW[i]));
  EXPECT_EQ(it.value(b.w).f32(), want);
  EXPECT_EQ(it.value(b.v).f32(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(OpsSgd, ShapeErrors) {
  Graph g;
  const TensorId w = g.add_parameter("w", TensorRole::Weight, DType::F32, {2, 3});
  const TensorId g23 = g.add_parameter("g23", TensorRole::WeightGradient, DType::F32, {2, 3});
  const TensorId g32 = g.add_parameter("g32", TensorRole::WeightGradient, DType::F32, {3, 2});
  const TensorId v6 = g.add_parameter("v6", TensorRole::OptimizerState, DType::F32, {6});
  const TensorId wide = g.add_parameter("wide", TensorRole::Weight, DType::F32, {2, 6});
  const TensorId half =
      g.add(OpType::Slice, "half", OpCategory::Forward, {wide},
            Attrs{{"axis", int64_t{1}}, {"start", int64_t{0}}, {"end", int64_t{3}}});
  auto sgd = [&](std::vector<TensorId> in, const Attrs& attrs) {
    return user_error([&] { g.add_op(OpType::Sgd, "upd", OpCategory::WeightUpdate, in, attrs); });
  };
  EXPECT_EQ(sgd({w, g23}, Attrs{{"lr", 0.1}, {"momentum", 0.9}}),
            "shape inference: op 'upd' (sgd): momentum 0.9 needs the velocity input (optimizer "
            "state of the weight's shape)");
  EXPECT_EQ(sgd({w, g32}, Attrs{{"lr", 0.1}}),
            "shape inference: op 'upd' (sgd): input 'grad' is f32[3,2], expected f32[2,3]");
  EXPECT_EQ(sgd({w, g23, v6}, Attrs{{"lr", 0.1}, {"momentum", 0.9}}),
            "shape inference: op 'upd' (sgd): input 'velocity' is f32[6], expected f32[2,3]");
  EXPECT_EQ(sgd({w, g23}, Attrs{{"lr", -0.1}}),
            "shape inference: op 'upd' (sgd): lr -0.1 must be >= 0");
  EXPECT_EQ(sgd({w, g23}, Attrs{{"lr", 0.1}, {"weight_decay", -1.0}}),
            "shape inference: op 'upd' (sgd): weight_decay -1.0 must be >= 0");
  EXPECT_EQ(sgd({half, g23}, Attrs{{"lr", 0.1}}),
            "shape inference: op 'upd' (sgd): input 'weight' f32[2,3] is updated in place and "
            "must be a dense view");
}

}  // namespace
}  // namespace s2::ir
