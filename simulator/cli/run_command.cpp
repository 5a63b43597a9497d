#include "simulator/cli/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>

#include "isa/common/errors.h"
#include "isa/container/reader.h"
#include "isa/target/target_loader.h"
#include "s2/version.h"
#include "simulator/checker/shadow_checker.h"
#include "simulator/functional/execute.h"
#include "simulator/report/chrome_trace.h"
#include "simulator/report/dump_manifest.h"
#include "simulator/report/json_report.h"
#include "simulator/report/memory_trace.h"
#include "simulator/report/npy_writer.h"
#include "simulator/report/physics_check.h"
#include "simulator/report/summary.h"
#include "simulator/rtl/cosim_log.h"
#include "simulator/rtl/rtl_pe_gemm.h"
#include "simulator/rtl/rtl_ppu_lanes.h"
#include "simulator/top/rtl_tile_clock.h"
#include "simulator/top/rtl_units.h"
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

// Instruction indices in the order the simulation completed them.
std::vector<uint32_t> completion_order(const report::RunResult& result) {
  std::vector<const report::InstructionRecord*> done;
  for (const report::InstructionRecord& r : result.instructions)
    done.push_back(&r);
  std::stable_sort(done.begin(), done.end(),
                   [](const auto* a, const auto* b) { return a->end_cycle < b->end_cycle; });
  std::vector<uint32_t> order;
  for (const report::InstructionRecord* r : done)
    order.push_back(r->index);
  return order;
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

// Functional mode: the instructions' real effect on a DRAM image loaded from the executable,
// applied in the simulated completion order (a valid order: the dependencies hold), for
// `steps` steps with the weights, optimizer and batch-norm state carried over. Prints each
// step's loss; writes the requested tensors as .npy, each captured when its planned lifetime
// ends in the last step (later its space may hold another tensor).
// With RTL units (rtl.any()), their adapters replace the C++ models in the datapath and the
// co-simulation log is printed after the steps.
void run_functional(const isa::Executable& exe, const target::TargetDesc& target,
                    const report::RunResult& result, const RunCommandOptions& options,
                    const top::RtlUnits& rtl, rtl::CosimLog& log, std::ostream& out) {
  const std::vector<uint32_t> order = completion_order(result);
  std::vector<size_t> dumped;  // tensor-table indices
  std::string dir = options.dump_dir;
  if (!options.dump_all.empty()) {
    dir = options.dump_all;
    for (size_t t = 0; t < exe.tensors.size(); ++t)
      dumped.push_back(t);
  }
  for (const std::string& name : split_names(options.dump)) {
    size_t t = 0;
    while (t < exe.tensors.size() && exe.tensors[t].name != name)
      ++t;
    if (t == exe.tensors.size())
      throw UserError("--dump: no tensor '" + name + "' in " + options.executable +
                      " (s2sim info lists them)");
    dumped.push_back(t);
  }
  if (!dumped.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw UserError(dir + ": cannot create the dump directory: " + ec.message());
  }
  std::vector<std::vector<size_t>> ends_at(exe.instructions.size());
  for (size_t t : dumped)
    ends_at.at(exe.tensors[t].last).push_back(t);

  const isa::Instruction* loss_inst = nullptr;
  for (const isa::Instruction& inst : exe.instructions)
    if (inst.opcode() == isa::Opcode::SoftmaxCe && inst.operand(isa::Slot::Loss)) loss_inst = &inst;

  functional::ModelDatapath model(target.pe_array.k_tile());
  std::optional<rtl::RtlPeGemm> rtl_pe;
  std::optional<rtl::RtlPpuLanes> rtl_ppu;
  if (rtl.pe_array != nullptr) rtl_pe.emplace(*rtl.pe_array, target, log);
  if (rtl.ppu != nullptr) rtl_ppu.emplace(*rtl.ppu, target, log);
  functional::Datapath datapath{
      rtl_pe ? static_cast<numerics::PeGemm&>(*rtl_pe) : model.get().pe,
      rtl_ppu ? static_cast<functional::PpuLanes&>(*rtl_ppu) : model.get().ppu};
  functional::DramImage image = functional::DramImage::load(exe);
  std::vector<std::vector<uint8_t>> captured(exe.tensors.size());
  std::optional<double> last_loss;
  for (uint32_t step = 1; step <= options.steps; ++step) {
    for (uint32_t index : order) {
      if (rtl_pe || rtl_ppu)
        log.context = "step " + std::to_string(step) + ", instruction " + std::to_string(index) +
                      " (" + top::instruction_name(exe, index) + ")";
      functional::execute_instruction(exe.instructions[index], image, datapath);
      if (step == options.steps)
        for (size_t t : ends_at[index])
          captured[t] = image.entry_bytes(exe.tensors[t]);
    }
    if (loss_inst != nullptr) {
      last_loss = image.read_f32(*loss_inst->operand(isa::Slot::Loss))[0];
      char line[96];
      std::snprintf(line, sizeof line, "  step %-4u loss    %.9g\n", step,
                    static_cast<double>(image.read_f32(*loss_inst->operand(isa::Slot::Loss))[0]));
      out << line;
    }
  }
  for (size_t t : dumped) {
    const isa::TensorEntry& e = exe.tensors[t];
    std::vector<uint8_t> bytes = captured[t];
    bytes.resize(static_cast<size_t>(e.dense_bytes()));
    report::write_npy((std::filesystem::path(dir) / report::dump_file_name(e.name)).string(),
                      e.dtype, e.shape, bytes);
  }
  if (!dumped.empty())
    report::write_dump_manifest(
        dir, exe, {options.executable, result.config, options.steps, last_loss, dumped});
  if (!dumped.empty())
    out << "  dumped             " << dumped.size() << " tensor(s) to " << dir << "\n";
}

// The shadow-memory checker over the instructions in the order the simulation completed them.
int check_memory(const isa::Executable& exe, const report::RunResult& result, std::ostream& out) {
  const std::vector<uint32_t> order = completion_order(result);
  checker::ShadowChecker shadow(exe);
  for (uint32_t index : order)
    shadow.complete(index);
  const std::vector<checker::Finding>& findings = shadow.finish();
  if (findings.empty()) {
    out << "  check              no findings (shadow memory, " << order.size()
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

  const top::RtlSelection selection = top::parse_rtl_units(options.rtl);
  if (!options.vcd.empty() && !selection.any())
    throw UserError("--vcd dumps the waveforms of RTL units: it needs --rtl");
  // SystemC modules exist before the first simulation of the process (top::rtl_units).
  const top::RtlUnits rtl = selection.any() ? top::rtl_units(selection, target) : top::RtlUnits{};

  rtl::CosimLog log;
  std::optional<top::RtlTileClock> rtl_clock;
  if (rtl.any()) rtl_clock.emplace(rtl, target, log);

  top::SimOptions sim;
  sim.window = options.window;
  sim.progress = progress_bar();
  if (rtl_clock) sim.rtl_clock = &*rtl_clock;
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
  const bool functional = options.functional || options.steps > 1 || !options.dump.empty() ||
                          !options.dump_all.empty() || selection.any();
  // After the timing run, whose passes carry no data: the waveforms show the functional
  // replay's passes.
  if (!options.vcd.empty()) top::open_rtl_vcd(rtl, options.vcd);
  if (functional) run_functional(exe, target, result, options, rtl, log, out);
  if (selection.any()) log.print(out);
  const int check_status = options.check ? check_memory(exe, result, out) : 0;
  if (log.diverged()) {
    out << "RTL and model diverge (see the first divergence above)\n";
    return 1;
  }
  return check_status;
}

}  // namespace s2::sim
