// The executable container: a small but complete training step is written and read back
// unchanged, the file layout is where docs/container.md says, and the per-instruction
// semantic checks reject operands that do not fit together.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "isa/asm/assembler.h"
#include "isa/asm/disassembler.h"
#include "isa/common/crc32.h"
#include "isa/common/errors.h"
#include "isa/container/byte_io.h"
#include "isa/container/dram_layout.h"
#include "isa/container/reader.h"
#include "isa/container/validator.h"
#include "isa/container/writer.h"
#include "isa/encoding/codec.h"
#include "isa/encoding/semantics.h"

namespace s2::isa {
namespace {

TensorDesc f32(uint64_t addr, const std::vector<uint32_t>& shape) {
  return TensorDesc::contiguous(addr, DType::F32, shape);
}

// Adds a tensor table entry for `d`; with `init` its initial bytes go into the data section.
void add_tensor(Executable* exe, const std::string& name, TensorRole role, const TensorDesc& d,
                uint32_t first, uint32_t last, bool init) {
  TensorEntry t;
  t.name = name;
  t.role = role;
  t.dtype = d.dtype;
  t.shape = d.dims();
  t.addr = d.addr;
  t.size = d.span_bytes();
  t.first = first;
  t.last = last;
  if (init) {
    t.data_offset = exe->data.size();
    for (uint64_t i = 0; i < t.size; ++i)
      exe->data.push_back(static_cast<uint8_t>(i * 31 + 7));
  }
  exe->tensors.push_back(t);
}

// fill, conv2d (+bias, relu), gemm, softmax_ce, sgd (momentum), end: one tiny training step
// of a conv + fc network. Every address is inside a 64 KiB DRAM.
Executable small_program() {
  const TensorDesc x = f32(0x0000, {2, 3, 8, 8});
  const TensorDesc w = f32(0x0800, {4, 3, 3, 3});
  const TensorDesc bias = f32(0x0a00, {4});
  const TensorDesc y = f32(0x1000, {2, 4, 6, 6});
  const TensorDesc fc_w = f32(0x2000, {144, 10});
  const TensorDesc logits = f32(0x4000, {2, 10});
  const TensorDesc labels = TensorDesc::contiguous(0x4100, DType::I32, {2});
  const TensorDesc loss = f32(0x4200, {1});
  const TensorDesc dlogits = f32(0x4300, {2, 10});
  const TensorDesc fc_dw = f32(0x5000, {144, 10});
  const TensorDesc velocity = f32(0x7000, {144, 10});

  Executable exe;
  exe.target = "s2-base";
  Instruction fill(Opcode::Fill);
  fill.set_operand(Slot::Dst, fc_dw);
  fill.set_f32(Field::Value, 0.5f);

  Instruction conv(Opcode::Conv2d);
  conv.set_operand(Slot::X, x);
  conv.set_operand(Slot::W, w);
  conv.set_operand(Slot::Bias, bias);
  conv.set_operand(Slot::Y, y);
  conv.set_raw(Field::Act, static_cast<uint32_t>(Activation::Relu));

  Instruction gemm(Opcode::Gemm);
  gemm.set_operand(Slot::A, f32(y.addr, {2, 144}));
  gemm.set_operand(Slot::B, fc_w);
  gemm.set_operand(Slot::Y, logits);
  gemm.deps = {1};

  Instruction ce(Opcode::SoftmaxCe);
  ce.set_operand(Slot::Logits, logits);
  ce.set_operand(Slot::Labels, labels);
  ce.set_operand(Slot::Loss, loss);
  ce.set_operand(Slot::DLogits, dlogits);
  ce.deps = {2};

  Instruction sgd(Opcode::Sgd);
  sgd.set_operand(Slot::Weight, fc_w);
  sgd.set_operand(Slot::Grad, fc_dw);
  sgd.set_operand(Slot::Velocity, velocity);
  sgd.set_f32(Field::Lr, 0.01f);
  sgd.set_f32(Field::Momentum, 0.9f);
  sgd.set_f32(Field::WeightDecay, 5e-4f);
  sgd.deps = {0, 2};

  Instruction end(Opcode::End);
  end.deps = {3, 4};
  exe.instructions = {fill, conv, gemm, ce, sgd, end};

  add_tensor(&exe, "x", TensorRole::Input, x, 0, 1, true);
  add_tensor(&exe, "conv.w", TensorRole::Weight, w, 0, 5, true);
  add_tensor(&exe, "conv.b", TensorRole::Weight, bias, 0, 5, true);
  add_tensor(&exe, "conv.y", TensorRole::Activation, y, 1, 2, false);
  add_tensor(&exe, "fc.w", TensorRole::Weight, fc_w, 0, 5, true);
  add_tensor(&exe, "logits", TensorRole::Activation, logits, 2, 3, false);
  add_tensor(&exe, "labels", TensorRole::Label, labels, 0, 3, true);
  add_tensor(&exe, "loss", TensorRole::Scratch, loss, 3, 5, false);
  add_tensor(&exe, "dlogits", TensorRole::Gradient, dlogits, 3, 3, false);
  add_tensor(&exe, "fc.dw", TensorRole::WeightGradient, fc_dw, 0, 4, false);
  add_tensor(&exe, "fc.velocity", TensorRole::OptimizerState, velocity, 0, 5, true);

  exe.plan.dram_size = 0x10000;
  exe.plan.arena_base = 0x1000;
  exe.plan.arena_size = 0x6000;
  exe.plan.lower_bound = 0x1400;
  exe.plan.alignment = 256;
  exe.plan.planner = "greedy_by_size";
  exe.debug = {{"fc.dw.zero"}, {"conv", "relu"}, {"fc"}, {"loss"}, {"sgd.fc.w"}, {}};
  return exe;
}

void expect_same(const Executable& a, const Executable& b) {
  EXPECT_EQ(a.target, b.target);
  ASSERT_EQ(a.instructions.size(), b.instructions.size());
  for (size_t i = 0; i < a.instructions.size(); ++i)
    EXPECT_TRUE(a.instructions[i] == b.instructions[i]) << "instruction " << i;
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i)
    EXPECT_TRUE(a.tensors[i] == b.tensors[i]) << "tensor " << a.tensors[i].name;
  EXPECT_EQ(a.data, b.data);
  EXPECT_TRUE(a.plan == b.plan);
  EXPECT_EQ(a.debug, b.debug);
}

// A DRAM image's bytes start zero, whatever their size (calloc: a 1 GiB image costs only the
// pages touched); copies are deep and == compares the contents.
TEST(DramBytes, StartZeroCopyDeepAndCompareByContents) {
  DramBytes big(std::size_t{1} << 30);
  EXPECT_EQ(big.size(), std::size_t{1} << 30);
  for (std::size_t at : {std::size_t{0}, std::size_t{12345}, (std::size_t{1} << 30) - 1})
    EXPECT_EQ(big[at], 0) << at;
  DramBytes a(64);
  a[3] = 7;
  DramBytes b = a;
  EXPECT_TRUE(a == b);
  b[3] = 8;
  EXPECT_EQ(a[3], 7);
  EXPECT_TRUE(a != b);
  EXPECT_TRUE(DramBytes(0) == DramBytes());
  EXPECT_TRUE(DramBytes(4) != DramBytes(5));
}

TEST(Container, SmallProgramIsValid) {
  const Executable exe = small_program();
  for (const Instruction& inst : exe.instructions)
    EXPECT_EQ(check_instruction(inst), std::vector<std::string>{}) << inst.info().mnemonic;
  EXPECT_NO_THROW(validate(exe, "small.bin"));
}

TEST(Container, SerializeThenReadGivesTheSameExecutable) {
  const Executable exe = small_program();
  const std::vector<uint8_t> bytes = serialize(exe);
  expect_same(exe, read_executable(bytes, "small.bin"));
  EXPECT_EQ(serialize(read_executable(bytes, "small.bin")), bytes) << "writer is deterministic";
}

TEST(Container, WithoutDebugInfoThereIsNoDebugSection) {
  Executable exe = small_program();
  exe.debug.clear();
  FileLayout layout;
  expect_same(exe, read_executable(serialize(exe), "nodebug.bin", &layout));
  EXPECT_EQ(layout.sections.size(), 4u);
  EXPECT_EQ(layout.debug_offset, 0u);
}

TEST(Container, FileLayoutIsSensible) {
  const Executable exe = small_program();
  const std::vector<uint8_t> bytes = serialize(exe);
  FileLayout layout;
  read_executable(bytes, "small.bin", &layout);
  EXPECT_EQ(layout.version, 2u) << "a program without host memory is written as version 2";
  const std::vector<SectionKind> kinds = {SectionKind::Instructions, SectionKind::Tensors,
                                          SectionKind::Data, SectionKind::MemoryPlan,
                                          SectionKind::Debug};
  ASSERT_EQ(layout.sections.size(), kinds.size());
  uint64_t previous_end = kHeaderBytes + kinds.size() * kSectionEntryBytes;
  for (size_t i = 0; i < kinds.size(); ++i) {
    const SectionInfo& s = layout.sections[i];
    EXPECT_EQ(s.kind, kinds[i]);
    EXPECT_EQ(s.offset % kSectionAlignment, 0u) << section_name(s.kind);
    EXPECT_GE(s.offset, previous_end) << section_name(s.kind);
    EXPECT_LT(s.offset - previous_end, kSectionAlignment) << "no gap beyond the padding";
    previous_end = s.offset + s.size;
  }
  EXPECT_EQ(previous_end, bytes.size()) << "the last section ends the file";
  EXPECT_EQ(layout.sections[2].size, exe.data.size());
  EXPECT_EQ(layout.data_offset, layout.sections[2].offset);
  EXPECT_EQ(layout.plan_offset, layout.sections[3].offset);
  EXPECT_EQ(layout.debug_offset, layout.sections[4].offset);

  // Instructions follow the u32 count, each where the previous one's words end.
  ASSERT_EQ(layout.instruction_offsets.size(), exe.instructions.size());
  uint64_t at = layout.sections[0].offset + 4;
  for (size_t i = 0; i < exe.instructions.size(); ++i) {
    EXPECT_EQ(layout.instruction_offsets[i], at) << "instruction " << i;
    EXPECT_EQ(bytes[at], static_cast<uint8_t>(exe.instructions[i].opcode()));
    at += 4 * encoded_words(exe.instructions[i]);
  }
  EXPECT_EQ(at, layout.sections[0].offset + layout.sections[0].size);

  // Each tensor entry starts with its u16-length-prefixed name.
  ASSERT_EQ(layout.tensor_offsets.size(), exe.tensors.size());
  EXPECT_EQ(layout.tensor_offsets[0], layout.sections[1].offset + 4);
  for (size_t i = 0; i < exe.tensors.size(); ++i) {
    const uint64_t t = layout.tensor_offsets[i];
    const std::string& name = exe.tensors[i].name;
    EXPECT_EQ(bytes[t] | (bytes[t + 1] << 8), static_cast<int>(name.size()));
    EXPECT_EQ(std::string(bytes.begin() + static_cast<long>(t + 2),
                          bytes.begin() + static_cast<long>(t + 2 + name.size())),
              name);
  }
}

TEST(Container, HeaderFieldsAreWhereTheLayoutSays) {
  const std::vector<uint8_t> bytes = serialize(small_program());
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), std::string("S2TRAIN\0", 8));
  EXPECT_EQ(load_u32(&bytes[8]), 2u);
  EXPECT_EQ(load_u32(&bytes[12]), kHeaderBytes + 5 * kSectionEntryBytes);
  EXPECT_EQ(load_u32(&bytes[16]), 5u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(&bytes[24])), "s2-base");
}

