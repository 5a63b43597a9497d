// Runs s2c and s2sim on the language models and ViT as a user would: token ids and masks from
// .npy, the optimizer, ViT and gradient-clipping flags.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_fixture.h"
#include "isa/io/npy.h"

namespace {

using namespace s2::test::cli;  // the Cli fixture and its helpers (cli_fixture.h)

// A .npy file of int64 values of `shape` (numpy's '<i8', as torch's token ids are saved).
void write_npy_i64(const std::string& path, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& values) {
  std::string dims;  // as numpy writes it: "(8,)", "(2, 8)"
  for (int64_t d : shape)
    dims += (dims.empty() ? "" : ", ") + std::to_string(d);
  if (shape.size() == 1) dims += ",";
  std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': (" + dims + "), }";
  header.resize((header.size() + 10 + 1 + 63) / 64 * 64 - 10 - 1, ' ');  // 64-byte aligned
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  for (int64_t v : values)
    for (int b = 0; b < 8; ++b)
      bytes += static_cast<char>((static_cast<uint64_t>(v) >> (8 * b)) & 0xff);
  std::ofstream(path, std::ios::binary) << bytes;
}

// A language model's batch: token ids (int32 as `s2c reference` writes them, or int64 as
// PyTorch saves them) and next-token labels with -100 ignored; an id outside the vocabulary or
// a label that is neither a token nor -100 is an error naming the file and the index.
TEST_F(Cli, LanguageModelTakesTokenIdsAndLabelsFromNpy) {
  Result r = run(kS2c + " reference gpt --batch 2 --seq-len 8 --out-dir " + quoted(path("ref")));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string ids = path("ref/init/input_ids.npy"), labels = path("ref/init/labels.npy");
  r = run(kS2c + " compile gpt --batch 2 --seq-len 8 --input " + quoted(ids) + " --labels " +
          quoted(labels) + " -o " + quoted(path("gpt.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("input from " + ids), std::string::npos) << r.out;
  std::vector<int64_t> tokens(16, 5);
  tokens[3] = 127;
  write_npy_i64(path("ids64.npy"), {2, 8}, tokens);
  std::vector<int64_t> next(16, -100);
  next[0] = 127;
  write_npy_i64(path("labels64.npy"), {2, 8}, next);
  r = run(kS2c + " compile gpt --batch 2 --seq-len 8 --input " + quoted(path("ids64.npy")) +
          " --labels " + quoted(path("labels64.npy")) + " -o " + quoted(path("gpt64.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " run " + quoted(path("gpt64.bin")) + " --functional --check");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("check              no findings"), std::string::npos) << r.out;
  tokens[9] = 128;  // the vocabulary is 128
  write_npy_i64(path("bad_ids.npy"), {2, 8}, tokens);
  r = run(kS2c + " compile gpt --batch 2 --seq-len 8 --input " + quoted(path("bad_ids.npy")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("bad_ids.npy: token id 128 at index 9 is outside the 128 rows of "
                       "'transformer.wte.weight'"),
            std::string::npos)
      << r.out;
  next[4] = -1;
  write_npy_i64(path("bad_labels.npy"), {2, 8}, next);
  r = run(kS2c + " compile gpt --batch 2 --seq-len 8 --labels " + quoted(path("bad_labels.npy")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("bad_labels.npy: label -1 at index 4 is outside [0, 128) and is not the "
                       "ignore_index -100"),
            std::string::npos)
      << r.out;
  // Image options mean nothing to a language model, and its shape options nothing to an
  // image model.
  r = run(kS2c + " compile gpt --image 16");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--image: model 'gpt' is a language model"), std::string::npos) << r.out;
  r = run(kS2c + " compile gpt --classes 5");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--classes: model 'gpt' is a language model"), std::string::npos) << r.out;
  r = run(kS2c + " compile resnet18 --layers 2");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("is an image model"), std::string::npos) << r.out;
  r = run(kS2c + " compile gpt --heads 5");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("width 64 is not a multiple of the 5 heads"), std::string::npos) << r.out;
}

// A padding mask (--attention-mask, Hugging Face's attention_mask [N, T]) for a language
// model, int64 as PyTorch saves it: it becomes the additive extended_attention_mask, and
// bert's synthetic masked-LM targets leave the padding out. Every bad file or model is a user
// error naming the file or the option.
TEST_F(Cli, LanguageModelTakesAPaddingMask) {
  std::vector<int64_t> mask(16, 1);
  std::fill(mask.begin() + 8, mask.begin() + 11, 0);  // sequence 1: its first 3 are padding
  write_npy_i64(path("mask.npy"), {2, 8}, mask);
  Result r = run(kS2c + " compile bert --batch 2 --seq-len 8 --attention-mask " +
                 quoted(path("mask.npy")) + " -o " + quoted(path("bert.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " run " + quoted(path("bert.bin")) + " --functional --check --dump-all " +
          quoted(path("dump")));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("check              no findings"), std::string::npos) << r.out;
  const s2::npy::Array extended = s2::npy::read(path("dump/initial/extended_attention_mask.npy"));
  ASSERT_EQ(extended.shape, (std::vector<int64_t>{2, 1, 1, 8}));
  std::vector<float> values(16);
  std::memcpy(values.data(), extended.data.data(), sizeof(float) * values.size());
  for (size_t k = 0; k < values.size(); ++k)
    EXPECT_EQ(values[k], mask[k] != 0 ? 0.0f : std::numeric_limits<float>::lowest()) << k;
  const s2::npy::Array labels = s2::npy::read(path("dump/initial/labels.npy"));
  std::vector<int32_t> label(16);
  std::memcpy(label.data(), labels.data.data(), sizeof(int32_t) * label.size());
  for (size_t k = 8; k < 11; ++k)
    EXPECT_EQ(label[k], -100) << k;
  using Case = std::pair<std::string, std::string>;  // flags, message
  std::vector<int64_t> two = mask;
  two[5] = 2;
  write_npy_i64(path("two.npy"), {2, 8}, two);
  write_npy_i64(path("short.npy"), {2, 7}, std::vector<int64_t>(14, 1));
  for (const auto& [flags, message] :
       {Case{"bert --batch 2 --seq-len 8 --attention-mask " + quoted(path("two.npy")),
             "two.npy: attention mask value 2 at index 5 is neither 1 (attend) nor 0 (padding)"},
        Case{"gpt --batch 2 --seq-len 8 --attention-mask " + quoted(path("short.npy")),
             "short.npy: attention mask of shape [2,7], the model's batch and sequence need "
             "[2,8]"},
        Case{"vit --attention-mask " + quoted(path("mask.npy")),
             "--attention-mask: model 'vit' is not a language model"},
        Case{quoted(path("model.onnx")) + " --attention-mask " + quoted(path("mask.npy")),
             "--attention-mask: applies to the zoo's language models"}}) {
    r = run(kS2c + " compile " + flags);
    EXPECT_EQ(r.status, 1) << flags << ": " << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << flags << ": " << r.out;
  }
}

// The i32 elements of a dumped tensor.
std::vector<int32_t> dumped_i32(const std::string& file) {
  const s2::npy::Array a = s2::npy::read(file);
  std::vector<int32_t> v(a.data.size() / sizeof(int32_t));
  std::memcpy(v.data(), a.data.data(), a.data.size());
  return v;
}

// --input's token ids without --labels: the labels come from those ids, as a training loop's
// would. gpt predicts each sequence's next token; bert masks some positions (their input
// becomes the [MASK] id, vocab - 1) and predicts the ids given there. (They came from the
// synthetic ids the model drew before --input replaced them: gpt trained the given tokens on
// another batch's next tokens.) Labels that leave nothing to predict are refused: the mean loss
// would be 0/0.
TEST_F(Cli, LanguageModelLabelsComeFromTheGivenIds) {
  std::vector<int64_t> tokens(16);
  for (size_t k = 0; k < tokens.size(); ++k)
    tokens[k] = static_cast<int64_t>((k * 37 + 11) % 127);
  write_npy_i64(path("ids.npy"), {2, 8}, tokens);
  for (const std::string model : {"gpt", "bert"}) {
    const std::string bin = path(model + ".bin"), dump = path(model + "_dump");
    Result r = run(kS2c + " compile " + model + " --batch 2 --seq-len 8 --input " +
                   quoted(path("ids.npy")) + " -o " + quoted(bin));
    ASSERT_EQ(r.status, 0) << r.out;
    r = run(kS2sim + " run " + quoted(bin) + " --dump input_ids,labels --dump-dir " + quoted(dump));
    ASSERT_EQ(r.status, 0) << r.out;
    const std::vector<int32_t> ids = dumped_i32(dump + "/input_ids.npy");
    const std::vector<int32_t> labels = dumped_i32(dump + "/labels.npy");
    ASSERT_EQ(ids.size(), 16u);
    ASSERT_EQ(labels.size(), 16u);
    size_t labelled = 0;
    for (size_t k = 0; k < 16; ++k) {
      if (model == "gpt") {
        EXPECT_EQ(ids[k], tokens[k]) << k;
        EXPECT_EQ(labels[k], k % 8 == 7 ? -100 : tokens[k + 1]) << k;
      } else if (labels[k] != -100) {
        ++labelled;
        EXPECT_EQ(labels[k], tokens[k]) << k;
        EXPECT_EQ(ids[k], 127) << k;  // the [MASK] id
      } else {
        EXPECT_EQ(ids[k], tokens[k]) << k;
      }
    }
    if (model == "bert") {
      EXPECT_GT(labelled, 0u);
    }
  }
  write_npy_i64(path("ignored.npy"), {2, 8}, std::vector<int64_t>(16, -100));
  std::vector<int64_t> first_only(16, 0);
  first_only[0] = first_only[8] = 1;
  write_npy_i64(path("first_only.npy"), {2, 8}, first_only);
  using Case = std::pair<std::string, std::string>;  // flags, message
  for (const auto& [flags, message] :
       {Case{"--labels " + quoted(path("ignored.npy")),
             "ignored.npy: every label is the ignore_index -100, so the loss, a mean over the "
             "labelled positions, would be 0/0 (NaN)"},
        Case{"--attention-mask " + quoted(path("first_only.npy")),
             "no sequence has a token after its first that is not padding"}}) {
    const Result r = run(kS2c + " compile gpt --batch 2 --seq-len 8 " + flags);
    EXPECT_EQ(r.status, 1) << flags << ": " << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << flags << ": " << r.out;
  }
  const Result one = run(kS2c + " compile gpt --batch 2 --seq-len 1 --positions 1");
  EXPECT_EQ(one.status, 1) << one.out;
  EXPECT_NE(one.out.find("a sequence of one token has no next token to predict"), std::string::npos)
      << one.out;
}

// `s2c reference` takes the batch files `s2c compile` takes (--input, --labels,
// --attention-mask), so a step compiled from given data has a reference to check it against:
// the functional run equals it bit for bit, its init/ holds the given ids and labels, and the
// padding mask is written for scripts/torch_reference.py (named in the manifest).
TEST_F(Cli, ReferenceTakesTheBatchFilesCompileTakes) {
  std::vector<int64_t> tokens(16), labels(16), mask(16, 1);
  for (size_t k = 0; k < tokens.size(); ++k) {
    tokens[k] = static_cast<int64_t>((k * 53 + 5) % 127);
    labels[k] = k % 3 == 0 ? -100 : static_cast<int64_t>((k * 29 + 3) % 128);
  }
  mask[8] = mask[9] = 0;  // the second sequence's first two tokens are padding
  write_npy_i64(path("ids.npy"), {2, 8}, tokens);
  write_npy_i64(path("labels.npy"), {2, 8}, labels);
  write_npy_i64(path("mask.npy"), {2, 8}, mask);
  const std::string files = " --batch 2 --seq-len 8 --input " + quoted(path("ids.npy")) +
                            " --labels " + quoted(path("labels.npy")) + " --attention-mask " +
                            quoted(path("mask.npy"));
  const std::string bin = path("gpt.bin"), ref = path("ref"), sim = path("sim");
  Result r = run(kS2c + " compile gpt" + files + " -o " + quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2c + " reference gpt" + files + " --out-dir " + quoted(ref));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " run " + quoted(bin) + " --dump loss,transformer.wte.weight --dump-dir " +
          quoted(sim));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(npy_data(sim + "/loss.npy"), npy_data(ref + "/loss.npy"));
  EXPECT_EQ(npy_data(sim + "/transformer.wte.weight.npy"),
            npy_data(ref + "/updated/transformer.wte.weight.npy"));
  const std::vector<int32_t> ids = dumped_i32(ref + "/init/input_ids.npy");
  const std::vector<int32_t> written = dumped_i32(ref + "/init/labels.npy");
  ASSERT_EQ(ids.size(), 16u);
  ASSERT_EQ(written.size(), 16u);
  for (size_t k = 0; k < 16; ++k) {
    EXPECT_EQ(ids[k], tokens[k]) << k;
    EXPECT_EQ(written[k], labels[k]) << k;
  }
  const s2::npy::Array extended = s2::npy::read(ref + "/init/extended_attention_mask.npy");
  EXPECT_EQ(extended.shape, (std::vector<int64_t>{2, 1, 1, 8}));
  EXPECT_NE(
      read_text(ref + "/manifest.json").find("\"attention_mask\": \"extended_attention_mask\""),
      std::string::npos);
  // The seeded batch is another step: a reference without the files differs.
  r = run(kS2c + " reference gpt --batch 2 --seq-len 8 --out-dir " + quoted(path("seeded")));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(npy_data(path("seeded") + "/loss.npy"), npy_data(ref + "/loss.npy"));
  EXPECT_NE(read_text(path("seeded") + "/manifest.json").find("\"attention_mask\": null"),
            std::string::npos);
  // A given file is an input of the run, never an output, even with --force: here the ids
  // the earlier reference wrote, given back into the same directory.
  r = run(kS2c + " reference gpt --batch 2 --seq-len 8 --input " +
          quoted(ref + "/init/input_ids.npy") + " --out-dir " + quoted(ref) + " --force");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("input_ids.npy: is an input of this run"), std::string::npos) << r.out;
}

// --optimizer adamw takes PyTorch's AdamW defaults (lr 1e-3, weight decay 0.01) and its own
// flags; each optimizer refuses the other's.
TEST_F(Cli, OptimizerFlags) {
  const std::string bin = path("a.bin");
  Result r = run(kS2c + " compile mlp --batch 2 --image 4 --optimizer adamw -o " + quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("adamw=6"), std::string::npos) << r.out;  // 3 weights, 3 biases
  r = run(kS2sim + " disasm " + quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("adamw weight="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lr=0.001 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("weight_decay=0.01"), std::string::npos) << r.out;
  r = run(kS2c + " compile mlp --optimizer adamw --momentum 0.5");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--momentum: applies to --optimizer sgd"), std::string::npos) << r.out;
  r = run(kS2c + " compile mlp --beta2 0.99");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--beta2: applies to --optimizer adamw"), std::string::npos) << r.out;
  r = run(kS2c + " compile mlp --optimizer adamw --beta1 1");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--beta1: 1 is not a number in [0, 1)"), std::string::npos) << r.out;
  // The numbers that become f32 fields: NaN reached shape inference as an op's attribute, 1e39
  // became inf in the field, and inf was refused with DBL_MAX written out in 300 digits.
  for (const char* flag : {"--lr", "--momentum", "--weight-decay", "--optimizer adamw --eps"})
    for (const char* bad : {"nan", "inf", "1e39", "-1", "0.1x"}) {
      r = run(kS2c + " compile mlp " + flag + " " + bad);
      EXPECT_EQ(r.status, 1) << flag << " " << bad << ": " << r.out;
      EXPECT_NE(r.out.find(std::string(bad) +
                           " is not a finite number >= 0 that an f32 holds (at most 3.4e38)"),
                std::string::npos)
          << flag << " " << bad << ": " << r.out;
    }
  r = run(kS2c + " compile mlp --optimizer adamw --beta2 nan");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--beta2: nan is not a number in [0, 1)"), std::string::npos) << r.out;
  r = run(kS2c + " compile mlp --plan-budget inf");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--plan-budget: inf is not a finite number >= 0"), std::string::npos)
      << r.out;
  r = run(kS2c + " compile mlp --optimizer adam");
  EXPECT_EQ(r.status, 1);
  for (const char* bad : {"0", "-1", "nan", "1e39", "x"}) {
    r = run(kS2c + " compile mlp --clip-grad-norm " + bad);
    EXPECT_EQ(r.status, 1) << bad;
    EXPECT_NE(r.out.find("--clip-grad-norm"), std::string::npos) << bad << ": " << r.out;
  }
}

// A vision transformer takes the image options and the transformer's shape; the language
// models' sequence options and --patch elsewhere are refused.
TEST_F(Cli, VisionTransformerFlags) {
  Result r = run(kS2c +
                 " compile vit --batch 2 --image 16 --layers 1 --heads 2 --width 32 "
                 "--patch 4 --classes 5 -o " +
                 quoted(path("vit.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " run " + quoted(path("vit.bin")) + " --functional --check");
  EXPECT_EQ(r.status, 0) << r.out;
  r = run(kS2c + " compile vit --seq-len 8");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("is a vision transformer: --seq-len"), std::string::npos) << r.out;
  r = run(kS2c + " compile vit --image 20");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("not 20x20"), std::string::npos) << r.out;
  r = run(kS2c + " compile resnet18 --patch 4");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--patch applies to vit and vit_b_16"), std::string::npos) << r.out;
}

// --clip-grad-norm: one reduce sumsq per weight gradient, one clip_scale, and every update
// reads its grad_scale; the summary prices the peak memory it costs.
TEST_F(Cli, GradientClipping) {
  const std::string bin = path("a.bin");
  Result r = run(kS2c +
                 " compile mlp --batch 2 --image 4 --clip-grad-norm 1.5 --schedule "
                 "update-immediate -o " +
                 quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("reduce_sumsq=6 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("clip_scale=1 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gradient clipping (max norm 1.5): live peak "), std::string::npos) << r.out;
  r = run(kS2sim + " disasm " + quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("clip_scale sumsq="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("max_norm=1.5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reduce=sumsq"), std::string::npos) << r.out;
  size_t updates = 0;
  for (size_t at = r.out.find("sgd weight="); at != std::string::npos;
       at = r.out.find("sgd weight=", at + 1)) {
    const size_t end = r.out.find('\n', at);
    EXPECT_NE(r.out.substr(at, end - at).find("grad_scale="), std::string::npos);
    ++updates;
  }
  EXPECT_EQ(updates, 6u);
  r = run(kS2sim + " run " + quoted(bin) + " --functional --check");
  EXPECT_EQ(r.status, 0) << r.out;
}

}  // namespace
