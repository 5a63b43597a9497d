#pragma once
// The AdamW update (PyTorch 1.13's torch.optim.AdamW, amsgrad off, the single-tensor path),
// shared by the compiler's reference interpreter and the simulator's functional model.
//
// The instruction holds 1 - beta1 and 1 - beta2 (f32 0.001 is within 5e-11 of 1 - 0.999,
// f32 0.999 only within 1.3e-8: v's weight of the new gradient would be 1.3e-5 off).
// Per step the PPU's scalar unit forms, in double from the f32 hyper-parameters and the step
// t (already incremented; 1 on the first step), as PyTorch does in Python, each rounded once
// to f32:
//   beta1, beta2 = 1 - (1 - beta1), 1 - (1 - beta2)
//   decay      = 1 - lr * weight_decay
//   step_size  = lr / (1 - beta1^t)
//   bias2_sqrt = sqrt(1 - beta2^t)
// then per element, in f32 with every operation rounded (no fused multiply-add; PyTorch's CPU
// kernels may fuse some, a difference of rounding only):
//   w = w * decay
//   m = m * beta1 + (1 - beta1) * g
//   v = v * beta2 + ((1 - beta2) * g) * g
//   w = w + (-step_size * m) / (sqrt(v) / bias2_sqrt + eps)
// The moments start at zero; the weight decay is decoupled (it never enters m or v).
#include <cstdint>

namespace s2::numerics {

struct AdamWParams {
  float lr = 0.0f;
  float one_minus_beta1 = 0.1f;
  float one_minus_beta2 = 0.001f;
  float eps = 1e-8f;
  float weight_decay = 0.0f;
};

struct AdamWScalars {
  float decay = 1.0f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float neg_step_size = 0.0f;
  float bias2_sqrt = 1.0f;
};

// The scalars of step t >= 1.
AdamWScalars adamw_scalars(const AdamWParams& p, int64_t t);

// One element; weight, exp_avg and exp_avg_sq are updated in place.
void adamw_step(const AdamWParams& p, const AdamWScalars& s, float& weight, float grad,
                float& exp_avg, float& exp_avg_sq);

}  // namespace s2::numerics