TEST(Container, WriteFileAndLoadRoundTrip) {
  const Executable exe = small_program();
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string path =
      (dir / ("s2_container_test_" + std::to_string(::getpid()) + ".bin")).string();
  write_file(path, serialize(exe));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp")) << "the temporary file is renamed";
  FileLayout layout;
  expect_same(exe, load_executable(path, &layout));
  EXPECT_EQ(layout.sections.size(), 5u);
  std::filesystem::remove(path);
}

// Blocks of zeros become holes in the file (a zeroed optimizer state takes no page cache or
// disk), and the file still reads back byte for byte: zeros at the start, between data, across
// a part boundary, in a part shorter than a block, and at the end (the file keeps its length).
TEST(Container, ZeroBlocksAreHolesThatReadBackAsZeros) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("s2_sparse_test_" + std::to_string(::getpid()) + ".bin"))
                               .string();
  constexpr size_t kBlock = 64 * 1024;
  std::vector<uint8_t> a(5 * kBlock + 123, 0);
  a[2 * kBlock + 7] = 1;  // block 2 holds data
  a[5 * kBlock + 5] = 2;  // so does the partial block at a's end
  const std::vector<uint8_t> b(17, 3);
  std::vector<uint8_t> c(3 * kBlock, 0);  // ends the file in zeros
  c[10] = 4;
  write_file_parts(path, {{a.data(), a.size()}, {b.data(), b.size()}, {c.data(), c.size()}});
  // Copied into place rather than appended: GCC 12 at -O3 reports a false -Warray-bounds on
  // vector::insert here.
  std::vector<uint8_t> expected(a.size() + b.size() + c.size());
  auto end = std::copy(a.begin(), a.end(), expected.begin());
  end = std::copy(b.begin(), b.end(), end);
  std::copy(c.begin(), c.end(), end);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::vector<uint8_t> got(expected.size() + 1);
  EXPECT_EQ(std::fread(got.data(), 1, got.size(), f), expected.size());  // no byte more
  std::fclose(f);
  got.resize(expected.size());
  EXPECT_EQ(got, expected);
  std::filesystem::remove(path);
}

