#include "compiler/zoo/zoo.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>
#include <utility>

#include "compiler/zoo/models.h"
#include "isa/common/errors.h"

namespace s2::zoo {
namespace {

// A dimension must be in [min, max]; `what` names the option as the user sets it.
void check_range(const std::string& model, const char* what, int64_t value, int64_t min,
                 int64_t max) {
  if (value < min || value > max)
    throw UserError("model '" + model + "': " + what + " " + std::to_string(value) +
                    " is out of range: it must be in [" + std::to_string(min) + ", " +
                    std::to_string(max) + "]");
}

void check_options(const std::string& model, const ModelOptions& o) {
  // Tensor dimensions travel as 32-bit fields in the executable's tensor table, and the
  // input batch must fit in memory: its element count is capped at 2^31 - 1.
  constexpr int64_t kMaxDim = std::numeric_limits<int32_t>::max();
  check_range(model, "batch", o.batch, 1, kMaxDim);
  check_range(model, "channels", o.channels, 1, kMaxDim);
  check_range(model, "image height", o.height, 1, kMaxDim);
  check_range(model, "image width", o.width, 1, kMaxDim);
  check_range(model, "classes", o.classes, 2, kMaxDim);  // one class makes the loss constant
  const double elements = static_cast<double>(o.batch) * static_cast<double>(o.channels) *
                          static_cast<double>(o.height) * static_cast<double>(o.width);
  if (elements > static_cast<double>(kMaxDim))
    throw UserError("model '" + model + "': an input batch of " + std::to_string(o.batch) + "x" +
                    std::to_string(o.channels) + "x" + std::to_string(o.height) + "x" +
                    std::to_string(o.width) +
                    " has more than 2^31-1 elements; use a smaller "
                    "batch or smaller images");
}

bool any_lm_option(const LmShape& s) {
  return s.layers != 0 || s.heads != 0 || s.width != 0 || s.seq_len != 0 || s.vocab != 0 ||
         s.positions != 0;
}

// The value given, or the preset's where none is (0).
int64_t pick(int64_t given, int64_t preset) {
  return given != 0 ? given : preset;
}

// A transformer's encoder: layers, heads and a width the heads divide.
void check_encoder(const std::string& model, int64_t layers, int64_t heads, int64_t width) {
  check_range(model, "layers", layers, 1, 1024);
  check_range(model, "heads", heads, 1, 1024);
  check_range(model, "width", width, 1, int64_t{1} << 20);
  if (width % heads != 0)
    throw UserError("model '" + model + "': width " + std::to_string(width) +
                    " is not a multiple of the " + std::to_string(heads) + " heads");
}

// A dropout probability must be in [0, 1), and only the transformers have a dropout to set.
void check_dropout(const std::string& model, const Model& m, const ModelOptions& o) {
  for (auto [flag, p] :
       {std::pair{"--dropout", o.dropout}, std::pair{"--attention-dropout", o.attention_dropout}}) {
    if (!(p >= 0.0 && p < 1.0))
      throw UserError(std::string(flag) + ": " + (std::ostringstream() << p).str() +
                      " is not a probability in [0, 1)");
    if (p != 0.0 && !m.lm && !m.vit)
      throw UserError(std::string(flag) + ": model '" + model +
                      "' is not a transformer; the option sets the dropout of gpt, gpt2-small, "
                      "bert, bert-base, vit and vit_b_16 (the image models keep torchvision's "
                      "own dropout)");
  }
}

}  // namespace

LmShape lm_shape(const std::string& model, const LmShape& preset, const LmShape& given) {
  LmShape s;
  s.layers = pick(given.layers, preset.layers);
  s.heads = pick(given.heads, preset.heads);
  s.width = pick(given.width, preset.width);
  s.positions = pick(given.positions, preset.positions);
  // A shorter --seq-len keeps the preset's position table; a longer one grows it only when
  // --positions is not given either.
  s.seq_len = pick(given.seq_len, preset.seq_len);
  if (given.positions == 0) s.positions = std::max(s.positions, s.seq_len);
  s.vocab = pick(given.vocab, preset.vocab);
  constexpr int64_t kMax = int64_t{1} << 20;
  check_range(model, "sequence length", s.seq_len, 1, kMax);
  check_range(model, "vocabulary", s.vocab, 2, std::numeric_limits<int32_t>::max());
  check_range(model, "positions", s.positions, s.seq_len, kMax);
  check_encoder(model, s.layers, s.heads, s.width);
  return s;
}

VitShape vit_shape(const std::string& model, const VitShape& preset, const VitShape& given,
                   int64_t height, int64_t width) {
  VitShape s;
  s.layers = pick(given.layers, preset.layers);
  s.heads = pick(given.heads, preset.heads);
  s.width = pick(given.width, preset.width);
  s.patch = pick(given.patch, preset.patch);
  check_range(model, "patch", s.patch, 1, 1024);
  check_encoder(model, s.layers, s.heads, s.width);
  // torchvision's VisionTransformer takes square images cut into whole patches.
  if (height != width || height % s.patch != 0)
    throw UserError("model '" + model + "' takes square images whose side is a multiple of the " +
                    std::to_string(s.patch) + "-pixel patch (--patch), not " +
                    std::to_string(height) + "x" + std::to_string(width));
  return s;
}

const ModelRegistry& model_registry() {
  // A new model is a new file (declared in models.h) and one line here.
  static const ModelRegistry registry = [] {
    ModelRegistry r("model");
    // The networks whose padded windows never empty the map, down to 1x1 at stride 32.
    auto any_size = [&r](const char* name, void (*build)(ModelBuilder&)) {
      r.add(name, {build, std::string(name) +
                              " takes images of any size at batch 2 or more; at batch 1 one "
                              "side must exceed 32"});
    };
    r.add("mlp", {build_mlp, "mlp takes images of any size"});
    r.add("lenet5",
          {build_lenet5, "lenet5 needs images of at least 16x16 (the classic size is 32x32)"});
    any_size("resnet18", build_resnet18);
    any_size("resnet34", build_resnet34);
    any_size("resnet50", build_resnet50);
    r.add("vgg11", {build_vgg11,
                    "vgg11 needs images of at least 32x32 (the classic size is "
                    "224x224)"});
    any_size("mobilenet_v2", build_mobilenet_v2);
    any_size("efficientnet_b0", build_efficientnet_b0);
    r.add("densenet121", {build_densenet121,
                          "densenet121 needs images of at least 29x29 (its four 2x downsamplings "
                          "before the last block), and at batch 1 one side of at least 61"});
    // Language models: the size hint names the shape options instead of images.
    const std::string lm_hint =
        "set its shape with --layers, --heads, --width, --seq-len, --vocab, --positions";
    r.add("gpt", {build_gpt, lm_hint, LmShape{2, 4, 64, 32, 128, 32}});
    r.add("gpt2-small", {build_gpt, lm_hint, LmShape{12, 12, 768, 1024, 50257, 1024}});
    r.add("bert", {build_bert, lm_hint, LmShape{2, 4, 64, 32, 128, 32}});
    r.add("bert-base", {build_bert, lm_hint, LmShape{12, 12, 768, 512, 30522, 512}});
    // Vision transformers take images and the transformer's shape.
    const std::string vit_hint =
        "takes square images whose side is a multiple of its patch; set its shape with --layers, "
        "--heads, --width, --patch";
    r.add("vit", {build_vit, "vit " + vit_hint, std::nullopt, VitShape{2, 4, 64, 8}});
    r.add("vit_b_16", {build_vit, "vit_b_16 " + vit_hint, std::nullopt, VitShape{12, 12, 768, 16}});
    return r;
  }();
  return registry;
}

ir::Graph build_model(const std::string& name, const ModelOptions& options) {
  const Model* model = model_registry().find(name);
  if (model == nullptr)
    throw UserError(model_registry().unknown_message(name) + " (or an ONNX file ending in .onnx)");
  ModelOptions o = options;
  check_dropout(name, *model, o);
  if (!o.attention_mask.empty() && !model->lm)
    throw UserError("--attention-mask: model '" + name +
                    "' is not a language model; a padding mask applies to gpt, gpt2-small, "
                    "bert and bert-base");
  if (model->lm) {
    check_range(name, "batch", o.batch, 1, std::numeric_limits<int32_t>::max());
    o.lm = lm_shape(name, *model->lm, options.lm);
  } else if (model->vit) {
    check_options(name, o);
    if (any_lm_option(options.lm))
      throw UserError("model '" + name +
                      "' is a vision transformer: --seq-len, --vocab and --positions apply to "
                      "the language models (gpt, gpt2-small, bert, bert-base)");
    o.vit = vit_shape(name, *model->vit, options.vit, o.height, o.width);
  } else {
    if (options.vit.patch != 0 || options.vit.layers != 0 || options.vit.heads != 0 ||
        options.vit.width != 0)
      throw UserError("model '" + name +
                      "' is not a vision transformer: --patch applies to vit "
                      "and vit_b_16");
    if (any_lm_option(options.lm))
      throw UserError(
          "model '" + name +
          "' is an image model: --layers, --heads, --width, --seq-len, --vocab and "
          "--positions apply to the language models (gpt, gpt2-small, bert, bert-base)");
    check_options(name, o);
  }
  ModelBuilder builder(name, o, model->size_hint);
  model->build(builder);
  return builder.finish();
}

}  // namespace s2::zoo
