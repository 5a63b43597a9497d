// RTL co-simulation end to end (docs/rtl.md): `s2sim regress` passes on random tiles and fails
// on a deliberately wrong model; `s2sim run --rtl pe_array,ppu` gives the same cycles and the
// same output bits as the models; bad --rtl / --vcd use is a clear error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../common/run_command.h"
#include "../common/torch_script.h"

namespace {

using s2::test::read_text;

namespace fs = std::filesystem;

using Result = s2::test::CommandResult;
using s2::test::shell_quoted;
const auto& run = s2::test::run_command;

const std::string kS2c = shell_quoted(S2C_PATH);
const std::string kS2sim = shell_quoted(S2SIM_PATH);

// `out` without its lines that contain `needle`; `removed`, if given, counts them.
std::string without_lines(const std::string& out, const std::string& needle,
                          size_t* removed = nullptr) {
  std::string kept, line;
  std::istringstream in(out);
  while (std::getline(in, line)) {
    if (line.find(needle) == std::string::npos) {
      kept += line + "\n";
    } else if (removed != nullptr) {
      ++*removed;
    }
  }
  return kept;
}

class RtlCli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("s2rtlcli_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return shell_quoted((dir_ / name).string()); }

  // Compiles `model`, runs it on the models and with the RTL units, and expects identical
  // reports (cycles) and identical dumps (bits), and a clean co-simulation log.
  void expect_rtl_matches_models(const std::string& model, const std::string& rtl,
                                 const std::string& config_flag) {
    const Result c =
        run(kS2c + " compile " + model + " --batch 2 " + config_flag + " -o " + path("x.bin"));
    ASSERT_EQ(c.status, 0) << c.out;
    const Result m = run(kS2sim + " run " + path("x.bin") + " " + config_flag + " --report " +
                         path("model.json") + " --dump-all " + path("model"));
    ASSERT_EQ(m.status, 0) << m.out;
    const Result r = run(kS2sim + " run " + path("x.bin") + " " + config_flag + " --rtl " + rtl +
                         " --report " + path("rtl.json") + " --dump-all " + path("rtl"));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("RTL co-simulation"), std::string::npos) << r.out;
    // Both parts ran: the RTL clocked the timing units' tiles and computed the replay.
    EXPECT_NE(r.out.find("timing (the RTL clocks the units"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("datapath (the functional replay"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cycles identical"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("diverge"), std::string::npos) << r.out;
    EXPECT_EQ(read_text(dir_ / "model.json"), read_text(dir_ / "rtl.json"));
    size_t files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir_ / "model")) {
      if (!entry.is_regular_file()) continue;
      const fs::path rel = fs::relative(entry.path(), dir_ / "model");
      if (rel.filename() == "manifest.json") continue;  // names the command's paths
      ASSERT_TRUE(fs::exists(dir_ / "rtl" / rel)) << rel;
      EXPECT_EQ(read_text(entry.path()), read_text(dir_ / "rtl" / rel)) << rel;
      ++files;
    }
    EXPECT_GT(files, 10u);
  }

  fs::path dir_;
};

TEST_F(RtlCli, RegressPassesOnRandomTilesOfEverySizeAndOp) {
  const Result r = run(kS2sim + " regress --seed 11 --count 90");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pe_array (32x32, 16x16, 8x4; f32, bf16, f16): 90 tiles"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ppu (32, 16 lanes; f32, bf16, f16 streams): 90 tiles"), std::string::npos)
      << r.out;
}

TEST_F(RtlCli, RegressCatchesAModelWithTheWrongRounding) {
  const Result r = run(kS2sim + " regress --seed 5 --count 24 --model-rounding toward-zero");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("MISMATCH pe_array"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MISMATCH ppu"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reproduce: s2sim regress --unit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
}

TEST_F(RtlCli, RegressReplaysOneTile) {
  const Result r = run(kS2sim + " regress --seed 5 --tile 7 --unit ppu");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("ppu (32, 16 lanes; f32, bf16, f16 streams): 1 tiles"), std::string::npos)
      << r.out;
}