// bn_bwd's gate_act needs format version 4 (its field word); a relu gate keeps version 2, the
// bn_bwd then encoded without the word as older builds read it. Claiming version 3 for a
// version-4 file breaks the bn_bwd's length where it is encoded.
TEST(Container, ANonReluBnBwdGateIsWrittenAsVersion4) {
  auto program = [](const std::string& gate_act) {
    return ".target t\n"
           ".tensor dy scratch f32[2,2,1,1] @0x0 data=fill(1)\n"
           ".tensor x scratch f32[2,2,1,1] @0x40 data=fill(2)\n"
           ".tensor g scratch f32[2] @0x80 data=fill(1)\n"
           ".tensor m scratch f32[2] @0xc0 data=fill(0)\n"
           ".tensor s scratch f32[2] @0x100 data=fill(1)\n"
           ".tensor gate scratch f32[2,2,1,1] @0x140 data=fill(0.5)\n"
           ".tensor dx scratch f32[2,2,1,1] @0x180\n"
           ".tensor dg scratch f32[2] @0x1c0\n"
           ".tensor db scratch f32[2] @0x200\n"
           "bn_bwd dy=dy x=x gamma=g mean=m invstd=s gate=gate dx=dx dgamma=dg dbeta=db" +
           gate_act + "\nend deps=0\n";
  };
  const Executable silu = assemble(program(" gate_act=silu"), "silu.s2asm");
  EXPECT_NO_THROW(validate(silu, "silu.s2asm"));
  std::vector<uint8_t> bytes = serialize(silu);
  EXPECT_EQ(load_u32(&bytes[8]), 4u);
  FileLayout layout;
  const Executable back = read_executable(bytes, "silu.bin", &layout);
  EXPECT_EQ(back.instructions, silu.instructions);
  EXPECT_EQ(back.instructions[0].as<GateAct>(Field::GateAct), GateAct::Silu);
  const std::string text = disassemble(back);
  EXPECT_NE(text.find("gate_act=silu"), std::string::npos) << text;
  EXPECT_EQ(serialize(assemble(text, "again.s2asm")), bytes);

  // bn_bwd's length: 2 header words, the field word, 9 descriptors of 11 words.
  EXPECT_EQ(load_u32(&bytes[layout.instruction_offsets[0]]) >> 16, 102u);

  const Executable relu = assemble(program(""), "relu.s2asm");
  const std::vector<uint8_t> plain = serialize(relu);
  EXPECT_EQ(load_u32(&plain[8]), 2u);
  FileLayout plain_layout;
  EXPECT_EQ(read_executable(plain, "relu.bin", &plain_layout).instructions, relu.instructions);
  EXPECT_EQ(load_u32(&plain[plain_layout.instruction_offsets[0]]) >> 16, 101u);

  store_u32(&bytes[8], 3);  // then the header CRC (at 20) over the header and section table
  store_u32(&bytes[20], 0);
  store_u32(&bytes[20],
            crc32(bytes.data(), kHeaderBytes + layout.sections.size() * kSectionEntryBytes));
  try {
    read_executable(bytes, "v3.bin");
    ADD_FAILURE() << "a version-4 bn_bwd read as version 3";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "instruction 0: bn_bwd: length field says 102 words, the operands and "
                  "dependencies take 101"),
              std::string::npos)
        << e.what();
  }
}

