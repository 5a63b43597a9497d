#include "compiler/zoo/zoo.h"

#include <limits>

#include "compiler/zoo/models.h"
#include "isa/common/errors.h"

namespace s2::zoo {
namespace {

struct ModelEntry {
  const char* name;
  void (*build)(ModelBuilder&);
  const char* size_hint;  // ends size errors: which images the model takes
};

// The registry: a new model is a new file and one line here.
constexpr ModelEntry kModels[] = {
    {"mlp", build_mlp, "mlp takes images of any size"},
    {"lenet5", build_lenet5, "lenet5 needs images of at least 16x16 (the classic size is 32x32)"},
    {"resnet18", build_resnet18,
     "resnet18 takes images of any size at batch 2 or more; at batch 1 one side must exceed 32"},
    {"resnet34", build_resnet34,
     "resnet34 takes images of any size at batch 2 or more; at batch 1 one side must exceed 32"},
    {"resnet50", build_resnet50,
     "resnet50 takes images of any size at batch 2 or more; at batch 1 one side must exceed 32"},
    {"vgg11", build_vgg11,
     "vgg11 needs images whose height and width divided by 32 (rounded down) are multiples of 7, "
     "such as 224x224"},
};

std::string known_models() {
  std::string s;
  for (const ModelEntry& m : kModels)
    s += (s.empty() ? "" : ", ") + std::string(m.name);
  return s;
}

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

}  // namespace

ir::Graph build_model(const std::string& name, const ModelOptions& options) {
  for (const ModelEntry& m : kModels) {
    if (name != m.name) continue;
    check_options(name, options);
    ModelBuilder builder(name, options, m.size_hint);
    m.build(builder);
    return builder.finish();
  }
  throw UserError("unknown model '" + name + "'; the zoo has: " + known_models());
}

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const ModelEntry& m : kModels)
      v.emplace_back(m.name);
    return v;
  }();
  return names;
}

}  // namespace s2::zoo
