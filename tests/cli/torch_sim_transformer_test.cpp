// The transformers against PyTorch (torch_sim_fixture.h says how): the zoo's tiny GPT-2, BERT
// and ViT with SGD and AdamW, gradient clipping, fused attention, dropout and padding, and their
// ONNX exports (scripts/gpt_model.py, torchvision's VisionTransformer) with attention probes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "isa/io/npy.h"
#include "torch_sim_fixture.h"

namespace {

using namespace s2::test::torch_sim;  // the TorchSim fixture and its helpers

// gpt, the zoo's tiny GPT-2 (2 layers, 4 heads, width 64, 32 tokens, vocabulary 128) against
// scripts/gpt_model.py: token and position embeddings (a 128-token batch over a 128-row table
// repeats ids, so the scatter-add accumulates), causal attention, GELU MLPs, the LM head tied
// to the token embedding and the next-token loss with each sequence's last position ignored.
// Every tensor is within 1e-4 of PyTorch's float32 step (worst 7.0e-7), and as close to the
// float64 step as PyTorch's own.
TEST_F(TorchSim, GptMatchesPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  expect_tiny_gpt_matches_torch("gpt");
}

// The tiny BERT (post-norm encoder, masked-LM head tied to the word embedding, GELU in its erf
// form): the loss over the masked positions, every gradient and updated weight.
TEST_F(TorchSim, BertMatchesPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  ASSERT_NO_FATAL_FAILURE(compile_and_dump("bert", 4));
  const Result r = cross_check("--exact-factor 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("bert: batch 4, 2 layers, 4 heads, width 64, 32 tokens, vocabulary 128, "
                       "simulator dump"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("grad/bert.embeddings.token_type_embeddings.weight"), std::string::npos)
      << r.out;
  s2::test::expect_as_accurate_as_torch(r.out, 2.0);
}

// The tiny ViT (torchvision's VisionTransformer: 32x32 images in 8x8 patches, 2 layers, 4
// heads, width 64) with SGD, and with AdamW and gradient clipping over three steps.
TEST_F(TorchSim, VitMatchesPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  ASSERT_NO_FATAL_FAILURE(compile_and_dump("vit", 4));
  Result r = cross_check("--exact-factor 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_LT(worst_error(r.out), 1e-4) << r.out;
  EXPECT_NE(r.out.find("vit: batch 4, 3x32x32, 10 classes"), std::string::npos) << r.out;
  s2::test::expect_as_accurate_as_torch(r.out, 2.0);
  const std::string bin = (dir_ / "vit_adamw.bin").string();
  r = run(kS2c + " compile vit --optimizer adamw --clip-grad-norm 0.5 -o " + shell_quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  fs::remove_all(dump_dir());
  r = run(kS2sim + " run " + shell_quoted(bin) + " --functional --check --steps 3 --dump-all " +
          shell_quoted(dump_dir()));
  ASSERT_EQ(r.status, 0) << r.out;
  r = cross_check("--exact-factor 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("norm/clip_grad_norm.total_norm"), std::string::npos) << r.out;
  s2::test::expect_as_accurate_as_torch(r.out, 2.0);
}

// gpt with AdamW over three steps of the same batch (s2sim run --steps 3): the step count in
// each weight's optimizer state drives the bias correction, and PyTorch's AdamW runs the same
// three steps; the moments are compared too. The attention's key bias has an analytically zero
// gradient, so its AdamW update (m / sqrt(v) of rounding noise) is ill-conditioned: PyTorch's
// own float32 step is 1.2e-3 from its float64 step there, ours 8.6e-4. Judged by accuracy.
TEST_F(TorchSim, GptAdamWThreeStepsIsAsAccurateAsPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  const std::string bin = (dir_ / "gpt.bin").string();
  Result r = run(kS2c + " compile gpt --optimizer adamw -o " + shell_quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " run " + shell_quoted(bin) + " --functional --check --steps 3 --dump-all " +
          shell_quoted(dump_dir()));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("check              no findings"), std::string::npos) << r.out;
  r = cross_check("--exact-factor 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("updated/transformer.wte.weight.exp_avg_sq"), std::string::npos) << r.out;
  s2::test::expect_as_accurate_as_torch(r.out, 2.0);
}

// gpt with gradient clipping by global norm (--clip-grad-norm 0.25, well below the step's norm,
// so every gradient is scaled), with SGD for one step and AdamW for three: PyTorch runs
// clip_grad_norm_ between backward and the step, and the global norm is compared too.
TEST_F(TorchSim, GptWithGradientClippingMatchesPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  for (const char* optimizer : {"sgd", "adamw"}) {
    SCOPED_TRACE(optimizer);
    const std::string bin = (dir_ / "gpt.bin").string();
    Result r = run(kS2c + " compile gpt --clip-grad-norm 0.25 --optimizer " + optimizer + " -o " +
                   shell_quoted(bin) + " --force");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("gradient clipping (max norm 0.25): live peak"), std::string::npos)
        << r.out;
    const std::string steps = std::string(optimizer) == "adamw" ? "3" : "1";
    fs::remove_all(dump_dir());
    r = run(kS2sim + " run " + shell_quoted(bin) + " --functional --check --steps " + steps +
            " --dump-all " + shell_quoted(dump_dir()));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("check              no findings"), std::string::npos) << r.out;
    r = cross_check("--exact-factor 2");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("norm/clip_grad_norm.total_norm"), std::string::npos) << r.out;
    s2::test::expect_as_accurate_as_torch(r.out, 2.0);
  }
}

// --fuse-attention (FlashAttention-style attn_fwd / attn_bwd, docs/attention.md): the tiny GPT,
// BERT and ViT with SGD for one step and the GPT with AdamW and clipping for three; the
// summation order differs from the unfused step, so each is judged against PyTorch as the
// unfused ones are: within 1e-4 of its float32 step or as close to the float64 step. One
// documented exception: BERT's key biases, whose gradient is analytically zero (|g| ~ 1e-12,
// pure rounding noise), are 3.1x PyTorch float32's distance from the float64 step with the
// fused backward (its row term Dr = sum(dy * y) is not the exact row sum of the recomputed
// p * dp that the unfused softmax_bwd uses); only they may exceed twice PyTorch's distance.
TEST_F(TorchSim, FusedAttentionMatchesPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  struct Case {
    const char* model;
    const char* flags;
    const char* steps;
  };
  for (const Case& c : {Case{"gpt", "", "1"}, Case{"bert", "", "1"}, Case{"vit", "", "1"},
                        Case{"gpt", " --optimizer adamw --clip-grad-norm 0.25", "3"}}) {
    SCOPED_TRACE(std::string(c.model) + c.flags);
    const std::string bin = (dir_ / "fused.bin").string();
    Result r = run(kS2c + " compile " + c.model + c.flags + " --fuse-attention --force -o " +
                   shell_quoted(bin));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("attention: 2 attentions fused with their backward"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("attention's DRAM traffic planned by the timing model"), std::string::npos)
        << r.out;
    fs::remove_all(dump_dir());
    r = run(kS2sim + " run " + shell_quoted(bin) + " --functional --check --steps " + c.steps +
            " --dump-all " + shell_quoted(dump_dir()));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("check              no findings"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fused attn_fwd/attn_bwd"), std::string::npos) << r.out;
    const bool bert = std::string(c.model) == "bert";
    r = cross_check(bert ? "--exact-factor 4" : "--exact-factor 2");
    EXPECT_EQ(r.status, 0) << r.out;
    s2::test::expect_as_accurate_as_torch(r.out, bert ? 4.0 : 2.0);
    if (bert) {  // every tensor but the key biases within 1e-4 of PyTorch's float32 step
      EXPECT_NE(r.out.find("4 of 85 tensors above tolerance 1.0e-04"), std::string::npos) << r.out;
      std::istringstream lines(r.out);
      for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::string name, shape;
        double max_torch = 0, error = 0;
        if (!(words >> name >> shape >> max_torch >> error) || error <= 1e-4) continue;
        EXPECT_NE(name.find("attention.self.key.bias"), std::string::npos) << line;
      }
    }
    const size_t summary = r.out.rfind("worst relative error:");
    if (summary != std::string::npos)
      std::cout << c.model << c.flags << " fused: " << r.out.substr(summary);
  }
}

// The transformers with dropout (--dropout 0.1 on the hidden states, --attention-dropout 0.2
// on the probabilities): PyTorch's modules (scripts/gpt_model.py, bert_model.py, torchvision's
// VisionTransformer) follow the dumped masks, found by module path, and the step is as close
// to the float64 step as PyTorch's own. Under --fuse-attention the hidden dropout stays and
// the dropped-out attentions stay unfused. The ONNX exports of gpt and vit with the same
// dropout (scripts/export_onnx.py) train the same way, their Dropout nodes named by the
// exporter.
TEST_F(TorchSim, TransformersWithDropoutMatchPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  struct Case {
    std::string model;
    const char* flags;
    const char* decisions;  // the dropout layers PyTorch follows
  };
  std::vector<Case> cases{{"gpt", " --dropout 0.1 --attention-dropout 0.2", "7"},
                          {"bert", " --dropout 0.1 --attention-dropout 0.2", "7"},
                          {"vit", " --dropout 0.1 --attention-dropout 0.2", "9"},
                          {"gpt", " --dropout 0.1 --fuse-attention", "5"}};
  for (const auto& [model, decisions] : {std::pair{"gpt", "7"}, std::pair{"vit", "9"}}) {
    const std::string onnx = (dir_ / (std::string(model) + ".onnx")).string();
    const Result r =
        run(kPython + " " + shell_quoted(std::string(S2_SOURCE_DIR) + "/scripts/export_onnx.py") +
            " " + model + " --dropout 0.1 --attention-dropout 0.2 -o " + shell_quoted(onnx));
    ASSERT_EQ(r.status, 0) << r.out;
    cases.push_back({shell_quoted(onnx), "", decisions});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.model + c.flags);
    const std::string bin = (dir_ / "dropout.bin").string();
    Result r = run(kS2c + " compile " + c.model + c.flags + " --force -o " + shell_quoted(bin));
    ASSERT_EQ(r.status, 0) << r.out;
    fs::remove_all(dump_dir());
    r = run(kS2sim + " run " + shell_quoted(bin) + " --functional --check --dump-all " +
            shell_quoted(dump_dir()));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("check              no findings"), std::string::npos) << r.out;
    r = cross_check("--exact-factor 2");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find(std::string("decisions: ") + c.decisions +
                         " ReLU, ReLU6, max-pool and "
                         "dropout ops"),
              std::string::npos)
        << r.out;
    s2::test::expect_as_accurate_as_torch(r.out, 2.0);
    const size_t summary = r.out.rfind("decisions:");
    if (summary != std::string::npos)
      std::cout << c.model << c.flags << ": " << r.out.substr(summary);
  }
}

