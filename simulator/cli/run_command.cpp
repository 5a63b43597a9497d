#include "simulator/cli/run_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "isa/common/config_dir.h"
#include "isa/common/errors.h"
#include "isa/container/output_guard.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"
#include "isa/io/npy.h"
#include "simulator/checker/shadow_checker.h"
#include "simulator/dram/load_target.h"
#include "simulator/report/chrome_trace.h"
#include "simulator/report/dump_manifest.h"
#include "simulator/report/json_report.h"
#include "simulator/report/memory_trace.h"
#include "simulator/report/physics_check.h"
#include "simulator/report/summary.h"
#include "simulator/run/run_program.h"
#include "simulator/top/top.h"

namespace s2::sim {
namespace {

// Renders the output, then writes it through a temporary file renamed into place
// (isa/container/writer.h): a failed or killed run leaves the previous file as it was.
void write_file(const std::string& path, const std::function<void(std::ostream&)>& body) {
  std::ostringstream text;
  body(text);
  const std::string s = text.str();
  isa::write_file(path, std::vector<uint8_t>(s.begin(), s.end()));
}

// Every file the run will write, checked before any work: never the executable or the config,
// never a file of another kind without --force (isa/container/output_guard.h).
void guard_outputs(const isa::Executable& exe, const RunCommandOptions& options,
                   const RunOptions& run, const std::string& dump_dir,
                   const std::vector<size_t>& dumped) {
  using isa::FileKind;
  const std::vector<std::string> inputs{options.executable, options.config};
  const std::pair<const std::string&, FileKind> named[] = {{options.report, FileKind::Json},
                                                           {options.trace, FileKind::Json},
                                                           {options.memory_trace, FileKind::Csv}};
  for (const auto& [path, kind] : named)
    if (!path.empty()) isa::guard_output(path, kind, inputs, options.force);
  if (!run.vcd_prefix.empty())
    for (const std::string& path : top::vcd_paths(run.vcd_prefix, run.rtl))
      isa::guard_output(path, FileKind::Vcd, inputs, options.force);
  if (dumped.empty()) return;
  const std::filesystem::path dir(dump_dir);
  const auto made = isa::OutputDir::Made;  // the dump directory is made when missing
  isa::guard_output((dir / "manifest.json").string(), FileKind::Json, inputs, options.force, made);
  for (size_t t : dumped) {
    const std::string file = npy::file_name(exe.tensors[t].name);
    for (const std::filesystem::path& path : {dir / file, dir / "initial" / file})
      isa::guard_output(path.string(), FileKind::Npy, inputs, options.force, made);
  }
}

// A progress bar redrawn at most once per percent; nothing unless stderr is a terminal.
std::function<void(size_t, size_t)> progress_bar() {
  if (isatty(STDERR_FILENO) == 0) return {};
  return [last = size_t{101}](size_t done, size_t total) mutable {
    const size_t percent = total == 0 ? 100 : done * 100 / total;
    if (percent == last) return;
    last = percent;
    const size_t filled = percent * 40 / 100;
    std::fprintf(stderr, "\r[%s%s] %3zu%% (%zu/%zu)", std::string(filled, '#').c_str(),
                 std::string(40 - filled, ' ').c_str(), percent, done, total);
    if (done == total) std::fputc('\n', stderr);
    std::fflush(stderr);
  };
}

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> names;
  size_t start = 0;
  for (size_t i = 0; i <= list.size(); ++i)
    if (i == list.size() || list[i] == ',') {
      if (i > start) names.push_back(list.substr(start, i - start));
      start = i + 1;
    }
  return names;
}

// The tensor-table indices --dump and --dump-all ask for, each once (a name given twice, or
// with --dump-all, was written twice and counted twice).
std::vector<size_t> dumped_tensors(const isa::Executable& exe, const RunCommandOptions& options) {
  std::vector<size_t> dumped;
  if (!options.dump_all.empty())
    for (size_t t = 0; t < exe.tensors.size(); ++t)
      dumped.push_back(t);
  for (const std::string& name : split_names(options.dump)) {
    size_t t = 0;
    while (t < exe.tensors.size() && exe.tensors[t].name != name)
      ++t;
    if (t == exe.tensors.size())
      throw UserError("--dump: no tensor '" + name + "' in " + options.executable +
                      " (s2sim info lists them)");
    if (std::find(dumped.begin(), dumped.end(), t) == dumped.end()) dumped.push_back(t);
  }
  return dumped;
}

// Prints and writes the timing results as soon as they exist, and each step's loss.
class CliObserver : public RunObserver {
 public:
  CliObserver(const RunCommandOptions& options, std::ostream& out) : options_(options), out_(out) {}

