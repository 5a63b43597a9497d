#pragma once
// NumPy's .npy files, the one reader and writer of the toolchain: how `s2c reference`, the
// simulator's dumps, `s2c compile --input/--labels` and the PyTorch cross-check exchange
// tensors.
//
// Writing produces exactly what numpy.save writes for a C-ordered little-endian array: format
// version 1.0, descr '<f4', '<f2', '<i4' or '|u1', the header padded with spaces (room for the
// first axis to grow to 21 digits, as NumPy leaves it) to a multiple of 64 bytes. bf16, which
// NumPy lacks, is written as '<f4': each value widened exactly (its bits in the top half).
// Reading accepts format versions 1.0 and 2.0, C order only, descr '<f4', '<f2', '<i4', '|u1'
// and '<i8' (NumPy's default integer, as labels usually come), which is narrowed to i32 with a
// range check.
// Every error is a UserError naming the file and what is wrong with it.

#include <cstdint>
#include <string>
#include <vector>

#include "isa/encoding/isa_table.h"

namespace s2::npy {

using Shape = std::vector<int64_t>;  // empty for a 0-d array (one element)

struct Array {
  isa::DType dtype = isa::DType::F32;
  Shape shape;
  std::vector<uint8_t> data;  // the elements, little-endian, row-major
};

// "(2, 3)", "(4,)", "()": the shape as NumPy prints it.
std::string shape_text(const Shape& shape);

// The element type a .npy file of a `dtype` tensor holds: `dtype` itself, except bf16, which
// NumPy lacks: its values are written widened to float32, exactly (a bf16 is the top half of a
// float32), so every bit pattern survives.
isa::DType stored_dtype(isa::DType dtype);

// The bytes of a .npy file holding `data` (the elements of `shape`, little-endian; a bf16
// tensor's widened to float32, stored_dtype()).
std::vector<uint8_t> encode(isa::DType dtype, const Shape& shape, const std::vector<uint8_t>& data);
// Parses the bytes of a .npy file; `source` names it in errors.
Array decode(const std::vector<uint8_t>& bytes, const std::string& source);

// The .npy file a tensor named `tensor` is written to, as every tool names it (the simulator's
// dumps, `s2c reference`, scripts/torch_reference.py): the name with '/', '\\' and ':' (an
// ONNX node's scopes, PyTorch's "onnx::" names) and '%' written as %2F, %5C, %3A and %25, then
// ".npy". One file per name: with each replaced by '_', tensors 'v/x' and 'v_x' were dumped to
// the same v_x.npy, the second over the first, and the manifest named it for both.
std::string file_name(const std::string& tensor);

// Writes through a temporary file renamed into place.
void write(const std::string& path, isa::DType dtype, const Shape& shape,
           const std::vector<uint8_t>& data);
Array read(const std::string& path);

}  // namespace s2::npy
