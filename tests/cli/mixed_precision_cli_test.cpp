// Runs s2c and s2sim with --precision bf16 / fp16 as a user would: the step compiles, runs and
// matches the reference interpreter, errors name their cause, and fp16 loss scaling skips
// overflowing steps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_fixture.h"
#include "isa/io/npy.h"

namespace {

using namespace s2::test::cli;  // the Cli fixture and its helpers (cli_fixture.h)

// --precision bf16 and fp16: the summary says what is stored in which type, the functional
// run is clean and equals `s2c reference --precision` bit for bit (lenet5 and the tiny GPT;
// more models in FunctionalEquivalence), and training still lowers the loss.
TEST_F(Cli, MixedPrecisionCompilesRunsAndMatchesTheReference) {
  for (const char* precision : {"bf16", "fp16"}) {
    SCOPED_TRACE(precision);
    for (const char* model : {"lenet5", "gpt"}) {
      SCOPED_TRACE(model);
      const std::string flags = std::string(" ") + model + " --batch 2" +
                                (std::string(model) == "gpt" ? "" : " --image 16") +
                                " --precision " + precision;
      const std::string tag = std::string(model) + precision;
      const std::string bin = path(tag + ".bin"), ref = path(tag + "_ref"),
                        sim = path(tag + "_sim");
      Result r = run(kS2c + " compile" + flags + " -o " + quoted(bin));
      ASSERT_EQ(r.status, 0) << r.out;
      EXPECT_NE(r.out.find("data by element type (mixed precision):"), std::string::npos) << r.out;
      // The images are stored in the 16-bit type; the GPT's token ids stay i32.
      EXPECT_NE(r.out.find(std::string(precision) + (std::string(model) == "gpt" ? ": 0" : ": 1") +
                           " inputs, "),
                std::string::npos)
          << r.out;
      r = run(kS2c + " reference" + flags + " --out-dir " + quoted(ref));
      ASSERT_EQ(r.status, 0) << r.out;
      EXPECT_NE(read_text(ref + "/manifest.json")
                    .find(std::string("\"precision\": \"") + precision + "\""),
                std::string::npos);
      const std::string weight =
          std::string(model) == "gpt" ? "transformer.h.1.attn.c_attn.weight" : "conv1.weight";
      r = run(kS2sim + " run " + quoted(bin) + " --functional --check --dump loss," + weight +
              " --dump-dir " + quoted(sim));
      ASSERT_EQ(r.status, 0) << r.out;
      EXPECT_NE(r.out.find("check              no findings"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("datatypes"), std::string::npos) << r.out;
      EXPECT_EQ(npy_data(sim + "/" + weight + ".npy"),
                npy_data(ref + "/updated/" + weight + ".npy"));
      EXPECT_EQ(npy_data(sim + "/loss.npy"), npy_data(ref + "/loss.npy"));
      // Each tensor's files hold its type, but NumPy has no bfloat16: a bf16 tensor's are
      // float32, and the manifest says so.
      const nlohmann::json manifest = nlohmann::json::parse(read_text(sim + "/manifest.json"));
      int sixteen_bit = 0;
      for (const nlohmann::json& t : manifest["tensors"]) {
        const std::string dtype = t["dtype"];
        EXPECT_EQ(t["file_dtype"], dtype == "bf16" ? "f32" : dtype) << t.dump();
        sixteen_bit += dtype == "bf16" || dtype == "f16";
        if (dtype != "bf16" || t["initial"].is_null()) continue;
        const std::string initial = read_text(sim + "/" + std::string(t["initial"]));
        EXPECT_NE(initial.find("'descr': '<f4'"), std::string::npos) << t.dump();
      }
      EXPECT_GT(sixteen_bit, 0);
    }
    const std::string l5 = path(std::string("steps") + precision + ".bin");
    ASSERT_EQ(run(kS2c + " compile lenet5 --batch 4 --precision " + precision + " -o " + quoted(l5))
                  .status,
              0);
    const Result r = run(kS2sim + " run " + quoted(l5) + " --steps 12");
    ASSERT_EQ(r.status, 0) << r.out;
    auto loss_at = [&](int step) {
      const size_t at = r.out.find("step " + std::to_string(step) + " ");
      return at == std::string::npos ? -1.0 : std::stod(r.out.substr(r.out.find("loss", at) + 4));
    };
    EXPECT_GT(loss_at(1), 0.0) << r.out;
    EXPECT_LT(loss_at(12), 0.8 * loss_at(1)) << r.out;
  }
}

TEST_F(Cli, MixedPrecisionErrorsNameTheirCause) {
  Result r = run(kS2c + " compile mlp --precision fp8");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--precision"), std::string::npos) << r.out;
  // A target whose array multiplies f32 only.
  std::string text = read_text(kSource + "/configs/s2train_base.yaml");
  const size_t at = text.find("datatypes: {f32: 1, bf16: 4, f16: 4}");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 36, "datatypes: {f32: 1}");
  link_config_dirs();
  write_text(path("f32only.yaml"), text);
  r = run(kS2c + " compile mlp --precision fp16 --config " + quoted(path("f32only.yaml")) + " -o " +
          quoted(path("x.bin")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("f32only.yaml: pe_array.datatypes has no f16, which --precision fp16 "
                       "multiplies on the PE array"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(path("x.bin")));
  EXPECT_EQ(run(kS2c + " compile mlp --precision fp32 --config " + quoted(path("f32only.yaml")) +
                " -o " + quoted(path("x.bin")))
                .status,
            0);
  // Loss scaling's flags.
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"--loss-scale 8", "--loss-scale: loss scaling applies to --precision fp16 or bf16"},
           {"--precision fp16 --loss-scale 1e39", "--loss-scale 1e39: must be a positive number"},
           {"--precision fp16 --loss-scale -2", "--loss-scale -2: must be a positive number"},
           {"--precision fp16 --no-loss-scaling --loss-scale 8",
            "--no-loss-scaling and --loss-scale contradict each other"},
           {"--precision bf16 --loss-scale-growth-interval 5",
            "bf16 scales its loss only when --loss-scale is given"}}) {
    r = run(kS2c + " compile mlp " + flags + " -o " + quoted(path("y.bin")));
    EXPECT_EQ(r.status, 1) << flags;
    EXPECT_NE(r.out.find(message), std::string::npos) << flags << "\n" << r.out;
  }
  EXPECT_FALSE(fs::exists(path("y.bin")));
}

