#pragma once
// The PPU's element-wise datapath as the functional model uses it: one pass of a lane
// operation over `elements` elements. Two implementations sit behind it: ModelPpuLanes (the
// C++ lane operations of isa/numerics/lane_ops.h) and the RTL adapter (simulator/rtl/), which
// streams the same pass through the verilated PPU. The operations are those the PPU RTL
// implements; batch norm, pooling, softmax and the reductions are computed by the C++ model
// in either case.
//
// Operands per op (null when unused; all arrays hold `elements` values, datapath values):
//   Add, Sub, Mul, Max, Min   out0 = op(in0, in1)
//   Relu                      out0 = relu(in0)
//   ReluBwd                   out0 = relu_bwd(dy = in0, y = in1)
//   Act                       out0 = act(in0)
//   ActBwd                    out0 = act_bwd(act, dy = in0, v = in1) (isa/numerics/activation.h)
//   Axpby                     out0 = alpha * in0 + beta * in1
//   ScaleShift                out0 = alpha * in0 + beta
//   Sgd                       in0 weight, in1 grad, in2 velocity (null without momentum);
//                             out0 new weight, out1 new velocity
//   Epilogue                  in0 accumulator, in1 bias (one value per element), in2 residual,
//                             in3 gate, each used when its stage is on; out0 y, and out1 y
//                             again when given (stored in its own type: the write-back rounds
//                             out0 to y's type while the statistics read the f32 out1)
//   Cast                      out0 = in0 (the conversion is the load's and the store's)
//
// Element types (in_type, out_type): what each stream is in memory. The caller widened the
// inputs (exactly) and rounds the outputs when it writes them, so the model ignores them; the
// RTL adapter streams 16-bit inputs as their 16-bit patterns and lets the PPU's load widen them
// and its store round the results, as the hardware does (isa/numerics/low_precision.h).
#include <cstddef>

#include "isa/encoding/isa_table.h"
#include "isa/numerics/lane_ops.h"

namespace s2::sim::functional {

enum class LaneOp {
  Add,
  Sub,
  Mul,
  Max,
  Min,
  Relu,
  ReluBwd,
  Act,
  ActBwd,
  Axpby,
  ScaleShift,
  Sgd,
  Epilogue,
  Cast
};

struct LanePass {
  LaneOp op = LaneOp::Add;
  size_t elements = 0;
  float alpha = 0.0f;
  float beta = 0.0f;
  isa::Activation act = isa::Activation::None;  // Act, ActBwd
  numerics::SgdParams sgd;
  numerics::EpilogueStages stages;
  isa::DType in_type[4] = {isa::DType::F32, isa::DType::F32, isa::DType::F32, isa::DType::F32};
  isa::DType out_type[2] = {isa::DType::F32, isa::DType::F32};
};

// Whether the pass writes out1 when the caller gives it: SGD's velocity (with momentum) and
// the epilogue's second copy of y.
inline bool writes_out1(const LanePass& pass) {
  return (pass.op == LaneOp::Sgd && pass.sgd.momentum != 0.0f) || pass.op == LaneOp::Epilogue;
}

class PpuLanes {
 public:
  virtual ~PpuLanes() = default;
  virtual void run(const LanePass& pass, const float* in0, const float* in1, const float* in2,
                   const float* in3, float* out0, float* out1) = 0;
};

class ModelPpuLanes final : public PpuLanes {
 public:
  void run(const LanePass& pass, const float* in0, const float* in1, const float* in2,
           const float* in3, float* out0, float* out1) override;
};

}  // namespace s2::sim::functional
