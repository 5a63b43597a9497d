// s2c: the S2Train compiler driver.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "compiler/driver/backend.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/frontend.h"
#include "compiler/driver/opt.h"
#include "compiler/driver/pass_registry.h"
#include "compiler/driver/reference.h"
#include "compiler/memory/planner_registry.h"
#include "compiler/passes/autocast.h"
#include "compiler/schedule/schedule.h"
#include "compiler/zoo/zoo.h"
#include "isa/common/cli_checks.h"
#include "isa/common/config_dir.h"
#include "isa/common/errors.h"
#include "isa/common/tool_main.h"
#include "isa/container/output_guard.h"
#include "isa/container/writer.h"
#include "isa/target/param_reader.h"
#include "s2/version.h"
#include "simulator/dram/load_target.h"

namespace {

const CLI::Validator kF32NonNegative = s2::cli::f32_non_negative();
const CLI::Validator kF32Fraction = s2::cli::fraction_below_one();
const CLI::Validator kFiniteNonNegative = s2::cli::finite_non_negative();
const CLI::Validator kPositiveWhole = s2::cli::positive_whole();
const CLI::Validator kWhole = s2::cli::whole();

// The optimizer's flags, shared by `compile`, `reference` and `opt`: --optimizer picks
// PyTorch's SGD or AdamW, each with PyTorch's defaults but SGD's momentum 0.9 and weight
// decay 5e-4; a flag of the other optimizer is an error.
struct OptimizerFlags {
  s2::ir::OptimizerOptions* o = nullptr;
  CLI::Option *lr = nullptr, *momentum = nullptr, *weight_decay = nullptr, *clip = nullptr;
  std::vector<CLI::Option*> adamw_only;

  void add_to(CLI::App* cmd, s2::ir::OptimizerOptions* options) {
    o = options;
    cmd->add_option("--optimizer", o->optimizer, "weight update: sgd (default) or adamw")
        ->check(CLI::IsMember({"sgd", "adamw"}));
    lr = cmd->add_option("--lr", o->lr, "learning rate (default 0.01 for sgd, 1e-3 for adamw)")
             ->check(kF32NonNegative);
    momentum = cmd->add_option("--momentum", o->momentum, "SGD momentum (default 0.9)")
                   ->check(kF32NonNegative);
    weight_decay = cmd->add_option("--weight-decay", o->weight_decay,
                                   "weight decay (default 5e-4 for sgd; 0.01 for adamw, "
                                   "decoupled)")
                       ->check(kF32NonNegative);
    adamw_only = {
        cmd->add_option("--beta1", o->beta1, "AdamW first-moment decay (default 0.9)")
            ->check(kF32Fraction),
        cmd->add_option("--beta2", o->beta2, "AdamW second-moment decay (default 0.999)")
            ->check(kF32Fraction),
        cmd->add_option("--eps", o->eps, "AdamW epsilon (default 1e-8)")->check(kF32NonNegative)};
    clip = cmd->add_option("--clip-grad-norm", o->clip_grad_norm,
                           "clip the gradients to this global L2 norm before any update, as "
                           "torch.nn.utils.clip_grad_norm_ (default: no clipping)");
  }

