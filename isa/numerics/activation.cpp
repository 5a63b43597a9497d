#include "isa/numerics/activation.h"

#include <cmath>

#include "isa/numerics/lane_ops.h"

namespace s2::numerics {
namespace {

using isa::Activation;

// The special-function unit: the host's binary32 functions on flushed values.
float sfu_exp(float x) {
  return ftz(std::exp(x));
}
float sfu_erf(float x) {
  return ftz(std::erf(x));
}
float sfu_tanh(float x) {
  return ftz(std::tanh(x));
}

// PyTorch's constants: computed in double, rounded once to binary32, as its float kernels do.
constexpr double kM2SqrtPi = 1.12837916709551257390;  // M_2_SQRTPI
constexpr double kMSqrt1_2 = 0.70710678118654752440;  // M_SQRT1_2
constexpr double kMSqrt2 = 1.41421356237309504880;    // M_SQRT2
constexpr float kSqrt1_2 = static_cast<float>(kMSqrt1_2);
constexpr float kGeluAlpha = static_cast<float>(kM2SqrtPi * kMSqrt1_2 * 0.5);
constexpr float kGeluBeta = static_cast<float>(kMSqrt2 * kM2SqrtPi * 0.5);
constexpr float kGeluKappa = 0.044715f;
constexpr float kOneSixth = 1.0f / 6.0f;

float sigmoid(float x) {
  return div(1.0f, add(1.0f, sfu_exp(sub(0.0f, x))));
}

// min(max(x + 3, 0), 6), NaN propagating.
float relu6_of_shift(float x) {
  return min(max(add(x, 3.0f), 0.0f), 6.0f);
}

}  // namespace

bool reads_output(Activation act) {
  return act == Activation::None || act == Activation::Relu || act == Activation::Relu6 ||
         act == Activation::Sigmoid;
}

float act_fwd(Activation act, float x) {
  switch (act) {
    case Activation::None:
      return x;
    case Activation::Relu:
      return relu(x);
    case Activation::Relu6:  // hardtanh(x, 0, 6)
      return min(max(x, 0.0f), 6.0f);
    case Activation::Sigmoid:
      return sigmoid(x);
    case Activation::Silu:
      return mul(x, sigmoid(x));
    case Activation::Hardswish:
      return div(mul(x, relu6_of_shift(x)), 6.0f);
    case Activation::Hardsigmoid:
      return div(relu6_of_shift(x), 6.0f);
    case Activation::Gelu:
      return mul(mul(x, 0.5f), add(1.0f, sfu_erf(mul(x, kSqrt1_2))));
    case Activation::GeluTanh: {
      const float cube = mul(mul(x, x), x);
      const float inner = mul(kGeluBeta, add(x, mul(kGeluKappa, cube)));
      return mul(mul(0.5f, x), add(1.0f, sfu_tanh(inner)));
    }
  }
  return x;
}

float act_bwd(Activation act, float dy, float v) {
  switch (act) {
    case Activation::None:
      return dy;
    case Activation::Relu:  // v = y
      return relu_bwd(dy, v);
    case Activation::Relu6:  // v = y: 0 < y < 6 exactly when 0 < x < 6
      return v > 0.0f && v < 6.0f ? dy : 0.0f;
    case Activation::Sigmoid:  // v = y
      return mul(mul(dy, sub(1.0f, v)), v);
    case Activation::Silu: {
      const float s = sigmoid(v);
      return mul(mul(dy, s), add(1.0f, mul(v, sub(1.0f, s))));
    }
    case Activation::Hardswish:
      if (v < -3.0f) return 0.0f;
      if (v <= 3.0f) return mul(dy, add(div(v, 3.0f), 0.5f));
      return dy;  // also for a NaN x, as PyTorch
    case Activation::Hardsigmoid:
      return v > -3.0f && v < 3.0f ? mul(dy, kOneSixth) : 0.0f;
    case Activation::Gelu: {
      const float cdf = mul(0.5f, add(1.0f, sfu_erf(mul(v, kSqrt1_2))));
      const float pdf = mul(kGeluAlpha, sfu_exp(mul(mul(v, v), -0.5f)));
      return mul(dy, add(cdf, mul(v, pdf)));
    }
    case Activation::GeluTanh: {
      const float sq = mul(v, v);
      const float cube = mul(sq, v);
      const float inner = mul(kGeluBeta, add(v, mul(kGeluKappa, cube)));
      const float t = sfu_tanh(inner);
      const float left = mul(0.5f, v);
      const float right = add(1.0f, t);
      const float left_derivative = mul(0.5f, right);
      const float tanh_derivative = sub(1.0f, mul(t, t));
      const float inner_derivative = mul(kGeluBeta, add(1.0f, mul(3.0f * kGeluKappa, sq)));
      const float right_derivative = mul(mul(left, tanh_derivative), inner_derivative);
      return mul(dy, add(left_derivative, right_derivative));
    }
  }
  return dy;
}

void act_fwd(Activation act, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i)
    y[i] = act_fwd(act, x[i]);
}

}  // namespace s2::numerics
