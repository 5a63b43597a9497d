#include "compiler/zoo/zoo.h"

#include <algorithm>
#include <limits>

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

}  // namespace

LmShape lm_shape(const std::string& model, const LmShape& preset, const LmShape& given) {
  auto pick = [](int64_t v, int64_t p) { return v != 0 ? v : p; };
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
  check_range(model, "layers", s.layers, 1, 1024);
  check_range(model, "heads", s.heads, 1, 1024);
  check_range(model, "width", s.width, 1, kMax);
  check_range(model, "sequence length", s.seq_len, 1, kMax);
  check_range(model, "vocabulary", s.vocab, 2, std::numeric_limits<int32_t>::max());
  check_range(model, "positions", s.positions, s.seq_len, kMax);
  if (s.width % s.heads != 0)
    throw UserError("model '" + model + "': width " + std::to_string(s.width) +
                    " is not a multiple of the " + std::to_string(s.heads) + " heads");
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
    return r;
  }();
  return registry;
}

ir::Graph build_model(const std::string& name, const ModelOptions& options) {
  const Model* model = model_registry().find(name);
  if (model == nullptr)
    throw UserError(model_registry().unknown_message(name) + " (or an ONNX file ending in .onnx)");
  ModelOptions o = options;
  if (model->lm) {
    check_range(name, "batch", o.batch, 1, std::numeric_limits<int32_t>::max());
    o.lm = lm_shape(name, *model->lm, options.lm);
  } else {
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