  // The defaults of the chosen optimizer; a flag of the other one is an error.
  void finish() const {
    // An f32 field holds it: finite and positive, as a float.
    if (*clip && !(o->clip_grad_norm > 0.0 && o->clip_grad_norm <= 3.4e38))
      throw s2::UserError("--clip-grad-norm " + clip->as<std::string>() +
                          ": must be a positive finite number");
    if (o->adamw()) {
      if (*momentum)
        throw s2::UserError("--momentum: applies to --optimizer sgd (AdamW has --beta1)");
      if (!*lr) o->lr = 1e-3;
      if (!*weight_decay) o->weight_decay = 0.01;
      if (!(o->beta1 < 1.0 && o->beta2 < 1.0))
        throw s2::UserError("--beta1 and --beta2 must be below 1");
      return;
    }
    for (const CLI::Option* a : adamw_only)
      if (*a) throw s2::UserError(a->get_name() + ": applies to --optimizer adamw");
  }
};

// The back half's settings shared by `compile` and `opt`.
void add_backend_flags(CLI::App* cmd, s2::compiler::BackendOptions* back) {
  cmd->add_option("--config", back->config,
                  "accelerator configuration (default: the shipped s2train_base.yaml)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--schedule", back->schedule, "execution order (default " + back->schedule + ")")
      ->check(CLI::IsMember(s2::schedule::scheduler_registry().names()));
  cmd->add_option("--planner", back->plan.planner,
                  "memory planner (default " + back->plan.planner + ")")
      ->check(CLI::IsMember(s2::memory::planner_registry().names()));
  cmd->add_option("--alignment", back->plan.alignment,
                  "tensor alignment in bytes, a power of two (default 64)")
      ->transform(s2::cli::positive_whole());
  cmd->add_option("--plan-seed", back->plan.seed, "seed of the search planner (default 1)")
      ->transform(s2::cli::whole());
  cmd->add_option("--plan-budget", back->plan.budget_ms,
                  "effort of the search planner in ms (default 200)")
      ->check(kFiniteNonNegative);
  cmd->add_option("--memory-report", back->memory_report,
                  "write the memory plan as JSON (scripts/plot_memory.py draws it)");
  cmd->add_option("--memory-budget", back->memory_budget,
                  "DRAM the step may use, e.g. 512MiB: activations saved for the backward are "
                  "swapped to host memory over the target's host link or recomputed "
                  "(--memory-budget-by) until the plan fits (docs/compiler.md, 'Memory budget')")
      ->type_name("SIZE")
      ->transform(CLI::Validator(
          [](std::string& text) {
            std::string problem;
            const std::optional<uint64_t> bytes = s2::target::parse_byte_size_text(text, problem);
            if (!bytes) return "'" + text + "': " + problem;
            if (*bytes == 0) return std::string("must be positive");
            text = std::to_string(*bytes);
            return std::string();
          },
          ""));
  cmd->add_option("--memory-budget-by", back->memory_budget_by,
                  "how --memory-budget lowers the need: swap (activations to host memory), "
                  "recompute (activations in the backward from kept inputs) or both (default; "
                  "swaps only on a configuration with a host_link)")
      ->check(CLI::IsMember({"swap", "recompute", "both"}));
}

// "a,b,c" -> {"a", "b", "c"} (the list has passed s2::cli::name_list(): no empty name).
std::vector<std::string> split_commas(const std::string& list) {
  std::vector<std::string> names;
  size_t start = 0;
  for (size_t comma; (comma = list.find(',', start)) != std::string::npos; start = comma + 1)
    names.push_back(list.substr(start, comma - start));
  names.push_back(list.substr(start));
  return names;
}

// --input, --labels and --attention-mask: the step's batch from .npy files (compile and
// reference take the same files, so a reference step reproduces a compiled one).
void add_batch_files(CLI::App* cmd, std::string* input, std::string* labels,
                     std::string* attention_mask) {
  cmd->add_option("--input", *input,
                  "the input batch as .npy, of the model's input shape: f32 images, or "
                  "int32/int64 token ids for a language model; default seeded")
      ->check(CLI::ExistingFile);
  cmd->add_option("--labels", *labels,
                  "the labels as .npy (int32 or int64, [batch], or [batch, seq-len] for a "
                  "language model, where -100 is ignored); default seeded")
      ->check(CLI::ExistingFile);
  cmd->add_option("--attention-mask", *attention_mask,
                  "language models (gpt, bert and their presets): the padding mask as .npy, "
                  "[batch, seq-len] of 1 (attend) and 0 (padding), int32, int64 or uint8, as "
                  "Hugging Face's attention_mask; synthetic labels leave the padding out")
      ->check(CLI::ExistingFile);
}

// The model options shared by `compile` and `reference`.
struct ModelFlags {
  s2::zoo::ModelOptions model;
  s2::ir::OptimizerOptions sgd;
  OptimizerFlags optimizer;
  std::string image;
  std::string precision = "fp32";
  CLI::Option* batch = nullptr;
  CLI::Option* classes = nullptr;
  CLI::Option* channels = nullptr;
  double aux_loss_weight = -1.0;
  CLI::Option* aux = nullptr;

