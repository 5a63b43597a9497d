#include "simulator/cli/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>

#include "isa/common/errors.h"
#include "isa/container/reader.h"
#include "isa/target/target_loader.h"
#include "simulator/checker/shadow_checker.h"
#include "simulator/report/chrome_trace.h"
#include "simulator/report/json_report.h"
#include "simulator/report/memory_trace.h"
#include "simulator/report/physics_check.h"
#include "simulator/report/summary.h"
#include "s2/version.h"
#include "simulator/top/top.h"

namespace s2::sim {
namespace {

void write_file(const std::string& path, const std::function<void(std::ostream&)>& body) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw UserError(path + ": cannot open for writing");
  body(file);
  file.flush();
  if (!file) throw UserError(path + ": write failed");
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

// The shadow-memory checker over the instructions in the order the simulation completed them.
int check_memory(const isa::Executable& exe, const report::RunResult& result, std::ostream& out) {
  std::vector<const report::InstructionRecord*> done;
  for (const report::InstructionRecord& r : result.instructions) done.push_back(&r);
  std::stable_sort(done.begin(), done.end(), [](const auto* a, const auto* b) {
    return a->end_cycle < b->end_cycle;
  });
  checker::ShadowChecker shadow(exe);
  for (const report::InstructionRecord* r : done) shadow.complete(r->index);
  const std::vector<checker::Finding>& findings = shadow.finish();
  if (findings.empty()) {
    out << "  check              no findings (shadow memory, " << done.size()
        << " instructions in simulated order)\n";
    return 0;
  }
  out << "  check              " << findings.size() << " finding(s):\n"
      << checker::format_findings(findings);
  return 1;
}

}  // namespace

int run_simulation(const RunCommandOptions& options, std::ostream& out) {
  if (options.window == 0) throw UserError("--window must be at least 1");
  const target::TargetDesc target = target::load_target(
      options.config.empty() ? std::string(kConfigDir) + "/s2train_base.yaml" : options.config);
  const isa::Executable exe = isa::load_executable(options.executable);

  top::SimOptions sim;
  sim.window = options.window;
  sim.progress = progress_bar();
  report::RunResult result = top::simulate(exe, target, sim);
  result.program = options.executable;

  out << report::summary_text(result);
  if (options.layers) out << report::layer_table(result);
  char wall[96];
  std::snprintf(wall, sizeof wall, "  wall time          %.3f s (%.3g simulated cycles/s)\n",
                result.wall_seconds,
                result.wall_seconds > 0
                    ? static_cast<double>(result.total_cycles) / result.wall_seconds
                    : 0.0);
  out << wall;
  if (!options.report.empty())
    write_file(options.report, [&](std::ostream& os) { report::write_json_report(result, os); });
  if (!options.trace.empty())
    write_file(options.trace, [&](std::ostream& os) { report::write_chrome_trace(result, os); });
  if (!options.memory_trace.empty())
    write_file(options.memory_trace,
               [&](std::ostream& os) { report::write_memory_trace(result, os); });
  if (!result.deadlock.empty())
    throw InternalError("deadlock at cycle " + std::to_string(result.total_cycles) +
                        ": nothing in flight and no instruction can issue; " +
                        top::describe_stuck(result.deadlock));
  report::check_roofline(result);
  return options.check ? check_memory(exe, result, out) : 0;
}

}  // namespace s2::sim
