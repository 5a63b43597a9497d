#include "compiler/driver/reference.h"

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "compiler/driver/frontend.h"
#include "compiler/driver/model_import.h"
#include "compiler/interp/interpreter.h"
#include "compiler/io/npy.h"
#include "compiler/passes/autocast.h"
#include "compiler/passes/fusion.h"
#include "isa/common/config_dir.h"
#include "isa/common/errors.h"
#include "isa/common/json.h"
#include "isa/container/output_guard.h"
#include "isa/container/writer.h"
#include "isa/io/npy.h"
#include "simulator/dram/load_target.h"

namespace s2::compiler {
namespace {

namespace fs = std::filesystem;
using ir::TensorId;
using ir::TensorRole;

Json tensor_names(const ir::Graph& g, const std::vector<TensorId>& tensors) {
  Json names = Json::array();
  for (TensorId t : tensors)
    names.push_back(g.tensor(t).name);
  return names;
}

void check_sgd(const ir::OptimizerOptions& o) {
  const std::pair<const char*, double> values[] = {{"learning rate", o.lr},
                                                   {"momentum", o.momentum},
                                                   {"weight decay", o.weight_decay},
                                                   {"eps", o.eps}};
  for (const auto& [what, v] : values)
    if (!std::isfinite(v) || v < 0.0)
      throw UserError(std::string("reference: the ") + what + " " + fmt::format("{}", v) +
                      " must be a finite number >= 0");
  for (const double b : {o.beta1, o.beta2})
    if (!(b >= 0.0 && b < 1.0))
      throw UserError("reference: beta " + fmt::format("{}", b) + " must be in [0, 1)");
}

fs::path make_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw UserError(dir.string() + ": cannot create the output directory" +
                    (ec ? ": " + ec.message() : std::string()));
  return dir;
}

// The files the run reads, which no output may replace.
std::vector<std::string> inputs(const ReferenceOptions& o) {
  return {o.model, o.config, o.input_npy, o.labels_npy, o.attention_mask_npy};
}

// The model's options as the front end takes them, with the batch's files.
FrontendOptions frontend_options(const ReferenceOptions& o) {
  FrontendOptions f;
  f.model = o.model;
  f.model_options = o.model_options;
  f.onnx = o.onnx;
  f.input_npy = o.input_npy;
  f.labels_npy = o.labels_npy;
  f.attention_mask_npy = o.attention_mask_npy;
  return f;
}

// Writes dir/<npy::file_name(name)>, never over one of the run's inputs
// (isa/container/output_guard.h).
void write_tensor(const ReferenceOptions& o, const fs::path& dir, const std::string& name,
                  const ir::HostArray& values, const ir::Shape& shape) {
  const std::string path = (dir / npy::file_name(name)).string();
  isa::guard_output(path, isa::FileKind::Npy, inputs(o), o.force);
  io::write_npy(path, values, shape);
}

class ReferenceStep {
 public:
  explicit ReferenceStep(const ReferenceOptions& o) : o_(o), graph_(read(o)) {
    // Dropout's step counters are state of ours that no state_dict has.
    std::set<uint32_t> counters;
    for (size_t i = 0; i < graph_.num_ops(); ++i) {
      const ir::Op& op = graph_.op(ir::OpId(i));
      if (op.type == ir::OpType::DropoutMask) counters.insert(op.inputs.at(0).value);
    }
    // The parameters, before autodiff adds optimizer state: in creation order, which is the
    // model's state_dict order.
    for (size_t i = 0; i < graph_.num_tensors(); ++i) {
      const TensorId t(i);
      if (graph_.tensor(t).producer.valid()) continue;  // views and in-place results
      if (counters.count(t.value) != 0) continue;
      const TensorRole role = graph_.data(graph_.tensor(t).data).role;
      if (role == TensorRole::Weight) weights_.push_back(t);
      if (role == TensorRole::State) state_.push_back(t);
      if (role == TensorRole::Input) input_ = t;
      if (role == TensorRole::Label) labels_ = t;
      if (role == TensorRole::Weight || role == TensorRole::State || role == TensorRole::Input ||
          role == TensorRole::Label)
        params_.push_back(t);
    }
    // A language model's padding mask (--attention-mask): a constant of the step, written
    // beside the batch so that the PyTorch step masks the same positions.
    if (const TensorId mask = graph_.find_tensor(zoo::kPaddingMaskName); mask.valid()) {
      const ir::Tensor& t = graph_.tensor(mask);
      attention_mask_ = *graph_.data(t.data).init;
      attention_mask_shape_ = t.shape;
    }
    for (size_t i = 0; i < graph_.num_ops(); ++i) {
      const ir::Op& op = graph_.op(ir::OpId(i));
      if (decision_type(op).empty()) continue;
      // Max pooling decides its indices; the others by their output (a relu by its sign).
      const TensorId value = op.outputs.at(op.type == ir::OpType::MaxPool2d ? 1 : 0);
      decisions_.push_back({decision_op(op), decision_type(op), graph_.tensor(value).name,
                            graph_.tensor(op.outputs.at(0)).shape});
    }
    if (o.precision == isa::DType::F32)
      ir::build_training_step(graph_, o.sgd);
    else
      compile_mixed_precision();
    for (size_t i = 0; i < graph_.num_ops(); ++i) {
      const ir::Op& op = graph_.op(ir::OpId(i));
      if (op.type == ir::OpType::Sgd || op.type == ir::OpType::AdamW)
        grad_of_[op.inputs.at(0).value] = op.inputs.at(1);
    }
  }

