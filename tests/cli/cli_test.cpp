// Runs s2c and s2sim as a user would and checks exit codes, output and messages.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cli_fixture.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"
#include "isa/io/npy.h"

namespace {

using namespace s2::test::cli;  // the Cli fixture and its helpers (cli_fixture.h)

TEST_F(Cli, VersionAndHelp) {
  Result r = run(kS2c + " --version");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("s2c "), std::string::npos) << r.out;
  r = run(kS2sim + " --version");
  EXPECT_EQ(r.status, 0);
  r = run(kS2c + " --help");
  EXPECT_EQ(r.status, 0);
  for (const char* word : {"asm", "isa-doc", "compile", "opt"})
    EXPECT_NE(r.out.find(word), std::string::npos) << word << " missing from:\n" << r.out;
  r = run(kS2c + " opt --help");  // the passes, from their registry, in pipeline order
  EXPECT_EQ(r.status, 0);
  size_t at = r.out.find("Passes, in pipeline order:");
  EXPECT_NE(at, std::string::npos) << r.out;
  for (const char* pass : {"import", "autodiff", "shape-inference", "dce", "cse", "fold",
                           "simplify", "autocast", "fuse-attention", "fuse", "place-concat",
                           "elide-copies", "in-place", "schedule", "fit-budget", "plan", "lower"}) {
    at = r.out.find(std::string("\n  ") + pass + " ", at);
    EXPECT_NE(at, std::string::npos) << pass << " missing or out of order in:\n" << r.out;
  }
  r = run(kS2sim + " --help");
  EXPECT_EQ(r.status, 0);
  for (const char* word : {"disasm", "info", "validate-config"})
    EXPECT_NE(r.out.find(word), std::string::npos) << word << " missing from:\n" << r.out;
}

TEST_F(Cli, BadFlagsAreUserErrors) {
  EXPECT_EQ(run(kS2c).status, 1);
  EXPECT_EQ(run(kS2c + " asm").status, 1);
  EXPECT_EQ(run(kS2c + " --frobnicate").status, 1);
  EXPECT_EQ(run(kS2sim + " disasm " + quoted(path("missing.bin"))).status, 1);
  EXPECT_EQ(run(kS2sim + " info").status, 1);
}

// A count flag refuses 0, a sign, a fraction and an exponent in one short line naming the
// value. CLI11's own check said "Value 0 not in range 0.000000 to 1797...", the largest double
// written out in 300 digits.
TEST_F(Cli, CountFlagsSayWhatTheyTake) {
  const std::string bin = assembled_example();
  ASSERT_FALSE(bin.empty());
  for (const char* bad : {"0", "-3", "2.5", "1e3", "x"}) {
    for (const std::string& cmd :
         {kS2c + " compile mlp --batch ", kS2c + " compile gpt --heads ",
          kS2c + " compile mlp --alignment ", kS2sim + " run " + quoted(bin) + " --steps ",
          kS2sim + " run " + quoted(bin) + " --threads "}) {
      const Result r = run(cmd + bad);
      EXPECT_EQ(r.status, 1) << cmd << bad << ": " << r.out;
      EXPECT_NE(r.out.find(std::string(": ") + bad + " is not a whole number >= 1"),
                std::string::npos)
          << cmd << bad << ": " << r.out;
      EXPECT_EQ(r.out.find("not in range"), std::string::npos) << cmd << bad << ": " << r.out;
    }
  }
  // Seeds, indices and limits take 0 too, and nothing negative: CLI11 read "-1" into them as
  // 2^64 - 1, so 'regress --count -1' ran for ever and '--data-limit -1' meant no limit.
  for (const char* bad : {"-1", "2.5", "x"}) {
    for (const std::string& cmd :
         {kS2c + " compile mlp --seed ", kS2sim + " regress --unit ppu --seed ",
          kS2sim + " regress --unit ppu --tile ", kS2c + " compile mlp --plan-seed ",
          kS2sim + " disasm " + quoted(bin) + " --data-limit "}) {
      const Result r = run(cmd + bad);
      EXPECT_EQ(r.status, 1) << cmd << bad << ": " << r.out;
      EXPECT_NE(r.out.find(std::string(": ") + bad + " is not a whole number >= 0"),
                std::string::npos)
          << cmd << bad << ": " << r.out;
    }
  }
  for (const char* bad : {"-1", "0", "2.5", "3000000000"}) {
    const Result r =
        run(kS2c + " compile mlp --precision fp16 --loss-scale-growth-interval " + bad);
    EXPECT_EQ(r.status, 1) << bad << ": " << r.out;
    EXPECT_NE(r.out.find(std::string("--loss-scale-growth-interval: ") + bad +
                         " is not a whole number in [1, 2147483647]"),
              std::string::npos)
        << r.out;
  }
  const Result count = run(kS2sim + " regress --unit ppu --count -1");
  EXPECT_EQ(count.status, 1) << count.out;
  EXPECT_NE(count.out.find("--count: -1 is not a whole number >= 1"), std::string::npos)
      << count.out;
  // A 64-bit option past 2^64 - 1: CLI11 read it as 2^64 - 1 without a word.
  for (const std::string& cmd :
       {kS2c + " compile mlp --seed ", kS2sim + " regress --unit ppu --count ",
        kS2sim + " disasm " + quoted(bin) + " --data-limit "}) {
    const Result r = run(cmd + "18446744073709551616");
    EXPECT_EQ(r.status, 1) << cmd << r.out;
    EXPECT_NE(r.out.find(": 18446744073709551616 is larger than 18446744073709551615, the "
                         "largest whole number an option holds"),
              std::string::npos)
        << cmd << r.out;
  }
  // Leading zeros: decimal all the same. CLI11 read 010 as octal (--batch 010 compiled batch 8)
  // and could not convert 09.
  const auto compiled = [&](const std::string& flags, const std::string& name) {
    const Result r = run(kS2c + " compile mlp " + flags + " -o " + quoted(path(name)));
    EXPECT_EQ(r.status, 0) << flags << r.out;
    return read_text(path(name));
  };
  EXPECT_EQ(compiled("--batch 010 --seed 09", "a.bin"), compiled("--batch 10 --seed 9", "b.bin"));
  EXPECT_EQ(compiled("--batch 2 --seed 0018446744073709551615", "c.bin"),
            compiled("--batch 2 --seed 18446744073709551615", "d.bin"));
  EXPECT_NE(compiled("--batch 2 --seed 18446744073709551615", "d.bin"),
            compiled("--batch 2 --seed 1", "e.bin"));
}