// A padded batch (s2c --attention-mask, Hugging Face's attention_mask [N, T]): gpt and bert,
// unfused and fused, against PyTorch given the same mask. Left padding in one sequence, so
// that gpt's causal queries see padded keys (right padding alone would change nothing its
// loss reads: no earlier query sees it). Its first queries then see padding only: the fused
// attention takes those rows relative to their mask (isa/numerics/attention.h).
TEST_F(TorchSim, LanguageModelsWithPaddingMatchPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  std::vector<int32_t> mask(4 * 32, 1);
  std::fill(mask.begin() + 32, mask.begin() + 32 + 6, 0);           // sequence 1: 6 padding, left
  std::fill(mask.begin() + 2 * 32 + 25, mask.begin() + 3 * 32, 0);  // sequence 2: 7, right
  std::vector<uint8_t> bytes(mask.size() * sizeof(int32_t));
  std::memcpy(bytes.data(), mask.data(), bytes.size());
  const std::string npy = (dir_ / "mask.npy").string();
  s2::npy::write(npy, s2::isa::DType::I32, {4, 32}, bytes);
  for (const char* model : {"gpt", "bert"})
    for (const char* fuse : {"", " --fuse-attention"}) {
      SCOPED_TRACE(std::string(model) + fuse);
      const std::string bin = (dir_ / "padded.bin").string();
      Result r = run(kS2c + " compile " + model + fuse + " --attention-mask " + shell_quoted(npy) +
                     " --force -o " + shell_quoted(bin));
      ASSERT_EQ(r.status, 0) << r.out;
      if (*fuse != '\0') {
        EXPECT_NE(r.out.find("attention: 2 attentions fused with their backward"),
                  std::string::npos)
            << r.out;
      }
      fs::remove_all(dump_dir());
      r = run(kS2sim + " run " + shell_quoted(bin) + " --functional --check --dump-all " +
              shell_quoted(dump_dir()));
      ASSERT_EQ(r.status, 0) << r.out;
      EXPECT_NE(r.out.find("check              no findings"), std::string::npos) << r.out;
      // bert's fused backward: the factor FusedAttentionMatchesPyTorch explains.
      const bool loose = std::string(model) == "bert" && *fuse != '\0';
      r = cross_check(loose ? "--exact-factor 4" : "--exact-factor 2");
      EXPECT_EQ(r.status, 0) << r.out;
      s2::test::expect_as_accurate_as_torch(r.out, loose ? 4.0 : 2.0);
      const size_t summary = r.out.rfind("judged by accuracy:");
      if (summary != std::string::npos)
        std::cout << model << fuse << " padded: " << r.out.substr(summary);
    }
  // `s2c reference --attention-mask` writes the mask beside the batch and PyTorch applies it
  // (without it the masked gpt's loss is another number, so a mask left out would fail).
  const std::string ref = (dir_ / "ref").string();
  Result r = run(kS2c + " reference gpt --attention-mask " + shell_quoted(npy) + " --out-dir " +
                 shell_quoted(ref));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kPython + " " + kScript + " " + shell_quoted(ref) + " --exact-factor 2");
  EXPECT_EQ(r.status, 0) << r.out;
  s2::test::expect_as_accurate_as_torch(r.out, 2.0);
}