// A tensor whose initial contents are zeros (the compiler's zeroed optimizer state) takes no
// bytes of the data section, reads back as such, starts as zeros in the DRAM image and
// disassembles as data=zeros.
TEST(Container, ZeroInitialDataTakesNoBytes) {
  Executable exe = small_program();
  TensorEntry& velocity = exe.tensors.back();
  ASSERT_EQ(velocity.name, "fc.velocity");
  ASSERT_EQ(velocity.data_offset + velocity.size, exe.data.size());  // its bytes end the section
  exe.data.resize(exe.data.size() - velocity.size);
  velocity.data_offset = kZeroData;
  EXPECT_TRUE(velocity.has_data());
  EXPECT_TRUE(velocity.zero_data());
  const std::vector<uint8_t> bytes = serialize(exe);
  EXPECT_EQ(load_u32(&bytes[8]), 2u);
  const Executable back = read_executable(bytes, "zeros.bin");
  expect_same(exe, back);
  const DramBytes dram = initial_dram(back);
  const auto at = static_cast<std::ptrdiff_t>(velocity.addr);
  EXPECT_TRUE(std::all_of(dram.begin() + at,
                          dram.begin() + at + static_cast<std::ptrdiff_t>(velocity.size),
                          [](uint8_t b) { return b == 0; }));
  const TensorEntry& w = back.tensors[1];  // conv.w keeps its bytes
  EXPECT_EQ(dram[w.addr], back.data[w.data_offset]);
  EXPECT_EQ(dram[w.addr + 5], back.data[w.data_offset + 5]);
  DisasmOptions all;
  all.data_limit = 0;
  const std::string listing = disassemble(back, all);
  EXPECT_NE(listing.find("life=0..5 data=zeros\n"), std::string::npos) << listing;
  const Executable again = assemble(listing, "listing");
  EXPECT_TRUE(again.tensors.back().zero_data());
  EXPECT_EQ(disassemble(again, all), listing);
}

