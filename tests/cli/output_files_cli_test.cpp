// The tools' output files, through the CLI: never an input of the run or a file of another
// kind (isa/container/output_guard.h), refused before the work when they cannot be written, and
// pipes, devices and links kept what they are; inputs that cannot be read whole refused by name.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

#include "cli_fixture.h"

namespace {

using namespace s2::test::cli;  // the Cli fixture and its helpers (cli_fixture.h)

TEST_F(Cli, NeverOverwritesWhatTheUserGave) {
  const std::string src = path("prog.s2asm");
  write_text(src, read_text(kSource + "/docs/examples/mlp_step.s2asm"));
  // The input as the output.
  Result r = run(kS2c + " asm " + quoted(src) + " -o " + quoted(src));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("is an input of this run"), std::string::npos) << r.out;
  // Some other file that is not an executable.
  write_text(path("notes.txt"), "keep me");
  r = run(kS2c + " asm " + quoted(src) + " -o " + quoted(path("notes.txt")));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--force"), std::string::npos) << r.out;
  EXPECT_EQ(read_text(path("notes.txt")), "keep me");
  r = run(kS2c + " asm " + quoted(src) + " -o " + quoted(path("notes.txt")) + " --force");
  EXPECT_EQ(r.status, 0) << r.out;
  // An earlier executable is rebuilt in place.
  r = run(kS2c + " asm " + quoted(src) + " -o " + quoted(path("notes.txt")));
  EXPECT_EQ(r.status, 0) << r.out;
}

// Every output of both tools goes through one guard (isa/container/output_guard.h): never an
// input of the same run (by identity, however spelt), never a file of another kind without
// --force, written through a fresh temporary file renamed into place.
// An output into a directory that does not exist, or under a file, is refused before the
// work: the report of a 100-second simulation was refused only when written, at its end.
// A dump directory is made, however deep.
TEST_F(Cli, OutputsIntoAMissingDirectoryAreRefusedFirst) {
  const std::string bin = path("m.bin"), missing = path("missing");
  ASSERT_EQ(run(kS2c + " compile mlp --batch 2 -o " + quoted(bin)).status, 0);
  for (const std::string& command :
       {kS2sim + " run " + quoted(bin) + " --report " + quoted(missing + "/r.json"),
        kS2sim + " run " + quoted(bin) + " --trace " + quoted(missing + "/t.json"),
        kS2sim + " run " + quoted(bin) + " --memory-trace " + quoted(missing + "/m.csv"),
        kS2c + " compile mlp --batch 2 -o " + quoted(missing + "/m.bin"),
        kS2c + " compile mlp --batch 2 --memory-report " + quoted(missing + "/p.json"),
        kS2c + " compile mlp --batch 2 --dump-after import --dump-file " +
            quoted(missing + "/ir.txt"),
        kS2c + " isa-doc -o " + quoted(missing + "/isa.md")}) {
    const Result r = run(command);
    EXPECT_EQ(r.status, 1) << command << "\n" << r.out;
    EXPECT_NE(r.out.find(": cannot write: '" + missing + "' does not exist"), std::string::npos)
        << command << "\n"
        << r.out;
    EXPECT_EQ(r.out.find("total cycles"), std::string::npos) << "simulated first: " << r.out;
  }
  Result r = run(kS2sim + " run " + quoted(bin) + " --report " + quoted(bin + "/r.json"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("cannot write: '" + bin + "' is not a directory"), std::string::npos)
      << r.out;
  r = run(kS2sim + " run " + quoted(bin) + " --dump-all " + quoted(bin + "/dump"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("cannot write: '" + bin + "' is not a directory"), std::string::npos)
      << r.out;
  r = run(kS2sim + " run " + quoted(bin) + " --dump-all " + quoted(path("a/b/dump")));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::exists(path("a/b/dump/manifest.json")));
}

TEST_F(Cli, SideOutputsNeverDestroyAnInputOrAFileOfAnotherKind) {
  const std::string bin = path("m.bin"), cfg = path("cfg.yaml"), notes = path("notes.txt");
  write_text(cfg, read_text(kSource + "/configs/s2train_base.yaml"));
  link_config_dirs();  // its presets
  write_text(notes, "keep me");
  ASSERT_EQ(run(kS2c + " compile mlp --batch 2 -o " + quoted(bin)).status, 0);
  const std::string exe = read_text(bin), config = read_text(cfg);
  auto refused = [&](const std::string& command, const std::string& why) {
    const Result r = run(command);
    EXPECT_EQ(r.status, 1) << command << "\n" << r.out;
    EXPECT_NE(r.out.find(why), std::string::npos) << command << "\n" << r.out;
    EXPECT_EQ(read_text(bin), exe);
    EXPECT_EQ(read_text(cfg), config);
    EXPECT_EQ(read_text(notes), "keep me");
  };
  const std::string input = "is an input of this run";
  // s2sim's side outputs onto its inputs, however spelt.
  const std::string respelt = (dir_ / "." / "m.bin").string();
  refused(kS2sim + " run " + quoted(bin) + " --report " + quoted(respelt), input);
  refused(kS2sim + " run " + quoted(bin) + " --trace " + quoted(cfg) + " --config " + quoted(cfg),
          input);
  refused(kS2sim + " run " + quoted(bin) + " --memory-trace " + quoted(bin) + " --force", input);
  // s2c's: the memory report and the dump onto the config, the executable onto the config.
  refused(
      kS2c + " compile mlp --batch 2 --config " + quoted(cfg) + " --memory-report " + quoted(cfg),
      input);
  refused(kS2c + " compile mlp --batch 2 --config " + quoted(cfg) +
              " --dump-after import --dump-file " + quoted(cfg),
          input);
  refused(
      kS2c + " compile mlp --batch 2 --config " + quoted(cfg) + " -o " + quoted(cfg) + " --force",
      input);
  // A dump named like an input of the run.
  const std::string odd = path("fc1.weight.npy");
  fs::copy_file(bin, odd);
  Result r = run(kS2sim + " run " + quoted(odd) + " --dump fc1.weight --dump-dir " +
                 quoted(dir_.string()));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(input), std::string::npos) << r.out;
  EXPECT_EQ(read_text(odd), exe);
  // Files of another kind need --force; an earlier output of the same kind is replaced.
  const std::string other = "refusing to overwrite it (pass --force to replace it)";
  refused(kS2sim + " run " + quoted(bin) + " --report " + quoted(notes), other);
  refused(kS2sim + " run " + quoted(bin) + " --memory-trace " + quoted(bin), input);
  refused(kS2c + " isa-doc -o " + quoted(notes), other);
  refused(kS2c + " compile mlp --batch 2 --memory-report " + quoted(bin),
          "is an S2Train executable");
  refused(kS2c + " compile mlp --batch 2 --dump-after import --dump-file " + quoted(notes), other);
  r = run(kS2c + " isa-doc -o " + quoted(path("isa.md")));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2c + " isa-doc -o " + quoted(path("isa.md")));
  EXPECT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " run " + quoted(bin) + " --report " + quoted(notes) + " --force");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(read_text(notes).substr(0, 1), "{");
  r = run(kS2sim + " run " + quoted(bin) + " --report " + quoted(notes));
  EXPECT_EQ(r.status, 0) << r.out;
  // --dump-file is written when the compile has something to dump, not truncated up front.
  write_text(path("ir.txt"), "graph earlier\n");
  r = run(kS2c + " compile mlp --batch 2 --dump-file " + quoted(path("ir.txt")));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(read_text(path("ir.txt")), "graph earlier\n");
  r = run(kS2c + " compile mlp --batch 2 --dump-after import --dump-file " +
          quoted(path("ir.txt")));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(read_text(path("ir.txt")).rfind("graph mlp", 0), 0u);
  // An unrelated out.bin.tmp survives writing out.bin, and no temporary file is left behind.
  write_text(path("out.bin.tmp"), "unrelated");
  r = run(kS2c + " compile mlp --batch 2 -o " + quoted(path("out.bin")));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(read_text(path("out.bin.tmp")), "unrelated");
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
}

