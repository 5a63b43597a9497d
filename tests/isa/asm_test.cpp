// The assembler and disassembler: canonical text round-trips exactly through the binary, and
// every malformed input is reported at its file, line and column.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "isa/asm/assembler.h"
#include "isa/asm/disassembler.h"
#include "isa/common/errors.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"

namespace s2::isa {
namespace {

std::string read_text(const std::string& relative) {
  std::ifstream in(std::string(S2_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(in) << "cannot open " << relative;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

DisasmOptions all_data() {
  DisasmOptions o;
  o.data_limit = 0;
  return o;
}

// assemble -> write -> read -> disassemble.
std::string through_binary(const std::string& text, const std::string& name) {
  const Executable exe = assemble(text, name);
  const Executable back = read_executable(serialize(exe), name + ".bin");
  return disassemble(back, all_data());
}

TEST(Asm, CanonicalGoldensRoundTripExactly) {
  for (const char* golden :
       {"tests/isa/golden/all_opcodes.s2asm", "tests/isa/golden/mlp_step.s2asm"}) {
    const std::string text = read_text(golden);
    EXPECT_EQ(through_binary(text, golden), text) << golden;
  }
}

TEST(Asm, ExampleAssemblesToItsCanonicalForm) {
  const std::string source = read_text("docs/examples/mlp_step.s2asm");
  EXPECT_EQ(through_binary(source, "mlp_step.s2asm"), read_text("tests/isa/golden/mlp_step.s2asm"));
}

TEST(Asm, BinaryRoundTripsThroughText) {
  const Executable exe = assemble(read_text("docs/examples/mlp_step.s2asm"), "mlp_step.s2asm");
  const std::vector<uint8_t> bytes = serialize(exe);
  const Executable again = assemble(disassemble(exe, all_data()), "listing");
  EXPECT_EQ(serialize(again), bytes);
}

// Issue 19's findings: names the container holds but bare assembly cannot spell (an empty
// target, ONNX names with spaces, brackets, commas, quotes, ';', control bytes), and a size-1
// dimension with a nonzero stride, all read back to the same bytes.
TEST(Asm, EveryValidExecutableRoundTripsThroughText) {
  Executable exe = assemble(read_text("docs/examples/mlp_step.s2asm"), "mlp_step.s2asm");
  const std::vector<std::string> names = {"a b[0]",      "x,y",        "q\"u\\ote", "semi;colon",
                                          "tab\there\n", "f32[2]@0x0", "=eq",       "caf\xc3\xa9"};
  exe.target = "";
  exe.plan.planner = "my planner";
  ASSERT_GE(exe.tensors.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i)
    exe.tensors[i].name = names[i];
  exe.debug.resize(exe.instructions.size());
  exe.debug[0] = {"/layer 1/Conv", "a,b", ""};
  // A size-1 dimension whose stride is not the dense one: it addresses nothing but is encoded.
  // (sgd's gradient [K] read as [1, K] with a row stride of K + 7.)
  bool strided = false;
  for (Instruction& inst : exe.instructions)
    if (auto d = inst.has_slot(Slot::Grad) ? inst.operand(Slot::Grad) : std::nullopt;
        !strided && d && d->rank == 1) {
      const uint32_t k = d->shape[0];
      d->rank = 2;
      d->shape = {1, k, 0, 0};
      d->strides = {k + 7, 1, 0, 0};
      inst.set_operand(Slot::Grad, *d);
      strided = true;
    }
  ASSERT_TRUE(strided) << "no sgd with a 1-D gradient in mlp_step";
  const std::vector<uint8_t> bytes = serialize(exe);
  const Executable valid = read_executable(bytes, "odd.bin");  // the reader accepts it
  const std::string listing = disassemble(valid, all_data());
  EXPECT_NE(listing.find(".target \"\"\n"), std::string::npos) << listing;
  EXPECT_NE(listing.find("\"q\\\"u\\\\ote\""), std::string::npos) << listing;
  EXPECT_NE(listing.find("\"tab\\x09here\\x0a\""), std::string::npos) << listing;
  EXPECT_NE(listing.find("from=\"/layer 1/Conv\",\"a,b\",\"\""), std::string::npos) << listing;
  EXPECT_EQ(serialize(assemble(listing, "listing")), bytes);
}

// An operand prints as the name of the first tensor in table order with its memory, address,
// element type and shape (dense strides), else as its descriptor. The listing finds that
// tensor through a hash of the table (issue 19 point 4: a scan per operand made a listing of
// 40000 copies take 1.41 s, four times as long with each doubling); a chain of 20000 copies
// names every operand and reads back to the same bytes.
TEST(Asm, OperandsNameTheFirstTensorTheyMatchExactly) {
  const std::string text =
      ".target s2train_base\n.dram 0x100\n"
      ".tensor a activation f32[16] @0x0\n"
      ".tensor b activation f32[16] @0x0\n"
      ".tensor c activation f32[4,4] @0x0\n"
      ".tensor d activation f32[16] @0x40\n"
      "0: copy src=b dst=d\n"
      "1: copy src=c dst=f32[4,4]@0x40 deps=0\n"
      "2: copy src=f32[16]{1}@0x40 dst=f32[2,8]{8,1}@0x80 deps=1\n"
      "3: copy src=f32[2,8]{1,2}@0x0 dst=f32[16]@0x80 deps=2\n"
      "4: end deps=3\n";
  const std::vector<std::string> lines = format_instructions(assemble(text, "alias.s2asm"));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "copy src=a dst=d", "copy src=c dst=f32[4,4]@0x40 deps=0",
                       "copy src=d dst=f32[2,8]@0x80 deps=1",
                       "copy src=f32[2,8]{1,2}@0x0 dst=f32[16]@0x80 deps=2", "end deps=3"}));

  constexpr int kCopies = 20000;
  std::string chain = ".target s2train_base\n.dram " + std::to_string(64 * (kCopies + 1)) + "\n";
  for (int i = 0; i <= kCopies; ++i)
    chain +=
        ".tensor t" + std::to_string(i) + " activation f32[16] @" + std::to_string(64 * i) + "\n";
  for (int i = 0; i < kCopies; ++i)
    chain += std::to_string(i) + ": copy src=t" + std::to_string(i) + " dst=t" +
             std::to_string(i + 1) + (i > 0 ? " deps=" + std::to_string(i - 1) : "") + "\n";
  chain += std::to_string(kCopies) + ": end deps=" + std::to_string(kCopies - 1) + "\n";
  const Executable exe = assemble(chain, "chain.s2asm");
  const std::vector<std::string> listed = format_instructions(exe);
  ASSERT_EQ(listed.size(), kCopies + 1u);
  EXPECT_EQ(listed[0], "copy src=t0 dst=t1");
  EXPECT_EQ(listed[kCopies - 1], "copy src=t19999 dst=t20000 deps=19998");
  EXPECT_EQ(serialize(assemble(disassemble(exe), "listing")), serialize(exe));
}

TEST(Asm, MalformedQuotedNamesNameTheirPlace) {
  auto error = [](const std::string& text) {
    try {
      assemble(text, "q.s2asm");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(".target \"open\n"),
            "q.s2asm:1:9: quoted name opened here is not closed on its line");
  EXPECT_EQ(error(".target \"a\\q\"\n"),
            "q.s2asm:1:9: bad escape in \"a\\q\" (known: \\\", \\\\, \\xHH)");
  EXPECT_EQ(error(".target \"a\"b\n"),
            "q.s2asm:1:9: unexpected text after the closing quote of \"a\"b");
}

TEST(Asm, GoldenCoversEveryOpcode) {
  const Executable exe = assemble(read_text("tests/isa/golden/all_opcodes.s2asm"), "all_opcodes");
  std::set<Opcode> used;
  for (const Instruction& inst : exe.instructions)
    used.insert(inst.opcode());
  for (const OpcodeInfo& info : opcode_table())
    EXPECT_TRUE(used.count(info.id))
        << "tests/isa/golden/all_opcodes.s2asm does not use '" << info.mnemonic << "'; add it";
}

TEST(Asm, LargeDataIsElidedUnlessAsked) {
  const Executable exe = assemble(read_text("docs/examples/mlp_step.s2asm"), "mlp_step.s2asm");
  const std::string listing = disassemble(exe);  // default limit: 64 elements
  EXPECT_NE(listing.find("data=<512 bytes crc32=0x"), std::string::npos) << listing;
  EXPECT_NE(listing.find("data=[0, 2, 1, 2]"), std::string::npos);
  try {
    assemble(listing, "elided.s2asm");
    FAIL() << "elided data was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("disassemble with --data"), std::string::npos) << e.what();
  }
}

TEST(Asm, SpecialFloatsSurvive) {
  const std::string text =
      ".target t\n.tensor v weight f32[6] @0x0 data=[-0, inf, -inf, nan, nan:0x7fc00001, 1e-45]\n"
      "fill dst=v value=-0\nend deps=0\n";
  const Executable exe = assemble(text, "f.s2asm");
  const std::string listing = disassemble(exe, all_data());
  EXPECT_NE(listing.find("data=[-0, inf, -inf, nan, nan:0x7fc00001, 1e-45]"), std::string::npos)
      << listing;
  EXPECT_NE(listing.find("fill dst=v value=-0"), std::string::npos) << listing;
}

// bf16 and f16 data: every value prints as the decimal it widens to (exact), a NaN other than
// the canonical one as its bit pattern, and reads back to the same bits.
TEST(Asm, SixteenBitFloatsSurvive) {
  const std::string text =
      ".target t\n"
      ".tensor b weight bf16[6] @0x0 data=[-0, inf, 1.5, nan, nan:0xff81, 0.1]\n"
      ".tensor h weight f16[6] @0x40 data=[65504, 5.960464477539063e-08, -inf, nan:0x7c01, "
      "0.1, 1e9]\n"
      "cast x=b y=h\nend deps=0\n";
  const Executable exe = assemble(text, "h.s2asm");
  const std::string listing = disassemble(exe, all_data());
  // 0.1 rounds to bf16 0x3DCD = 0.10009765625 and to f16 0x2E66 = 0.0999755859375 (printed
  // as the shortest f32 text of each); 1e9 overflows f16 to infinity.
  EXPECT_NE(listing.find("data=[-0, inf, 1.5, nan, nan:0xff81, 0.100097656]"), std::string::npos)
      << listing;
  EXPECT_NE(listing.find("data=[65504, 5.9604645e-08, -inf, nan:0x7c01, 0.099975586, inf]"),
            std::string::npos)
      << listing;
  EXPECT_EQ(serialize(assemble(listing, "listing")), serialize(exe));
  try {
    assemble(".target t\n.tensor h weight f16[1] @0x0 data=[nan:0x7c00]\nend deps=0\n", "n.s2asm");
    FAIL() << "an infinity's pattern was accepted as a NaN";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'nan:0x7c00' is not the bit pattern of a f16 NaN"),
              std::string::npos)
        << e.what();
  }
}

// Each bad input: the source, then the expected start of the first message line.
struct BadCase {
  const char* name;
  const char* source;
  const char* message;
};

class AsmErrors : public testing::TestWithParam<BadCase> {};

TEST_P(AsmErrors, NamesFileLineAndColumn) {
  const BadCase& c = GetParam();
  try {
    assemble(c.source, "bad.s2asm");
    FAIL() << "accepted: " << c.source;
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(c.message, 0), 0u)
        << "got:      " << e.what() << "\nexpected: " << c.message;
  }
}

constexpr const char* kHead = ".target t\n.tensor a weight f32[2,3] @0x0\n";

INSTANTIATE_TEST_SUITE_P(
    Cases, AsmErrors,
    testing::Values(
        BadCase{"MissingTarget", "end\n", "bad.s2asm:1:1: missing '.target NAME' directive"},
        BadCase{"UnknownDirective", ".target t\n.bogus 1\nend\n",
                "bad.s2asm:2:1: unknown directive '.bogus'"},
        BadCase{"UnknownMnemonic", ".target t\n  frob x=1\n",
                "bad.s2asm:2:3: unknown mnemonic 'frob'"},
        BadCase{"UnknownKey",
                ".target t\n.tensor a weight f32[2,3] @0x0\nfill dst=a colour=red\nend\n",
                "bad.s2asm:3:12: 'fill' has no operand or field 'colour'"},
        BadCase{"BadEnum",
                ".target t\n.tensor a weight f32[2,3] @0x0\neltwise a=a y=a op=frob\nend\n",
                "bad.s2asm:3:17: op: unknown value 'frob' (known: add, sub, mul"},
        BadCase{"MissingRequiredField",
                ".target t\n.tensor a weight f32[2,3] @0x0\nsgd weight=a grad=a\nend\n",
                "bad.s2asm:3:1: required field 'lr' is missing"},
        BadCase{"MissingOperand", ".target t\n.tensor a weight f32[2,3] @0x0\ncopy src=a\nend\n",
                "bad.s2asm:3:1: copy: required operand 'dst' is missing"},
        BadCase{"UndeclaredTensor", ".target t\nfill dst=nothing\nend\n",
                "bad.s2asm:2:6: 'nothing' is neither a declared tensor nor a descriptor"},
        BadCase{
            "ShapeMismatch",
            ".target t\n.tensor x input f32[1,1,4,4] @0x0\n.tensor w weight f32[2,1,3,3] @0x100\n"
            ".tensor y activation f32[1,2,4,4] @0x200\nconv2d x=x w=w y=y\nend\n",
            "bad.s2asm:5:1: conv2d: operand 'y' has shape [1,2,4,4], expected [1,2,2,2]"},
        BadCase{"LaterDependency",
                ".target t\n.tensor a weight f32[2,3] @0x0\nfill dst=a deps=0\nend\n",
                "bad.s2asm:3:12: dependency on instruction 0, which is not earlier than 0"},
        BadCase{"IndexMismatch", ".target t\n.tensor a weight f32[2,3] @0x0\n 5: fill dst=a\nend\n",
                "bad.s2asm:3:2: index 5 but this is instruction 0"},
        BadCase{"BadNumber", ".target t\n.tensor a weight f32[2,x] @0x0\nend\n",
                "bad.s2asm:2:18: dimension: expected a non-negative integer"},
        BadCase{"DataCount", ".target t\n.tensor a weight f32[2,3] @0x0 data=[1,2]\nend\n",
                "bad.s2asm:2:32: data has 2 values, tensor 'a' has 6 elements"},
        BadCase{"FillTooLarge",
                ".target t\n.tensor a weight f32[65536,1025] @0x0 data=fill(1)\nend\n",
                "bad.s2asm:2:39: data: fill(v) of tensor 'a' would expand to 268697600 bytes, "
                "more than the limit of 268435456; use data=zeros for zeros"},
        // Each fill below the limit, together above it: a few short lines must not ask for
        // gigabytes either.
        BadCase{"FillsTooLargeTogether",
                ".target t\n.tensor a weight f32[33554432] @0x0 data=fill(1)\n"
                ".tensor b weight f32[33554433] @0x8000000 data=fill(2)\nend\n",
                "bad.s2asm:3:43: data: fill(v) of tensor 'b' would expand to 134217732 bytes, "
                "and the fills before it to 134217728: more than the limit of 268435456 for a "
                "file's fills together; use data=zeros for zeros"},
        BadCase{"BadFill", ".target t\n.tensor a weight f32[2] @0x0 data=fill(zz)\nend\n",
                "bad.s2asm:2:30: data: 'zz' is not an f32 value"},
        BadCase{"BadFloat", ".target t\n.tensor a weight f32[2] @0x0 data=[1,zz]\nend\n",
                "bad.s2asm:2:30: data: 'zz' is not an f32 value"},
        BadCase{"UnclosedBracket", ".target t\n.tensor a weight f32[2] @0x0 data=[1,\n",
                "bad.s2asm:2:35: bracket opened here is never closed"},
        BadCase{"DuplicateTensor",
                ".target t\n.tensor a weight f32[2] @0x0\n.tensor a weight f32[2] @0x40\nend\n",
                "bad.s2asm:3:9: tensor 'a' declared twice"},
        BadCase{"UnknownRole", ".target t\n.tensor a wieght f32[2] @0x0\nend\n",
                "bad.s2asm:2:11: unknown role 'wieght' (known: weight, activation"},
        BadCase{"FieldTooWide",
                ".target t\n.tensor a weight f32[2] @0x0\nmaxpool_fwd x=a y=a kernel_h=300 "
                "kernel_w=1\nend\n",
                "bad.s2asm:3:21: kernel_h: 300 does not fit in 8 bits"},
        BadCase{"NoEnd", ".target t\n.tensor a weight f32[2] @0x0\nfill dst=a\n",
                "bad.s2asm: instruction 0 (fill): the last instruction must be 'end'"},
        BadCase{"EndInMiddle", ".target t\nend\nend\n",
                "bad.s2asm: instruction 0 (end): 'end' before the last instruction"},
        BadCase{"OutsideDram",
                ".target t\n.dram 0x10\n.tensor a weight f32[8] @0x0\nfill dst=a\nend\n",
                "bad.s2asm: instruction 0 (fill): operand 'dst' descriptor outside DRAM"}),
    [](const testing::TestParamInfo<BadCase>& p) { return std::string(p.param.name); });

TEST(Asm, ReportsEveryBadLineAtOnce) {
  try {
    assemble(".target t\nfrob\nfill dst=nothing\nend\n", "bad.s2asm");
    FAIL();
  } catch (const UserError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("bad.s2asm:2:1: unknown mnemonic 'frob'"), std::string::npos) << m;
    EXPECT_NE(m.find("bad.s2asm:3:6: 'nothing' is neither"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace s2::isa