  void add_to(CLI::App* cmd) {
    batch = cmd->add_option("--batch", model.batch, "batch size (default 4)")
                ->transform(kPositiveWhole);
    cmd->add_option("--image", image, "input size H or HxW (default 32)");
    channels = cmd->add_option("--channels", model.channels, "input channels (default 3)")
                   ->transform(kPositiveWhole);
    classes = cmd->add_option("--classes", model.classes, "number of classes (default 10)")
                  ->transform(kPositiveWhole);
    cmd->add_option("--seed", model.seed, "seed of the initial weights and the batch (default 1)")
        ->transform(kWhole);
    auto& lm = model.lm;
    lm_options = {cmd->add_option("--layers", lm.layers,
                                  "language models and vision transformers: transformer blocks")
                      ->transform(kPositiveWhole),
                  cmd->add_option("--heads", lm.heads,
                                  "language models and vision transformers: attention heads")
                      ->transform(kPositiveWhole),
                  cmd->add_option("--width", lm.width,
                                  "language models and vision transformers: embedding width (a "
                                  "multiple of --heads)")
                      ->transform(kPositiveWhole),
                  cmd->add_option("--seq-len", lm.seq_len, "language models: tokens per sequence")
                      ->transform(kPositiveWhole),
                  cmd->add_option("--vocab", lm.vocab, "language models: vocabulary size")
                      ->transform(kPositiveWhole),
                  cmd->add_option("--positions", lm.positions,
                                  "language models: rows of the position embedding (default the "
                                  "preset's, at least --seq-len)")
                      ->transform(kPositiveWhole)};
    patch = cmd->add_option("--patch", model.vit.patch,
                            "vision transformers: side of the square patches (the image's side "
                            "must be a multiple)")
                ->transform(kPositiveWhole);
    dropouts = {cmd->add_option("--dropout", model.dropout,
                                "transformers (gpt, bert, vit and their presets): dropout "
                                "probability of the hidden states, after the embeddings and on "
                                "each residual branch (default 0: no dropout)"),
                cmd->add_option("--attention-dropout", model.attention_dropout,
                                "transformers: dropout probability of the attention "
                                "probabilities (default 0); such attentions stay unfused under "
                                "--fuse-attention")};
    aux = cmd->add_option("--aux-loss-weight", aux_loss_weight,
                          "ONNX models with auxiliary classifiers (GoogLeNet, Inception-v3 "
                          "exported with --aux-logits): the loss is the main output's plus this "
                          "weight times each auxiliary output's (default 0.3 for two, 0.4 for "
                          "one)")
              ->check(kF32NonNegative);
    optimizer.add_to(cmd, &sgd);
    cmd->add_option("--precision", precision,
                    "fp32 (default), or mixed precision bf16 or fp16: 16-bit activations, "
                    "gradients and PE multiplies with f32 accumulation, f32 master weights and "
                    "optimizer state (docs/compiler.md, \"Precision\")")
        ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
    loss_scale = cmd->add_option("--loss-scale", scaling.init_scale,
                                 "dynamic loss scaling's initial scale (torch.cuda.amp.GradScaler; "
                                 "default 65536, on by default with --precision fp16, with bf16 "
                                 "when given)");
    no_loss_scaling = cmd->add_flag("--no-loss-scaling", "--precision fp16 without loss scaling");
    growth_interval =
        cmd->add_option("--loss-scale-growth-interval", scaling.growth_interval,
                        "clean steps after which the loss scale doubles (default 2000)")
            ->transform(s2::cli::positive_whole_at_most(INT32_MAX));
  }

  // The --precision value as the tensors' 16-bit type, or F32.
  s2::isa::DType precision_type() const { return *s2::ir::precision_from_name(precision); }

  // Dynamic loss scaling as the flags ask: on with fp16 unless --no-loss-scaling, on with bf16
  // when --loss-scale is given, never with fp32.
  std::optional<s2::ir::LossScaling> loss_scaling() const {
    const bool given = *loss_scale || *growth_interval;
    if (precision == "fp32" && (given || *no_loss_scaling))
      throw s2::UserError((*loss_scale        ? std::string("--loss-scale")
                           : *growth_interval ? std::string("--loss-scale-growth-interval")
                                              : std::string("--no-loss-scaling")) +
                          ": loss scaling applies to --precision fp16 or bf16");
    if (*no_loss_scaling) {
      if (given)
        throw s2::UserError(
            "--no-loss-scaling and " +
            std::string(*loss_scale ? "--loss-scale" : "--loss-scale-growth-interval") +
            " contradict each other");
      return std::nullopt;
    }
    if (precision == "bf16" && !*loss_scale) {
      if (*growth_interval)
        throw s2::UserError(
            "--loss-scale-growth-interval: bf16 scales its loss only when "
            "--loss-scale is given");
      return std::nullopt;
    }
    if (precision == "fp32") return std::nullopt;
    // The scale travels as an f32: finite and positive as a float.
    const auto as_float = static_cast<float>(scaling.init_scale);
    if (!(as_float > 0.0f && std::isfinite(as_float)))
      throw s2::UserError("--loss-scale " + loss_scale->as<std::string>() +
                          ": must be a positive number an f32 holds (at most 3.4e38)");
    return scaling;
  }