// '--name=' with nothing after the '=': CLI11 took the next argument as the value, so
// 's2c opt --passes= FILE' read FILE as a pass name and 's2sim run --dump= X.bin' X.bin as a
// tensor. Refused by name, in both tools, before the command runs; an empty or unknown name in
// --passes is named too.
TEST_F(Cli, AnOptionWithNothingAfterItsEqualsSignIsRefused) {
  const std::string bin = assembled_example();
  ASSERT_FALSE(bin.empty());
  const std::string program = path("p.s2ir");
  ASSERT_EQ(run(kS2c + " compile mlp --dump-after import --dump-file " + quoted(program)).status,
            0);
  using Case = std::pair<std::string, std::string>;  // command, message
  for (const auto& [cmd, message] :
       {Case{kS2c + " opt --passes= " + quoted(program) + " -o " + quoted(path("o.s2ir")),
             "--passes: nothing after '='; write --passes=VALUE, or leave the option out"},
        Case{kS2c + " opt " + quoted(program) + " --passes=", "--passes: nothing after '='"},
        Case{kS2c + " opt --passes=cse,,dce " + quoted(program), "has an empty name"},
        Case{kS2c + " opt --passes=cse,nosuch " + quoted(program),
             "--passes: 'nosuch' is not a pass; the passes: import, autodiff"},
        Case{kS2sim + " run --dump= " + quoted(bin), "--dump: nothing after '='"},
        Case{kS2c + " compile --dump-file= mlp", "--dump-file: nothing after '='"}}) {
    const Result r = run(cmd);
    EXPECT_EQ(r.status, 1) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << cmd << ": " << r.out;
  }
  EXPECT_FALSE(fs::exists(path("o.s2ir")));
  const Result ok =
      run(kS2c + " opt --passes=dce,cse " + quoted(program) + " -o " + quoted(path("o.s2ir")));
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_TRUE(fs::exists(path("o.s2ir")));
}

