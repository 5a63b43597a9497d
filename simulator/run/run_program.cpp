#include "simulator/run/run_program.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "isa/common/errors.h"
#include "isa/encoding/semantics.h"
#include "simulator/checker/shadow_checker.h"
#include "simulator/functional/execute.h"
#include "simulator/rtl/rtl_pe_gemm.h"
#include "simulator/rtl/rtl_ppu_lanes.h"
#include "simulator/run/tensor_capture.h"
#include "simulator/timing/pe_array_model.h"
#include "simulator/top/top.h"

namespace s2::sim {
namespace {

// The functional replay (step 3 of run_program).
void replay(const isa::Executable& exe, const target::TargetDesc& target,
            const std::vector<uint32_t>& order, const RunOptions& options, const top::RtlUnits& rtl,
            RunObserver* observer, RunOutput& out) {
  // The step's loss: the tensor the compiler names "loss" (one softmax_ce's output, or the
  // weighted sum of several, e.g. GoogLeNet's main and auxiliary classifiers), else (hand-
  // written assembly) the last softmax_ce's loss operand.
  const isa::TensorEntry* loss_entry = nullptr;
  for (const isa::TensorEntry& e : exe.tensors)
    if (e.name == "loss" && e.dtype == isa::DType::F32 && e.dense_bytes() == sizeof(float))
      loss_entry = &e;
  const isa::Instruction* loss_inst = nullptr;
  for (const isa::Instruction& inst : exe.instructions)
    if (inst.opcode() == isa::Opcode::SoftmaxCe && inst.operand(isa::Slot::Loss)) loss_inst = &inst;

  functional::ModelDatapath model(target.pe_array.k_tile());
  // The replay runs outside simulated time, so it needs no SystemC: the plain C++ builds of the
  // same RTL compute it (no sc_signal ports, no trace hooks: the 32x32 array clocks about 1.5x
  // as fast). With --vcd the waveforms are the SystemC builds', so the replay runs on those.
  std::unique_ptr<s2::rtl::RtlPeArray> plain_pe;
  std::unique_ptr<s2::rtl::RtlPpu> plain_ppu;
  if (options.vcd_prefix.empty()) {
    if (rtl.pe_array != nullptr)
      plain_pe = s2::rtl::make_rtl_pe_array(rtl.pe_array->rows(), rtl.pe_array->cols());
    if (rtl.ppu != nullptr) plain_ppu = s2::rtl::make_rtl_ppu(rtl.ppu->lanes());
  }
  std::optional<rtl::RtlPeGemm> rtl_pe;
  std::optional<rtl::RtlPpuLanes> rtl_ppu;
  if (rtl.pe_array != nullptr)
    rtl_pe.emplace(plain_pe ? *plain_pe : static_cast<s2::rtl::RtlPeArray&>(*rtl.pe_array), target,
                   out.cosim);
  if (rtl.ppu != nullptr)
    rtl_ppu.emplace(plain_ppu ? *plain_ppu : static_cast<s2::rtl::RtlPpu&>(*rtl.ppu), target,
                    out.cosim);
  functional::Datapath datapath{
      rtl_pe ? static_cast<numerics::PeGemm&>(*rtl_pe) : model.get().pe,
      rtl_ppu ? static_cast<functional::PpuLanes&>(*rtl_ppu) : model.get().ppu};
  functional::DramImage image = functional::DramImage::load(exe);
  out.captured.assign(exe.tensors.size(), {});
  std::optional<TensorCapture> capture;
  for (uint32_t step = 1; step <= options.steps; ++step) {
    if (step == options.steps && !options.capture.empty()) capture.emplace(exe, options.capture);
    for (uint32_t index : order) {
      if (rtl_pe || rtl_ppu)
        out.cosim.context = "step " + std::to_string(step) + ", instruction " +
                            std::to_string(index) + " (" + top::instruction_name(exe, index) + ")";
      if (rtl_pe)
        rtl_pe->set_mode(
            isa::multiplicand_dtype(exe.instructions[index]).value_or(isa::DType::F32));
      if (capture) capture->before(index, image);
      try {
        functional::execute_instruction(exe.instructions[index], image, datapath);
      } catch (const UserError& e) {
        // A fault of the data (a label outside the classes, a pool index outside its plane):
        // say where in the program it happened.
        throw UserError("instruction " + std::to_string(index) +
                        (options.steps > 1 ? " of step " + std::to_string(step) : std::string()) +
                        ", " + e.what());
      }
      if (capture) capture->after(index, image);
    }
    std::optional<double> loss;
    if (loss_entry != nullptr) {
      const std::vector<uint8_t> bytes = image.entry_bytes(*loss_entry);
      float value = 0.0f;
      std::memcpy(&value, bytes.data(), sizeof value);
      loss = static_cast<double>(value);
    } else if (loss_inst != nullptr)
      loss = static_cast<double>(image.read_f32(*loss_inst->operand(isa::Slot::Loss))[0]);
    out.loss = loss;
    if (capture) {
      capture->finish(image);
      out.captured = std::move(capture->captured());
    }
    if (observer != nullptr) observer->step_done(step, loss);
  }
}

// Element types the run cannot serve, found before anything runs: a PE instruction whose
// multiply mode the target's array lacks. The RTL units serve every type: the PE-array RTL
// multiplies f32, bf16 and f16; the PPU RTL loads and stores 16-bit streams of casts and
// eltwise ops itself, and other 16-bit operands are widened and rounded around it by the
// functional model's load and store (the same numerics).
void check_datatypes(const isa::Executable& exe, const target::TargetDesc& target) {
  const timing::PeArrayModels models(target);
  for (size_t i = 0; i < exe.instructions.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    const std::string where =
        "instruction " + std::to_string(i) + " (" + std::string(inst.info().mnemonic) + ")";
    try {
      models.for_instruction(inst);
    } catch (const UserError& e) {
      throw UserError(where + ": " + e.what());
    }
  }
}

}  // namespace

std::vector<uint32_t> completion_order(const report::RunResult& result) {
  std::vector<const report::InstructionRecord*> done;
  for (const report::InstructionRecord& r : result.instructions)
    done.push_back(&r);
  std::stable_sort(done.begin(), done.end(),
                   [](const auto* a, const auto* b) { return a->end_cycle < b->end_cycle; });
  std::vector<uint32_t> order;
  order.reserve(done.size());
  for (const report::InstructionRecord* r : done)
    order.push_back(r->index);
  return order;
}

void check_memory_fits(const isa::Executable& exe, const target::TargetDesc& target,
                       const std::string& target_what) {
  if (exe.plan.dram_size > target.dram.capacity_bytes)
    throw UserError("memory plan: dram_size " + std::to_string(exe.plan.dram_size) +
                    " bytes exceeds the " + std::to_string(target.dram.capacity_bytes) +
                    " bytes of DRAM of " + target_what);
  if (exe.plan.host_size == 0) return;
  if (!target.host_link)
    throw UserError("memory plan: host_size " + std::to_string(exe.plan.host_size) +
                    " bytes of host memory, but " + target_what +
                    " has no host_link (docs/target.md, \"Host link\")");
  if (exe.plan.host_size > target.host_link->memory_bytes)
    throw UserError("memory plan: host_size " + std::to_string(exe.plan.host_size) +
                    " bytes exceeds the " + std::to_string(target.host_link->memory_bytes) +
                    " bytes of host memory of " + target_what + " (host_link.memory)");
}

RunOutput run_program(const isa::Executable& exe, const target::TargetDesc& target,
                      const RunOptions& options, RunObserver* observer) {
  if (options.window == 0) throw UserError("the decode window must be at least 1");
  if (options.steps == 0) throw UserError("the number of steps must be at least 1");
  if (!options.vcd_prefix.empty() && !options.rtl.any())
    throw UserError("--vcd dumps the waveforms of RTL units: it needs --rtl");
  if (options.rtl_every_tile && !options.rtl.any())
    throw UserError("--rtl-clock-every-tile is about the RTL units' timing: it needs --rtl");

  // A fault of the program found while running it (a tile that cannot fit the target, a
  // label outside the classes) names the program's file first.
  auto in_program = [&options](const auto& run) {
    try {
      run();
    } catch (const UserError& e) {
      if (options.program.empty()) throw;
      throw UserError(options.program + ": " + e.what());
    }
  };

  // The RTL PE array multiplies f32 at one MAC per PE per cycle, whatever the program holds.
  if (options.rtl.any() && target.pe_array.macs_per_pe(isa::DType::F32) != 1)
    target.fail("pe_array.datatypes",
                "the RTL units multiply f32 at 1 MAC per PE per cycle; --rtl needs 'f32: 1'");
  in_program([&] { check_datatypes(exe, target); });
  in_program([&] { check_memory_fits(exe, target, "configuration '" + target.name + "'"); });
  RunOutput out;
  top::Top& top = top::process_top(options.rtl, target);
  top::SimOptions sim;
  sim.window = options.window;
  sim.threads = options.threads;
  sim.progress = options.progress;
  sim.rtl = options.rtl;
  sim.cosim = &out.cosim;
  sim.rtl_reuse = !options.rtl_every_tile;
  in_program([&] { out.timing = top.run(exe, target, sim); });
  if (observer != nullptr) observer->timing_done(out.timing);
  if (!out.timing.deadlock.empty()) return out;

  // After the timing run, whose passes carry no data: the waveforms show the replay's passes.
  if (!options.vcd_prefix.empty()) top.rtl().open_vcd(options.vcd_prefix);
  const std::vector<uint32_t> order = completion_order(out.timing);
  out.functional = options.functional();
  if (out.functional)
    in_program([&] { replay(exe, target, order, options, top.rtl().units(), observer, out); });
  if (options.check) {
    checker::ShadowChecker shadow(exe);
    for (uint32_t index : order)
      shadow.complete(index);
    out.findings = shadow.finish();
    out.checked = true;
  }
  return out;
}

}  // namespace s2::sim
