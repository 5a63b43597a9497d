#pragma once
// The manifest of a functional run's tensor dump (`s2sim run --dump/--dump-all DIR`): what a
// reader outside the toolchain (scripts/torch_reference.py) needs to recompute the same
// training step without parsing the executable.
//
// DIR/manifest.json, format tag "s2sim-dump 1", holds: the executable, the target it was
// compiled for and the configuration the run simulated, the number of steps and the last
// step's loss; "tensors", the whole tensor table (name, role, shape, dtype) with, per tensor,
// the file of its dumped value ("file", relative to DIR, null when not dumped) and the file of
// its initial data ("initial", null when the executable has none); "sgd", one entry per sgd
// instruction naming its weight, gradient and velocity tensors with its lr, momentum and
// weight_decay; "adamw", one entry per adamw instruction naming its weight, gradient, exp_avg,
// exp_avg_sq and step tensors with its lr, beta1, beta2 (1 - the one_minus_beta fields, in double),
// eps and weight_decay; "clip_grad_norm", null, or for a step with gradient clipping its
// clip_scale instruction's max_norm and the names of its sumsq, scale and total_norm tensors
// (every update multiplies its gradient by the scale first); "loss_scaling", null, or for a step
// with dynamic loss scaling its amp_update instruction's growth_factor, backoff_factor and
// growth_interval and the names of its found_inf, loss_scale, growth_tracker and inv_scale
// tensors (every update multiplies its gradient by inv_scale and is skipped on found_inf);
// "softmax_ce", the logits, labels and
// loss tensors of the loss instruction; "decisions", the forward choices a reference must follow to
// reproduce the step bit-near:
// {"op", "type": "relu", "tensor"} for every ReLU applied in the forward pass (the tensor is
// its output, which the zoo names after the op, so the mask is tensor > 0) and
// {"op", "type": "max_pool2d", "tensor"} for every maxpool_fwd (the tensor is its idx operand,
// the flat argmax in the input plane); {"op", "type": "relu6", "tensor"} for every ReLU6 (its
// output: the gradient passes where 0 < y < 6); {"op", "type": "dropout", "tensor", "ratio",
// "counter"} for every dropout_mask (op: the layer, the op's name without ".mask"; tensor:
// the scaled keep mask the step multiplied by; counter: its step-counter state tensor, which
// has no counterpart in a PyTorch state_dict). Operands are named by the tensor-table entry the
// shadow-memory checker attributes them to (simulator/checker/tensor_attribution.h); one that
// no live entry holds is null.
//
// Dumped values are taken after the last step; initial data is the executable's, before the
// first step. Initial data goes to DIR/initial/<file>.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "isa/container/executable.h"

namespace s2::sim::report {

inline constexpr char kDumpManifestFormat[] = "s2sim-dump 1";

struct DumpRun {
  std::string executable;  // path as given to s2sim
  std::string config;      // target name of the configuration the run simulated
  unsigned steps = 1;
  std::optional<double> loss;  // the last step's loss, when the program computes one
  std::vector<size_t> dumped;  // tensor-table indices written as .npy into the directory
};

// Writes dir/manifest.json and dir/initial/*.npy (the directory must exist). A UserError names
// the path on failure.
void write_dump_manifest(const std::string& dir, const isa::Executable& exe, const DumpRun& run);

}  // namespace s2::sim::report
