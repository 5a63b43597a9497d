#pragma once
// Gradient checks of backward rules by central finite differences on the reference
// interpreter (DESIGN.md validation ladder, step 3).
//
// grad_check builds one op on parameter inputs, asks the op's backward rule for the
// gradients of L = sum_k <y_k, r_k> (r_k random upstream gradients of the checked outputs),
// runs them in the interpreter, and compares each differentiable input's gradient with
// (L(x + eps) - L(x - eps)) / (2 eps) computed element by element in double.

#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace s2::ir::testing {

struct GradInput {
  Shape shape;
  DType dtype = DType::F32;
  TensorRole role = TensorRole::Input;
  bool differentiable = true;  // compare this input's gradient
  bool absent = false;         // an optional input left out
  std::vector<float> values;   // f32 contents; empty: uniform random in [lo, hi]
  std::vector<int32_t> ints;   // i32 contents (labels, indices); empty: zeros
  float lo = -1.0f;
  float hi = 1.0f;
};

struct GradCheckSpec {
  OpType type = OpType::Conv2d;
  Attrs attrs;
  std::vector<GradInput> inputs;
  std::vector<size_t> checked_outputs = {0};  // outputs that get an upstream gradient
  uint32_t seed = 1;
  double eps = 1e-3;
  double tolerance = 1e-2;  // on max|analytic - numeric| / max|numeric|, per input
};

struct GradCheckResult {
  bool ok = true;
  std::vector<double> error;  // per input; -1 where not checked
  std::string report;         // one line per checked input
};

GradCheckResult grad_check(const GradCheckSpec& spec);

}  // namespace s2::ir::testing