TEST_F(RtlCli, MlpOnThePeArrayAndPpuRtlMatchesTheModels) {
  expect_rtl_matches_models("mlp", "pe_array,ppu", "");
}

TEST_F(RtlCli, Lenet5OnThePeArrayAndPpuRtlMatchesTheModels) {
  expect_rtl_matches_models("lenet5", "pe_array,ppu", "");
}

// The timing run clocks a tile identical to an earlier one once (rtl_tile_clock.h, "Repeated
// tiles"); --rtl-clock-every-tile clocks all of them. Both give the same report and the same
// co-simulation log but for the lines that count the reused tiles.
TEST_F(RtlCli, RepeatedTilesTakeTheCyclesTheRtlClockedForTheFirst) {
  ASSERT_EQ(run(kS2c + " compile lenet5 --batch 2 -o " + path("x.bin")).status, 0);
  const std::string rtl = kS2sim + " run " + path("x.bin") + " --rtl pe_array,ppu";
  const Result reused = run(rtl + " --report " + path("reused.json"));
  ASSERT_EQ(reused.status, 0) << reused.out;
  const Result every = run(rtl + " --rtl-clock-every-tile --report " + path("every.json"));
  ASSERT_EQ(every.status, 0) << every.out;
  EXPECT_EQ(read_text(dir_ / "reused.json"), read_text(dir_ / "every.json"));
  // The log's lines without the wall time and the reuse counts.
  size_t reuse_lines = 0, every_reuse_lines = 0;
  const std::string reused_log =
      without_lines(without_lines(reused.out, "wall time"), "took its RTL cycles", &reuse_lines);
  EXPECT_EQ(reused_log, without_lines(without_lines(every.out, "wall time"), "took its RTL cycles",
                                      &every_reuse_lines));
  EXPECT_NE(reused_log.find("cycles identical"), std::string::npos) << reused.out;
  EXPECT_EQ(reuse_lines, 3u) << reused.out;  // the array, the epilogue and the PPU
  EXPECT_EQ(every_reuse_lines, 0u) << every.out;
  // Without --rtl the flag has nothing to clock.
  const Result refused = run(kS2sim + " run " + path("x.bin") + " --rtl-clock-every-tile");
  EXPECT_EQ(refused.status, 1) << refused.out;
  EXPECT_NE(refused.out.find("--rtl-clock-every-tile"), std::string::npos) << refused.out;
}

