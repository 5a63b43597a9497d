// Each finding of the shadow-memory checker on small hand-written programs, where the right
// answer is known exactly: which instruction, which tensors, which bytes.
#include <gtest/gtest.h>

#include "simulator/checker/shadow_checker.h"

namespace s2::sim::checker {
namespace {

isa::TensorDesc f32(uint64_t addr, uint32_t elements) {
  return isa::TensorDesc::contiguous(addr, isa::DType::F32, {elements});
}

// A program over 16-float tensors; instruction builders append with explicit deps.
struct Program {
  isa::Executable exe;

  Program() { exe.plan.dram_size = 0x1000; }

  void tensor(const std::string& name, uint64_t addr, uint32_t first, uint32_t last,
              bool data = false) {
    isa::TensorEntry t;
    t.name = name;
    t.shape = {16};
    t.addr = addr;
    t.size = 64;
    t.first = first;
    t.last = last;
    if (data) {
      t.data_offset = exe.data.size();
      exe.data.resize(exe.data.size() + 64, 0);
    }
    exe.tensors.push_back(t);
  }
  void fill(const isa::TensorDesc& dst, std::vector<uint32_t> deps, const std::string& op) {
    isa::Instruction inst(isa::Opcode::Fill);
    inst.set_operand(isa::Slot::Dst, dst);
    add(inst, std::move(deps), op);
  }
  void copy(const isa::TensorDesc& src, const isa::TensorDesc& dst, std::vector<uint32_t> deps,
            const std::string& op) {
    isa::Instruction inst(isa::Opcode::Copy);
    inst.set_operand(isa::Slot::Src, src);
    inst.set_operand(isa::Slot::Dst, dst);
    add(inst, std::move(deps), op);
  }
  void sgd(const isa::TensorDesc& weight, const isa::TensorDesc& grad, std::vector<uint32_t> deps) {
    isa::Instruction inst(isa::Opcode::Sgd);
    inst.set_operand(isa::Slot::Weight, weight);
    inst.set_operand(isa::Slot::Grad, grad);
    add(inst, std::move(deps), "sgd");
  }
  void add(isa::Instruction inst, std::vector<uint32_t> deps, const std::string& op) {
    inst.deps = std::move(deps);
    exe.instructions.push_back(inst);
    exe.debug.push_back({op});
  }
  void end() {
    isa::Instruction inst(isa::Opcode::End);
    for (uint32_t i = 0; i < exe.instructions.size(); ++i)
      inst.deps.push_back(i);
    exe.instructions.push_back(inst);
    exe.debug.push_back({});
  }
};

std::vector<Finding> of_kind(const std::vector<Finding>& all, FindingKind kind) {
  std::vector<Finding> out;
  for (const Finding& f : all)
    if (f.kind == kind) out.push_back(f);
  return out;
}

TEST(CheckerFindings, CorrectProgramHasNone) {
  Program p;
  p.tensor("w", 0x0, 0, 3, /*data=*/true);
  p.tensor("a", 0x40, 0, 1);
  p.tensor("b", 0x80, 1, 2);
  p.tensor("g", 0x40, 2, 3);  // reuses a's bytes once a is dead
  p.fill(f32(0x40, 16), {}, "init");
  p.copy(f32(0x40, 16), f32(0x80, 16), {0}, "move");
  p.copy(f32(0x80, 16), f32(0x40, 16), {1}, "grad");
  p.sgd(f32(0x0, 16), f32(0x40, 16), {2});  // in place: reads its old value first
  p.end();
  const std::vector<Finding> found = check_executable(p.exe);
  EXPECT_TRUE(found.empty()) << format_findings(found);
}

TEST(CheckerFindings, StaleReadNamesTheReadAndTheOverwritingTensor) {
  Program p;
  p.tensor("a", 0x40, 0, 2);
  p.tensor("d", 0x40, 1, 1);  // planned onto a while a is still live
  p.tensor("b", 0x80, 2, 3);
  p.fill(f32(0x40, 16), {}, "make_a");
  p.fill(f32(0x40, 16), {0}, "make_d");
  p.copy(f32(0x40, 16), f32(0x80, 16), {1}, "use_a");
  p.end();
  const std::vector<Finding> found = check_executable(p.exe);
  ASSERT_EQ(found.size(), 1u) << format_findings(found);
  const Finding& f = found[0];
  EXPECT_EQ(f.kind, FindingKind::StaleRead);
  EXPECT_EQ(f.instruction.index, 2u);
  EXPECT_EQ(f.instruction.ops, "use_a");
  EXPECT_EQ(f.slot, "src");
  EXPECT_EQ(f.tensor, "a");
  EXPECT_EQ(f.other_tensor, "d");
  ASSERT_TRUE(f.has_other);
  EXPECT_EQ(f.other.index, 1u);
  EXPECT_EQ(f.begin, 0x40u);
  EXPECT_EQ(f.end, 0x80u);
  EXPECT_EQ(format_finding(f),
            "stale-read: instruction 2 copy (use_a) reads src of tensor 'a' 0x40..0x80 (64 "
            "bytes), last written as tensor 'd' by instruction 1 fill (make_d)");
}

// A read of bytes that many live tensors share is checked against the first kMaxReadable of
// them in table order, not each: 2000 tensors on the same 64 bytes, each read once after one
// of them is written, made 4 million stale-read findings (2.8 GB, 8.5 s); now 8 per read.
TEST(CheckerFindings, AReadOfBytesManyLiveTensorsShareIsCheckedAgainstTheFirstFew) {
  constexpr uint32_t kTensors = 2000;
  Program p;
  for (uint32_t i = 0; i < kTensors; ++i)
    p.tensor("t" + std::to_string(i), 0x40, 0, kTensors + 1);
  p.tensor("out", 0x80, 0, kTensors + 1);
  p.fill(f32(0x40, 16), {}, "make");
  for (uint32_t i = 0; i < kTensors; ++i)
    p.copy(f32(0x40, 16), f32(0x80, 16), {i}, "use");
  p.end();
  const std::vector<Finding> found = check_executable(p.exe);
  // Each read is checked against t0..t7; the fill wrote the bytes as t0 (its attributed
  // entry), so t1..t7 read stale bytes: 7 findings per read.
  ASSERT_EQ(found.size(), kTensors * (TensorAttribution::kMaxReadable - 1));
  std::vector<std::string> first_read;
  for (const Finding& f : found) {
    EXPECT_EQ(f.kind, FindingKind::StaleRead) << format_finding(f);
    EXPECT_EQ(f.other_tensor, "t0");
    if (f.instruction.index == 1) first_read.push_back(f.tensor);
  }
  EXPECT_EQ(first_read, (std::vector<std::string>{"t1", "t2", "t3", "t4", "t5", "t6", "t7"}));
}

TEST(CheckerFindings, NeverWrittenBytes) {
  Program p;
  p.tensor("a", 0x40, 0, 0);
  p.tensor("b", 0x80, 0, 1);
  p.copy(f32(0x40, 16), f32(0x80, 16), {}, "use_a");
  p.end();
  const std::vector<Finding> found = check_executable(p.exe);
  ASSERT_EQ(found.size(), 1u) << format_findings(found);
  EXPECT_EQ(found[0].kind, FindingKind::NeverWritten);
  EXPECT_EQ(found[0].tensor, "a");
  EXPECT_EQ(found[0].bytes, 64u);
  EXPECT_NE(format_finding(found[0]).find("never-written: instruction 0 copy (use_a) reads src"),
            std::string::npos);
}

TEST(CheckerFindings, InitialDataCountsAsWritten) {
  Program p;
  p.tensor("a", 0x40, 0, 0, /*data=*/true);
  p.tensor("b", 0x80, 0, 1);
  p.copy(f32(0x40, 16), f32(0x80, 16), {}, "use_a");
  p.end();
  EXPECT_TRUE(check_executable(p.exe).empty());
}

TEST(CheckerFindings, ExecutionOrderIsTheCallersNotProgramOrder) {
  Program p;
  p.tensor("a", 0x40, 0, 1);
  p.tensor("b", 0x80, 1, 2);
  p.fill(f32(0x40, 16), {}, "make_a");
  p.copy(f32(0x40, 16), f32(0x80, 16), {0}, "use_a");
  p.end();
  ShadowChecker checker(p.exe);
  checker.complete(1);  // the consumer first: its bytes are not written yet
  checker.complete(0);
  checker.complete(2);
  const std::vector<Finding>& found = checker.finish();
  ASSERT_EQ(found.size(), 1u) << format_findings(found);
  EXPECT_EQ(found[0].kind, FindingKind::NeverWritten);
  EXPECT_EQ(found[0].instruction.index, 1u);
}

TEST(CheckerFindings, DescriptorPastItsTensor) {
  Program p;
  p.tensor("a", 0x40, 0, 1, /*data=*/true);
  p.tensor("b", 0x80, 0, 1, /*data=*/true);
  p.tensor("c", 0x100, 0, 1);
  p.copy(f32(0x50, 16), f32(0x100, 16), {}, "shifted");  // 16 bytes into b
  p.end();
  const std::vector<Finding> found = check_executable(p.exe);
  ASSERT_EQ(found.size(), 1u) << format_findings(found);
  const Finding& f = found[0];
  EXPECT_EQ(f.kind, FindingKind::OutOfBounds);
  EXPECT_EQ(f.tensor, "a");
  EXPECT_EQ(f.begin, 0x80u);
  EXPECT_EQ(f.end, 0x90u);
  EXPECT_EQ(f.bytes, 16u);
  EXPECT_NE(format_finding(f).find("past its tensor's reserved bytes 0x40..0x80"),
            std::string::npos)
      << format_finding(f);
}

TEST(CheckerFindings, OutsideAnyLiveTensorAndOutsideDram) {
  Program p;
  p.tensor("a", 0x40, 0, 0);
  p.tensor("late", 0x200, 5, 6);
  p.fill(f32(0x300, 16), {}, "nowhere");
  p.fill(f32(0x200, 16), {}, "too_early");
  p.fill(f32(0xff0, 16), {}, "off_the_end");
  p.end();
  const std::vector<Finding> found = of_kind(check_executable(p.exe), FindingKind::OutOfBounds);
  ASSERT_EQ(found.size(), 4u) << format_findings(found);
  EXPECT_EQ(found[0].instruction.index, 0u);
  EXPECT_EQ(found[0].detail, "outside any tensor live at this instruction");
  EXPECT_EQ(found[1].instruction.index, 1u);
  EXPECT_NE(found[1].detail.find("inside 'late', planned live for instructions 5..6"),
            std::string::npos);
  EXPECT_EQ(found[2].instruction.index, 2u);
  EXPECT_EQ(found[2].detail, "outside DRAM (size 0x1000)");
  EXPECT_EQ(found[2].begin, 0x1000u);
  EXPECT_EQ(found[2].end, 0x1030u);
  EXPECT_EQ(found[3].instruction.index, 2u);  // and its in-DRAM part matches no tensor
}

TEST(CheckerFindings, HazardsOfEachKindNameBothInstructions) {
  Program p;
  p.tensor("a", 0x40, 0, 3);
  p.tensor("b", 0x80, 1, 3);
  p.fill(f32(0x40, 16), {}, "make_a");
  p.copy(f32(0x40, 16), f32(0x80, 16), {}, "read_a");  // RAW with 0: no dependency
  p.fill(f32(0x40, 16), {0}, "rewrite_a");             // WAW covered, WAR with 1 not
  p.end();
  const std::vector<Finding> found = of_kind(check_executable(p.exe), FindingKind::Hazard);
  ASSERT_EQ(found.size(), 2u) << format_findings(found);
  EXPECT_EQ(found[0].instruction.index, 1u);
  EXPECT_EQ(found[0].other.index, 0u);
  EXPECT_EQ(found[0].detail, "RAW");
  EXPECT_EQ(found[0].tensor, "a");
  EXPECT_EQ(found[0].other_tensor, "a");
  EXPECT_EQ(found[1].instruction.index, 2u);
  EXPECT_EQ(found[1].other.index, 1u);
  EXPECT_EQ(found[1].detail, "WAR");
  EXPECT_EQ(format_finding(found[0]),
            "hazard: instruction 1 copy (read_a) src of tensor 'a' and instruction 0 fill "
            "(make_a) dst of tensor 'a' overlap at 0x40..0x80 (64 bytes) (RAW) with no "
            "dependency path between them");
}

TEST(CheckerFindings, ABarrierCoversWhatTheDependenciesDoNot) {
  Program p;
  p.tensor("a", 0x40, 0, 3);
  p.tensor("b", 0x80, 2, 3);
  p.fill(f32(0x40, 16), {}, "make_a");
  p.add(isa::Instruction(isa::Opcode::Barrier), {}, "barrier");
  p.copy(f32(0x40, 16), f32(0x80, 16), {}, "read_a");
  p.end();
  const std::vector<Finding> found = check_executable(p.exe);
  EXPECT_TRUE(found.empty()) << format_findings(found);
}

TEST(CheckerFindings, StridedOperandsOverlapOnlyWhereTheirElementsDo) {
  // Two interleaved column views of one [16, 2] matrix: same hull, disjoint bytes.
  Program p;
  p.tensor("m", 0x40, 0, 2);
  p.exe.tensors[0].shape = {16, 2};
  p.exe.tensors[0].size = 128;
  isa::TensorDesc even = isa::TensorDesc::contiguous(0x40, isa::DType::F32, {16, 1});
  even.strides = {2, 1, 0, 0};
  isa::TensorDesc odd = even;
  odd.addr = 0x44;
  p.fill(even, {}, "even");
  p.fill(odd, {}, "odd");
  p.end();
  const std::vector<Finding> found = check_executable(p.exe);
  EXPECT_TRUE(found.empty()) << format_findings(found);
}

}  // namespace
}  // namespace s2::sim::checker
