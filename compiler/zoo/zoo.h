#pragma once
// The model zoo: the networks the toolchain is measured on, built directly as Graph-IR
// forward graphs that end in a softmax cross-entropy loss. ir::build_training_step turns one
// into a full training step.
//
// The topologies are torchvision's (resnet18/34/50, vgg11, mobilenet_v2, efficientnet_b0,
// densenet121), the classic ones (mlp, lenet5) or Hugging Face's language models (gpt,
// gpt2-small: GPT2LMHeadModel; bert, bert-base: BertForMaskedLM) and torchvision's vision
// transformer (vit, vit_b_16),
// and every parameter carries the PyTorch state_dict key as its name (`conv1.weight`,
// `layer2.0.downsample.1.running_var`, `classifier.6.bias`), so weights move between the two
// by name (scripts/torch_reference.py). Ops are named by their module path (`layer1.0.conv1`;
// repeated modules such as a block's shared ReLU get `_2`, `_3`).
//
// Roles: conv/linear weights and biases and batch-norm gamma/beta are Weight; batch-norm
// running statistics are State; `input` [N,C,H,W] is Input; `labels` [N] (i32) is Label.
//
// Initial values are PyTorch's default initialisation, drawn from our own seeded generator
// (so they are deterministic and independent of the C++ library): conv and linear weights and
// biases U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (kaiming_uniform with a=sqrt(5)); batch-norm gamma 1,
// beta 0, running mean 0, running variance 1; the input N(0,1); labels uniform in
// [0, classes). (torchvision re-initialises resnet and vgg weights its own way; the
// cross-check copies our weights into PyTorch, so only the distribution differs.)
//
// Dropout and stochastic depth (vgg11, mobilenet_v2, efficientnet_b0, and the transformers with
// ModelOptions::dropout or attention_dropout) draw their masks on the
// accelerator from a counter-based generator seeded by `seed` and the module path
// (ops/dropout.h), so a step is reproducible and the PyTorch check follows the dumped masks.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "isa/common/registry.h"

namespace s2::zoo {

// A language model's shape. A model's preset fixes each; s2c's --layers, --heads, --width,
// --seq-len, --vocab and --positions override it (0 here: the preset's value).
struct LmShape {
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t width = 0;      // the embedding and residual width D
  int64_t seq_len = 0;    // tokens per sequence, at most `positions`
  int64_t vocab = 0;      // rows of the token embedding (and logits per token)
  int64_t positions = 0;  // rows of the position embedding
};

// A vision transformer's shape (torchvision's VisionTransformer). The preset fixes each; s2c's
// --layers, --heads, --width and --patch override it (0 here: the preset's value). The MLP is
// 4 x width wide, as in vit_b_16.
struct VitShape {
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t width = 0;  // the hidden width D
  int64_t patch = 0;  // the side of the square patches; the image's sides must be multiples
};

struct ModelOptions {
  int64_t batch = 4;
  int64_t channels = 3;
  int64_t height = 32;
  int64_t width = 32;
  int64_t classes = 10;
  uint64_t seed = 1;
  // The DRAM the step will run in (the target's capacity): the parameters and the batch must
  // fit it, checked before each is allocated, so absurd sizes fail at once naming the tensor.
  // 0: no limit.
  uint64_t dram_bytes = 0;
  // The copies of each weight the step keeps in DRAM throughout: 2 with SGD momentum (the
  // velocity), else 1. The check counts them, as the memory plan's persistent part will.
  uint64_t weight_copies = 1;
  // Language models only (a Model with an lm preset); the image fields above are unused then.
  LmShape lm;
  // Vision transformers only (a Model with a vit preset), beside the image fields.
  VitShape vit;
  // Transformers only (gpt, bert, vit): nn.Dropout's p, in [0, 1). `dropout` acts on the
  // hidden states (after the embeddings, on each residual branch before its add, and in ViT's
  // MLP after the GELU); `attention_dropout` on the attention probabilities, before P.V. 0: no
  // dropout op at all, the default here (Hugging Face's GPT-2 and BERT configurations use 0.1
  // for both, torchvision's ViT 0).
  double dropout = 0.0;
  double attention_dropout = 0.0;
  // Language models only (gpt, bert): Hugging Face's attention_mask, [batch x seq_len] row-major
  // values, 1 where a token is attended and 0 where it is padding (s2c --attention-mask). When
  // given, every attention adds it to its scores as the constant kPaddingMaskName
  // (ModelBuilder::padding_mask), and the synthetic labels leave padding out. Empty: none.
  std::vector<int32_t> attention_mask;
  // Language models only: the batch's token ids, [batch x seq_len] row-major (s2c --input).
  // Empty: drawn from the seed. The labels come from them as a training loop's would: gpt's
  // are each sequence's next tokens, and bert masks 15% of them and predicts those. The ids
  // are not checked against the vocabulary here (the driver names the file when one is out).
  std::vector<int32_t> input_ids;
};

// The padding mask's tensor: Hugging Face's extended_attention_mask, [N, 1, 1, T] f32.
inline constexpr char kPaddingMaskName[] = "extended_attention_mask";

// The forward graph of model `name`, with graph.loss() set. Throws UserError for an unknown
// name (listing the known ones), for options out of range, and for image sizes the network
// cannot take (saying which layer fails and why).
ir::Graph build_model(const std::string& name, const ModelOptions& options);

class ModelBuilder;  // model_builder.h

struct Model {
  void (*build)(ModelBuilder&);
  std::string size_hint;  // ends size errors: which images the model takes
  // A language model's preset shape; absent for the image models.
  std::optional<LmShape> lm = std::nullopt;
  // A vision transformer's preset shape; absent for the others.
  std::optional<VitShape> vit = std::nullopt;
};
using ModelRegistry = Registry<Model>;

// Every model by name, in the order the zoo lists them (s2c --help).
const ModelRegistry& model_registry();

// A language model's shape: `preset` where `given` leaves 0 (a --seq-len beyond the preset's
// positions grows the position table unless --positions is given), each value checked.
// Throws UserError naming `model` and the value out of range.
LmShape lm_shape(const std::string& model, const LmShape& preset, const LmShape& given);

// A vision transformer's shape: `preset` where `given` leaves 0, checked against the images
// (square, sides multiples of the patch). Throws UserError naming `model` and the value.
VitShape vit_shape(const std::string& model, const VitShape& preset, const VitShape& given,
                   int64_t height, int64_t width);

}  // namespace s2::zoo
