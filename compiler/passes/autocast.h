#pragma once
// Mixed precision: `s2c compile --precision bf16|fp16` (docs/compiler.md, "Precision").
//
// The pass runs on the training step (after autodiff) and stores it in the 16-bit type the way
// PyTorch autocast computes it, with what the hardware does at each point:
//   * the batch (role input) is stored in the 16-bit type;
//   * a weight keeps its f32 master copy, read by the update and wherever it is not multiplied
//     (biases, batch- and layer-norm gamma and beta, added position tables). A weight that the
//     PE array multiplies, that an embedding gathers or that a concat joins with 16-bit parts
//     gets a persistent 16-bit copy (role state, named WEIGHT.bf16 or WEIGHT.f16, initialised
//     to the rounded weight); those ops read the copy, views of the weight become the same
//     views of the copy, and the weight's sgd or adamw writes the new weight into it
//     (weight_copy), so no cast runs per step;
//   * every op then writes its results in the type InferContext::result_dtype() gives: the
//     16-bit type when it reads a 16-bit float, f32 for weight-gradient and update ops (f32
//     gradients meet the f32 master weights) and for the values the ISA keeps in f32 (batch-
//     and layer-norm statistics, the loss). So activations, the tensors saved for the backward
//     and activation gradients are 16-bit; the PE array accumulates in f32 and its epilogue
//     rounds once, where it writes.
//   * a PE multiplicand that is still f32 there (nothing 16-bit flows into it) is cast by a
//     PPU `cast`, once per tensor.
// The arithmetic of every op stays f32 (the PPU widens what it reads, and the products of two
// 16-bit values are exact in f32): the precision changes what is stored and where it is
// rounded, not how anything is computed.

#include <optional>
#include <string>
#include <string_view>

#include "compiler/passes/pass.h"

namespace s2::ir {

// Dynamic loss scaling in the manner of torch.cuda.amp.GradScaler (its defaults here), in the
// instruction stream: the loss gradient is seeded with the loss scale S (persistent state
// amp.loss_scale), so every gradient arrives multiplied by S; an amp_check per weight gradient
// and a sum of their flags give found_inf; every update multiplies its gradient by
// amp.inv_scale (1 / S) and is skipped when found_inf is nonzero; amp_update then halves S
// (backoff) after an overflow, or doubles it after growth_interval clean steps, and gives the
// next step's inv_scale. Across `s2sim run --steps` the scale moves as GradScaler's does.
struct LossScaling {
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
};

// The step as it would be without dynamic loss scaling's hold on the updates: amp_update gone,
// every update without found_inf and inv_scale (what only they read is left to dead-code
// elimination). For the compile summary's cost of loss scaling. A graph without amp_update
// comes back unchanged.
Graph without_loss_scaling(const Graph& graph);

// "fp32", "bf16" or "fp16" (the --precision values) -> the tensors' 16-bit type, or F32.
std::optional<DType> precision_from_name(std::string_view name);
const char* precision_name(DType dtype);  // F32 -> "fp32", BF16 -> "bf16", F16 -> "fp16"

// The step stored in `low` (BF16 or F16); with F32 the graph comes back unchanged. A forward
// graph (no updates yet) is cast the same way; its weight copies are then never written.
// With `scaling`, the step also scales its loss; gradient clipping then takes the norm of the
// unscaled gradients (PyTorch's scaler.unscale_() before clip_grad_norm_).
PassResult autocast(const Graph& graph, DType low,
                    const std::optional<LossScaling>& scaling = std::nullopt);

}  // namespace s2::ir
