#pragma once
// .npy files as the compiler's host arrays: a thin adapter over the toolchain's one .npy
// reader and writer (isa/io/npy.h), which says what is written and accepted.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/host_array.h"

namespace s2::io {

struct NpyArray {
  ir::Shape shape;     // empty for a 0-d array (one element)
  ir::HostArray data;  // f32, i32 or u8, row-major
};

// The bytes of a .npy file holding `data` with `shape`.
std::vector<uint8_t> encode_npy(const ir::HostArray& data, const ir::Shape& shape);

// Parses the bytes of a .npy file; `source` names it in errors.
NpyArray decode_npy(const std::vector<uint8_t>& bytes, const std::string& source);

// Writes through a temporary file renamed into place.
void write_npy(const std::string& path, const ir::HostArray& data, const ir::Shape& shape);

NpyArray read_npy(const std::string& path);

// Reads a file that must hold exactly this element type and shape ('<i8' counts as i32).
ir::HostArray read_npy_expect(const std::string& path, isa::DType dtype, const ir::Shape& shape);

}  // namespace s2::io