  s2::ir::LossScaling scaling;
  CLI::Option* loss_scale = nullptr;
  CLI::Option* no_loss_scaling = nullptr;
  CLI::Option* growth_interval = nullptr;
  std::vector<CLI::Option*> lm_options;
  std::vector<CLI::Option*> dropouts;
  CLI::Option* patch = nullptr;

  // `model_name`: the zoo model or ONNX file given. The image options mean nothing to a
  // language model (the zoo refuses the shape options for an image model).
  void finish(const std::string& model_name) {
    optimizer.finish();
    if (!image.empty()) s2::compiler::parse_image_size(image, &model);
    const s2::zoo::Model* zoo_model = s2::zoo::model_registry().find(model_name);
    if (zoo_model != nullptr && zoo_model->lm) {
      for (const CLI::Option* o : {classes, channels})
        if (*o)
          throw s2::UserError(o->get_name() + ": model '" + model_name +
                              "' is a language model; its classes are --vocab and its input is "
                              "token ids (--seq-len)");
      if (!image.empty())
        throw s2::UserError("--image: model '" + model_name +
                            "' is a language model; its input is token ids (--seq-len)");
    }
    if (zoo_model != nullptr && zoo_model->vit) {
      // --layers, --heads and --width shape a vision transformer's encoder.
      auto& lm = model.lm;
      model.vit.layers = std::exchange(lm.layers, 0);
      model.vit.heads = std::exchange(lm.heads, 0);
      model.vit.width = std::exchange(lm.width, 0);
    }
    if (zoo_model == nullptr && *patch)
      throw s2::UserError(
          "--patch: applies to the zoo's vision transformers (vit, vit_b_16); an "
          "ONNX file fixes its own shape");
    if (zoo_model == nullptr)
      for (const CLI::Option* o : dropouts)
        if (*o)
          throw s2::UserError(o->get_name() +
                              ": applies to the zoo's transformers; an ONNX file carries its own "
                              "Dropout nodes (export the model with the dropout it should train "
                              "with)");
    if (zoo_model == nullptr)
      for (const CLI::Option* o : lm_options)
        if (*o)
          throw s2::UserError(
              o->get_name() +
              ": applies to the zoo's language models (gpt, gpt2-small, bert, bert-base); an "
              "ONNX file fixes its own shape");
  }

  // For an ONNX model: the flags given, which its input and logits must agree with (an ONNX
  // file fixes them; compiler/onnx/onnx_import.h).
  s2::onnx_import::OnnxImportOptions onnx() const {
    s2::onnx_import::OnnxImportOptions o;
    if (*batch) o.batch = model.batch;
    if (*classes) o.num_classes = model.classes;
    if (*channels) o.channels = model.channels;
    if (*aux) o.aux_loss_weight = aux_loss_weight;
    if (!image.empty()) {
      o.height = model.height;
      o.width = model.width;
    }
    return o;
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"s2c - the S2Train compiler: models to S2Train executables (*.bin)"};
  app.set_version_flag("--version", std::string("s2c ") + s2::kVersion);
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 success, 1 bad input (the message names the file and place), 2 internal "
      "error.\nModels: " +
      s2::zoo::model_registry().known() + ", or an ONNX file (scripts/export_onnx.py).");