TEST_F(Cli, AssembleDisassembleRoundTrip) {
  const std::string bin = path("mlp.bin");
  Result r = run(kS2c + " asm " + quoted(kSource + "/docs/examples/mlp_step.s2asm") + " -o " +
                 quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " disasm --data " + quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, read_text(kSource + "/tests/isa/golden/mlp_step.s2asm"));
  // The listing assembles back to the same bytes.
  write_text(path("listing.s2asm"), r.out);
  r = run(kS2c + " asm " + quoted(path("listing.s2asm")) + " -o " + quoted(path("again.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(read_text(bin), read_text(path("again.bin")));
  // So does a compiled step's, whose tensors' contents (the labels' 8 bytes, a bias's 40) are
  // not whole multiples of the data section's 64-byte alignment: s2c packed them end to end,
  // and the assembler at 64-byte boundaries, 56 bytes apart in resnet50's.
  const std::string compiled = path("lenet5.bin");
  r = run(kS2c + " compile lenet5 --batch 2 -o " + quoted(compiled));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " disasm --data " + quoted(compiled));
  ASSERT_EQ(r.status, 0) << r.out;
  write_text(path("lenet5.s2asm"), r.out);
  r = run(kS2c + " asm " + quoted(path("lenet5.s2asm")) + " -o " + quoted(path("lenet5b.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(read_text(compiled) == read_text(path("lenet5b.bin")))
      << "the reassembled lenet5 differs from the compiled one";
}

TEST_F(Cli, InfoDescribesTheExecutable) {
  const std::string bin = assembled_example();
  ASSERT_FALSE(bin.empty());
  const Result r = run(kS2sim + " info " + quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* want :
       {"format version 2", "target s2train_base", "instructions", "tensors", "memory-plan",
        "Instructions: 11", "weight_gradient", "lower bound", "arena"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << " missing from:\n" << r.out;
  // The data column: bytes for the weights, zeros (no bytes) for the velocities, none for dw1.
  auto data_of = [&r](const std::string& tensor) {
    const size_t at = r.out.find("\n  " + tensor + " ");
    if (at == std::string::npos) return std::string("(no row)");
    const size_t end = r.out.find('\n', at + 1);
    const std::string row = r.out.substr(at + 1, end - at - 1);
    return row.substr(row.find_last_of(' ') + 1);
  };
  EXPECT_EQ(data_of("w1"), "yes") << r.out;
  EXPECT_EQ(data_of("v_w1"), "zeros") << r.out;
  EXPECT_EQ(data_of("dw1"), "-") << r.out;
}

TEST_F(Cli, CorruptExecutableIsRejectedWithPlace) {
  const std::string bin = assembled_example();
  ASSERT_FALSE(bin.empty());
  std::string bytes = read_text(bin);
  bytes[bytes.size() - 3] = static_cast<char>(bytes[bytes.size() - 3] ^ 0x5a);
  write_text(path("corrupt.bin"), bytes);
  const Result r = run(kS2sim + " disasm " + quoted(path("corrupt.bin")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("corrupt.bin: section '"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bad CRC"), std::string::npos) << r.out;
  write_text(path("text.bin"), "hello");
  const Result t = run(kS2sim + " info " + quoted(path("text.bin")));
  EXPECT_EQ(t.status, 1);
  EXPECT_NE(t.out.find("truncated"), std::string::npos) << t.out;
}

TEST_F(Cli, AssemblyErrorsNameTheLine) {
  write_text(path("bad.s2asm"), ".target t\nfrob\n");
  const Result r =
      run(kS2c + " asm " + quoted(path("bad.s2asm")) + " -o " + quoted(path("bad.bin")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("bad.s2asm:2:1: unknown mnemonic 'frob'"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("bad.bin")));
}

// A misspelt key: the missing one names its misspelling with the line, and the unknown key
// beside it is reported in the same run, with every other problem of the file.
TEST_F(Cli, ConfigMisspellingsAreNamedAtTheirLines) {
  std::string text = read_text(kSource + "/configs/s2train_base.yaml");
  const size_t cols = text.find("\n  cols:");
  ASSERT_NE(cols, std::string::npos);
  text.replace(cols, 8, "\n  colums:");
  link_config_dirs();
  write_text(path("bad.yaml"), text);
  Result r = run(kS2sim + " validate-config " + quoted(path("bad.yaml")));
  EXPECT_EQ(r.status, 1) << r.out;
  const size_t missing = r.out.find(
      "bad.yaml:11: pe_array.cols: missing required key (is \"colums\" at line 13 a "
      "misspelling of \"cols\"?)\n");
  EXPECT_NE(missing, std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("bad.yaml:13: pe_array.colums: unknown key; did you mean \"cols\"?", missing),
      std::string::npos)
      << r.out;
  // Problems in several sections and in the DRAM preset's overrides, one run.
  std::string several = text;
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"\nclock_mhz:", "\nclock_mhz: -1 #"},
        {"\n  lanes:", "\n  lanes: many #"},
        {"\n  engines:", "\n  engines: 0 #"}}) {
    const size_t at = several.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    several.replace(at, from.size(), to);
  }
  write_text(path("several.yaml"), several + "\n  timing: {tRCD: 0}\n");
  r = run(kS2sim + " validate-config " + quoted(path("several.yaml")));
  EXPECT_EQ(r.status, 1) << r.out;
  size_t last = 0;
  for (const char* problem :
       {": clock_mhz: must be between 0 and 100000, got -1",
        ": pe_array.cols: missing required key", ": pe_array.colums: unknown key",
        ": ppu.lanes: expected a positive integer, got \"many\"",
        ": dma.engines: must be between 1 and 16, got 0",
        ": dram.timing.tRCD: must be between 1 and 10000000, got 0"}) {
    const size_t at = r.out.find(problem);
    EXPECT_NE(at, std::string::npos) << problem << "\n" << r.out;
    if (at == std::string::npos) continue;
    EXPECT_GT(at, last) << problem << " is out of line order\n" << r.out;
    last = at;
  }
  text.replace(cols, 10, "\n  cols: 32\n  colour: red\n  extra:");
  write_text(path("two.yaml"), text + "\nspare: 1\n");
  r = run(kS2sim + " validate-config " + quoted(path("two.yaml")));
  EXPECT_EQ(r.status, 1) << r.out;
  for (const char* line : {"two.yaml:14: pe_array.colour: unknown key",
                           "two.yaml:15: pe_array.extra: unknown key", ": spare: unknown key"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
}

TEST_F(Cli, ValidateConfig) {
  Result r = run(kS2sim + " validate-config " + quoted(kSource + "/configs/s2train_base.yaml"));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("32"), std::string::npos) << r.out;
  // The base configuration with one bad value: the message names the line and the key.
  std::string text = read_text(kSource + "/configs/s2train_base.yaml");
  const size_t at = text.find("rows: 32");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 8, "rows: many");
  const long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
  fs::create_directories(path("cfg"));
  fs::copy(kSource + "/configs/dram", path("cfg/dram"));
  fs::copy(kSource + "/configs/tech", path("cfg/tech"));
  fs::copy(kSource + "/configs/host_link", path("cfg/host_link"));
  write_text(path("cfg/bad.yaml"), text);
  r = run(kS2sim + " validate-config " + quoted(path("cfg/bad.yaml")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("bad.yaml:" + std::to_string(line) + ": pe_array.rows:"), std::string::npos)
      << r.out;
}

// A DRAM preset whose family has no backend (a DDR5 part dropped into configs/dram) is refused
// by s2c as early as by s2sim, with the same message; naming a backend that models it works.
TEST_F(Cli, UnknownDramBackendFailsAlikeInCompilerAndSimulator) {
  fs::create_directories(path("cfg"));
  fs::copy(kSource + "/configs/dram", path("cfg/dram"));
  fs::copy(kSource + "/configs/tech", path("cfg/tech"));
  fs::copy(kSource + "/configs/host_link", path("cfg/host_link"));
  fs::copy(kSource + "/configs/dram/DDR4-3200.yaml", path("cfg/dram/DDR5-4800.yaml"));
  std::string text = read_text(kSource + "/configs/s2train_base.yaml");
  const size_t at = text.find("preset: DDR4-3200");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 17, "preset: DDR5-4800");
  write_text(path("cfg/ddr5.yaml"), text);
  const std::string config = quoted(path("cfg/ddr5.yaml"));
  const Result compiled =
      run(kS2c + " compile mlp --config " + config + " -o " + quoted(path("mlp.bin")));
  const Result validated = run(kS2sim + " validate-config " + config);
  EXPECT_EQ(compiled.status, 1);
  EXPECT_EQ(validated.status, 1);
  EXPECT_NE(compiled.out.find("dram.preset: unknown DRAM backend 'ddr5'; known: ddr4, hbm2, "
                              "jedec, lpddr4"),
            std::string::npos)
      << compiled.out;
  const long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
  EXPECT_EQ(compiled.out, "s2c: error: " + path("cfg/ddr5.yaml") + ":" + std::to_string(line) +
                              ": " + validated.out.substr(validated.out.find("dram.preset")));
  EXPECT_EQ(validated.out.rfind("s2sim: error: ", 0), 0u) << validated.out;
  EXPECT_FALSE(fs::exists(path("mlp.bin")));

  text.replace(at, 17, "backend: jedec\n  preset: DDR5-4800");
  write_text(path("cfg/ddr5.yaml"), text);
  EXPECT_EQ(run(kS2sim + " validate-config " + config).status, 0);
  EXPECT_EQ(run(kS2c + " compile mlp --config " + config + " -o " + quoted(path("mlp.bin"))).status,
            0);
}

TEST_F(Cli, CompileBuildsTheTrainingStep) {
  Result r = run(kS2c + " compile mlp --batch 2 --image 8");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* want : {"training graph 'mlp'", "ops by kind: forward=", "weight_update=6",
                           "autodiff", "shape-inference"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << " missing from:\n" << r.out;
  r = run(kS2c + " compile lenet5 --dump-after autodiff");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("graph lenet5\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("= sgd(%conv1.weight"), std::string::npos) << r.out;
  r = run(kS2c + " compile mlp --dump-after import --dump-file " + quoted(path("g.txt")));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(read_text(path("g.txt")).rfind("graph mlp\n", 0), 0u);
}

TEST_F(Cli, CompileErrorsNameWhatIsWrong) {
  Result r = run(kS2c + " compile resnet19");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("resnet18"), std::string::npos) << r.out;  // lists the known models
  r = run(kS2c + " compile mlp --dump-after frobnicate");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--dump-after: frobnicate not in {import,autodiff,"), std::string::npos)
      << r.out;
  r = run(kS2c + " compile " + quoted(path("missing.onnx")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("missing.onnx"), std::string::npos) << r.out;
  write_text(path("junk.onnx"), "this is not protobuf");
  r = run(kS2c + " compile " + quoted(path("junk.onnx")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("junk.onnx"), std::string::npos) << r.out;
  r = run(kS2c + " compile lenet5 --image 4");
  EXPECT_EQ(r.status, 1) << r.out;
  // Auxiliary classifiers exist only in ONNX exports (scripts/export_onnx.py --aux-logits).
  r = run(kS2c + " compile mlp --aux-loss-weight 0.3");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("--aux-loss-weight: zoo model 'mlp' has no auxiliary classifier"),
            std::string::npos)
      << r.out;
  r = run(kS2c + " compile mlp --aux-loss-weight -1");
  EXPECT_EQ(r.status, 1) << r.out;
  // --dropout and --attention-dropout set the zoo transformers' dropout; an ONNX file carries
  // its own Dropout nodes.
  using Case = std::pair<std::string, std::string>;  // command, message
  for (const auto& [command, message] :
       {Case{" compile resnet18 --dropout 0.1", "--dropout: model 'resnet18' is not a transformer"},
        Case{" compile gpt --attention-dropout 1",
             "--attention-dropout: 1 is not a probability in [0, 1)"},
        Case{" compile " + quoted(path("junk.onnx")) + " --dropout 0.1",
             "--dropout: applies to the zoo's transformers; an ONNX file carries its own"}}) {
    r = run(kS2c + command);
    EXPECT_EQ(r.status, 1) << command << ": " << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << command << ": " << r.out;
  }
}

// Issue 19's findings, each through the CLI: user errors naming the file and place (or the
// option and the limit), found before anything large is allocated; never exit 2.
TEST_F(Cli, AbsurdSizesAndDataFaultsAreUserErrors) {
  // A descriptor whose dense strides overflow the 32-bit stride fields: FILE:LINE:COL.
  write_text(path("big.s2asm"),
             ".target s2train_base\n.tensor x activation f32[2,3] @0x0\n"
             "0: eltwise op=relu a=f32[2,65536,65536]@0x0 y=x\n1: end\n");
  Result r = run(kS2c + " asm " + quoted(path("big.s2asm")) + " -o " + quoted(path("big.bin")));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("big.s2asm:3:20: 'f32[2,65536,65536]@0x0': its dense strides do not fit "
                       "the descriptor's 32-bit stride fields"),
            std::string::npos)
      << r.out;
  // An absurd class count fails at once (not after minutes and gigabytes), naming the tensor
  // and the limit.
  r = run(kS2c + " compile mlp --classes 20000000 -o " + quoted(path("mlp.bin")));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("20000000 classes): by 'fc3.weight' [20000000,128]"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("more than the target's 8589934592 bytes of DRAM (the limit)"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(path("mlp.bin")));
  // A memory plan larger than the configuration's DRAM, refused before the functional model
  // allocates its image.
  write_text(path("huge.s2asm"),
             ".target s2train_base\n.tensor x activation f32[2,65536,65536] @0x0\n0: end\n");
  r = run(kS2c + " asm " + quoted(path("huge.s2asm")) + " -o " + quoted(path("huge.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " run " + quoted(path("huge.bin")) + " --functional");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("huge.bin: memory plan: dram_size 34359738368 bytes exceeds the "
                       "8589934592 bytes of DRAM of configuration 's2train_base'"),
            std::string::npos)
      << r.out;
  // A label outside the classes, found while running: the file and the instruction.
  write_text(path("label.s2asm"),
             ".target s2train_base\n.tensor x activation f32[2,3] @0x0 data=fill(0)\n"
             ".tensor t label i32[2] @0x40 data=[0, 7]\n.tensor l activation f32[1] @0x80\n"
             "0: softmax_ce logits=x labels=t loss=l\n1: end\n");
  r = run(kS2c + " asm " + quoted(path("label.s2asm")) + " -o " + quoted(path("label.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " run " + quoted(path("label.bin")) + " --functional");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("label.bin: instruction 0, softmax_ce: label 7 of sample 1 is outside "
                       "the class range [0,3)"),
            std::string::npos)
      << r.out;
}

// Found by the execute fuzz target (after 2.07M inputs): a 17 KB executable whose fill wrote one
// block of its destination 805306370 times through a zero stride made `s2sim run` allocate
// gigabytes for its timing plan and stop with the internal error "out of memory" (exit 2). A
// sum over an input repeated the same way ran out of memory too, and with --functional still
// ran after a minute. An output must write each element once, and an operand describe at most
// one element per byte of its memory: the assembler and the reader refuse the rest, naming the
// file and the instruction, before anything is planned.
TEST_F(Cli, DescriptorsThatRepeatWithoutBoundAreRefused) {
  const std::string head =
      ".target s2train_small\n.tensor x activation f32[4,6,6] @0x0 data=fill(1)\n"
      ".tensor y activation f32[1] @0x400\n";
  write_text(path("fill.s2asm"), head + "0: fill dst=f32[805306370,4,6,6]{0,36,6,1}@0x0\n1: end\n");
  Result r = run(kS2c + " asm " + quoted(path("fill.s2asm")) + " -o " + quoted(path("fill.bin")));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("fill.s2asm:4:4: fill: output operand 'dst' writes some elements more "
                       "than once: dimension 0 has stride 0 and extent 805306370"),
            std::string::npos)
      << r.out;
  write_text(
      path("sum.s2asm"),
      head + "0: reduce x=f32[805306370,4,6,6]{0,36,6,1}@0x0 y=y reduce=sum axes=15\n1: end\n");
  r = run(kS2c + " asm " + quoted(path("sum.s2asm")) + " -o " + quoted(path("sum.bin")));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("sum.s2asm: instruction 0 (reduce): operand 'x' describes 115964117280 "
                       "elements, more than the DRAM size of 1028 bytes"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(path("fill.bin")) || fs::exists(path("sum.bin")));

  // The same descriptors written into executables (as a fuzzer or another tool would): both
  // simulator modes refuse them at the reader.
  write_text(path("ok.s2asm"), head +
                                   "0: fill dst=x\n1: reduce x=x y=y reduce=sum axes=7 deps=0\n"
                                   "2: end deps=1\n");
  r = run(kS2c + " asm " + quoted(path("ok.s2asm")) + " -o " + quoted(path("ok.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  const s2::isa::Executable ok = s2::isa::load_executable(path("ok.bin"));
  for (const auto& [slot, index, name] : {std::tuple{s2::isa::Slot::Dst, size_t{0}, "fill"},
                                          std::tuple{s2::isa::Slot::X, size_t{1}, "reduce"}}) {
    s2::isa::Executable bad = ok;
    s2::isa::TensorDesc d = bad.instructions[index].get(slot);
    d.rank = 4;
    d.shape = {805306370, 4, 6, 6};
    d.strides = {0, 36, 6, 1};
    bad.instructions[index].set_operand(slot, d);
    if (slot == s2::isa::Slot::X) bad.instructions[index].set_raw(s2::isa::Field::Axes, 15);
    const std::string bin = path(std::string(name) + ".bin");
    s2::isa::write_executable(bin, bad);
    for (const char* mode : {"", " --functional"}) {
      r = run(kS2sim + " run " + quoted(bin) + mode);
      EXPECT_EQ(r.status, 1) << name << mode << ": " << r.out;
      EXPECT_NE(r.out.find(bin + ": section 'instructions' at offset "), std::string::npos)
          << name << mode << ": " << r.out;
      EXPECT_NE(r.out.find("instruction " + std::to_string(index) + " (" + name + "): "),
                std::string::npos)
          << name << mode << ": " << r.out;
    }
  }
}

// Found by the asm fuzz target: a target name the executable's header cannot hold (printable
// ASCII without spaces, at most 31 bytes) was accepted by the assembler and the target loader,
// and the executable written from it was refused by the reader (or `serialize` stopped with an
// internal error). Both now refuse the name where it is written.
TEST_F(Cli, TargetNamesTheHeaderCannotHoldAreRefusedWhereTheyAreWritten) {
  write_text(path("name.s2asm"), "; a byte above ASCII\n.target s2train_\x9b_base\n0: end\n");
  Result r = run(kS2c + " asm " + quoted(path("name.s2asm")) + " -o " + quoted(path("name.bin")));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("name.s2asm:2:9: target name has byte 0x9b at position 8: a target name is "
                       "printable ASCII without spaces"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(path("name.bin")));

  const std::string base = read_text(kSource + "/configs/s2train_base.yaml");
  const std::string line = "name: s2train_base";
  ASSERT_NE(base.find(line), std::string::npos);
  for (const auto& [name, message] :
       {std::pair<std::string, std::string>{"\"my accelerator\"",
                                            "name: has byte 0x20 at position 2"},
        {"a_name_of_forty_characters_is_too_long__",
         "name: is 40 bytes long; an executable's header holds at most 31"}}) {
    std::string config = base;
    config.replace(config.find(line), line.size(), "name: " + name);
    write_text(path("named.yaml"), config);
    r = run(kS2c + " compile mlp --batch 2 --config " + quoted(path("named.yaml")) + " -o " +
            quoted(path("named.bin")));
    EXPECT_EQ(r.status, 1) << name << ": " << r.out;
    EXPECT_NE(r.out.find("named.yaml:7:"), std::string::npos) << name << ": " << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << name << ": " << r.out;
    EXPECT_FALSE(fs::exists(path("named.bin")));
  }
}

// Found by the roundtrip fuzz target: `disasm` stopped with an internal error ("stride
// overflows 32 bits") on a valid executable whose descriptor has explicit strides and a shape
// whose dense strides would not fit 32 bits. It prints the descriptor, and the text reads back.
// (A broadcast input of 2^33 elements: since the rules of docs/isa.md on repeated elements, an
// output cannot repeat, and the DRAM must have a byte per element.)
TEST_F(Cli, DisassemblesStridedDescriptorsOfShapesWithoutDenseStrides) {
  write_text(path("wide.s2asm"),
             ".target s2train_base\n.dram 0x200000000\n.tensor x activation f32[4] @0x0\n"
             ".tensor s activation f32[1] @0x40\n"
             "0: reduce x=f32[2,65536,65536]{0,0,0}@0x0 y=s reduce=sum axes=7\n1: end\n");
  Result r = run(kS2c + " asm " + quoted(path("wide.s2asm")) + " -o " + quoted(path("wide.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " disasm " + quoted(path("wide.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("x=f32[2,65536,65536]{0,0,0}@0x0 y=s"), std::string::npos) << r.out;
  write_text(path("again.s2asm"), r.out);
  r = run(kS2c + " asm " + quoted(path("again.s2asm")) + " -o " + quoted(path("again.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(read_text(path("again.bin")), read_text(path("wide.bin")));
}

TEST_F(Cli, CompileWritesAnExecutableAndAPlan) {
  const std::string bin = path("lenet5.bin");
  Result r = run(kS2c + " compile lenet5 --batch 2 -o " + quoted(bin) + " --memory-report " +
                 quoted(path("plan.json")) + " --schedule update-immediate --planner search");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* want :
       {"fusion: ", "memory plan (search): arena", "ratio", "instructions: ", "wrote "})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << " missing from:\n" << r.out;
  r = run(kS2sim + " info " + quoted(bin));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("target s2train_base"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("planner      search"), std::string::npos) << r.out;
  EXPECT_NE(read_text(path("plan.json")).find("\"lower_bound\""), std::string::npos);
  // Without fusion there are more instructions.
  r = run(kS2c + " compile lenet5 --batch 2 --no-fuse --config " +
          quoted(kSource + "/configs/s2train_small.yaml"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("fusion off"), std::string::npos) << r.out;
  // Bad choices are user errors naming the known ones.
  r = run(kS2c + " compile lenet5 --schedule sideways");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("update-immediate"), std::string::npos) << r.out;
  r = run(kS2c + " compile lenet5 --planner magic");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("grad-reuse"), std::string::npos) << r.out;
}

TEST_F(Cli, CompileTakesTheBatchAndLabelsFromNpy) {
  // Write the batch and labels through `s2c reference`, which saves them as .npy.
  Result r = run(kS2c + " reference lenet5 --batch 2 --image 16 --seed 7 --out-dir " +
                 quoted(path("ref")));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string input = path("ref/init/input.npy"), labels = path("ref/init/labels.npy");
  r = run(kS2c + " compile lenet5 --batch 2 --image 16 --input " + quoted(input) + " --labels " +
          quoted(labels) + " -o " + quoted(path("l5.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  // The wrong shape is a user error naming the file.
  r = run(kS2c + " compile lenet5 --batch 4 --image 16 --input " + quoted(input));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("input.npy"), std::string::npos) << r.out;
}

// A step whose memory plan exceeds the configuration's DRAM (which s2sim would refuse) is a
// compile error naming the sizes and the budget that would fit, and nothing is written.
TEST_F(Cli, PlanLargerThanTheConfigurationsDramIsRefused) {
  const std::string small = std::string(S2_SOURCE_DIR) + "/configs/s2train_small.yaml";
  Result r = run(kS2c + " compile gpt --batch 64 --seq-len 512 --config " + quoted(small) + " -o " +
                 quoted(path("big.bin")));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("memory plan: the step needs 1310801984 bytes of DRAM (1250.1 MiB: arena "
                       "1248.8 MiB, persistent 1.3 MiB), more than the 1073741824 bytes of "
                       "configuration 's2train_small'; use a smaller batch (or sequence), "
                       "--memory-budget 1073741824 to swap or recompute activations until it "
                       "fits"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(path("big.bin")));
  // The suggestion works: the attention probabilities go to host memory.
  r = run(kS2c + " compile gpt --batch 64 --seq-len 512 --config " + quoted(small) +
          " --memory-budget 1073741824 -o " + quoted(path("big.bin")));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("memory budget: budget 1024.0 MiB: 1250.1 MiB needed -> "),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(fs::exists(path("big.bin")));
}

// lenet5, and the tiny GPT with dropout on its hidden states and attention probabilities
// (masks drawn by dropout_mask on both sides from the same seed).
TEST_F(Cli, FunctionalRunMatchesTheReferenceInterpreterBitForBit) {
  struct Case {
    const char* model;
    const char* flags;
    std::vector<std::string> weights;
  };
  for (const Case& c : {Case{"lenet5", " --batch 2 --image 16", {"conv1.weight", "fc3.bias"}},
                        Case{"gpt",
                             " --dropout 0.1 --attention-dropout 0.2",
                             {"transformer.wte.weight", "transformer.h.1.attn.c_attn.weight"}}}) {
    SCOPED_TRACE(c.model);
    const std::string bin = path(std::string(c.model) + ".bin");
    const std::string ref = path(std::string(c.model) + "_ref"),
                      sim = path(std::string(c.model) + "_sim");
    Result r = run(kS2c + " compile " + c.model + c.flags + " -o " + quoted(bin));
    ASSERT_EQ(r.status, 0) << r.out;
    r = run(kS2c + " reference " + c.model + c.flags + " --out-dir " + quoted(ref));
    ASSERT_EQ(r.status, 0) << r.out;
    std::string dump = "loss";
    for (const std::string& w : c.weights)
      dump += "," + w;
    r = run(kS2sim + " run " + quoted(bin) + " --check --dump " + dump + " --dump-dir " +
            quoted(sim));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("check              no findings"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("step 1    loss"), std::string::npos) << r.out;
    for (const std::string& w : c.weights)
      EXPECT_EQ(npy_data(sim + "/" + w + ".npy"), npy_data(ref + "/updated/" + w + ".npy")) << w;
    EXPECT_EQ(npy_data(sim + "/loss.npy"), npy_data(ref + "/loss.npy"));
  }
}

// --threads changes how fast the DRAM model runs, never what it reports.
TEST_F(Cli, ThreadCountChangesNoResult) {
  const std::string bin = path("r18.bin");
  ASSERT_EQ(run(kS2c + " compile resnet18 -o " + quoted(bin)).status, 0);
  for (const char* threads : {"1", "2"}) {
    const Result r = run(kS2sim + " run " + quoted(bin) + " --threads " + threads + " --report " +
                         quoted(path(std::string("report") + threads + ".json")));
    ASSERT_EQ(r.status, 0) << r.out;
  }
  const std::string one = read_text(path("report1.json"));
  EXPECT_NE(one.find("\"total_cycles\""), std::string::npos);
  EXPECT_EQ(one, read_text(path("report2.json")));
  const Result bad = run(kS2sim + " run " + quoted(bin) + " --threads 0");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("--threads"), std::string::npos) << bad.out;
}

TEST_F(Cli, FunctionalStepsLowerTheLoss) {
  const std::string bin = path("l5.bin");
  ASSERT_EQ(run(kS2c + " compile lenet5 --batch 4 -o " + quoted(bin)).status, 0);
  const Result r = run(kS2sim + " run " + quoted(bin) + " --steps 12");
  ASSERT_EQ(r.status, 0) << r.out;
  auto loss_at = [&](int step) {
    const std::string key = "step " + std::to_string(step);
    const size_t at = r.out.find(key);
    return at == std::string::npos ? -1.0 : std::stod(r.out.substr(r.out.find("loss", at) + 4));
  };
  EXPECT_GT(loss_at(1), 0.0) << r.out;
  EXPECT_LT(loss_at(12), 0.8 * loss_at(1)) << r.out;
  const Result bad = run(kS2sim + " run " + quoted(bin) + " --dump nosuchtensor");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("no tensor 'nosuchtensor'"), std::string::npos) << bad.out;
  // A stray comma or an empty list is refused, not read as "dump nothing".
  for (const std::string list : {",", "fc1.weight,", "fc1.weight,,fc1.bias", ""}) {
    const Result empty = run(kS2sim + " run " + quoted(bin) + " --dump " + quoted(list));
    EXPECT_EQ(empty.status, 1) << list;
    EXPECT_NE(empty.out.find("--dump: '" + list + "' has an empty name"), std::string::npos)
        << empty.out;
  }
  // A name given twice, or with --dump-all, is dumped once (it was written and counted twice).
  const Result twice = run(kS2sim + " run " + quoted(bin) + " --dump fc1.weight,fc1.weight " +
                           "--dump-dir " + quoted(path("twice")));
  EXPECT_EQ(twice.status, 0) << twice.out;
  EXPECT_NE(twice.out.find("dumped             1 tensor(s)"), std::string::npos) << twice.out;
}

TEST_F(Cli, ReferenceWritesTheStep) {
  const Result r =
      run(kS2c + " reference mlp --batch 2 --image 8 --out-dir " + quoted(path("ref")));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::is_regular_file(path("ref/manifest.json")));
  EXPECT_TRUE(fs::is_regular_file(path("ref/grad/fc1.weight.npy")));
}

TEST_F(Cli, IsaDocMatchesCheckedInReference) {
  const Result r = run(kS2c + " isa-doc");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, read_text(kSource + "/docs/isa.md"))
      << "docs/isa.md is stale; regenerate with: build/compiler/s2c isa-doc -o docs/isa.md";
}

}  // namespace
