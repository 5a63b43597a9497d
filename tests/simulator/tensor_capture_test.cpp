// What --dump takes when the replay's completion order overlaps instructions: the tensor's
// value at the end of its life, even when the instruction `last` completes before an earlier
// writer of another part, or a later tenant of some of its bytes runs before `last`.
#include "simulator/run/tensor_capture.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace s2::sim {
namespace {

isa::TensorDesc row(uint64_t addr) {
  return isa::TensorDesc::contiguous(addr, isa::DType::F32, {4});
}

// A concat of two rows [2,4] at 0 (life 0..2): instruction 0 writes row 0, instruction 1 writes
// row 1, instruction 2 reads row 1 only (its last use); instruction 3 writes a tenant [4] into
// the concat's first row once the concat is dead.
struct Concat {
  isa::Executable exe;
  functional::DramImage image{0x100};

  Concat() {
    isa::TensorEntry concat;
    concat.name = "concat";
    concat.shape = {2, 4};
    concat.size = 32;
    concat.first = 0;
    concat.last = 2;
    isa::TensorEntry tenant;
    tenant.name = "tenant";
    tenant.shape = {4};
    tenant.size = 16;
    tenant.first = 3;
    tenant.last = 3;
    exe.tensors = {concat, tenant};
    for (uint64_t addr : {uint64_t{0}, uint64_t{16}})
      add(isa::Opcode::Fill, isa::Slot::Dst, row(addr));
    add(isa::Opcode::Copy, isa::Slot::Src, row(16));  // a reader of row 1
    add(isa::Opcode::Fill, isa::Slot::Dst, row(0));
  }
  void add(isa::Opcode op, isa::Slot slot, const isa::TensorDesc& d) {
    isa::Instruction inst(op);
    inst.set_operand(slot, d);
    exe.instructions.push_back(inst);
  }
  // Runs the instructions in `order`: the writers store 1 (instruction 0), 2 (1) and 9 (the
  // tenant) into their rows.
  std::vector<float> replay(const std::vector<uint32_t>& order) {
    TensorCapture capture(exe, {0});
    for (uint32_t i : order) {
      capture.before(i, image);
      if (i != 2)
        image.write_f32(row(i == 1 ? 16 : 0), std::vector<float>(4, i == 0   ? 1.0f
                                                                    : i == 1 ? 2.0f
                                                                             : 9.0f));
      capture.after(i, image);
    }
    capture.finish(image);
    const std::vector<uint8_t>& bytes = capture.captured()[0];
    EXPECT_TRUE(capture.captured()[1].empty());
    std::vector<float> out(bytes.size() / 4);
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }
};

const std::vector<float> kConcat = {1, 1, 1, 1, 2, 2, 2, 2};

TEST(TensorCapture, ProgramOrderTakesTheValueAtTheLastUse) {
  EXPECT_EQ(Concat().replay({0, 1, 2, 3}), kConcat);
}

TEST(TensorCapture, ATenantRunningBeforeTheLastUseDoesNotShowInTheCapture) {
  // Instruction 3 touches only row 0, which 2 does not read: it may complete first.
  EXPECT_EQ(Concat().replay({0, 1, 3, 2}), kConcat);
}

TEST(TensorCapture, TheLastUseCompletingBeforeAnEarlierWriterWaitsForIt) {
  // Instruction 2 reads only row 1, so it may complete before instruction 0 writes row 0.
  EXPECT_EQ(Concat().replay({1, 2, 0, 3}), kConcat);
}

TEST(TensorCapture, ATensorNoInstructionTouchesKeepsItsValueFromBeforeATenant) {
  Concat c;
  c.exe.instructions.erase(
      c.exe.instructions.begin() + 1,
      c.exe.instructions.end());  // row 0 written at 0; nothing of the life touches row 1 ...
  c.exe.instructions.push_back(isa::Instruction(isa::Opcode::End));
  c.exe.tensors[0].last = 0;
  c.exe.tensors[0].shape = {4};
  c.exe.tensors[0].size = 16;
  c.exe.tensors[0].addr = 16;  // ... a tensor at row 1, untouched in its life (0..0)
  c.image.write_f32(row(16), std::vector<float>(4, 7.0f));
  c.add(isa::Opcode::Fill, isa::Slot::Dst, row(16));  // instruction 2: a tenant of row 1
  TensorCapture capture(c.exe, {0});
  for (uint32_t i : {2u, 0u, 1u}) {
    capture.before(i, c.image);
    if (i == 2) c.image.write_f32(row(16), std::vector<float>(4, 9.0f));
    capture.after(i, c.image);
  }
  capture.finish(c.image);
  std::vector<float> out(4);
  ASSERT_EQ(capture.captured()[0].size(), 16u);
  std::memcpy(out.data(), capture.captured()[0].data(), 16);
  EXPECT_EQ(out, std::vector<float>(4, 7.0f));
}

// Which instructions of a tensor's life touch it, found for all asked tensors in one pass over
// the operands (an index of the tensors by address, not a test of every instruction of every
// life: 20000 tensors live throughout took --dump-all 144 s). A buffer under 256 row tensors
// is taken when the last row write of its life has run; each row when its own write has; an
// operand at the same address in host memory touches none of them.
TEST(TensorCapture, EachTensorIsTakenWhenTheLastInstructionOfItsLifeTouchingItHasRun) {
  constexpr uint32_t kRows = 256;
  isa::Executable exe;
  isa::TensorEntry buffer;
  buffer.name = "buffer";
  buffer.shape = {kRows * 4};
  buffer.size = kRows * 16;
  buffer.first = 0;
  buffer.last = kRows;
  exe.tensors.push_back(buffer);
  for (uint32_t k = 0; k < kRows; ++k) {
    isa::TensorEntry r;
    r.name = "row" + std::to_string(k);
    r.shape = {4};
    r.addr = 16 * k;
    r.size = 16;
    r.first = k;
    r.last = k;
    exe.tensors.push_back(r);
    isa::Instruction fill(isa::Opcode::Fill);
    fill.set_operand(isa::Slot::Dst, row(16 * k));
    exe.instructions.push_back(fill);
  }
  isa::TensorDesc host = row(0);
  host.space = isa::MemSpace::Host;
  isa::Instruction to_host(isa::Opcode::Fill);
  to_host.set_operand(isa::Slot::Dst, host);
  exe.instructions.push_back(to_host);

  std::vector<size_t> all(exe.tensors.size());
  for (size_t t = 0; t < all.size(); ++t)
    all[t] = t;
  functional::DramImage image{kRows * 16};
  TensorCapture capture(exe, all);
  for (uint32_t i = 0; i <= kRows; ++i) {
    capture.before(i, image);
    capture.after(i, image);
    if (i < kRows) {
      EXPECT_EQ(capture.captured()[1 + i].size(), 16u) << "row " << i;
      if (i + 1 < kRows) {
        EXPECT_TRUE(capture.captured()[2 + i].empty()) << "row " << i + 1;
      }
    }
    EXPECT_EQ(capture.captured()[0].empty(), i + 1 < kRows) << "after instruction " << i;
  }
}

}  // namespace
}  // namespace s2::sim
