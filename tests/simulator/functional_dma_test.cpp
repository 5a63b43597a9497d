// Per-opcode tests of the DMA and control instructions' functional kernels, that every opcode
// has a kernel, and that malformed instructions are user errors (functional_program.h).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "isa/common/errors.h"
#include "tests/simulator/functional_program.h"

namespace s2::sim::functional {
namespace {

using isa::DType;
using isa::Field;
using isa::Opcode;
using isa::Slot;
using isa::TensorDesc;
using test::model_datapath;
using test::Program;

// ---- DMA and control ------------------------------------------------------------------------

TEST(FunctionalDma, CopyAndFillOfEveryTypeMatchTheReference) {
  for (DType t : {DType::F32, DType::I32, DType::U8}) {
    Program copy(Opcode::Copy);
    copy.set(Slot::Src, copy.tensor({4, 6}, t, 200)).set(Slot::Dst, copy.zeros({24}, t));
    EXPECT_TRUE(copy.matches_reference()) << isa::dtype_name(t);
    Program fill(Opcode::Fill);
    fill.set(Slot::Dst, fill.zeros({3, 5}, t));
    for (float v : {-0.0f, 7.75f, 250.0f, -3.5f}) {
      if (t == DType::U8 && v < 0) continue;  // the stream checker's cast is undefined there
      fill.inst().set_f32(Field::Value, v);
      EXPECT_TRUE(fill.matches_reference()) << isa::dtype_name(t) << " " << v;
    }
  }
}

TEST(FunctionalDma, CopyThroughStridedViewsTransposes) {
  Program p(Opcode::Copy);
  const TensorDesc src = p.transposed(3, 4), dst = p.zeros({3, 4});
  p.set(Slot::Src, src).set(Slot::Dst, dst);
  EXPECT_TRUE(p.matches_reference());
  const DramImage image = p.run_ours();
  const std::vector<float> stored =
      image.read_f32(TensorDesc::contiguous(src.addr, DType::F32, {4, 3}));
  const std::vector<float> out = image.read_f32(dst);
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < 4; ++j)
      EXPECT_EQ(out[i * 4 + j], stored[j * 3 + i]);
}

TEST(FunctionalDma, FillSaturatesIntegersAndKeepsNanOutOfThem) {
  Program p(Opcode::Fill);
  const TensorDesc i32 = p.zeros({2}, DType::I32);
  p.set(Slot::Dst, i32);
  p.inst().set_f32(Field::Value, 1e20f);
  EXPECT_EQ(p.run_ours().read_i32(i32), (std::vector<int32_t>{INT32_MAX, INT32_MAX}));
  p.inst().set_f32(Field::Value, std::nanf(""));
  EXPECT_EQ(p.run_ours().read_i32(i32), (std::vector<int32_t>{0, 0}));
}

TEST(FunctionalControl, BarrierAndEndLeaveDramUntouched) {
  for (Opcode op : {Opcode::Barrier, Opcode::End}) {
    Program p(op);
    p.tensor({16});
    const DramImage before = DramImage::load(p.exe());
    EXPECT_TRUE(p.run_ours().bytes() == before.bytes());
  }
}

TEST(FunctionalExecute, EveryOpcodeOfTheIsaHasAKernel) {
  EXPECT_EQ(kernel_registry().size(), isa::opcode_table().size());
  for (const isa::OpcodeInfo& info : isa::opcode_table())
    EXPECT_TRUE(kernel_registry().contains(info.mnemonic)) << info.mnemonic;
  try {
    kernel_registry().get("frobnicate");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("unknown functional kernel 'frobnicate'; known: end, "
                                          "barrier, copy, fill, conv2d",
                                          0),
              0u)
        << e.what();
  }
}

TEST(FunctionalExecute, MalformedInstructionsAndOutOfRangeDescriptorsAreUserErrors) {
  Program p(Opcode::Eltwise);
  const TensorDesc a = p.tensor({8});
  p.set(Slot::A, a)
      .set(Slot::Y, p.zeros({8}))
      .field(Field::Op, static_cast<uint32_t>(isa::EltwiseOp::Relu));
  DramImage image = DramImage::load(p.exe());
  TensorDesc far = a;
  far.addr = 1u << 20;
  p.inst().set_operand(Slot::A, far);
  EXPECT_THROW(execute_instruction(p.inst(), image, model_datapath()), UserError);
  p.inst().set_operand(Slot::A, TensorDesc::contiguous(0, DType::F32, {9}));
  EXPECT_THROW(execute_instruction(p.inst(), image, model_datapath()),
               UserError);  // 9 elements into 8
}

}  // namespace
}  // namespace s2::sim::functional
