// The functional model against the compiler, end to end: the zoo's models but vgg11 (batch 2,
// 16x16; densenet121 32x32) and torchvision's ONNX exports, compiled in-process with fusion and the
// search planner, written and read back as a file, then run instruction by instruction in program
// order by s2::sim::functional. Every tensor-table entry's final bytes must equal those the
// compiler's stream checker leaves (the same instructions through the op registry's reference
// kernels), and the loss, weights, optimizer and batch-norm state must equal the reference
// interpreter's on the unfused graph. mlp and gpt also with gradient clipping (gpt with AdamW);
// gpt, bert and vit also with --fuse-attention, against the interpreter on the graph with the
// attentions fused (fused attention changes the summation order: docs/attention.md). Models
// with the suffix _bf16 or _fp16 are compiled with that --precision, against the interpreter on
// the graph with its epilogues fused (in 16-bit precision a fused epilogue rounds once, where
// the PE op writes, so fusion moves rounding points; `s2c reference --precision` fuses too);
// fp16 with dynamic loss scaling unless the step clips its gradients. gpt_fused_bf16 and
// bert_fused_fp16 are both: fused attention multiplying 16-bit values.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>

#include "compiler/driver/backend.h"
#include "compiler/driver/frontend.h"
#include "compiler/interp/interpreter.h"
#include "compiler/lower/stream_checker.h"
#include "compiler/passes/attention_fusion.h"
#include "compiler/passes/fusion.h"
#include "isa/common/config_dir.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"
#include "isa/numerics/low_precision.h"
#include "simulator/dram/load_target.h"
#include "simulator/functional/execute.h"