// A pipe, a character device or a symbolic link given as an output stays what it is: the pipe
// (a shell's >(...)) and the device (/dev/null) take the output as a stream, with or without
// --force, and a link's target is replaced while the link stays. The guard used to read the
// pipe to learn its kind, which waits for a writer (a hang), and --force renamed a regular file
// onto the pipe or device (as root, onto /dev/null itself). As inputs, pipes and devices are
// refused by name.
TEST_F(Cli, PipesDevicesAndLinksAsOutputsAndInputs) {
  const std::string bin = assembled_example();
  ASSERT_FALSE(bin.empty());
  const std::string fifo = path("out.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Runs `command` writing into the pipe while cat reads it into `got`; both are bounded.
  const auto through_pipe = [&](const std::string& command, const std::string& got) {
    return run("timeout 60 cat " + quoted(fifo) + " > " + quoted(got) + " & timeout 60 " + command +
               "; s=$?; wait; exit $s");
  };
  for (const std::string force : {"", " --force"}) {
    std::remove(path("got.json").c_str());
    const Result r = through_pipe(
        kS2sim + " run " + quoted(bin) + " --report " + quoted(fifo) + force, path("got.json"));
    EXPECT_EQ(r.status, 0) << force << r.out;
    EXPECT_TRUE(fs::is_fifo(fifo)) << force;
    EXPECT_EQ(read_text(path("got.json")).substr(0, 1), "{") << force;
  }
  // An executable through a pipe is the file's bytes, zeros and all (a file keeps long runs of
  // zeros as holes; a pipe cannot seek).
  Result r = run(kS2c + " compile mlp --batch 2 -o " + quoted(path("file.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  r = through_pipe(kS2c + " compile mlp --batch 2 -o " + quoted(fifo), path("piped.bin"));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(read_text(path("piped.bin")), read_text(path("file.bin")));
  // A character device. (Not with --force here: where the fix were undone, that would replace
  // /dev/null itself; the pipe above covers --force.)
  r = run(kS2sim + " run " + quoted(bin) + " --trace /dev/null --memory-trace /dev/null");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // A link to an earlier report: the report is replaced, the link kept.
  write_text(path("report.json"), "{}");
  fs::create_symlink(path("report.json"), path("link.json"));
  r = run(kS2sim + " run " + quoted(bin) + " --report " + quoted(path("link.json")));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_NE(read_text(path("report.json")).find("\"total_cycles\""), std::string::npos);
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
  // A place where no file can be created (/proc) is refused before the run, not after it.
  r = run(kS2sim + " run " + quoted(bin) + " --report /proc/s2cli.json");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("/proc/s2cli.json: cannot write: No such file or directory"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("total cycles"), std::string::npos) << r.out;
  // As inputs, read whole by their size, a pipe and a device are refused by name (an .onnx
  // linked to /dev/zero was read until memory ran out).
  r = run("timeout 60 " + kS2sim + " run " + quoted(fifo));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(fifo + ": is a pipe, not a regular file; write it to a file and give that"),
            std::string::npos)
      << r.out;
  fs::create_symlink("/dev/zero", path("zero.onnx"));
  r = run("timeout 60 " + kS2c + " compile " + quoted(path("zero.onnx")) + " -o " +
          quoted(path("z.bin")));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("zero.onnx: is a device or socket, not a regular file"), std::string::npos)
      << r.out;
}

// Tensors whose names differ only where a file name cannot hold the character ('v/x' and
// 'v_x') are dumped to files of their own: both were v_x.npy, the second written over the
// first, and the manifest named that one file for both. A name too long for a file is refused
// before the run (the write failed after it).
TEST_F(Cli, DumpsOfSimilarNamesDoNotShareAFile) {
  std::string text = read_text(kSource + "/docs/examples/mlp_step.s2asm");
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"v_w1", "v/x"}, {"v_b1", "v_x"}})
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at))
      text.replace(at, from.size(), to);
  write_text(path("similar.s2asm"), text);
  Result r = run(kS2c + " asm " + quoted(path("similar.s2asm")) + " -o " + quoted(path("s.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " run " + quoted(path("s.bin")) + " --dump-all " + quoted(path("d")));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string manifest = read_text(path("d/manifest.json"));
  EXPECT_NE(manifest.find("\"file\": \"v%2Fx.npy\""), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("\"file\": \"v_x.npy\""), std::string::npos) << manifest;
  // Each file holds its own tensor: [16, 8] and [16] of f32 after the header.
  EXPECT_EQ(npy_data(path("d/v%2Fx.npy")).size(), 16u * 8u * 4u);
  EXPECT_EQ(npy_data(path("d/v_x.npy")).size(), 16u * 4u);
  // A name too long for a file: refused before the run, not after it.
  text = read_text(path("similar.s2asm"));
  const std::string long_name(300, 'v');
  for (size_t at = text.find("v_x"); at != std::string::npos; at = text.find("v_x", at + 1))
    text.replace(at, 3, long_name);
  write_text(path("long.s2asm"), text);
  r = run(kS2c + " asm " + quoted(path("long.s2asm")) + " -o " + quoted(path("l.bin")));
  ASSERT_EQ(r.status, 0) << r.out;
  r = run(kS2sim + " run " + quoted(path("l.bin")) + " --dump-all " + quoted(path("l")));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(long_name + ".npy: cannot write: its name is 304 bytes"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("loss"), std::string::npos) << r.out;
}

// s2c reference writes only .npy arrays and its JSON manifest into --out-dir: anything else
// there needs --force, and the model is never overwritten.
TEST_F(Cli, ReferenceOutDirKeepsFilesOfAnotherKind) {
  const std::string out = path("ref");
  fs::create_directories(out);
  write_text(out + "/loss.npy", "not an array");
  Result r = run(kS2c + " reference mlp --batch 2 --out-dir " + quoted(out));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("loss.npy: exists and is not a file this tool writes, not a .npy array"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(read_text(out + "/loss.npy"), "not an array");
  r = run(kS2c + " reference mlp --batch 2 --out-dir " + quoted(out) + " --force");
  EXPECT_EQ(r.status, 0) << r.out;
  r = run(kS2c + " reference mlp --batch 2 --out-dir " + quoted(out));
  EXPECT_EQ(r.status, 0) << r.out;
}

}  // namespace