  // In 16-bit precision the fusion and the simplifications of a compile decide where results
  // are rounded (a fused epilogue rounds once, where the PE op writes), so the step is built as
  // `s2c compile` builds it: the front half with autocast, then epilogue fusion on the target.
  // The tensors written are found again by name.
  void compile_mixed_precision() {
    std::vector<std::string> params, weights, state;
    for (TensorId t : params_)
      params.push_back(graph_.tensor(t).name);
    for (TensorId t : weights_)
      weights.push_back(graph_.tensor(t).name);
    for (TensorId t : state_)
      state.push_back(graph_.tensor(t).name);
    const std::string input = graph_.tensor(input_).name, labels = graph_.tensor(labels_).name;
    FrontendOptions f = frontend_options(o_);
    f.sgd = o_.sgd;
    f.precision = o_.precision;
    f.loss_scaling = o_.loss_scaling;
    ir::Graph step = run_frontend(f, std::move(graph_)).graph;  // the forward graph, read once
    const std::string config = o_.config.empty() ? default_config() : o_.config;
    ir::PassResult fused =
        ir::fuse_epilogues(step, ir::fusion_options(target::load_target(config)));
    graph_ = fused.changed ? std::move(fused.graph) : std::move(step);
    auto find = [&](const std::string& name) {
      const TensorId t = graph_.find_tensor(name);
      S2_CHECK(t.valid(), "reference: tensor '" + name + "' is not in the compiled step");
      return t;
    };
    auto find_all = [&](const std::vector<std::string>& names) {
      std::vector<TensorId> ids;
      for (const std::string& name : names)
        ids.push_back(find(name));
      return ids;
    };
    params_ = find_all(params);
    weights_ = find_all(weights);
    state_ = find_all(state);
    input_ = find(input);
    labels_ = find(labels);
  }

  void run() {
    const fs::path out = o_.out_dir;
    const std::string config = o_.config.empty() ? default_config() : o_.config;
    ir::Interpreter it(graph_, target::load_target(config).pe_array.k_tile());
    const fs::path init = make_dir(out / "init");
    for (TensorId t : params_)
      write(it, init, t);
    if (attention_mask_shape_)
      write_tensor(o_, init, zoo::kPaddingMaskName, attention_mask_, *attention_mask_shape_);

    const auto start = std::chrono::steady_clock::now();
    it.run();
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const TensorId loss = graph_.loss();
    loss_ = it.value(loss).f32().at(0);
    write_tensor(o_, out, "loss", it.value(loss), graph_.tensor(loss).shape);
    const fs::path grad = make_dir(out / "grad");
    for (TensorId w : weights_) {
      const ir::Tensor& t = graph_.tensor(w);
      const auto g = grad_of_.find(w.value);
      // A weight the loss does not reach has no gradient op; its gradient is zero.
      write_tensor(o_, grad, t.name,
                   g != grad_of_.end()
                       ? it.value(g->second)
                       : ir::HostArray(ir::DType::F32, static_cast<size_t>(t.numel())),
                   t.shape);
    }
    const fs::path updated = make_dir(out / "updated");
    for (TensorId t : weights_)
      write(it, updated, t);
    for (TensorId t : state_)
      write(it, updated, t);
    const fs::path decisions = make_dir(out / "decisions");
    for (const Decision& d : decisions_)
      write_decision(it, decisions, d);
    write_manifest(out / "manifest.json");
  }

  double loss() const { return loss_; }
  double seconds() const { return seconds_; }
  size_t files() const {
    return params_.size() + (attention_mask_shape_ ? 1 : 0) + 1 + 2 * weights_.size() +
           state_.size() + decisions_.size() + 1;
  }