namespace s2::sim::functional {
namespace {

struct Compiled {
  compiler::FrontendResult training;
  isa::Executable exe;
  bool fused_attention = false;
  bool mixed_precision = false;
};

// `model`: a zoo model (batch 2, 16x16) or "onnx:NAME", the torchvision model NAME exported by
// scripts/export_onnx.py (training mode, batch 2, 32x32) into the test's temporary directory.
// "NAME_clipped": NAME with gradient clipping (max norm 0.25, below the steps' norms, so the
// gradients are scaled), gpt with AdamW.
Compiled compile(std::string model) {
  compiler::FrontendOptions front;
  for (const auto& [suffix, type] :
       {std::pair{"_bf16", isa::DType::BF16}, std::pair{"_fp16", isa::DType::F16}})
    if (model.size() > 5 && model.substr(model.size() - 5) == suffix) {
      front.precision = type;
      model = model.substr(0, model.size() - 5);
    }
  front.model = model;
  const bool fuse_attention = model.size() > 6 && model.substr(model.size() - 6) == "_fused";
  if (fuse_attention) front.model = model.substr(0, model.size() - 6);
  if (const size_t at = model.find("_clipped"); at != std::string::npos) {
    front.model = model.substr(0, at);
    front.sgd.clip_grad_norm = 0.25;
    if (front.model == "gpt") {
      front.sgd.optimizer = "adamw";
      front.sgd.lr = 1e-3;
      front.sgd.weight_decay = 0.01;
    }
  }
  front.model_options.batch = 2;
  // fp16 with dynamic loss scaling (s2c's default), but where clipping refuses it.
  if (front.precision == isa::DType::F16 && front.sgd.clip_grad_norm == 0.0)
    front.loss_scaling = ir::LossScaling{};
  // DenseNet's three 2x2 transitions need 29x29 at least.
  front.model_options.height = front.model_options.width = model == "densenet121" ? 32 : 16;
  if (model.rfind("onnx:", 0) == 0) {
    const std::string name = model.substr(5);
    front.model = ::testing::TempDir() + name + ".onnx";
    const std::string command = "/usr/bin/python3 " + std::string(S2_SOURCE_DIR) +
                                "/scripts/export_onnx.py " + name + " -o '" + front.model +
                                "' --batch 2 --image 32 --mode train >/dev/null 2>&1";
    if (std::system(command.c_str()) != 0) throw std::runtime_error(command + " failed");
    front.model_options.height = front.model_options.width = 32;
  }
  Compiled c{compiler::run_frontend(front), {}, fuse_attention, front.precision != isa::DType::F32};
  compiler::BackendOptions back;
  back.fuse = true;
  back.fuse_attention = fuse_attention;
  back.plan.planner = "search";
  back.plan.budget_ms = 20;
  const compiler::BackendResult result = compiler::run_backend(c.training.graph, back);
  c.exe = isa::read_executable(isa::serialize(result.executable), model + ".bin");
  return c;
}

std::vector<uint8_t> host_bytes(const ir::HostArray& a) {
  std::vector<uint8_t> out;
  if (a.dtype() == isa::DType::BF16 || a.dtype() == isa::DType::F16) {  // 2 bytes each
    for (float v : a.f32()) {
      const uint16_t bits = numerics::bits16_from_f32(a.dtype(), v);
      out.push_back(static_cast<uint8_t>(bits & 0xFF));
      out.push_back(static_cast<uint8_t>(bits >> 8));
    }
    return out;
  }
  const uint8_t* p = a.dtype() == isa::DType::F32 ? reinterpret_cast<const uint8_t*>(a.f32().data())
                     : a.dtype() == isa::DType::I32
                         ? reinterpret_cast<const uint8_t*>(a.i32().data())
                         : a.u8().data();
  out.assign(p, p + a.size() * isa::dtype_bytes(a.dtype()));
  return out;
}

class FunctionalEquivalence : public ::testing::TestWithParam<std::string> {};

bool have_torch() {
  static const bool have =
      std::system("/usr/bin/python3 -c 'import torch, torchvision, onnx' >/dev/null 2>&1") == 0;
  return have;
}

TEST_P(FunctionalEquivalence, EveryTensorMatchesTheStreamCheckerAndTheInterpreterBitForBit) {
  if (GetParam().rfind("onnx:", 0) == 0 && !have_torch())
    GTEST_SKIP() << "/usr/bin/python3 cannot import torch, torchvision and onnx";
  const Compiled c = compile(GetParam());
  const isa::Executable& exe = c.exe;
  const DramImage ours = execute_program(exe);
  const lower::DramImage theirs = lower::execute_stream(exe);
  ASSERT_EQ(ours.size(), theirs.size());

  size_t differing = 0;
  for (const isa::TensorEntry& entry : exe.tensors) {
    // The raw bytes: an arena tensor's final bytes may be another tensor's, of another type,
    // which decoding and re-encoding would not keep (a NaN's payload).
    const auto first = theirs.bytes().begin() + static_cast<std::ptrdiff_t>(entry.addr);
    const std::vector<uint8_t> want(first,
                                    first + static_cast<std::ptrdiff_t>(entry.dense_bytes()));
    if (ours.entry_bytes(entry) != want) {
      ++differing;
      ADD_FAILURE() << entry.name << " (" << isa::role_name(entry.role)
                    << ") differs from the stream checker";
    }
  }
  EXPECT_EQ(differing, 0u);
  // Bytes outside every tensor too: the whole image.
  EXPECT_TRUE(ours.bytes() == theirs.bytes()) << "the DRAM images differ";

  // The interpreter on the unfused graph (its attentions fused with --fuse-attention): loss and
  // every persistent tensor the step updates.
  const target::TargetDesc target = target::load_target(default_config());
  ir::Graph g =
      c.fused_attention ? ir::fuse_attention(c.training.graph, target).graph : c.training.graph;
  if (c.mixed_precision) {
    ir::PassResult fused = ir::fuse_epilogues(g, ir::fusion_options(target));
    if (fused.changed) g = std::move(fused.graph);
  }
  ir::Interpreter reference(g);
  reference.run();
  const std::string loss_name = g.tensor(g.loss()).name;
  size_t compared = 0;
  bool saw_loss = false;
  for (const isa::TensorEntry& entry : exe.tensors) {
    const bool loss = entry.name == loss_name;
    const bool updated = entry.role == isa::TensorRole::Weight ||
                         entry.role == isa::TensorRole::OptimizerState ||
                         entry.role == isa::TensorRole::State;
    if (!loss && !updated) continue;
    const ir::TensorId t = g.find_tensor(entry.name);
    ASSERT_TRUE(t.valid()) << entry.name;
    const ir::HostArray want = loss ? reference.value(t) : reference.buffer(g.tensor(t).data);
    EXPECT_TRUE(ours.entry_bytes(entry) == host_bytes(want))
        << entry.name << " differs from the reference interpreter";
    saw_loss = saw_loss || loss;
    ++compared;
  }
  EXPECT_TRUE(saw_loss);
  EXPECT_GT(compared, 3u);
}

INSTANTIATE_TEST_SUITE_P(Zoo, FunctionalEquivalence,
                         ::testing::Values("mlp", "lenet5", "resnet18", "mobilenet_v2",
                                           "efficientnet_b0", "densenet121", "gpt", "bert", "vit",
                                           "mlp_clipped", "gpt_clipped", "gpt_fused", "bert_fused",
                                           "vit_fused", "mlp_bf16", "resnet18_bf16",
                                           "mobilenet_v2_fp16", "densenet121_bf16", "gpt_bf16",
                                           "gpt_clipped_fp16", "bert_fp16", "vit_bf16",
                                           "gpt_fused_bf16", "bert_fused_fp16"));

// From PyTorch's exporter: mobilenet_v2 (depthwise convolution packed on the array, ReLU6 in
// the batch-norm epilogue, dropout's mask drawn by dropout_mask) and mobilenet_v3_small
// (hardswish, and squeeze-excitation: a stride-0 gate times its map, and the gradient's sum)
// and efficientnet_b0 (SiLU, and stochastic depth's per-sample masks); squeezenet1_1,
// googlenet and densenet121 (concatenations placed by pass place-concat: producers writing
// strided slices, DenseNet's concats prefix views of one buffer per block) and
// shufflenet_v2_x1_0 (chunks as slices, the channel shuffle as a strided DMA copy);
// convnext_tiny (layer norm through transposed views, gemms over the rows of [N,H,W,C] maps).
std::string onnx_test_name(const ::testing::TestParamInfo<std::string>& param) {
  return param.param.substr(5);
}
INSTANTIATE_TEST_SUITE_P(Onnx, FunctionalEquivalence,
                         ::testing::Values("onnx:mobilenet_v2", "onnx:mobilenet_v3_small",
                                           "onnx:efficientnet_b0", "onnx:squeezenet1_1",
                                           "onnx:googlenet", "onnx:densenet121",
                                           "onnx:shufflenet_v2_x1_0", "onnx:convnext_tiny"),
                         onnx_test_name);

// Together the three models exercise the PE family, batch norm, both poolings, eltwise, the
// loss and the update: the equivalence above covers every opcode the compiler emits.
TEST(FunctionalEquivalenceCoverage, TheZooUsesEveryComputeFamily) {
  std::set<isa::Opcode> used;
  for (const char* model : {"mlp", "lenet5", "resnet18"})
    for (const isa::Instruction& inst : compile(model).exe.instructions)
      used.insert(inst.opcode());
  for (isa::Opcode op :
       {isa::Opcode::Conv2d, isa::Opcode::Conv2dBwdData, isa::Opcode::Conv2dBwdWeight,
        isa::Opcode::Gemm, isa::Opcode::BnFwd, isa::Opcode::BnBwd, isa::Opcode::MaxPoolFwd,
        isa::Opcode::MaxPoolBwd, isa::Opcode::AvgPoolFwd, isa::Opcode::AvgPoolBwd,
        isa::Opcode::Eltwise, isa::Opcode::SoftmaxCe, isa::Opcode::Sgd, isa::Opcode::Reduce,
        isa::Opcode::End})
    EXPECT_TRUE(used.count(op) == 1) << isa::opcode_info(op).mnemonic << " is never emitted";
}

}  // namespace
}  // namespace s2::sim::functional
