#pragma once
// The PPU's per-element operations (DESIGN.md §6), shared by the compiler's reference
// interpreter, the simulator's functional model and the PPU RTL regression. Operands are
// datapath values (flushed, fp32.h); results are flushed; NaNs propagate (store() makes them
// canonical). Comparisons are IEEE ordered comparisons: a NaN compares false.
#include "isa/numerics/activation.h"
#include "isa/numerics/fp32.h"
#include "isa/numerics/low_precision.h"

namespace s2::numerics {

// max/min propagate a NaN in either operand; on equal values (+0 and -0) they return b.
inline float max(float a, float b) {
  return a != a || a > b ? a : b;
}
inline float min(float a, float b) {
  return a != a || a < b ? a : b;
}
// ReLU: a if a > 0, else +0 (a NaN gives +0).
inline float relu(float a) {
  return a > 0.0f ? a : 0.0f;
}
// The ReLU-backward mask (also the epilogue's gate): dy where the forward output y > 0.
inline float relu_bwd(float dy, float y) {
  return y > 0.0f ? dy : 0.0f;
}
// alpha * a + beta * b, three roundings.
inline float axpby(float a, float b, float alpha, float beta) {
  return add(mul(alpha, a), mul(beta, b));
}
// Scale and shift: alpha * a + beta, two roundings (batch-norm's per-channel affine too).
inline float scale_shift(float a, float alpha, float beta) {
  return add(mul(alpha, a), beta);
}

// One SGD step of one element. The hyper-parameters are datapath values (load() them); a term
// whose coefficient is zero is skipped, not multiplied by zero:
//   g = grad (+ weight_decay * w);  v = momentum * v + g; g = v (with momentum);  w = w - lr * g
struct SgdParams {
  float lr = 0.0f;
  float momentum = 0.0f;
  float weight_decay = 0.0f;
};
inline void sgd_step(const SgdParams& p, float& weight, float grad, float* velocity) {
  float g = grad;
  if (p.weight_decay != 0.0f) g = add(g, mul(p.weight_decay, weight));
  if (p.momentum != 0.0f) {
    *velocity = add(mul(p.momentum, *velocity), g);
    g = *velocity;
  }
  weight = sub(weight, mul(p.lr, g));
}

// The PE epilogue on one element in the PPU, in pipeline order: bias, residual, activation,
// gate. Absent stages are skipped (act None: no activation). The gate computes gate_act's
// backward (act_bwd, relu's mask by default) with the streamed value as dy, that value first
// rounded to y_type (epilogue()'s argument), the instruction's output type: the gradient as a
// separate backward instruction would read it from DRAM, so in bf16 and f16 fusing the backward
// changes no bit (relu's mask commutes with the rounding; the others do not), as PyTorch's autocast
// hands the activation's backward the 16-bit result of the Linear before it.
struct EpilogueStages {
  bool bias = false;
  bool residual = false;
  isa::Activation act = isa::Activation::None;
  bool gate = false;
  isa::Activation gate_act = isa::Activation::Relu;
};
// The gate stage on one value (see EpilogueStages).
inline float gate_stage(isa::Activation gate_act, isa::DType y_type, float v, float gate) {
  if (gate_act == isa::Activation::Relu) return relu_bwd(v, gate);
  return act_bwd(gate_act, round_to(y_type, v), gate);
}
inline float epilogue(const EpilogueStages& s, float acc, float bias, float residual, float gate,
                      isa::DType y_type = isa::DType::F32) {
  float y = acc;
  if (s.bias) y = add(y, bias);
  if (s.residual) y = add(y, residual);
  if (s.act != isa::Activation::None) y = act_fwd(s.act, y);
  if (s.gate) y = gate_stage(s.gate_act, y_type, y, gate);
  return y;
}

}  // namespace s2::numerics