 private:
  void write(const ir::Interpreter& it, const fs::path& dir, TensorId t) const {
    write_tensor(o_, dir, graph_.tensor(t).name, it.value(t), graph_.tensor(t).shape);
  }

  static ir::Graph read(const ReferenceOptions& o) { return import_model(frontend_options(o)); }

  // The decision an op of the forward pass takes, as scripts/torch_reference.py names it, or
  // "" for an op without one.
  static std::string decision_type(const ir::Op& op) {
    if (op.type == ir::OpType::Relu) return "relu";
    if (op.type == ir::OpType::MaxPool2d) return "max_pool2d";
    if (op.type == ir::OpType::DropoutMask) return "dropout";
    if (op.type == ir::OpType::Activation && op.attrs.s("act") == "relu6") return "relu6";
    return "";
  }

  // The decision's name: the op's, or for dropout the layer's (ir::add_dropout's "<layer>.mask").
  static std::string decision_op(const ir::Op& op) {
    const std::string suffix = ".mask";
    if (op.type == ir::OpType::DropoutMask && op.name.size() > suffix.size() &&
        op.name.compare(op.name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return op.name.substr(0, op.name.size() - suffix.size());
    return op.name;
  }

  // The tensor a forward op's decision is read from survives fusion under its name (a fused
  // relu's output is its PE op's), so it is kept by name.
  struct Decision {
    std::string op;      // decision_op()
    std::string type;    // decision_type()
    std::string tensor;  // the output holding it: max pooling's indices, otherwise y
    ir::Shape shape;     // y's shape
  };

  void write_decision(const ir::Interpreter& it, const fs::path& dir, const Decision& d) const {
    const TensorId t = graph_.find_tensor(d.tensor);
    S2_CHECK(t.valid(), "reference: decision tensor '" + d.tensor + "' is not in the step");
    // Max pooling: the indices; relu6: the output itself (the gradient passes where
    // 0 < y < 6); dropout: the mask; relu: where the output is positive.
    if (d.type != "relu") {
      write_tensor(o_, dir, d.op, it.value(t), d.shape);
      return;
    }
    const std::vector<float> values = it.value(t).f32();
    std::vector<int32_t> mask(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      mask[i] = values[i] > 0.0f ? 1 : 0;
    write_tensor(o_, dir, d.op, ir::HostArray(std::move(mask)), d.shape);
  }

  void write_manifest(const fs::path& path) const {
    Json decisions = Json::array();
    for (const Decision& d : decisions_)
      decisions.push_back(
          {{"op", d.op}, {"type", d.type}, {"file", "decisions/" + npy::file_name(d.op)}});
    isa::guard_output(path.string(), isa::FileKind::Json, inputs(o_), o_.force);
    write_json_file(
        path.string(),
        {{"format", "s2train-reference-step 1"},
         {"model", o_.model},
         {"options", model_options()},
         {"optimizer", optimizer()},
         {"precision", ir::precision_name(o_.precision)},
         {"loss_scaling", loss_scaling()},
         {"input", graph_.tensor(input_).name},
         {"labels", graph_.tensor(labels_).name},
         {"attention_mask", attention_mask_shape_ ? Json(zoo::kPaddingMaskName) : Json(nullptr)},
         {"weights", tensor_names(graph_, weights_)},
         {"state", tensor_names(graph_, state_)},
         {"loss_terms", loss_terms()},
         {"decisions", decisions}});
  }

  // Each softmax_ce's logits and weight (an auxiliary classifier's loss is scaled by the
  // `scale` op that reads it, compiler/onnx/onnx_import.cpp), as the simulator's dump gives them.
  Json loss_terms() const {
    Json terms = Json::array();
    const std::vector<std::vector<ir::OpId>> readers = graph_.consumers();
    for (size_t i = 0; i < graph_.num_ops(); ++i) {
      const ir::Op& op = graph_.op(ir::OpId(i));
      if (op.type != ir::OpType::SoftmaxCe || op.category != ir::OpCategory::Forward) continue;
      double weight = 1.0;
      for (const ir::OpId r : readers.at(op.outputs.at(0).index())) {
        const ir::Op& user = graph_.op(r);
        if (user.type == ir::OpType::Scale)
          weight = static_cast<double>(static_cast<float>(user.attrs.f("alpha")));
      }
      terms.push_back({{"logits", graph_.tensor(op.inputs.at(0)).name}, {"weight", weight}});
    }
    return terms;
  }

  // The update's hyper-parameters, as given.
  Json optimizer() const {
    const ir::OptimizerOptions& o = o_.sgd;
    Json j = o.adamw() ? Json{{"name", "adamw"},  {"lr", o.lr},   {"beta1", o.beta1},
                              {"beta2", o.beta2}, {"eps", o.eps}, {"weight_decay", o.weight_decay}}
                       : Json{{"name", "sgd"},
                              {"lr", o.lr},
                              {"momentum", o.momentum},
                              {"weight_decay", o.weight_decay}};
    j["clip_grad_norm"] = o.clip_grad_norm > 0.0 ? Json(o.clip_grad_norm) : Json(nullptr);
    return j;
  }

  // The step's sizes: the zoo's options, or for an ONNX model those of its input and logits.
  Json loss_scaling() const {
    if (!o_.loss_scaling) return Json(nullptr);
    const ir::LossScaling& s = *o_.loss_scaling;
    return {{"init_scale", s.init_scale},
            {"growth_factor", s.growth_factor},
            {"backoff_factor", s.backoff_factor},
            {"growth_interval", s.growth_interval}};
  }

  Json model_options() const {
    const zoo::ModelOptions& m = o_.model_options;
    const ir::Shape& x = graph_.tensor(input_).shape;
    if (const zoo::Model* lm = zoo::model_registry().find(o_.model); lm != nullptr && lm->lm) {
      const zoo::LmShape s = zoo::lm_shape(o_.model, *lm->lm, m.lm);
      return {{"batch", m.batch},         {"layers", s.layers},
              {"heads", s.heads},         {"width", s.width},
              {"seq_len", s.seq_len},     {"vocab", s.vocab},
              {"positions", s.positions}, {"seed", m.seed},
              {"dropout", m.dropout},     {"attention_dropout", m.attention_dropout}};
    }
    if (const zoo::Model* vit = zoo::model_registry().find(o_.model); vit != nullptr && vit->vit) {
      const zoo::VitShape s = zoo::vit_shape(o_.model, *vit->vit, m.vit, m.height, m.width);
      return {
          {"batch", m.batch}, {"channels", m.channels}, {"height", m.height},
          {"width", m.width}, {"classes", m.classes},   {"layers", s.layers},
          {"heads", s.heads}, {"hidden", s.width},      {"patch", s.patch},
          {"seed", m.seed},   {"dropout", m.dropout},   {"attention_dropout", m.attention_dropout}};
    }
    if (zoo::model_registry().contains(o_.model) || x.size() != 4)
      return {{"batch", m.batch}, {"channels", m.channels}, {"height", m.height},
              {"width", m.width}, {"classes", m.classes},   {"seed", m.seed}};
    int64_t classes = m.classes;
    for (size_t i = 0; i < graph_.num_ops(); ++i) {
      const ir::Op& op = graph_.op(ir::OpId(i));
      if (op.type == ir::OpType::SoftmaxCe) classes = graph_.tensor(op.inputs.at(0)).shape.back();
    }
    return {{"batch", x[0]}, {"channels", x[1]},   {"height", x[2]},
            {"width", x[3]}, {"classes", classes}, {"seed", m.seed}};
  }

  const ReferenceOptions& o_;
  ir::Graph graph_;
  TensorId input_, labels_;
  std::vector<TensorId> params_, weights_, state_;
  std::vector<Decision> decisions_;       // of the forward's relu, max_pool2d, ... ops
  std::map<uint32_t, TensorId> grad_of_;  // weight tensor id -> its summed gradient
  // The additive padding mask's values and shape, when the model has one.
  ir::HostArray attention_mask_;
  std::optional<ir::Shape> attention_mask_shape_;
  float loss_ = 0.0f;
  double seconds_ = 0.0;
};

}  // namespace

void parse_image_size(const std::string& text, zoo::ModelOptions* options) {
  auto number = [&](const std::string& part) {
    int64_t v = 0;
    const auto r = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || r.ec != std::errc() || r.ptr != part.data() + part.size() || v <= 0)
      throw UserError("--image '" + text +
                      "': expected H or HxW with positive integers, e.g. 32 or 224x224");
    return v;
  };
  const size_t x = text.find('x');
  options->height = number(text.substr(0, x));
  options->width = x == std::string::npos ? options->height : number(text.substr(x + 1));
}

void run_reference(const ReferenceOptions& options) {
  if (options.out_dir.empty()) throw UserError("reference: no output directory given (--out-dir)");
  check_sgd(options.sgd);
  ReferenceStep step(options);
  make_dir(options.out_dir);
  step.run();
  std::cout << "reference " << options.model << ": loss " << step.loss() << ", step took "
            << step.seconds() << " s on the interpreter; wrote " << step.files() << " files to "
            << options.out_dir << "\n";
}

}  // namespace s2::compiler
