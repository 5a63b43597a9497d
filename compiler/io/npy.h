#pragma once
// NumPy's .npy files: how the reference step, the simulator's dumps and the PyTorch
// cross-check exchange tensors.
//
// Writing produces exactly what numpy.save writes for a C-ordered little-endian array: format
// version 1.0, descr '<f4' or '<i4', the header padded with spaces to a multiple of 64 bytes.
// Reading accepts format versions 1.0 and 2.0, C order only, descr '<f4', '<i4', and '<i8'
// (NumPy's default integer, as labels usually come) which is narrowed to i32 with a range
// check. Every error is a UserError naming the file and what is wrong with it.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/host_array.h"

namespace s2::io {

struct NpyArray {
  ir::Shape shape;     // empty for a 0-d array (one element)
  ir::HostArray data;  // f32 or i32, row-major
};

// The bytes of a .npy file holding `data` (f32 or i32) with `shape`.
std::vector<uint8_t> encode_npy(const ir::HostArray& data, const ir::Shape& shape);

// Parses the bytes of a .npy file; `source` names it in errors.
NpyArray decode_npy(const std::vector<uint8_t>& bytes, const std::string& source);

// Writes through a temporary file renamed into place.
void write_npy(const std::string& path, const ir::HostArray& data, const ir::Shape& shape);

NpyArray read_npy(const std::string& path);

// Reads a file that must hold exactly this element type and shape ('<i8' counts as i32).
ir::HostArray read_npy_expect(const std::string& path, isa::DType dtype, const ir::Shape& shape);

}  // namespace s2::io