// scripts/probe_models.py's softmax_probe: a softmax over channels (ONNX Softmax on axis 1,
// a transpose view) gating the map and a scaled softmax over pixels (a constant Mul, then
// axis -1) weighting it before the pool, its backward on the PPU. score.bias's gradient is
// analytically zero (a softmax ignores a shift of all its inputs): rounding noise on both
// sides, so the --exact-factor criterion judges it.
TEST_F(TorchSim, SoftmaxProbeOnnxMatchesPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  expect_matches_torch(export_onnx("softmax_probe", 8), 8, "--exact-factor 2", "softmax_probe");
  s2::test::expect_as_accurate_as_torch(last_out_, 2.0);
  EXPECT_NE(last_out_.find("0 of 17 tensors further"), std::string::npos) << last_out_;
}

// A pre-norm transformer block over 8x8 patches of a 32x32 image (16 tokens, width 32, 4 heads)
// with GPT-2's attention code: the fused q/k/v projection split into slice views, heads split by
// view and transpose, q @ k^T and att @ v as bmm reading the views through their strides, the
// scaled softmax, the head merge, a GELU MLP and a mean over the tokens. Every tensor within
// 1e-4 of PyTorch's float32 step.
TEST_F(TorchSim, AttentionProbeOnnxMatchesPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  expect_matches_torch(export_onnx("attention_probe", 4), 4, "", "attention_probe");
  EXPECT_NE(last_out_.find("0 of 37 tensors above tolerance"), std::string::npos) << last_out_;
}