  // compile
  s2::compiler::FrontendOptions front;
  ModelFlags compile_flags;
  std::string dump_file;
  CLI::App* compile_cmd = app.add_subcommand(
      "compile",
      "Compile one training step of a model (zoo name or .onnx) into an S2Train executable: "
      "import, autodiff, shape inference, simplification, fusion, scheduling, memory "
      "planning, lowering");
  compile_cmd->add_option("model", front.model, "model-zoo name or ONNX file")->required();
  compile_flags.add_to(compile_cmd);
  compile_cmd
      ->add_option("--dump-after", front.dump_after,
                   "print the program as text (docs/compiler.md) after this pass")
      ->check(CLI::IsMember(s2::compiler::pass_registry().names()));
  compile_cmd->add_option("--dump-file", dump_file,
                          "write the --dump-after text here instead of stdout");
  s2::compiler::BackendOptions back;
  std::string output;
  bool no_fuse = false, force = false;
  compile_cmd->add_option("-o,--output", output, "executable to write (.bin)");
  add_batch_files(compile_cmd, &front.input_npy, &front.labels_npy, &front.attention_mask_npy);
  add_backend_flags(compile_cmd, &back);
  compile_cmd->add_flag("--no-fuse", no_fuse, "do not fuse PPU epilogues into PE instructions");
  compile_cmd->add_flag("--fuse-attention", back.fuse_attention,
                        "compute each attention and its backward as FlashAttention-style fused "
                        "PE instructions (attn_fwd, attn_bwd): the scores stay on chip "
                        "(docs/attention.md)");
  compile_cmd->add_flag("--force", force,
                        "replace existing output files of another kind (-o, --memory-report, "
                        "--dump-file); the inputs are never overwritten");

  // reference
  s2::compiler::ReferenceOptions ref;
  ModelFlags ref_flags;
  CLI::App* ref_cmd = app.add_subcommand(
      "reference",
      "Run one training step of a model (zoo name or .onnx) on the reference interpreter and "
      "write its inputs and results as .npy (check with scripts/torch_reference.py)");
  ref_cmd->add_option("model", ref.model, "model-zoo name or ONNX file")->required();
  ref_cmd->add_option("--out-dir", ref.out_dir, "directory to write")->required();
  ref_flags.add_to(ref_cmd);
  add_batch_files(ref_cmd, &ref.input_npy, &ref.labels_npy, &ref.attention_mask_npy);
  ref_cmd
      ->add_option("--config", ref.config,
                   "accelerator configuration whose PE-array K-tile the sums follow, so the "
                   "results match `s2sim run --functional` on it (default: the shipped "
                   "s2train_base.yaml)")
      ->check(CLI::ExistingFile);
  ref_cmd->add_flag("--force", ref.force,
                    "replace files in --out-dir that are not .npy arrays or JSON");