TEST(Container, LoadingAMissingFileNamesIt) {
  const std::string path = "/nonexistent/dir/model.bin";
  try {
    load_executable(path);
    FAIL() << "loaded a missing file";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": cannot open"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_executable(std::filesystem::temp_directory_path().string()), UserError);
}

TEST(Container, WritingToAnUnwritablePathIsAUserError) {
  EXPECT_THROW(write_file("/nonexistent/dir/model.bin", {1, 2, 3}), UserError);
}

TEST(Container, ValidateWithoutLayoutNamesTheFile) {
  Executable exe = small_program();
  exe.instructions.pop_back();
  try {
    validate(exe, "prog.bin");
    FAIL() << "accepted a program without end";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("prog.bin: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("the last instruction must be 'end'"), std::string::npos);
  }
}

// ---- semantic checks of single instructions ------------------------------------------------

// The first problem check_instruction finds (empty when none).
std::string first_problem(const Instruction& inst) {
  const std::vector<std::string> problems = check_instruction(inst);
  return problems.empty() ? "" : problems.front();
}

Instruction program_instruction(Opcode op) {
  for (const Instruction& inst : small_program().instructions)
    if (inst.opcode() == op) return inst;
  throw InternalError("no such instruction in the small program");
}

#define EXPECT_PROBLEM(inst, text) \
  EXPECT_NE(first_problem(inst).find(text), std::string::npos) << "got: " << first_problem(inst)

TEST(Semantics, Conv2dOutputShapeMustMatchTheGeometry) {
  Instruction conv = program_instruction(Opcode::Conv2d);
  conv.set_operand(Slot::Y, f32(0x1000, {2, 4, 8, 8}));
  EXPECT_PROBLEM(conv, "operand 'y' has shape [2,4,8,8], expected [2,4,6,6]");
  conv.set_raw(Field::PadTop, 1);
  conv.set_raw(Field::PadBottom, 1);
  conv.set_raw(Field::PadLeft, 1);
  conv.set_raw(Field::PadRight, 1);
  EXPECT_EQ(first_problem(conv), "") << "padding 1 keeps 8x8";
  conv.set_raw(Field::StrideH, 2);
  EXPECT_PROBLEM(conv, "expected [2,4,4,8]");
}

TEST(Semantics, Conv2dEpilogueAndGroups) {
  Instruction conv = program_instruction(Opcode::Conv2d);
  conv.set_operand(Slot::Bias, f32(0, {5}));
  EXPECT_PROBLEM(conv, "operand 'bias' has shape [5], expected [4]");
  conv = program_instruction(Opcode::Conv2d);
  conv.set_operand(Slot::Stats, f32(0, {2, 5}));
  EXPECT_PROBLEM(conv, "operand 'stats' has shape [2,5], expected [2,4]");
  conv = program_instruction(Opcode::Conv2d);
  conv.set_raw(Field::Groups, 2);
  EXPECT_PROBLEM(conv, "groups 2 must divide the input channels 3");
  conv = program_instruction(Opcode::Conv2d);
  conv.set_operand(Slot::W, f32(0x800, {4, 2, 3, 3}));
  EXPECT_PROBLEM(conv, "take 2 channels per group");
  conv = program_instruction(Opcode::Conv2d);
  conv.set_operand(Slot::W, f32(0x800, {4, 3, 9, 9}));
  EXPECT_PROBLEM(conv, "window 9x9 does not fit the padded input [2,3,8,8]");
}

TEST(Semantics, GemmInnerDimensionsMustAgree) {
  Instruction gemm = program_instruction(Opcode::Gemm);
  gemm.set_operand(Slot::B, f32(0x2000, {100, 10}));
  EXPECT_PROBLEM(gemm,
                 "inner dimensions differ: 'a' [2,144] gives K=144, 'b' [100,10] gives K=100");
  gemm.set_raw(Field::TransB, 1);
  gemm.set_operand(Slot::B, f32(0x2000, {10, 144}));
  EXPECT_EQ(first_problem(gemm), "") << "b read transposed";
  gemm.set_operand(Slot::Y, f32(0x4000, {10, 2}));
  EXPECT_PROBLEM(gemm, "operand 'y' has shape [10,2], expected [2,10]");
}

// gate_act picks the gate stage's function; without a gate it would do nothing, so anything
// but its default is refused there. Old gates (no field written: 0) read as relu's mask.
TEST(Semantics, GateActNeedsAGate) {
  Instruction gemm = program_instruction(Opcode::Gemm);
  ASSERT_EQ(gemm.as<GateAct>(Field::GateAct), GateAct::Relu);
  gemm.set_raw(Field::GateAct, static_cast<uint32_t>(GateAct::Gelu));
  EXPECT_PROBLEM(gemm, "field 'gate_act' applies only with a 'gate' operand");
  gemm.set_operand(Slot::Gate, f32(0x4800, {2, 10}));
  EXPECT_EQ(first_problem(gemm), "");
}

// pre (the activation's input, what a training step's backward reads) has the output's shape
// and exists only beside an activation: without one it would be y itself.
TEST(Semantics, PreNeedsAnActivationAndTheOutputsShape) {
  for (const Opcode op : {Opcode::Conv2d, Opcode::Gemm}) {
    SCOPED_TRACE(opcode_info(op).mnemonic);
    Instruction inst = program_instruction(op);
    inst.set_raw(Field::Act, static_cast<uint32_t>(Activation::None));
    TensorDesc pre = inst.get(Slot::Y);
    pre.addr += 0x100000;
    inst.set_operand(Slot::Pre, pre);
    EXPECT_PROBLEM(inst, "operand 'pre' needs an activation (field 'act')");
    inst.set_raw(Field::Act, static_cast<uint32_t>(Activation::Silu));
    EXPECT_EQ(first_problem(inst), "");
    pre.shape[1] += 1;
    pre = TensorDesc::contiguous(pre.addr, pre.dtype, pre.dims());
    inst.set_operand(Slot::Pre, pre);
    EXPECT_PROBLEM(inst, "operand 'pre' has shape");
  }
}

TEST(Semantics, SoftmaxCeShapes) {
  Instruction ce = program_instruction(Opcode::SoftmaxCe);
  ce.set_operand(Slot::Labels, TensorDesc::contiguous(0x4100, DType::I32, {3}));
  EXPECT_PROBLEM(ce, "operand 'labels' has shape [3], expected [2] (one label per row");
  ce = program_instruction(Opcode::SoftmaxCe);
  ce.set_operand(Slot::Labels, f32(0x4100, {2}));
  EXPECT_PROBLEM(ce, "operand 'labels' has element type f32, expected i32");
  ce = program_instruction(Opcode::SoftmaxCe);
  ce.set_operand(Slot::Loss, f32(0x4200, {2}));
  EXPECT_PROBLEM(ce, "operand 'loss' has shape [2], expected [1]");
  ce = program_instruction(Opcode::SoftmaxCe);
  ce.set_operand(Slot::DLogits, f32(0x4300, {2, 11}));
  EXPECT_PROBLEM(ce, "operand 'dlogits' has shape [2,11], expected [2,10]");
  // dloss, the incoming gradient of a weighted loss term, scales dlogits: a scalar, and only
  // with dlogits.
  ce = program_instruction(Opcode::SoftmaxCe);
  ce.set_operand(Slot::DLogits, f32(0x4300, {2, 10}));
  ce.set_operand(Slot::DLoss, f32(0x4400, {2}));
  EXPECT_PROBLEM(ce, "operand 'dloss' has shape [2], expected [1]");
  ce.set_operand(Slot::DLoss, f32(0x4400, {1}));
  EXPECT_EQ(first_problem(ce), "");
  ce.clear_operand(Slot::DLogits);
  EXPECT_PROBLEM(ce, "softmax_ce reads 'dloss' but writes no 'dlogits' for it to scale");
}

TEST(Semantics, SignatureRules) {
  Instruction conv = program_instruction(Opcode::Conv2d);
  conv.clear_operand(Slot::X);
  EXPECT_PROBLEM(conv, "required operand 'x' is missing");
  conv = program_instruction(Opcode::Conv2d);
  conv.set_operand(Slot::X, f32(0, {3, 8, 8}));
  EXPECT_PROBLEM(conv, "operand 'x' has rank 3, expected 4");
  conv = program_instruction(Opcode::Conv2d);
  conv.set_raw(Field::StrideW, 0);
  EXPECT_PROBLEM(conv, "field 'stride_w' is 0, minimum 1");
  conv = program_instruction(Opcode::Conv2d);
  conv.set_raw(Field::Act, 9);
  EXPECT_PROBLEM(conv, "field 'act' has no activation with value 9");
}

TEST(Semantics, PpuAndDmaRules) {
  Instruction sgd = program_instruction(Opcode::Sgd);
  sgd.clear_operand(Slot::Velocity);
  EXPECT_PROBLEM(sgd, "momentum is not zero but operand 'velocity' is missing");
  sgd = program_instruction(Opcode::Sgd);
  sgd.set_operand(Slot::Grad, f32(0x5000, {144, 9}));
  EXPECT_PROBLEM(sgd, "operand 'grad' has 1296 elements, 'weight' has 1440");

  Instruction copy(Opcode::Copy);
  copy.set_operand(Slot::Src, f32(0, {4}));
  copy.set_operand(Slot::Dst, TensorDesc::contiguous(64, DType::I32, {4}));
  EXPECT_PROBLEM(copy, "copy converts no element types");

  Instruction add(Opcode::Eltwise);
  add.set_raw(Field::Op, static_cast<uint32_t>(EltwiseOp::Add));
  add.set_operand(Slot::A, f32(0, {4}));
  add.set_operand(Slot::Y, f32(64, {4}));
  EXPECT_PROBLEM(add, "eltwise op needs operand 'b'");
  add.set_raw(Field::Op, static_cast<uint32_t>(EltwiseOp::Relu));
  EXPECT_EQ(first_problem(add), "");

  Instruction reduce(Opcode::Reduce);
  reduce.set_raw(Field::Reduce, static_cast<uint32_t>(ReduceOp::Sum));
  reduce.set_raw(Field::Axes, 0b100);
  reduce.set_operand(Slot::X, f32(0, {4, 5}));
  reduce.set_operand(Slot::Y, f32(128, {4}));
  EXPECT_PROBLEM(reduce, "axes mask 4 names dimensions past the rank 2 of 'x'");
  reduce.set_raw(Field::Axes, 0b10);
  EXPECT_EQ(first_problem(reduce), "");

  Instruction pool(Opcode::MaxPoolFwd);
  pool.set_raw(Field::KernelH, 2);
  pool.set_raw(Field::KernelW, 2);
  pool.set_raw(Field::PadTop, 2);
  pool.set_operand(Slot::X, f32(0, {1, 1, 4, 4}));
  pool.set_operand(Slot::Y, f32(256, {1, 1, 4, 3}));
  EXPECT_PROBLEM(pool, "padding must be at most half the pooling window");
}

// Found by the execute fuzz target: a fill whose destination repeated 805306370 times through a
// zero stride made the timing plan allocate gigabytes. An output's elements need distinct
// addresses; any layout a tensor is stored in (dense, permuted, sliced) has them.
TEST(Semantics, AnOutputWritesEachElementOnce) {
  auto with_strides = [](TensorDesc d, std::vector<uint32_t> strides) {
    for (size_t i = 0; i < strides.size(); ++i)
      d.strides[i] = strides[i];
    return d;
  };
  Instruction relu(Opcode::Eltwise);
  relu.set_raw(Field::Op, static_cast<uint32_t>(EltwiseOp::Relu));
  relu.set_operand(Slot::A, f32(0, {2, 3, 4}));
  for (const std::vector<uint32_t>& strides :
       std::vector<std::vector<uint32_t>>{{12, 4, 1},      // dense
                                          {1, 8, 2},       // permuted: channels innermost
                                          {40, 10, 2}}) {  // a strided slice of a larger tensor
    relu.set_operand(Slot::Y, with_strides(f32(4096, {2, 3, 4}), strides));
    EXPECT_EQ(first_problem(relu), "") << strides[0] << "," << strides[1] << "," << strides[2];
  }
  relu.set_operand(Slot::A, f32(0, {2, 1, 4}));
  relu.set_operand(Slot::Y, with_strides(f32(4096, {2, 1, 4}), {4, 0, 1}));
  EXPECT_EQ(first_problem(relu), "") << "a size-1 dimension's stride is never used";

  relu.set_operand(Slot::A, f32(0, {2, 3, 4}));
  relu.set_operand(Slot::Y, with_strides(f32(4096, {2, 3, 4}), {12, 0, 1}));
  EXPECT_PROBLEM(relu,
                 "output operand 'y' writes some elements more than once: dimension 1 has stride "
                 "0 and extent 3 (each element an instruction writes needs its own address)");
  relu.set_operand(Slot::Y, with_strides(f32(4096, {2, 3, 4}), {12, 3, 1}));
  EXPECT_PROBLEM(relu,
                 "dimension 1 (stride 3) steps inside the 4 elements the finer dimensions span");
  // Inputs may repeat (a broadcast bias, an attention mask); in-out operands may not.
  relu.set_operand(Slot::A, with_strides(f32(0, {2, 3, 4}), {0, 0, 1}));
  relu.set_operand(Slot::Y, f32(4096, {2, 3, 4}));
  EXPECT_EQ(first_problem(relu), "");
  Instruction sgd = program_instruction(Opcode::Sgd);
  TensorDesc w = sgd.get(Slot::Weight);
  w.strides[0] = 0;
  sgd.set_operand(Slot::Weight, w);
  EXPECT_PROBLEM(sgd, "output operand 'weight' writes some elements more than once: dimension 0");
}

// The same fuzz run's other face: an input repeated through zero strides past the program's
// memory (a sum of 115964117280 elements over 1 KiB of DRAM) promised work without bound. An
// operand describes at most one element per byte of its memory; a broadcast of any tensor the
// program holds stays well inside that.
TEST(Container, AnOperandDescribesAtMostOneElementPerByteOfItsMemory) {
  Executable exe = small_program();
  Instruction reduce(Opcode::Reduce);
  reduce.set_raw(Field::Reduce, static_cast<uint32_t>(ReduceOp::Sum));
  reduce.set_raw(Field::Axes, 0b11);
  TensorDesc x = f32(0, {static_cast<uint32_t>(exe.plan.dram_size), 1});
  x.strides = {0, 1, 0, 0};
  reduce.set_operand(Slot::X, x);
  reduce.set_operand(Slot::Y, f32(0, {1}));
  exe.instructions.insert(exe.instructions.end() - 1, reduce);
  exe.debug.clear();
  EXPECT_NO_THROW(validate(exe, "prog.bin")) << "exactly one element per byte";
  x.shape[0] += 1;
  exe.instructions[exe.instructions.size() - 2].set_operand(Slot::X, x);
  try {
    validate(exe, "prog.bin");
    FAIL() << "accepted an operand of more elements than DRAM bytes";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("(reduce): operand 'x' describes " +
                                         std::to_string(exe.plan.dram_size + 1) +
                                         " elements, more than the DRAM size of " +
                                         std::to_string(exe.plan.dram_size) + " bytes"),
              std::string::npos)
        << e.what();
  }
}

TEST(Semantics, WindowOutputSizeFollowsPyTorch) {
  EXPECT_EQ(window_output_size(8, 0, 0, 3, 1, 1, false), 6u);
  EXPECT_EQ(window_output_size(5, 0, 0, 2, 2, 1, false), 2u);
  EXPECT_EQ(window_output_size(5, 0, 0, 2, 2, 1, true), 3u);
  // ceil_mode: the last window may not start in the trailing padding.
  EXPECT_EQ(window_output_size(5, 1, 1, 2, 2, 1, true), 3u);
  EXPECT_EQ(window_output_size(6, 1, 1, 3, 2, 1, true), 4u);
  EXPECT_EQ(window_output_size(8, 2, 2, 3, 1, 2, false), 8u);  // dilated 3x3 = 5 taps wide
  EXPECT_EQ(window_output_size(2, 0, 0, 3, 1, 1, false), 0u);  // does not fit
  EXPECT_EQ(window_output_size(4, 0, 0, 0, 1, 1, false), 0u);
  EXPECT_EQ(window_output_size(4, 0, 0, 2, 0, 1, false), 0u);
}

}  // namespace
}  // namespace s2::isa