// The same block with a decoder's causal mask added to the scores (torch.full(-inf).triu(1),
// folded at import, which simplify turns into softmax's causal=1; the scale 1/sqrt(dh) joins the
// softmax too). Its weights have attention_probe's names, so the model is named.
TEST_F(TorchSim, CausalAttentionProbeOnnxMatchesPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  expect_matches_torch(export_onnx("causal_attention_probe", 4), 4,
                       "--model causal_attention_probe", "causal_attention_probe");
  EXPECT_NE(last_out_.find("0 of 37 tensors above tolerance"), std::string::npos) << last_out_;
}

// scripts/gpt_model.py's tiny GPT-2 exported to ONNX (int64 token ids in, [N,T,vocab] logits
// out): the importer makes the token and position Gathers embeddings, GPT-2's causal
// masked_fill an additive mask that simplify turns into softmax's causal=1, and the same
// next-token loss as the zoo's gpt. After simplify its ops and shapes are the zoo's
// (OnnxLanguageModel tests the pieces; GptOnnxCompilesToTheZoosOps the whole). PyTorch's
// initialization (N(0, 1) embeddings, tied to the head) gives a loss near 45.6, not ln 128.
TEST_F(TorchSim, GptOnnxMatchesPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  expect_tiny_gpt_matches_torch(export_onnx("gpt", 4));
}

