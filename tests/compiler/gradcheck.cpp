#include "gradcheck.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ops/registry.h"

namespace s2::ir::testing {
namespace {

struct Built {
  Graph graph{"gradcheck"};
  std::vector<TensorId> inputs;    // invalid where absent
  std::vector<TensorId> outputs;   // the op's outputs
  std::vector<TensorId> upstream;  // r_k per checked output
};

// The op on its inputs, plus the upstream-gradient parameters.
Built build(const GradCheckSpec& spec, std::mt19937& rng) {
  Built b;
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    const GradInput& in = spec.inputs[i];
    if (in.absent) {
      b.inputs.push_back(TensorId());
      continue;
    }
    std::shared_ptr<HostArray> init;
    const size_t n = static_cast<size_t>(shape_numel(in.shape));
    if (in.dtype == DType::F32) {
      std::vector<float> v = in.values;
      if (v.empty())
        for (size_t k = 0; k < n; ++k)
          v.push_back(in.lo + (in.hi - in.lo) * unit(rng));
      init = std::make_shared<HostArray>(std::move(v));
    } else {
      std::vector<int32_t> v = in.ints;
      v.resize(n, 0);
      init = std::make_shared<HostArray>(std::move(v));
    }
    b.inputs.push_back(
        b.graph.add_parameter("in" + std::to_string(i), in.role, in.dtype, in.shape, init));
  }
  b.outputs = b.graph.add_op(spec.type, "op", OpCategory::Forward, b.inputs, spec.attrs);
  for (size_t k : spec.checked_outputs) {
    const Tensor& y = b.graph.tensor(b.outputs.at(k));
    std::vector<float> r;
    for (int64_t e = 0; e < y.numel(); ++e)
      r.push_back(2.0f * unit(rng) - 1.0f);
    b.upstream.push_back(b.graph.add_parameter("r" + std::to_string(k), TensorRole::Gradient,
                                               DType::F32, y.shape,
                                               std::make_shared<HostArray>(std::move(r))));
  }
  return b;
}

double loss_of(const Built& b, const GradCheckSpec& spec, const Interpreter& it) {
  double l = 0;
  for (size_t j = 0; j < spec.checked_outputs.size(); ++j) {
    const std::vector<float> y = it.value(b.outputs[spec.checked_outputs[j]]).f32();
    const std::vector<float> r = it.value(b.upstream[j]).f32();
    for (size_t e = 0; e < y.size(); ++e)
      l += static_cast<double>(y[e]) * static_cast<double>(r[e]);
  }
  return l;
}

}  // namespace

GradCheckResult grad_check(const GradCheckSpec& spec) {
  GradCheckResult result;
  std::mt19937 rng(spec.seed);
  Built b = build(spec, rng);
  const OpSchema& schema = op_schema(spec.type);
  // The same graph again, without backward ops, for the many forward evaluations.
  std::mt19937 rng_again(spec.seed);
  const Built forward_only = build(spec, rng_again);

  // Analytic gradients through the backward rule.
  std::vector<TensorId> output_grads(b.outputs.size());
  for (size_t j = 0; j < spec.checked_outputs.size(); ++j)
    output_grads[spec.checked_outputs[j]] = b.upstream[j];
  std::vector<bool> needs(spec.inputs.size());
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    needs[i] = spec.inputs[i].differentiable && !spec.inputs[i].absent &&
               spec.inputs[i].dtype == DType::F32;
  if (schema.backward == nullptr) {
    result.ok = false;
    result.report = std::string(op_type_name(spec.type)) + " has no backward rule";
    return result;
  }
  BackwardContext ctx(b.graph, b.graph.op(OpId(size_t{0})), output_grads, needs);
  schema.backward(ctx);
  Interpreter full(b.graph);
  full.run();

  // Numeric gradients, one forward run per perturbation on a forward-only copy.
  result.error.assign(spec.inputs.size(), -1.0);
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    if (!needs[i]) continue;
    const std::vector<TensorId>& grads = ctx.input_grads()[i];
    char line[256];
    if (grads.empty()) {
      result.ok = false;
      std::snprintf(line, sizeof line, "input %zu: the backward rule gave no gradient\n", i);
      result.report += line;
      continue;
    }
    std::vector<double> analytic(static_cast<size_t>(shape_numel(spec.inputs[i].shape)), 0.0);
    for (TensorId g : grads) {
      const std::vector<float> v = full.value(g).f32();
      for (size_t e = 0; e < v.size(); ++e)
        analytic[e] += static_cast<double>(v[e]);
    }
    std::vector<float> x = full.value(b.inputs[i]).f32();
    double max_diff = 0, max_num = 0;
    for (size_t e = 0; e < x.size(); ++e) {
      auto eval = [&](float value) {
        Interpreter fwd(forward_only.graph);
        std::vector<float> perturbed = x;
        perturbed[e] = value;
        fwd.set_value(forward_only.inputs[i], HostArray(perturbed));
        fwd.run();
        return loss_of(forward_only, spec, fwd);
      };
      const float up = x[e] + static_cast<float>(spec.eps);
      const float down = x[e] - static_cast<float>(spec.eps);
      const double numeric =
          (eval(up) - eval(down)) / (static_cast<double>(up) - static_cast<double>(down));
      max_diff = std::max(max_diff, std::abs(numeric - analytic[e]));
      max_num = std::max(max_num, std::abs(numeric));
    }
    const double err = max_diff / std::max(max_num, 1e-6);
    result.error[i] = err;
    if (!(err <= spec.tolerance)) result.ok = false;
    std::snprintf(line, sizeof line,
                  "input %zu (%s): max |analytic - numeric| / max |numeric| = %.3g\n", i,
                  input_spec(schema, i).name.c_str(), err);
    result.report += line;
  }
  return result;
}

}  // namespace s2::ir::testing