// fp16 loss scaling with gradient clipping: the norm is taken of the unscaled gradients (each
// sum of squares times inv_scale^2, exact), the updates take inv_scale times the clip factor;
// the functional run equals `s2c reference` bit for bit, and the compiled norm is the unscaled
// one (the same whatever the scale).
TEST_F(Cli, Fp16LossScalingWithGradientClippingMatchesTheReference) {
  const std::string flags = " gpt --batch 2 --precision fp16 --clip-grad-norm 0.5";
  const std::string weight = "transformer.h.1.attn.c_attn.weight";
  std::string norms[2];
  for (int i = 0; i < 2; ++i) {
    const std::string scale = i == 0 ? "" : " --loss-scale 1024";
    const std::string tag = "s" + std::to_string(i);
    const std::string bin = path(tag + ".bin"), ref = path(tag + "_ref"), sim = path(tag + "_sim");
    Result r = run(kS2c + " compile" + flags + scale + " -o " + quoted(bin));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("loss scaling from"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("gradient clipping (max norm 0.5): live peak"), std::string::npos)
        << r.out;
    r = run(kS2c + " reference" + flags + scale + " --out-dir " + quoted(ref));
    ASSERT_EQ(r.status, 0) << r.out;
    r = run(kS2sim + " run " + quoted(bin) + " --functional --check --dump loss," + weight +
            ",clip_grad_norm.total_norm --dump-dir " + quoted(sim));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("check              no findings"), std::string::npos) << r.out;
    EXPECT_EQ(npy_data(sim + "/" + weight + ".npy"), npy_data(ref + "/updated/" + weight + ".npy"));
    EXPECT_EQ(npy_data(sim + "/loss.npy"), npy_data(ref + "/loss.npy"));
    norms[i] = npy_data(sim + "/clip_grad_norm.total_norm.npy");
    EXPECT_EQ(norms[i].size(), 4u);
  }
  EXPECT_EQ(norms[0], norms[1]);  // 65536 and 1024: the unscaled norm either way
}

// fp16 with a loss scale that overflows on purpose (2^40): the first steps are skipped (the loss
// stays, no weight moves), each halving the scale, until the scaled gradients fit fp16; then
// the step trains. Without loss scaling nothing is skipped.
TEST_F(Cli, Fp16LossScalingSkipsOverflowingStepsAndHalvesTheScale) {
  const std::string bin = path("l5.bin");
  Result r =
      run(kS2c + " compile lenet5 --batch 4 --precision fp16 --loss-scale 1099511627776 -o " +
          quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("loss scaling from 1099511627776.0 over 10 gradients"), std::string::npos)
      << r.out;
  // What holding the updates until every gradient is checked costs.
  EXPECT_NE(r.out.find("loss scaling: live peak "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("without it under the same schedule"), std::string::npos) << r.out;
  r = run(kS2sim + " run " + quoted(bin) +
          " --functional --check --steps 40 --dump "
          "amp.loss_scale --dump-dir " +
          quoted(path("d")));
  ASSERT_EQ(r.status, 0) << r.out;
  std::vector<double> losses;
  for (int step = 1; step <= 40; ++step) {
    const size_t at = r.out.find("step " + std::to_string(step) + " ");
    ASSERT_NE(at, std::string::npos) << r.out;
    losses.push_back(std::stod(r.out.substr(r.out.find("loss", at) + 4)));
  }
  // Step k's loss is computed before its update: step k + 1 has the same loss exactly when
  // step k was skipped.
  EXPECT_EQ(losses[1], losses[0]) << r.out;  // step 1 overflowed: nothing moved
  size_t same = 1;
  while (same < losses.size() && losses[same] == losses[0])
    ++same;
  const size_t skipped = same - 1;
  EXPECT_GT(skipped, 2u) << r.out;
  EXPECT_LT(skipped, 30u) << r.out;
  EXPECT_LT(losses.back(), 0.9 * losses[0]) << r.out;
  // 2^40 halved once per skipped step (the growth interval, 2000, is never reached).
  const s2::npy::Array scale = s2::npy::read(path("d") + "/amp.loss_scale.npy");
  ASSERT_EQ(scale.dtype, s2::isa::DType::F32);
  ASSERT_EQ(scale.data.size(), 4u);
  float value = 0.0f;
  std::memcpy(&value, scale.data.data(), sizeof value);
  EXPECT_EQ(value, std::ldexp(1.0f, 40 - static_cast<int>(skipped))) << r.out;
}

}  // namespace