// The ONNX GPT-2 with --input's token ids and no --labels: its next-token labels are the
// given ids shifted by one (they were the shift of the ids the importer drew before --input
// replaced them); Cli.LanguageModelLabelsComeFromTheGivenIds checks the zoo's gpt and bert.
TEST_F(TorchSim, GptOnnxLabelsComeFromTheGivenIds) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  const std::string onnx = export_onnx("gpt", 4);
  std::vector<int32_t> ids(4 * 32);
  for (size_t k = 0; k < ids.size(); ++k)
    ids[k] = static_cast<int32_t>((k * 37 + 11) % 128);
  std::vector<uint8_t> bytes(ids.size() * sizeof(int32_t));
  std::memcpy(bytes.data(), ids.data(), bytes.size());
  const std::string npy = (dir_ / "ids.npy").string();
  s2::npy::write(npy, s2::isa::DType::I32, {4, 32}, bytes);
  const std::string bin = (dir_ / "gpt_onnx.bin").string();
  Result r = run(kS2c + " compile " + shell_quoted(onnx) + " --input " + shell_quoted(npy) +
                 " -o " + shell_quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " run " + shell_quoted(bin) + " --dump labels --dump-dir " +
          shell_quoted(dump_dir()));
  ASSERT_EQ(r.status, 0) << r.out;
  const s2::npy::Array dumped = s2::npy::read(dump_dir() + "/labels.npy");
  ASSERT_EQ(dumped.data.size(), ids.size() * sizeof(int32_t));
  std::vector<int32_t> labels(ids.size());
  std::memcpy(labels.data(), dumped.data.data(), dumped.data.size());
  for (size_t k = 0; k < ids.size(); ++k)
    EXPECT_EQ(labels[k], k % 32 == 31 ? -100 : ids[k + 1]) << k;
}

// "op f32[shape] ..." for each op of a --dump-after text (docs/compiler.md): its type and its
// outputs' types, sorted, so two programs compare as multisets of ops with their shapes.
std::vector<std::string> ops_with_shapes(const std::string& text) {
  std::vector<std::string> ops;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find(" = ");
    if (line.rfind("  %", 0) != 0 || eq == std::string::npos) continue;
    const size_t paren = line.find('(', eq);
    if (paren == std::string::npos) continue;
    std::string entry = line.substr(eq + 3, paren - eq - 3);
    const std::string outputs = line.substr(0, eq);
    for (size_t at = outputs.find(": "); at != std::string::npos; at = outputs.find(": ", at + 2))
      entry += " " + outputs.substr(at + 2, outputs.find(']', at) + 1 - (at + 2));
    ops.push_back(entry);
  }
  std::sort(ops.begin(), ops.end());
  return ops;
}

// The ONNX GPT-2 and the zoo's gpt are the same program once simplify has canonicalised the
// exporter's views (transpose pairs, reshape chains, the mask and scale it writes out): the
// same ops with the same output shapes.
TEST_F(TorchSim, GptOnnxCompilesToTheZoosOps) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  const std::string onnx = export_onnx("gpt", 4);
  Result r;
  std::vector<std::string> programs;
  for (const std::string& model : {std::string("gpt --batch 4"), shell_quoted(onnx)}) {
    const std::string text = (dir_ / "simplified.txt").string();
    r = run(kS2c + " compile " + model + " --dump-after simplify --force --dump-file " +
            shell_quoted(text) + " -o " + shell_quoted((dir_ / "x.bin").string()));
    ASSERT_EQ(r.status, 0) << r.out;
    programs.push_back(read_text(text));
  }
  const std::vector<std::string> zoo = ops_with_shapes(programs[0]);
  EXPECT_GT(zoo.size(), 150u);
  EXPECT_EQ(ops_with_shapes(programs[1]), zoo);
}

// torchvision's VisionTransformer (the class of vit_b_16) at the zoo's tiny shape, exported:
// nn.MultiheadAttention's sequence-first layout, the class token's expand(n, -1, -1) and
// x[:, 0] all import; every tensor within 1e-4 of PyTorch's float32 step.
TEST_F(TorchSim, VitOnnxMatchesPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  expect_matches_torch(export_onnx("vit", 4), 4, "", "vit");
}

}  // namespace
