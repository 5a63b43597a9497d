// An executable through the simulator's timing plan (plan_instruction on the base
// configuration), the shadow-memory checker (check_executable: attribution, hazard scan,
// formatted findings) and the functional kernels (execute_program): every instruction the
// reader accepts plans, checks and computes, or fails with a UserError (a data fault such as a
// label out of range). Programs over 16 MiB of DRAM or 256 instructions are skipped to keep runs
// fast, and so are programs that describe more than 2^28 multiply-adds and operand elements in all:
// a legal 700x700 convolution in 16 MiB is 2.4e11 multiply-adds, minutes of functional execution
// that are the program's size, not a hang (docs/isa.md bounds what a descriptor may repeat).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.h"
#include "isa/common/errors.h"
#include "isa/container/reader.h"
#include "simulator/checker/shadow_checker.h"
#include "simulator/dram/load_target.h"
#include "simulator/functional/execute.h"
#include "simulator/timing/plan.h"
#include "simulator/timing/roofline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace s2;
  static const target::TargetDesc base =
      target::load_target(S2_SOURCE_DIR "/configs/s2train_base.yaml");
  isa::Executable exe;
  try {
    exe = isa::read_executable(s2::fuzz::with_valid_crcs(std::vector<uint8_t>(data, data + size)),
                               "fuzz.bin");
  } catch (const UserError&) {
    return 0;
  }
  if (exe.plan.dram_size > (16u << 20) || exe.plan.host_size > (16u << 20) ||
      exe.instructions.size() > 256)
    return 0;
  uint64_t work = 0;
  for (const isa::Instruction& inst : exe.instructions) {
    work += sim::timing::roofline(inst, base).macs;
    for (const isa::OperandSig& sig : inst.info().operands)
      if (inst.operand(sig.slot)) work += inst.operand(sig.slot)->elements();
  }
  if (work > (uint64_t{1} << 28)) return 0;
  for (const isa::Instruction& inst : exe.instructions) {
    try {
      sim::timing::plan_instruction(inst, base);
    } catch (const UserError&) {
    }
  }
  try {
    for (const sim::checker::Finding& f : sim::checker::check_executable(exe))
      (void)sim::checker::format_finding(f);
  } catch (const UserError&) {
  }
  try {
    sim::functional::execute_program(exe);
  } catch (const UserError&) {
  }
  return 0;
}