  void timing_done(const report::RunResult& timing) override {
    report::RunResult result = timing;
    result.program = options_.executable;
    out_ << report::summary_text(result);
    if (options_.layers) out_ << report::layer_table(result);
    out_ << fmt::format(
        "  wall time          {:.3f} s ({:.3g} simulated cycles/s)\n", result.wall_seconds,
        result.wall_seconds > 0 ? static_cast<double>(result.total_cycles) / result.wall_seconds
                                : 0.0);
    if (!options_.report.empty())
      write_file(options_.report, [&](std::ostream& os) { report::write_json_report(result, os); });
    if (!options_.trace.empty())
      write_file(options_.trace, [&](std::ostream& os) { report::write_chrome_trace(result, os); });
    if (!options_.memory_trace.empty())
      write_file(options_.memory_trace,
                 [&](std::ostream& os) { report::write_memory_trace(result, os); });
    if (!result.deadlock.empty())
      throw InternalError("deadlock at cycle " + std::to_string(result.total_cycles) +
                          ": nothing in flight and no instruction can issue; " +
                          top::describe_stuck(result.deadlock));
    report::check_roofline(result);
  }

  void step_done(uint32_t step, std::optional<double> loss) override {
    if (!loss) return;
    out_ << fmt::format("  step {:<4} loss    {:.9g}\n", step, *loss);
  }

 private:
  const RunCommandOptions& options_;
  std::ostream& out_;
};

// Writes the captured tensors as .npy and the manifest into `dir`.
void write_dumps(const isa::Executable& exe, const RunCommandOptions& options,
                 const std::string& dir, const std::vector<size_t>& dumped, const RunOutput& output,
                 std::ostream& out) {
  for (size_t t : dumped) {
    const isa::TensorEntry& e = exe.tensors[t];
    npy::write((std::filesystem::path(dir) / npy::file_name(e.name)).string(), e.dtype,
               npy::Shape(e.shape.begin(), e.shape.end()), output.captured[t]);
  }
  report::write_dump_manifest(
      dir, exe, {options.executable, output.timing.config, options.steps, output.loss, dumped});
  out << "  dumped             " << dumped.size() << " tensor(s) to " << dir << "\n";
}

void print_findings(const RunOutput& output, std::ostream& out) {
  if (output.findings.empty()) {
    out << "  check              no findings (shadow memory, " << output.timing.instructions.size()
        << " instructions in simulated order)\n";
    return;
  }
  out << "  check              " << output.findings.size() << " finding(s):\n"
      << checker::format_findings(output.findings);
}

}  // namespace

int run_simulation(const RunCommandOptions& options, std::ostream& out) {
  if (options.window == 0) throw UserError("--window must be at least 1");
  const target::TargetDesc target =
      target::load_target(options.config.empty() ? default_config() : options.config);
  const isa::Executable exe = isa::load_executable(options.executable);
  // Before anything is allocated: the program's DRAM and host memory (every tensor and operand
  // lies inside them, as the reader checks) must fit the configuration's.
  try {
    check_memory_fits(exe, target, "configuration '" + target.name + "'");
  } catch (const UserError& e) {
    throw UserError(options.executable + ": " + e.what() +
                    "; compile for this configuration, or simulate one with more memory");
  }

  RunOptions run;
  run.window = options.window;
  run.threads = options.threads;
  run.compute = options.functional;
  run.steps = options.steps;
  run.check = options.check;
  run.rtl = top::parse_rtl_units(options.rtl);
  run.vcd_prefix = options.vcd;
  run.rtl_every_tile = options.rtl_every_tile;
  run.progress = progress_bar();
  run.capture = dumped_tensors(exe, options);
  const std::string dir = options.dump_all.empty() ? options.dump_dir : options.dump_all;
  guard_outputs(exe, options, run, dir, run.capture);
  if (!run.capture.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw UserError(dir + ": cannot create the dump directory: " + ec.message());
  }

  CliObserver observer(options, out);
  run.program = options.executable;
  RunOutput output = run_program(exe, target, run, &observer);
  if (!run.capture.empty()) write_dumps(exe, options, dir, run.capture, output, out);
  if (run.rtl.any()) output.cosim.print(out);
  if (output.checked) print_findings(output, out);
  if (output.cosim.diverged()) {
    out << "RTL and model diverge (see the first divergence above)\n";
    return 1;
  }
  return output.checked && !output.findings.empty() ? 1 : 0;
}

}  // namespace s2::sim
