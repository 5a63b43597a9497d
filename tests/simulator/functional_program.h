#pragma once
// A one-instruction S2Train program for the functional kernels' tests
// (tests/simulator/functional_{pe,ppu,dma}_test.cpp): tensors with random or given initial data
// (contiguous, transposed and sliced descriptors), one instruction, and a run through
// s2::sim::functional and through the compiler's stream checker (the op registry's reference
// kernels) compared over the whole DRAM image bit for bit.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "compiler/lower/stream_checker.h"
#include "isa/common/float_bits.h"
#include "isa/numerics/low_precision.h"
#include "simulator/functional/execute.h"

namespace s2::sim::functional::test {

// The C++ models at the default K-tile, as the compiler's stream checker uses.
inline Datapath& model_datapath() {
  static ModelDatapath model;
  return model.get();
}

using isa::DType;
using isa::Field;
using isa::Opcode;
using isa::Slot;
using isa::TensorDesc;

// A program under construction: tensors with initial data, and one instruction.
class Program {
 public:
  explicit Program(Opcode op) : inst_(op) { exe_.target = "test"; }

  // A dense tensor of random values in [-1, 1), rounded for bf16 and f16 (i32: `int_range`
  // values from 0).
  TensorDesc tensor(const std::vector<uint32_t>& shape, DType dtype = DType::F32,
                    uint32_t int_range = 0) {
    isa::TensorEntry e;
    e.name = "t" + std::to_string(exe_.tensors.size());
    e.dtype = dtype;
    e.shape = shape;
    e.addr = top_;
    e.size = e.dense_bytes();
    e.data_offset = exe_.data.size();
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    for (uint64_t i = 0; i < e.dense_bytes() / isa::dtype_bytes(dtype); ++i) {
      uint32_t bits = 0;
      if (dtype == DType::F32) {
        bits = f32_bits(real(rng_));
      } else if (dtype == DType::BF16 || dtype == DType::F16) {
        bits = numerics::bits16_from_f32(dtype, real(rng_));
      } else {
        bits = static_cast<uint32_t>(rng_() % std::max<uint32_t>(int_range, 1));
      }
      for (unsigned b = 0; b < isa::dtype_bytes(dtype); ++b)
        exe_.data.push_back(static_cast<uint8_t>(bits >> (8 * b)));
    }
    top_ += (e.size + 63) / 64 * 64;
    exe_.tensors.push_back(e);
    return TensorDesc::contiguous(e.addr, dtype, shape);
  }
  // A [rows, cols] view of a tensor stored [cols, rows]: read transposed through strides.
  TensorDesc transposed(uint32_t rows, uint32_t cols) {
    TensorDesc d = tensor({cols, rows});
    d.shape = {rows, cols, 0, 0};
    d.strides = {1, rows, 0, 0};
    return d;
  }
  // A view of `shape` whose innermost dimension is a slice of a row 3 elements longer.
  TensorDesc sliced(std::vector<uint32_t> shape) {
    std::vector<uint32_t> stored = shape;
    stored.back() += 3;
    TensorDesc d = tensor(stored);
    for (size_t i = 0; i < shape.size(); ++i)
      d.shape[i] = shape[i];
    d.addr += 4;  // starts one element in
    return d;
  }
  // A zero-initialised tensor (outputs).
  TensorDesc zeros(const std::vector<uint32_t>& shape, DType dtype = DType::F32) {
    TensorDesc d = tensor(shape, dtype, 1);
    std::fill(exe_.data.end() - static_cast<std::ptrdiff_t>(exe_.tensors.back().dense_bytes()),
              exe_.data.end(), uint8_t{0});
    return d;
  }

  // A dense f32 tensor holding `values`.
  TensorDesc values(const std::vector<uint32_t>& shape, const std::vector<float>& values) {
    TensorDesc d = tensor(shape);
    uint8_t* at = exe_.data.data() + exe_.tensors.back().data_offset;
    for (float v : values)
      for (unsigned b = 0; b < 4; ++b)
        *at++ = static_cast<uint8_t>(f32_bits(v) >> (8 * b));
    return d;
  }

  // A dense tensor of a float type (f32, bf16, f16) holding `values` rounded to it.
  TensorDesc typed(const std::vector<uint32_t>& shape, DType dtype,
                   const std::vector<float>& values) {
    TensorDesc d = zeros(shape, dtype);
    uint8_t* at = exe_.data.data() + exe_.tensors.back().data_offset;
    for (float v : values) {
      const uint32_t bits = dtype == DType::F32 ? f32_bits(v) : numerics::bits16_from_f32(dtype, v);
      for (unsigned b = 0; b < isa::dtype_bytes(dtype); ++b)
        *at++ = static_cast<uint8_t>(bits >> (8 * b));
    }
    return d;
  }

  isa::Instruction& inst() { return inst_; }
  Program& set(Slot slot, const TensorDesc& d) {
    inst_.set_operand(slot, d);
    return *this;
  }
  Program& field(Field f, uint32_t v) {
    inst_.set_raw(f, v);
    return *this;
  }

  const isa::Executable& exe() {
    exe_.instructions = {inst_};
    exe_.plan.dram_size = top_ + 64;
    return exe_;
  }

  // Our image after the instruction.
  DramImage run_ours() {
    DramImage image = DramImage::load(exe());
    execute_instruction(inst_, image, model_datapath());
    return image;
  }

  // Runs both models; true when every DRAM byte agrees.
  ::testing::AssertionResult matches_reference() {
    const DramImage ours = run_ours();
    lower::DramImage theirs = lower::DramImage::load(exe());
    lower::execute_instruction(exe_, 0, theirs);
    if (ours.bytes() == theirs.bytes()) return ::testing::AssertionSuccess();
    size_t first = 0;
    while (ours.bytes()[first] == theirs.bytes()[first])
      ++first;
    return ::testing::AssertionFailure() << "first differing byte at address " << first;
  }

  // The f32 values of `d` after our run.
  std::vector<float> result(const TensorDesc& d) { return run_ours().read_f32(d); }

 private:
  isa::Instruction inst_;
  isa::Executable exe_;
  uint64_t top_ = 0;
  std::mt19937 rng_{12345};
};

}  // namespace s2::sim::functional::test
