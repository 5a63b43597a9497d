#include "isa/numerics/adamw.h"

#include <cmath>

#include "isa/numerics/fp32.h"

namespace s2::numerics {

AdamWScalars adamw_scalars(const AdamWParams& p, int64_t t) {
  const double lr = p.lr, b1 = 1.0 - static_cast<double>(p.one_minus_beta1),
               b2 = 1.0 - static_cast<double>(p.one_minus_beta2), steps = static_cast<double>(t);
  AdamWScalars s;
  s.decay = load(static_cast<float>(1.0 - lr * static_cast<double>(p.weight_decay)));
  s.beta1 = load(static_cast<float>(b1));
  s.beta2 = load(static_cast<float>(b2));
  s.neg_step_size = load(static_cast<float>(-(lr / (1.0 - std::pow(b1, steps)))));
  s.bias2_sqrt = load(static_cast<float>(std::sqrt(1.0 - std::pow(b2, steps))));
  return s;
}

void adamw_step(const AdamWParams& p, const AdamWScalars& s, float& weight, float grad,
                float& exp_avg, float& exp_avg_sq) {
  weight = mul(weight, s.decay);
  exp_avg = add(mul(exp_avg, s.beta1), mul(p.one_minus_beta1, grad));
  exp_avg_sq = add(mul(exp_avg_sq, s.beta2), mul(mul(p.one_minus_beta2, grad), grad));
  const float denom = add(div(ftz(std::sqrt(exp_avg_sq)), s.bias2_sqrt), p.eps);
  weight = add(weight, div(mul(s.neg_step_size, exp_avg), denom));
}

}  // namespace s2::numerics
