// The shadow-memory checker on executables the compiler really emits: correct ones have no
// findings, and each kind of deliberate damage (an overlapped plan, a deleted dependency, a
// descriptor past its tensor, a tensor nobody writes) is caught with the right finding.
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/driver/backend.h"
#include "compiler/driver/frontend.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"
#include "simulator/checker/dependency_closure.h"
#include "simulator/checker/shadow_checker.h"

namespace s2::sim::checker {
namespace {

isa::Executable compile(const std::string& model, const std::string& planner) {
  compiler::FrontendOptions front;
  front.model = model;
  front.model_options.batch = 2;
  front.model_options.height = front.model_options.width = 16;
  const compiler::FrontendResult training = compiler::run_frontend(front);
  compiler::BackendOptions back;
  back.config = std::string(S2_SOURCE_DIR) + "/configs/s2train_base.yaml";
  back.plan.planner = planner;
  back.plan.budget_ms = 20;
  const compiler::BackendResult compiled = compiler::run_backend(training.graph, back);
  // Through the file format, as the simulator sees it.
  return isa::read_executable(isa::serialize(compiled.executable), model + ".bin");
}

// lenet5 is compiled once for all the damage tests.
const isa::Executable& lenet5() {
  static const isa::Executable exe = compile("lenet5", "greedy");
  return exe;
}

std::vector<Finding> of_kind(const std::vector<Finding>& all, FindingKind kind) {
  std::vector<Finding> out;
  for (const Finding& f : all)
    if (f.kind == kind) out.push_back(f);
  return out;
}

bool operand_at(const isa::Instruction& inst, uint64_t addr, isa::Access want) {
  for (const isa::OperandSig& sig : inst.info().operands) {
    const auto& d = inst.operand(sig.slot);
    if (d && d->addr == addr && sig.access == want) return true;
  }
  return false;
}

struct Case {
  const char* model;
  const char* planner;
};

std::string case_name(const ::testing::TestParamInfo<Case>& param) {
  return std::string(param.param.model) + "_" + param.param.planner;
}

class CheckerOnCompiledPrograms : public ::testing::TestWithParam<Case> {};

TEST_P(CheckerOnCompiledPrograms, CorrectExecutableHasNoFindings) {
  const isa::Executable exe = compile(GetParam().model, GetParam().planner);
  ASSERT_GT(exe.instructions.size(), 10u);
  const std::vector<Finding> found = check_executable(exe);
  EXPECT_TRUE(found.empty()) << format_findings(found);
}

INSTANTIATE_TEST_SUITE_P(Models, CheckerOnCompiledPrograms,
                         ::testing::Values(Case{"mlp", "greedy"}, Case{"lenet5", "greedy"},
                                           Case{"resnet18", "greedy"}, Case{"mlp", "search"},
                                           Case{"lenet5", "search"}, Case{"resnet18", "search"}),
                         case_name);

TEST(CheckerDamage, OverlappedPlanGivesAStaleReadNamingBothTensors) {
  isa::Executable exe = lenet5();
  // A: an activation still read after B is produced; B is moved onto A's bytes.
  int64_t a = -1;
  int64_t b = -1;
  for (size_t i = 0; i < exe.tensors.size() && a < 0; ++i)
    for (size_t j = 0; j < exe.tensors.size(); ++j) {
      const isa::TensorEntry& ta = exe.tensors[i];
      const isa::TensorEntry& tb = exe.tensors[j];
      if (i == j || ta.has_data() || tb.has_data() || tb.size > ta.size) continue;
      if (!(ta.first < tb.first && tb.first < ta.last)) continue;
      if (!operand_at(exe.instructions[tb.first], tb.addr, isa::Access::Out)) continue;
      if (!operand_at(exe.instructions[ta.last], ta.addr, isa::Access::In)) continue;
      a = static_cast<int64_t>(i);
      b = static_cast<int64_t>(j);
      break;
    }
  ASSERT_GE(a, 0) << "no pair of overlapping lifetimes in lenet5";
  isa::TensorEntry& ta = exe.tensors[static_cast<size_t>(a)];
  isa::TensorEntry& tb = exe.tensors[static_cast<size_t>(b)];
  // Every descriptor into B during B's lifetime follows it.
  const uint64_t old_addr = tb.addr;
  for (uint32_t i = tb.first; i <= tb.last && i < exe.instructions.size(); ++i) {
    isa::Instruction& inst = exe.instructions[i];
    for (const isa::OperandSig& sig : inst.info().operands) {
      std::optional<isa::TensorDesc> d = inst.operand(sig.slot);
      if (!d || d->addr < old_addr || d->addr >= old_addr + tb.size) continue;
      d->addr = d->addr - old_addr + ta.addr;
      inst.set_operand(sig.slot, *d);
    }
  }
  tb.addr = ta.addr;

  const std::vector<Finding> stale = of_kind(check_executable(exe), FindingKind::StaleRead);
  ASSERT_FALSE(stale.empty());
  const bool named = std::any_of(stale.begin(), stale.end(), [&](const Finding& f) {
    return f.tensor == ta.name && f.other_tensor == tb.name && f.has_other &&
           f.other.index == tb.first && f.instruction.index > tb.first &&
           f.instruction.index <= ta.last;
  });
  EXPECT_TRUE(named) << "expected '" << ta.name << "' overwritten by '" << tb.name << "':\n"
                     << format_findings(stale);
}

TEST(CheckerDamage, DeletedDependencyGivesAHazardNamingBothInstructions) {
  isa::Executable exe = lenet5();
  // The first instruction that reads what one of its dependencies wrote loses that dependency.
  uint32_t later = 0;
  uint32_t earlier = 0;
  for (uint32_t i = 0; i < exe.instructions.size() && later == 0; ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    if (inst.opcode() == isa::Opcode::End || inst.opcode() == isa::Opcode::Barrier) continue;
    for (uint32_t d : inst.deps) {
      const isa::Instruction& dep = exe.instructions[d];
      const auto& out = dep.info().operands;
      const bool raw = std::any_of(out.begin(), out.end(), [&](const isa::OperandSig& sig) {
        return sig.access != isa::Access::In && dep.operand(sig.slot) &&
               operand_at(inst, dep.operand(sig.slot)->addr, isa::Access::In);
      });
      if (raw) {
        later = i;
        earlier = d;
        break;
      }
    }
  }
  ASSERT_GT(later, 0u);
  ASSERT_TRUE(check_executable(exe).empty());
  std::vector<uint32_t>& deps = exe.instructions[later].deps;
  deps.erase(std::find(deps.begin(), deps.end(), earlier));
  ASSERT_FALSE(DependencyClosure(exe.instructions).waits_for(later, earlier))
      << "another path still orders " << later << " after " << earlier;

  const std::vector<Finding> found = check_executable(exe);
  const std::vector<Finding> hazards = of_kind(found, FindingKind::Hazard);
  ASSERT_EQ(hazards.size(), found.size()) << format_findings(found);
  const bool named = std::any_of(hazards.begin(), hazards.end(), [&](const Finding& f) {
    return f.instruction.index == later && f.other.index == earlier && f.detail == "RAW" &&
           !f.instruction.ops.empty() && !f.other.ops.empty() && !f.tensor.empty();
  });
  EXPECT_TRUE(named) << "expected a RAW hazard between " << later << " and " << earlier << ":\n"
                     << format_findings(hazards);
}

TEST(CheckerDamage, DescriptorPastItsTensorIsOutOfBounds) {
  isa::Executable exe = lenet5();
  // Shift the first read of a weight by 64 bytes: its last 64 bytes land past the tensor's
  // reserved bytes (the reservation pads the dense size by less than the 64-byte alignment).
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    isa::Instruction& inst = exe.instructions[i];
    for (const isa::OperandSig& sig : inst.info().operands) {
      std::optional<isa::TensorDesc> d = inst.operand(sig.slot);
      if (!d || sig.access != isa::Access::In) continue;
      const isa::TensorEntry* t = nullptr;
      for (const isa::TensorEntry& e : exe.tensors)
        if (e.role == isa::TensorRole::Weight && e.addr == d->addr) t = &e;
      if (t == nullptr) continue;
      d->addr += 64;
      inst.set_operand(sig.slot, *d);
      const std::vector<Finding> oob = of_kind(check_executable(exe), FindingKind::OutOfBounds);
      ASSERT_EQ(oob.size(), 1u) << format_findings(oob);
      EXPECT_EQ(oob[0].instruction.index, i);
      EXPECT_EQ(oob[0].slot, isa::slot_info(sig.slot).name);
      EXPECT_EQ(oob[0].tensor, t->name);
      EXPECT_EQ(oob[0].begin, t->addr + t->size);
      EXPECT_NE(format_finding(oob[0]).find("past its tensor's reserved bytes"), std::string::npos);
      return;
    }
  }
  FAIL() << "no instruction reads a weight";
}

TEST(CheckerDamage, TensorNobodyWritesIsNeverWritten) {
  isa::Executable exe = lenet5();
  // Drop the initial data of the input batch: its first reader reads nothing.
  auto input = std::find_if(exe.tensors.begin(), exe.tensors.end(), [](const isa::TensorEntry& e) {
    return e.role == isa::TensorRole::Input && e.has_data();
  });
  ASSERT_NE(input, exe.tensors.end());
  input->data_offset = isa::kNoData;
  const std::vector<Finding> found = check_executable(exe);
  const std::vector<Finding> never = of_kind(found, FindingKind::NeverWritten);
  ASSERT_FALSE(never.empty()) << format_findings(found);
  EXPECT_EQ(never.size(), found.size()) << format_findings(found);
  EXPECT_EQ(never[0].tensor, input->name);
  EXPECT_EQ(never[0].bytes, input->dense_bytes());
  EXPECT_TRUE(
      operand_at(exe.instructions[never[0].instruction.index], input->addr, isa::Access::In));
}

}  // namespace
}  // namespace s2::sim::checker