  // opt
  s2::compiler::OptOptions opt;
  CLI::App* opt_cmd = app.add_subcommand(
      "opt",
      "Run passes on a program written as text (docs/compiler.md, 'The text form'): parse and "
      "verify FILE, run the passes in order, verifying after each, and print the result");
  opt_cmd->add_option("input", opt.input, "the program as text (e.g. from --dump-after)")
      ->required()
      ->check(CLI::ExistingFile);
  // One string, split below: a vector option took FILE as a pass name after an empty
  // '--passes=' or when another option followed ('--passes=cse prog.s2ir -o out').
  std::string passes;
  opt_cmd
      ->add_option("--passes", passes,
                   "the passes to run, in order, comma-separated (leave the flag out to print "
                   "the program as parsed)")
      ->check(s2::cli::name_list())
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            const auto& registry = s2::compiler::pass_registry();
            for (const std::string& name : split_commas(text))
              if (!registry.contains(name))
                return "'" + name + "' is not a pass; the passes: " + registry.known();
            return "";
          },
          ""));
  opt_cmd->add_option("-o,--output", opt.output, "file to write the result to (default: stdout)");
  std::string pass_list = "Passes, in pipeline order:";
  for (const auto& pass : s2::compiler::pass_registry()) {
    std::string name = pass.name;
    name.resize(std::max<size_t>(name.size() + 1, 18), ' ');
    pass_list += "\n  " + name + pass.value.doc;
  }
  opt_cmd->footer(pass_list + "\n\n" + app.get_footer());
  OptimizerFlags opt_optimizer;
  opt_optimizer.add_to(opt_cmd, &opt.sgd);
  add_backend_flags(opt_cmd, &opt.back);
  opt_cmd->add_flag("--force", opt.force,
                    "replace existing output files of another kind (-o, --memory-report)");

  // asm
  s2::compiler::AsmOptions asm_options;
  CLI::App* asm_cmd = app.add_subcommand(
      "asm", "Assemble S2Train assembly text (docs/assembly.md) into a validated executable");
  asm_cmd->add_option("input", asm_options.input, "assembly source (.s2asm)")
      ->required()
      ->check(CLI::ExistingFile);
  asm_cmd->add_option("-o,--output", asm_options.output, "executable to write (.bin)")->required();
  asm_cmd->add_flag("--force", asm_options.force,
                    "replace an existing output file even if it is not an S2Train executable");

  // isa-doc
  std::string doc_output;
  CLI::App* doc_cmd =
      app.add_subcommand("isa-doc", "Print the ISA reference generated from the instruction table");
  bool doc_force = false;
  doc_cmd->add_option("-o,--output", doc_output, "file to write (default: stdout)");
  doc_cmd->add_flag("--force", doc_force,
                    "replace an existing file that is not an earlier ISA reference");

  try {
    s2::cli::refuse_empty_values(argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? s2::kExitOk : s2::kExitUserError;
  }
  return s2::run_tool("s2c", [&] {
    if (*compile_cmd) {
      compile_flags.finish(front.model);
      front.model_options = compile_flags.model;
      front.sgd = compile_flags.sgd;
      front.onnx = compile_flags.onnx();
      front.precision = compile_flags.precision_type();
      front.loss_scaling = compile_flags.loss_scaling();
      // Every output before any work: never an input of the run, never a file of another
      // kind without --force (isa/container/output_guard.h).
      using s2::isa::FileKind;
      const std::vector<std::string> inputs{front.model, back.config, front.input_npy,
                                            front.labels_npy, front.attention_mask_npy};
      if (!output.empty()) s2::isa::guard_output(output, FileKind::Executable, inputs, force);
      if (!back.memory_report.empty())
        s2::isa::guard_output(back.memory_report, FileKind::Json, inputs, force);
      // The dump is collected and written when the compile ends (also when it fails), so
      // an earlier dump file stays as it was until there is a new one.
      std::ostringstream dump;
      if (!dump_file.empty()) {
        s2::isa::guard_output(dump_file, FileKind::IrText, inputs, force);
        front.dump = &dump;
      }
      struct DumpWriter {
        const std::string& path;
        const std::ostringstream& text;
        ~DumpWriter() {
          if (path.empty() || text.str().empty()) return;
          const std::string s = text.str();
          try {
            s2::isa::write_file(path, std::vector<uint8_t>(s.begin(), s.end()));
          } catch (const s2::UserError& e) {
            std::cerr << "s2c: " << e.what() << "\n";
          }
        }
      } dump_writer{dump_file, dump};
      // The target before any compile work: a configuration s2sim would refuse fails here
      // first, with s2sim's message.
      const s2::target::TargetDesc target =
          s2::target::load_target(back.config.empty() ? s2::default_config() : back.config);
      back.target = &target;
      if (target.pe_array.macs_per_pe(front.precision) == 0)
        throw s2::UserError(target.source_file + ": pe_array.datatypes has no " +
                            std::string(s2::isa::dtype_name(front.precision)) +
                            ", which --precision " + compile_flags.precision +
                            " multiplies on the PE array");
      // A zoo model's parameters and batch must fit the target's DRAM: checked as they are
      // created, before each is allocated (an absurd --classes or --batch fails at once).
      front.model_options.dram_bytes = target.dram.capacity_bytes;
      front.model_options.weight_copies = front.sgd.weight_copies();
      const s2::compiler::FrontendResult result = s2::compiler::run_frontend(front);
      std::cout << s2::compiler::frontend_summary(result);
      back.fuse = !no_fuse;
      back.dump_after = front.dump_after;
      back.dump = front.dump;
      const s2::compiler::BackendResult compiled = s2::compiler::run_backend(result.graph, back);
      std::cout << s2::compiler::backend_summary(compiled);
      if (!output.empty()) {
        s2::isa::write_executable(output, compiled.executable);
        std::cout << "wrote " << output << "\n";
      }
    }
    if (*ref_cmd) {
      ref_flags.finish(ref.model);
      ref.model_options = ref_flags.model;
      ref.model_options.dram_bytes =
          s2::target::load_target(s2::default_config()).dram.capacity_bytes;
      ref.model_options.weight_copies = ref_flags.sgd.weight_copies();
      ref.onnx = ref_flags.onnx();
      ref.sgd = ref_flags.sgd;
      ref.precision = ref_flags.precision_type();
      ref.loss_scaling = ref_flags.loss_scaling();
      s2::compiler::run_reference(ref);
    }
    if (*opt_cmd) {
      opt_optimizer.finish();
      if (!passes.empty()) opt.passes = split_commas(passes);
      s2::compiler::run_opt(opt);
    }
    if (*asm_cmd) s2::compiler::run_asm(asm_options);
    if (*doc_cmd) s2::compiler::run_isa_doc(doc_output, doc_force);
    return s2::kExitOk;
  });
}