// The functional replay runs on the plain C++ builds, and with --vcd on the traced SystemC
// builds: the same RTL, so the same log, cycles and bits (every opcode's program, the small
// config's 16x16 array).
TEST_F(RtlCli, TheReplayOnTheSystemCBuildsForVcdMatchesThePlainBuilds) {
  ASSERT_EQ(run(kS2c + " asm " +
                shell_quoted(std::string(S2_SOURCE_DIR) + "/tests/isa/golden/all_opcodes.s2asm") +
                " -o " + path("ao.bin"))
                .status,
            0);
  const std::string rtl = kS2sim + " run " + path("ao.bin") + " --rtl pe_array,ppu";
  const Result plain = run(rtl);
  ASSERT_EQ(plain.status, 0) << plain.out;
  const Result traced = run(rtl + " --vcd " + path("ao"));
  ASSERT_EQ(traced.status, 0) << traced.out;
  EXPECT_EQ(without_lines(plain.out, "wall time"), without_lines(traced.out, "wall time"));
  EXPECT_NE(plain.out.find("pe_array: 152 passes"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("cycles and bits identical"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("diverge"), std::string::npos) << plain.out;
  EXPECT_GT(fs::file_size(dir_ / "ao.pe_array.vcd"), 0u);
  EXPECT_GT(fs::file_size(dir_ / "ao.ppu.vcd"), 0u);
}

const std::string kSmallConfig =
    "--config " + shell_quoted(std::string(S2_SOURCE_DIR) + "/configs/s2train_small.yaml");

TEST_F(RtlCli, Lenet5OnTheSmallConfigsPeArrayRtlMatchesTheModel) {
  expect_rtl_matches_models("lenet5", "pe_array", kSmallConfig);
}

// Mixed precision on the PE-array RTL: its 16-bit modes (4 MACs per PE on the base config's
// 32x32, 2 on the small config's 16x16) give the models' cycles and bits.
TEST_F(RtlCli, Bf16MlpOnThePeArrayRtlMatchesTheModel) {
  expect_rtl_matches_models("mlp --precision bf16", "pe_array", "");
}

// Fused attention in bf16: the array multiplies the rounded p and ds blocks (the adapter
// refuses any multiplicand that is not a bf16 value), and dq sums in its f32 dq_acc.
TEST_F(RtlCli, Bf16FusedAttentionOnThePeArrayRtlMatchesTheModel) {
  expect_rtl_matches_models("gpt --precision bf16 --fuse-attention", "pe_array", "");
}

TEST_F(RtlCli, Fp16Lenet5OnTheSmallConfigsPeArrayRtlMatchesTheModel) {
  expect_rtl_matches_models("lenet5 --precision fp16", "pe_array", kSmallConfig);
}

// Mixed precision on both RTL units: the PPU RTL's load widens the casts' and eltwise ops'
// 16-bit streams and its store rounds their results (bf16 here, f16 with the loss scaling's
// casts below).
TEST_F(RtlCli, Bf16MlpOnThePeArrayAndPpuRtlMatchesTheModels) {
  expect_rtl_matches_models("mlp --precision bf16", "pe_array,ppu", "");
}

// A bf16 resnet18 on the PPU RTL: every PE instruction's 16-bit result is rounded by the
// epilogue pass's store (no-stage passes included), and each SGD update's bf16 weight copy by
// a cast pass's store.
TEST_F(RtlCli, Bf16Resnet18OnThePpuRtlMatchesTheModels) {
  expect_rtl_matches_models("resnet18 --image 16 --precision bf16", "ppu", "");
}

TEST_F(RtlCli, Fp16MlpOnThePpuRtlMatchesTheModels) {
  expect_rtl_matches_models("mlp --precision fp16", "ppu", "");
}

TEST_F(RtlCli, VcdDumpsTheRtlUnitsWaveforms) {
  ASSERT_EQ(run(kS2c + " compile mlp --batch 1 -o " + path("x.bin")).status, 0);
  const Result r = run(kS2sim + " run " + path("x.bin") + " --rtl ppu --vcd " + path("wave.vcd"));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string vcd = read_text(dir_ / "wave.ppu.vcd");
  EXPECT_NE(vcd.find("$enddefinitions"), std::string::npos);
  EXPECT_NE(vcd.find("#"), std::string::npos);
  // A second run replaces its own waveform; a file of another kind where a waveform would go
  // (here the report of the first run) is refused before anything runs, and kept.
  ASSERT_EQ(run(kS2sim + " run " + path("x.bin") + " --rtl ppu --vcd " + path("wave.vcd")).status,
            0);
  ASSERT_EQ(run(kS2sim + " run " + path("x.bin") + " --report " + path("r.ppu.vcd")).status, 0);
  const std::string report = read_text(dir_ / "r.ppu.vcd");
  const Result refused = run(kS2sim + " run " + path("x.bin") + " --rtl ppu --vcd " + path("r"));
  EXPECT_EQ(refused.status, 1) << refused.out;
  EXPECT_NE(refused.out.find((dir_ / "r.ppu.vcd").string() +
                             ": exists and is a JSON file, not a VCD waveform"),
            std::string::npos)
      << refused.out;
  EXPECT_EQ(read_text(dir_ / "r.ppu.vcd"), report);
}

TEST_F(RtlCli, BadRtlUseIsAClearError) {
  ASSERT_EQ(run(kS2c + " compile mlp --batch 1 -o " + path("x.bin")).status, 0);
  Result r = run(kS2sim + " run " + path("x.bin") + " --rtl pe_array,dma");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("--rtl: unknown RTL unit 'dma'; known: pe_array, ppu"), std::string::npos)
      << r.out;
  r = run(kS2sim + " run " + path("x.bin") + " --vcd " + path("w.vcd"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("--vcd"), std::string::npos) << r.out;
  r = run(kS2sim + " run " + path("x.bin") + " --rtl ppu --config " +
          shell_quoted(std::string(S2_SOURCE_DIR) + "/configs/s2train_small.yaml"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("ppu.lanes"), std::string::npos) << r.out;
}

// Every opcode's program, with bf16 and f16 operands, runs on the PPU RTL with every bit and
// cycle the models give; a target whose array lacks a program's multiply mode is refused before
// the run, naming the instruction.
TEST_F(RtlCli, SixteenBitProgramsRunOnThePpuRtlAndAreRefusedWhereTheArrayCannot) {
  const std::string bin = path("ao.bin");
  ASSERT_EQ(run(kS2c + " asm " +
                shell_quoted(std::string(S2_SOURCE_DIR) + "/tests/isa/golden/all_opcodes.s2asm") +
                " -o " + bin)
                .status,
            0);
  Result r = run(kS2sim + " run " + bin + " --functional --rtl ppu");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("cycles identical"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("diverge"), std::string::npos) << r.out;
  const std::string file = (dir_ / "ao.bin").string();
  std::ifstream base(std::string(S2_SOURCE_DIR) + "/configs/s2train_base.yaml");
  std::stringstream text;
  text << base.rdbuf();
  std::string yaml = text.str();
  const std::string line = "datatypes: {f32: 1, bf16: 4, f16: 4}";
  ASSERT_NE(yaml.find(line), std::string::npos);
  yaml.replace(yaml.find(line), line.size(), "datatypes: {f32: 1, bf16: 4}");
  std::ofstream(dir_ / "f32_only.yaml") << yaml;
  for (const char* sub : {"dram", "tech", "host_link"})  // the presets beside the config
    fs::create_directory_symlink(fs::path(S2_SOURCE_DIR) / "configs" / sub, dir_ / sub);
  r = run(kS2sim + " run " + bin + " --config " + path("f32_only.yaml"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(file + ": instruction 38 (bmm): the PE array of target 's2train_base' "
                              "does not multiply f16 (pe_array.datatypes lists f32, bf16)"),
            std::string::npos)
      << r.out;
  // An array whose f32 rate is not the RTL's cannot stand in for it.
  yaml.replace(yaml.find("datatypes: {f32: 1, bf16: 4}"), 28, "datatypes: {bf16: 4}");
  std::ofstream(dir_ / "no_f32.yaml") << yaml;
  r = run(kS2sim + " run " + bin + " --rtl pe_array --config " + path("no_f32.yaml"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("no_f32.yaml:20: pe_array.datatypes: the RTL units multiply f32 at 1 MAC "
                       "per PE per cycle; --rtl needs 'f32: 1'"),
            std::string::npos)
      << r.out;
  // The PE-array RTL multiplies bf16 and f16 at its built rate; a config that says otherwise
  // cannot stand in for it.
  yaml.replace(yaml.find("datatypes: {bf16: 4}"), 20, "datatypes: {f32: 1, bf16: 2, f16: 4}");
  std::ofstream(dir_ / "bf16_2.yaml") << yaml;
  r = run(kS2sim + " run " + bin + " --rtl pe_array --config " + path("bf16_2.yaml"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("bf16_2.yaml:20: pe_array.datatypes.bf16: 2 MACs per PE per cycle; the "
                       "32x32 PE-array RTL multiplies bf16 and f16 at 4, so --rtl pe_array needs "
                       "that"),
            std::string::npos)
      << r.out;
  // Without those limits it runs, checked, and reports each element type's share.
  r = run(kS2sim + " run " + bin + " --functional --check");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("bf16 1296 MACs at 4/PE/cycle"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check              no findings"), std::string::npos) << r.out;
}

}  // namespace
