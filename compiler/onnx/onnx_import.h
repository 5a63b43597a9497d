#pragma once
// The ONNX frontend: reads a classification model exported by torch.onnx.export
// (scripts/export_onnx.py) into a Graph-IR forward graph ending in a softmax cross-entropy
// loss, ready for autodiff::build_training_step.
//
// What the importer takes (everything else is a UserError naming the file, and the node and
// attribute when there is one):
//   * one image input with a static shape [N,C,H,W] (or [N,F]), element type float;
//   * ai.onnx opsets 9 to 17;
//   * the operators of the translator registry (translators.h; listed in docs/compiler.md);
//   * float initializers (the weights, named by their state_dict keys) and int64 ones used as
//     constant shapes;
//   * the logits [N, classes] as the first output, and optionally auxiliary classifiers'
//     logits of the same classes as further outputs (GoogLeNet, Inception-v3 in training mode).
//
// The graph it returns holds: the input batch (role Input, seeded random contents), every
// float initializer a node reads (role Weight; State for batch-norm running statistics), the
// forward ops named after their ONNX nodes, random labels i32[N] (role Label), and the loss,
// the graph's output: softmax_ce of the logits, or with auxiliary outputs the main softmax_ce
// plus aux_loss_weight times each auxiliary one, summed into the tensor "loss".

#include <cstdint>
#include <string>

#include "compiler/ir/graph.h"

namespace s2::onnx_import {

struct OnnxImportOptions {
  // The batch size. 0 takes the model's. A model exported with a symbolic batch dimension
  // needs one; a model with a fixed batch only accepts that same value (its reshapes and
  // shapes are baked in, so it cannot be re-batched here).
  int64_t batch = 0;
  // When non-zero, the logits must have this many classes.
  int64_t num_classes = 0;
  // Seeds the random labels and the random input batch.
  uint64_t seed = 0;
  // When non-zero (`s2c --channels`, `--image`), the input [N,C,H,W] must have these sizes; a
  // symbolic dimension takes them. A fixed dimension of another size is an error: convolution
  // and reshape shapes are baked into the file.
  int64_t channels = 0;
  int64_t height = 0;
  int64_t width = 0;
  // A model with several outputs (auxiliary classifiers in training mode: GoogLeNet's
  // aux_logits2 and aux_logits1, Inception-v3's aux_logits) trains on the first output plus
  // this weight times each further output's cross-entropy. Negative: the default for the
  // number of auxiliary outputs (kDefaultAuxWeight...). A model with one output must not set it.
  double aux_loss_weight = -1.0;
  // A .npy of token ids (int32 or int64) for a model whose input holds them, in the input's
  // shape: the batch, and so the next-token labels of a language model. Empty, or a model
  // whose input is an image batch: the ids are drawn from the seed (an image batch from
  // --input is the driver's to load). The ids are checked against the vocabulary by the driver.
  std::string token_ids_npy{};
};

// GoogLeNet's auxiliary classifiers are weighted 0.3 (Szegedy et al., "Going deeper with
// convolutions", 2015, section 5); Inception-v3's single one 0.4 (the weight of TF-slim's
// Inception-v3 training and of PyTorch's fine-tuning tutorial for torchvision's inception_v3).
inline constexpr double kDefaultAuxWeightTwoHeads = 0.3;
inline constexpr double kDefaultAuxWeightOneHead = 0.4;

// Reads `path` and translates it. Throws UserError on any problem with the file or model.
ir::Graph import_onnx(const std::string& path, const OnnxImportOptions& options = {});

}  // namespace s2::onnx_import
